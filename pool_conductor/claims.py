"""Claims: several machines from providers, bound together or not at all.

Poolboy's ResourceClaims for machines. The API resolves each resource
template (the provider's defaults, rendered, merged under it) and
validates it, and writes the claim ``pending`` with a conductor's name. A
conductor binds it in one transaction: the pools of its providers are
share-locked in name order, then for each resource one Free member of
its provider's pool that matches the template (SKIP LOCKED, none taken
twice) is given to a new allocation through the binding writer. When a
resource has no Free match and its pool has a broker, nothing is bound,
the claim stays ``pending`` and the machines missing are made by that
broker (pool_conductor.machines: recorded first, with a token
that names the claim's resource, within the pool's max_unready); a later
round binds them, first to the resources they were made for. Without a
broker, or when the broker fails, the claim is in ``error`` and nothing
is bound. Deleting a claim, or the end of its lifespan, releases
its machines through the binding writer.
"""
import datetime
import json

from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from pool_conductor import binding
from pool_conductor import conductors
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import claims as claims_db
from pool_conductor.db import free_nodes
from pool_conductor.db import machines as machines_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import expiry
from pool_conductor import handles
from pool_conductor import lifecycle
from pool_conductor import lifespans
from pool_conductor import machines
from pool_conductor import node_events
from pool_conductor import payloads
from pool_conductor import providers as providers_rules
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import sandbox
from pool_conductor import states
from pool_conductor import templates

# What bind() tells its caller.
BOUND = 'bound'
FAILED, BUSY, GONE = rounds.FAILED, rounds.BUSY, rounds.GONE
WAITING = 'waiting'  # machines are being made for it by a broker
SHORT = 'short'     # (internal) resources a broker is to make machines for

# Claims bound, and expired claims released, per conductor and round.
BATCH = 100
# Machines a broker makes for one resource of a claim before the claim
# gives up: a machine made for it may be taken by another allocation or
# claim before the claim's next round binds it.
MAX_MADE = 3
# Whose lifespan limits a claim, for the messages.
_HOLDER = 'its providers\''


def _event(claim, event_type: str, prev_state: str | None,
           state: str | None, message: str | None = None,
           level: str = 'info', changes: dict | None = None
           ) -> events.Event:
    """An event of a claim (as it is after the change), readable by its
    owner."""
    return events.Event(
        'claim', claim.uuid, event_type, object_name=claim.name,
        level=level, message=message, prev_state=prev_state, state=state,
        payload=payloads.claim(claim, {**(changes or {}),
                                       'state': state or claim.state}),
        owner=claim.owner)


# Resolution (the API) ------------------------------------------------------

def minimum_policy(policies) -> dict:
    """The lifespan policy of a claim: the shortest of each key over its
    providers' policies, as Poolboy applies several providers'."""
    result: dict = {}
    for policy in policies:
        for key in lifespans.KEYS:
            value = (policy or {}).get(key)
            if value and (key not in result or lifespans.duration(value)
                          < lifespans.duration(result[key])):
                result[key] = value
    return result


def whole_second(end: datetime.datetime | None
                 ) -> datetime.datetime | None:
    """An end rounded up to the second: MariaDB keeps whole seconds
    only, and a claim must not end before the end it was given."""
    if end is None or not end.microsecond:
        return end
    return end.replace(microsecond=0) + datetime.timedelta(seconds=1)


def _check_references(context, template: dict, index: int) -> None:
    try:
        if template.get('workflow'):
            pools_db.get(context, models.Workflow, template['workflow'])
        pools_db.get_many(context, models.Profile,
                          template.get('profiles') or ())
    except exception.ObjectNotFound as exc:
        raise exception.InvalidParameterValue(
            err='resources/%d/template: %s' % (index, exc.message)
        ) from None


def _choose_providers(context, resources: list) -> list:
    """The resources with a provider each: those that name none get the
    one whose match their template fits.

    :raises: InvalidParameterValue
    """
    if all(r.get('provider') for r in resources):
        return resources
    candidates = providers_db.list_all(context)
    return [r if r.get('provider') else {
        **r, 'provider': providers_rules.choose(
            candidates, r.get('template') or {}, i)}
        for i, r in enumerate(resources)]


def resolve(context, resources: list, claim: dict,
            template_schema: dict, check) -> list[dict]:
    """The resources of a new claim with their providers (chosen by
    match where they name none) and resolved templates: each provider's
    defaults (rendered) merged under the resource's template, checked
    against template_schema (check(schema, document, where)) and the
    provider's validation.

    :raises: ObjectNotFound for a provider, InvalidParameterValue
    """
    resources = _choose_providers(context, resources)
    found = providers_db.get_many(context, [r['provider']
                                            for r in resources])
    now = db_api.utcnow()
    budget = sandbox.Budget()
    result = []
    for i, resource in enumerate(resources):
        provider = found[resource['provider']]
        template = providers_rules.resolve(
            provider, resource.get('template') or {}, i, claim, now, budget)
        check(template_schema, template, 'resources/%d/template' % i)
        providers_rules.validate(provider, template, i, budget)
        _check_references(context, template, i)
        result.append({'provider': provider.name, 'template': template})
    return result


def create(context, values: dict, resources: list, rpcapi,
           template_schema: dict, check) -> models.Claim:
    """Write a claim pending for a live conductor to bind.

    :param values: uuid, name, owner, node_project, requester,
        lifespan_end (requested).
    :raises: ObjectNotFound, InvalidParameterValue, NoValidHost,
        ClaimAlreadyExists, ClaimDuplicateName
    """
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    now = db_api.utcnow()
    claim = {'uuid': values['uuid'], 'name': values.get('name'),
             'owner': values.get('owner'), 'resources': resources,
             'lifespan_end': templates.Timestamp(values['lifespan_end'])
             if values.get('lifespan_end') else None}
    resolved = resolve(context, resources, claim, template_schema, check)
    found = providers_db.get_many(context, [r['provider']
                                            for r in resolved])
    values['lifespan_end'] = whole_second(lifespans.end(
        minimum_policy(p.lifespan for p in found.values()), now, now,
        values.get('lifespan_end'), _HOLDER))
    host = rpcapi.pick_conductor(context)
    values.update(resources=resolved, state=states.CLAIM_PENDING,
                  conductor_affinity=host)
    with db_api.writer(context) as session:
        claim = claims_db.create(context, values)
        events.record(session, [_event(claim, 'pool.claim.create.end', None,
                                       states.CLAIM_PENDING)])
    return claim


# Binding (a conductor) -----------------------------------------------------

def token_prefix(claim_uuid: str, index: int | None = None) -> str:
    """How the broker tokens of the machines made for a claim (for one
    of its resources, with index) start."""
    prefix = claim_uuid.replace('-', '') + '-'
    return prefix if index is None else '%s%d-' % (prefix, index)


def _of_project(claim) -> str:
    if claim.node_project is None:
        return ''
    return ' owned or leased by project %s' % claim.node_project


def _document(claim) -> dict:
    """What templates see of a claim (resource_claim)."""
    return {'uuid': claim.uuid, 'name': claim.name, 'owner': claim.owner,
            'resources': claim.resources,
            'lifespan_end': templates.Timestamp(claim.lifespan_end)
            if claim.lifespan_end else None}


def _override(provider, template: dict, index: int, document: dict,
              requester: dict | None, now: datetime.datetime,
              instance_uuid: str, node) -> dict:
    """The template a bound resource applies to its machine: its
    provider's override over the claimed one.

    :raises: rounds.Rollback(FAILED) for an override that fails
    """
    handle = {'uuid': instance_uuid, 'allocation_uuid': instance_uuid,
              'resource_index': index, 'provider': provider.name,
              'node': {'uuid': node.uuid, 'name': node.name,
                       'pool': node.pool}}
    try:
        return providers_rules.override(provider, template, index, document,
                                        handle, requester, now)
    except exception.InvalidParameterValue as exc:
        raise rounds.Rollback(FAILED, exc.message) from None


def _bind(conn, claim) -> None:
    """Bind every resource of a locked pending claim that holds no
    machine (all of them, but for a claim that lost some) to nodes its
    node_project (if any) owns or leases, or raise rounds.Rollback (SHORT
    with the indexes of the resources a broker is to make machines for).
    """
    found = claims_db.providers(conn, [r['provider']
                                       for r in claim.resources])
    for resource in claim.resources:
        if resource['provider'] not in found:
            raise rounds.Rollback(FAILED, 'Provider %s does not exist any '
                                  'more.' % resource['provider'])
    pools = {}
    for name in sorted({p.pool for p in found.values()}):
        pools[name] = pools_db.lock_pool(conn, name, share=True)
        if pools[name] is None:
            raise rounds.Rollback(FAILED, 'Pool %s does not exist.' % name)
    # Machines made for the claim are looked for resource by resource
    # only if there are any (one query, not one per resource).
    made = any(p.broker for p in pools.values()) and bool(
        machines_db.made_for(conn, token_prefix(claim.uuid)))
    held = claims_db.held_resources(conn, claim.id)
    taken: dict[int, object] = {}
    missing: list[int] = []
    for i, resource in enumerate(claim.resources):
        if i in held:
            continue
        provider = found[resource['provider']]
        broker = pools[provider.pool].broker
        match = providers_rules.Match(resource['template'],
                                      providers_rules.ignored(provider))
        exclude = [n.id for n in taken.values()]
        if provider.resource_requires_claim:
            # Only a machine made for this resource of this claim.
            node = free_nodes.made_with(
                conn, provider.pool, token_prefix(claim.uuid, i), exclude,
                claim.node_project) if broker and made else None
            if node is not None:
                taken[i] = node
            elif broker:
                missing.append(i)
            else:
                raise rounds.Rollback(
                    FAILED, 'Provider %s makes a machine for each claim '
                    '(resource_requires_claim), and its pool %s has no '
                    'broker.' % (provider.name, provider.pool))
            continue
        # A machine made for this resource first: it was made to its
        # template, which its params may not show.
        node = free_nodes.made_with(
            conn, provider.pool, token_prefix(claim.uuid, i), exclude,
            claim.node_project) if broker and made else None
        if node is None:
            node = match.find(conn, provider.pool, exclude,
                              project=claim.node_project)
        if node is None:
            if match.find(conn, provider.pool, exclude, lock=False,
                          project=claim.node_project):
                raise rounds.Rollback(BUSY, None)
            if broker:
                missing.append(i)
                continue
            raise rounds.Rollback(
                FAILED, 'No Free machine of pool %s (provider %s)%s '
                'matches resource %d: %s.' % (
                    provider.pool, provider.name, _of_project(claim), i,
                    match.describe()))
        taken[i] = node
    if missing:
        raise rounds.Rollback(SHORT, missing)
    # One statement per set of actions: resources asking the same get
    # their machines together.
    groups: dict[str, list] = {}
    document = _document(claim)
    now = db_api.utcnow()
    for i, node in taken.items():
        resource = claim.resources[i]
        template = resource['template']
        instance_uuid = uuidutils.generate_uuid()
        applied = _override(found[resource['provider']], template, i,
                            document, claim.requester, now, instance_uuid,
                            node)
        groups.setdefault(json.dumps(providers_rules.request_actions(applied),
                                     sort_keys=True), []).append(
            binding.Grant(
                node=node, instance_uuid=instance_uuid,
                traits=tuple(sorted(set(template.get('traits') or ()))),
                allocation={'owner': claim.owner, 'pool': node.pool,
                            'resource_class': node.resource_class,
                            'lifespan_end': claim.lifespan_end,
                            'claim_id': claim.id, 'claim_resource': i}))
    # The claim's event is recorded with the last grant's (one statement;
    # the update below rolls it back with everything if the claim went).
    bound = [_event(claim, 'pool.claim.bound', claim.state,
                    states.CLAIM_BOUND, 'Bound to nodes %s' % ', '.join(
                        n.uuid for n in taken.values()),
                    changes={'last_error': None})]
    for i, (key, grants) in enumerate(groups.items()):
        if not binding.grant(conn, grants, free=True,
                             request_actions=json.loads(key),
                             also=bound if i == len(groups) - 1 else None,
                             conductor=claim.conductor_affinity):
            raise rounds.Rollback(BUSY, None)
    if not groups:
        events.record(conn, bound, conductor=claim.conductor_affinity)
    if not claims_db.update(conn, claim.id,
                            {'state': states.CLAIM_BOUND,
                             'last_error': None}):
        raise rounds.Rollback(GONE, None)


def _record_requests(context, claim_id: int, host: str,
                     missing: list[int]) -> str | None:
    """Under the claim's lock and its pools' (AutoFill's lock: one
    transaction at a time counts a pool's machines in flight), record
    the machines to make for the missing resources that have none on its
    way: one each, within the pool's max_unready, asked with the
    resource's template over the pool's create_parameters.

    :returns: the claim's UUID; None when it is no longer host's and
        pending.
    :raises: rounds.Rollback(FAILED) when a resource's machines were taken
        MAX_MADE times
    """
    with db_api.writer_connection(context) as conn:
        claim = claims_db.lock_pending(conn, claim_id, host)
        if claim is None:
            return None
        found = claims_db.providers(conn, [r['provider']
                                           for r in claim.resources])
        by_pool: dict[str, list[int]] = {}
        for i in missing:
            provider = found[claim.resources[i]['provider']]
            by_pool.setdefault(provider.pool, []).append(i)
        for name in sorted(by_pool):
            pool = pools_db.lock_pool(conn, name)
            if pool is None or not pool.broker:
                raise rounds.Rollback(FAILED, 'Pool %s has no broker any more.'
                                % name)
            room = machines.room(conn, pool)
            for i in by_pool[name]:
                prefix = token_prefix(claim.uuid, i)
                made = machines_db.made_for(conn, prefix)
                if any(m.pool == name and m.allocation_id is None
                       and m.instance_uuid is None for m in made):
                    continue    # on its way, or Free but locked
                if len(made) >= MAX_MADE:
                    raise rounds.Rollback(FAILED, (
                        'Resource %d: the %d machines broker %s made for '
                        'it were taken by others before the claim could '
                        'be bound.') % (i, len(made), pool.broker))
                if room is not None and room <= 0:
                    continue
                request = {**machines.create_parameters(pool),
                           **claim.resources[i]['template']}
                binding.begin_creation(
                    conn, name, pool.broker, host, 1,
                    request.get('resource_class'), token_prefix=prefix,
                    request=request, lessee=claim.node_project)
                if room is not None:
                    room -= 1
        return claim.uuid


def fail(context, claim_id: int, host: str, error: str) -> bool:
    """Record the failure of a pending claim of host (pool.claim.error).

    :returns: whether it was still host's and pending.
    """
    with db_api.writer_connection(context) as conn:
        claim = claims_db.lock_pending(conn, claim_id, host)
        if claim is None:
            return False
        claims_db.update(conn, claim_id, {'state': states.CLAIM_ERROR,
                                          'last_error': error})
        events.record(conn, [_event(
            claim, 'pool.claim.error', claim.state, states.CLAIM_ERROR,
            error, 'error', changes={'last_error': error})], conductor=host)
        return True


def take_over(context, claim_id: int, old_host: str | None,
              host: str) -> bool:
    """Make a pending claim of a dead conductor (or of none) host's,
    with a compare-and-swap, and record the takeover."""
    with db_api.writer_connection(context) as conn:
        if not claims_db.take_over(context, claim_id, old_host, host):
            return False
        uuid = claims_db.uuid_of(context, claim_id)
        events.record(conn, conductors.takeover('claim', uuid, old_host,
                                                host), conductor=host)
        return True


def _order(context, claim_id: int, host: str, missing: list[int]) -> str:
    """Have the brokers make the machines a pending claim misses; a
    broker's failure, or machines taken too often, is the claim's error.

    :returns: WAITING, FAILED or GONE.
    """
    try:
        uuid = retry.on_deadlock(_record_requests, context, claim_id, host,
                                 missing)
    except rounds.Rollback as exc:
        return FAILED if fail(context, claim_id, host,
                                        exc.args[1]) else GONE
    if uuid is None:
        return GONE
    error = machines.make_recorded(context, token_prefix(uuid), host)
    if error is not None:
        return FAILED if fail(
            context, claim_id, host,
            'A machine for the claim could not be made: %s' % error
        ) else GONE
    return WAITING


def bind(context, claim_id: int, host: str) -> str:
    """Bind a pending claim of host in one transaction, all its resources
    or none. A resource no Free machine matches is recorded as the
    claim's error, unless its pool has a broker: then the broker is asked
    for the machines missing and the claim stays pending.

    :returns: BOUND, WAITING, FAILED, BUSY (matching machines are locked
        by other transactions: try again) or GONE.
    """
    try:
        with db_api.writer_connection(context) as conn:
            claim = claims_db.lock_pending(conn, claim_id, host)
            if claim is None:
                return GONE
            _bind(conn, claim)
            return BOUND
    except rounds.Rollback as exc:
        outcome, error = exc.args
    except (db_exc.DBDeadlock, db_exc.DBDuplicateEntry):
        return BUSY
    if outcome == FAILED:
        recorded = fail(context, claim_id, host, error)
        return FAILED if recorded else GONE
    if outcome == SHORT:
        return _order(context, claim_id, host, error)
    return outcome


def process(context, claim_id: int, host: str) -> str | None:
    """bind() until it is not BUSY; never raises.

    :returns: the outcome, or None when the database is unreachable (the
        claim stays pending, and is tried again by the next round).
    """
    return rounds.settle(
        lambda: bind(context, claim_id, host),
        lambda error: fail(
            context, claim_id, host,
            'Unexpected error while binding: %s' % error),
        'claim %s' % claim_id)


def bind_pending(context, host: str) -> int:
    """Bind the pending claims of this conductor, of no conductor and of
    dead ones (taken over by a compare-and-swap on their conductor, so
    of several conductors exactly one binds each). Never raises.

    :returns: how many claims this call bound.
    """
    def bind(row):
        if row.conductor_affinity != host and not take_over(
                context, row.id, row.conductor_affinity, host):
            return False
        return process(context, row.id, host) == BOUND
    return rounds.run(lambda: claims_db.list_pending(
        context, host, rounds.hosts_to_serve(context, host), BATCH),
        bind, 'binding pending claims')


# Reading -------------------------------------------------------------------

def live(machines: list) -> list:
    """The handles of a claim (db.claims.machines()) that hold a machine:
    not lost."""
    return [m for m in machines
            if handles.state_of(m) != states.HANDLE_LOST]


def state_of(claim, machines: list) -> str:
    """The state shown: a bound claim with a machine for each resource,
    all InUse (their workflows done), is ready.

    claims_db.is_ready() is the same rule in SQL, by which the list of
    claims is filtered: change both together.
    """
    machines = live(machines)
    if (claim.state == states.CLAIM_BOUND
            and len(machines) == len(claim.resources or ())
            and all(m.pool_status == states.POOL_IN_USE
                    for m in machines)):
        return states.CLAIM_READY
    return claim.state


# Changes (the API) ---------------------------------------------------------

def _policy(context, claim) -> dict:
    found = providers_db.get_many(context, {
        r['provider'] for r in claim.resources})
    return minimum_policy(p.lifespan for p in found.values())


def changed_end(context, claim, requested: datetime.datetime | None
                ) -> datetime.datetime | None:
    """A new lifespan_end of a claim: within the limits of its providers'
    minimum policy, counted from the claim's creation.

    :raises: InvalidParameterValue
    """
    policy = _policy(context, claim)
    now = db_api.utcnow()
    if requested is None:
        if not lifespans.unlimited(policy):
            raise exception.InvalidParameterValue(
                err='lifespan_end cannot be removed: the lifespan of the '
                    'claim\'s providers has a maximum; the latest end '
                    'allowed is %s.' % lifespans.latest_end(
                        policy, claim.created_at, now).isoformat())
        return None
    return whole_second(lifespans.end(policy, claim.created_at, now,
                                      requested, _HOLDER))


def _node_values(node, actions: dict) -> dict:
    values = lifecycle.apply_actions(node, actions)
    if 'workflow' in actions and not actions['workflow']:
        values.update(workflow=None, stage=None, runnable=True)
    return values


def update(context, claim, values: dict) -> None:
    """Change a claim's lifespan_end and the templates of its bound
    resources (applied to their machines: params, profiles, workflow), in
    one transaction.

    :param values: lifespan_end (resolved by changed_end()), resources
        (already checked by providers.template_changes()).
    :raises: ClaimNotFound, InvalidState for templates of a claim that is
        not bound, ConcurrentUpdate, NodeLocked when a conductor still
        holds a machine locked after the retries
    """
    def work():
        with db_api.writer_connection(context) as conn:
            current = claims_db.lock(conn, claim.id)
            if current is None:
                raise exception.ClaimNotFound(claim=claim.uuid)
            if (current.resources != claim.resources
                    or current.state != claim.state):
                raise exception.ConcurrentUpdate(what='Claim %s'
                                                 % claim.uuid)
            changed = []
            if 'resources' in values:
                changed += _apply_templates(conn, current,
                                            values['resources'])
                changed.append(_event(
                    current, 'pool.claim.update.end', None, None,
                    'Changed: resources', changes=values))
            if ('lifespan_end' in values
                    and values['lifespan_end'] != current.lifespan_end):
                claims_db.set_allocations_end(conn, claim.id,
                                              values['lifespan_end'])
                changed.append(_event(
                    current, 'pool.lifespan.extended',
                    _iso(current.lifespan_end), _iso(values['lifespan_end']),
                    'lifespan_end changed', changes=values))
            claims_db.update(conn, claim.id, values)
            events.record(conn, changed)
    retry.on_deadlock(retry.on_node_locked, work)


def check_changeable(claim) -> None:
    """:raises: InvalidState unless the claim's templates may change (it
    is bound)"""
    if claim.state != states.CLAIM_BOUND:
        raise exception.InvalidState(
            err='The templates of claim %s cannot change: it is %s, not '
                'bound.' % (claim.uuid, claim.state))


def _iso(value: datetime.datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _apply_templates(conn, claim, resources: list) -> list[events.Event]:
    """Apply changed templates to the machines of a bound claim.

    :returns: the events of the nodes changed.
    """
    check_changeable(claim)
    allocs = {a.claim_resource: a
              for a in claims_db.allocations_of(conn, claim.id)}
    changes = {}
    for i, (old, new) in enumerate(zip(claim.resources, resources,
                                       strict=True)):
        if old['template'] != new['template'] and i in allocs:
            changes[allocs[i].node_id] = providers_rules.node_actions(
                old['template'], new['template'])
    found = []
    for node in binding_db.lock_nodes(conn, changes):
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid, host=node.reservation)
        values = _node_values(node, changes[node.id])
        if not claims_db.change_node(conn, node, values):
            raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)
        found += node_events.changed(
            node, values, 'Template of claim %s changed' % claim.uuid)
    return found


def _taken_off(template: dict, node) -> dict:
    """The params and profiles of a claim's template that its end takes
    off a machine besides what the binding recorded it set (set_by, set
    back as it was): those a change of the template added later."""
    recorded = getattr(node, 'set_by', None) or {}
    known = set(recorded.get('params') or ()) | set(
        recorded.get('unset') or ())
    actions = providers_rules.release_actions(template)
    actions['remove_parameters'] = [k for k in actions['remove_parameters']
                                    if k not in known]
    return actions


def _release(conn, claim, now: datetime.datetime) -> list[int]:
    """Release the machines of a locked claim through the binding writer
    (force: a deployed one is torn down, as at the end of a lifespan) and
    delete its allocations.

    :returns: the ids of the machines torn down (left deleting).
    :raises: NodeLocked
    """
    allocs = claims_db.allocations_of(conn, claim.id)
    nodes = binding_db.lock_nodes(conn, [a.node_id for a in allocs
                                         if a.node_id is not None])
    resource_of = {a.id: a.claim_resource for a in allocs}
    held = [n for n in nodes if n.allocation_id in resource_of]
    found = claims_db.providers(conn, [r['provider']
                                       for r in claim.resources])
    torn_down = []
    for node in held:
        values = expiry.torn_down(node, now)
        index = resource_of[node.allocation_id]
        resource = (claim.resources[index]
                    if index is not None and index < len(claim.resources)
                    else {})
        provider = found.get(resource.get('provider'))
        keep = bool(provider is not None and provider.keep_params)
        binding.release(conn, [node], force=True, values=values,
                        for_claim=True, keep_params=keep,
                        request_actions=None if keep else _taken_off(
                            resource.get('template') or {}, node))
        if values:
            torn_down.append(node.id)
    claims_db.delete_allocations(conn, claim.id)
    return torn_down


def destroy(context, claim, rpcapi) -> None:
    """Delete a claim, releasing its machines; those deployed are cast to
    a conductor that undeploys them.

    :param rpcapi: a pool_conductor.rpcapi.ConductorAPI.
    :raises: ClaimNotFound, NodeLocked when a conductor still holds a
        machine locked after the retries (retry.on_node_locked())
    """
    def work():
        with db_api.writer_connection(context) as conn:
            current = claims_db.lock(conn, claim.id)
            if current is None:
                raise exception.ClaimNotFound(claim=claim.uuid)
            torn_down = _release(conn, current, db_api.utcnow())
            claims_db.delete(conn, claim.id)
            events.record(conn, [_event(current, 'pool.claim.deleted',
                                        current.state, None)])
        return torn_down
    torn_down = retry.on_deadlock(retry.on_node_locked, work)
    if torn_down:
        # With no live conductor, the first one's provisioning check
        # moves them on.
        try:
            host = rpcapi.pick_conductor(context)
        except exception.NoValidHost:
            return
        for node_id in torn_down:
            rpcapi.continue_provisioning(context, node_id, host)


# Lost machines -------------------------------------------------------------

# What a claim does when a machine of one of its providers is lost
# (the provider's on_lost): bind another to the resource, or go to error.
ON_LOST_REPLACE = 'replace'
ON_LOST_ERROR = 'error'


def lose_machine(conn, node, reason: str) -> None:
    """Take a claim's machine from its claim because it is lost (deleted,
    failed, taken by an external manager), in the caller's transaction:
    the node is released through the binding writer (what the claim set
    taken off, unless its provider keeps it), its allocation stays as
    the claim's lost handle (error, with reason), and the claim, per its
    provider's on_lost, goes back to pending to be given another machine
    (replace, the default) or to error.

    :param node: the node, locked by this transaction, as
        binding_db.lock_nodes() reads it; nothing is done unless it is a
        claim's machine.
    :raises: NodeLocked, ConcurrentUpdate
    """
    if node.claim_uuid is None or node.allocation_id is None:
        return
    held = claims_db.of_allocation(conn, node.allocation_id)
    claim = claims_db.lock(conn, held.claim_id)
    index = held.claim_resource
    resource = (claim.resources[index]
                if index is not None and index < len(claim.resources or ())
                else {})
    provider = claims_db.providers(conn, [resource.get('provider')]).get(
        resource.get('provider'))
    keep = bool(provider is not None and provider.keep_params)
    message = 'Resource %s lost its machine %s: %s' % (index, node.uuid,
                                                       reason)
    policy = (provider.on_lost if provider is not None and provider.on_lost
              else ON_LOST_REPLACE)
    state = claim.state
    if claim.state in (states.CLAIM_BOUND, states.CLAIM_PENDING):
        state = (states.CLAIM_PENDING if policy == ON_LOST_REPLACE
                 else states.CLAIM_ERROR)
    changes = {'state': state}
    if state == states.CLAIM_ERROR:
        changes['last_error'] = message
    lost = _event(claim, 'pool.claim.handle.lost', claim.state, state,
                  message, 'warning', changes=changes)
    binding.release(conn, [node], force=True, for_claim=True,
                    keep_params=keep, lost=reason, also=[lost],
                    request_actions=None if keep else _taken_off(
                        resource.get('template') or {}, node))
    claims_db.update(conn, claim.id, changes)


def machine_lost(context, node_id: int, reason: str) -> bool:
    """lose_machine() in a transaction of its own: for whatever finds a
    claim's machine lost (an external manager took it, it failed).

    :returns: whether the node was a claim's machine, and is lost to it.
    :raises: NodeLocked
    """
    def work():
        with db_api.writer_connection(context) as conn:
            nodes = binding_db.lock_nodes(conn, [node_id])
            if not nodes or nodes[0].claim_uuid is None:
                return False
            if nodes[0].reservation:
                raise exception.NodeLocked(node=nodes[0].uuid,
                                           host=nodes[0].reservation)
            lose_machine(conn, nodes[0], reason)
            return True
    return retry.on_deadlock(work)


def lose_failed(context) -> int:
    """Periodic: a claim's machine whose deployment, rescue or cleaning
    failed is lost to its claim (machine_lost()), which gets another or
    goes to error per its provider's on_lost. Never raises.

    :returns: how many machines this call found lost.
    """
    return rounds.run(lambda: claims_db.failed_machines(
        context, states.FAIL_STATE.values(), BATCH),
        lambda node_id: machine_lost(
            context, node_id, 'its provision state failed'),
        'losing failed machines')


def _expire_one(context, claim_id: int) -> bool:
    now = db_api.utcnow()
    with db_api.writer_connection(context) as conn:
        # Read again under its lock: an extension that came first wins.
        current = claims_db.lock(
            conn, claim_id, models.Claim.lifespan_end <= now,
            models.Claim.state != states.CLAIM_EXPIRED)
        if current is None:
            return False
        _release(conn, current, now)
        claims_db.update(conn, claim_id, {'state': states.CLAIM_EXPIRED})
        events.record(conn, [_event(
            current, 'pool.lifespan.expired', current.state,
            states.CLAIM_EXPIRED, 'The lifespan of claim %s ended at %s'
            % (current.uuid, _iso(current.lifespan_end)))])
        return True


def expire(context, host: str) -> int:
    """Release the machines of claims whose lifespan has ended and make
    them expired: those of this conductor, of no conductor and of dead
    ones (a takeover, as expiry.expire()). Never raises.

    :returns: how many claims this call expired.
    """
    return expiry.expire_each(context, host, claims_db.list_expired,
                                 _expire_one, 'claim')
