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
is bound.

Which machine a resource gets, and the template it applies to it, are
its provider's rules (pool_conductor.providers: match(), overrides());
this module holds the claim's job around them: the locks, the grants,
the claim's row and events. The rest of the family sits above it:
pool_conductor.claim_templates changes a claim (its lifespan_end, the
templates of its bound resources), pool_conductor.claim_release ends its
machines (a claim deleted, its lifespan ended, a machine lost).
"""
import datetime
import json

from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from pool_conductor import binding
from pool_conductor import conductors
from pool_conductor.db import api as db_api
from pool_conductor.db import claims as claims_db
from pool_conductor.db import machines as machines_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import handles
from pool_conductor import lifespans
from pool_conductor import machines
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
HOLDER = 'its providers\''


def event(claim, event_type: str, prev_state: str | None,
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


def iso(value: datetime.datetime | None) -> str | None:
    """A claim's time as its events give it."""
    return None if value is None else value.isoformat()


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
        values.get('lifespan_end'), HOLDER))
    host = rpcapi.pick_conductor(context)
    values.update(resources=resolved, state=states.CLAIM_PENDING,
                  conductor_affinity=host)
    with db_api.writer(context) as session:
        claim = claims_db.create(context, values)
        events.record(session, [event(
            claim, event_types.CLAIM_CREATE_END, None, states.CLAIM_PENDING)])
    return claim


# Binding (a conductor) -----------------------------------------------------

def token_prefix(claim_uuid: str, index: int | None = None) -> str:
    """How the broker tokens of the machines made for a claim (for one
    of its resources, with index) start."""
    prefix = claim_uuid.replace('-', '') + '-'
    return prefix if index is None else '%s%d-' % (prefix, index)


def _lock_pools(conn, claim) -> tuple[dict, dict]:
    """The providers of a locked claim's resources by name, and their
    pools by name, share-locked in name order.

    :raises: rounds.Rollback(FAILED) for a provider or pool that is gone
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
    return found, pools


def _take(conn, claim, found: dict, pools: dict) -> dict[int, object]:
    """A Free node, locked, for each resource of a locked claim that holds
    no machine (providers.match()), none taken twice.

    :returns: resource index -> node.
    :raises: rounds.Rollback (SHORT with the indexes of the resources a
        broker is to make machines for)
    """
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
        broker = bool(pools[provider.pool].broker)
        node = providers_rules.match(
            conn, claim, i, provider, broker,
            token_prefix(claim.uuid, i) if broker and made else None,
            [n.id for n in taken.values()])
        if node is None:
            missing.append(i)
        else:
            taken[i] = node
    if missing:
        raise rounds.Rollback(SHORT, missing)
    return taken


def _grant(conn, claim, taken: dict, instance_uuids: dict[int, str],
           applied: dict[int, dict], also: list[events.Event]) -> bool:
    """Give the nodes taken to new allocations of the claim through the
    binding writer, with the caller's events recorded with the last
    grant's (one statement).

    :param applied: resource index -> the template it applies
        (providers.overrides()).
    :returns: whether every node was still free.
    """
    # One statement per set of actions: resources asking the same get
    # their machines together.
    groups: dict[str, list] = {}
    for i, node in taken.items():
        template = claim.resources[i]['template']
        key = json.dumps(providers_rules.request_actions(applied[i]),
                         sort_keys=True)
        groups.setdefault(key, []).append(binding.Grant(
            node=node, instance_uuid=instance_uuids[i],
            traits=tuple(sorted(set(template.get('traits') or ()))),
            allocation={'owner': claim.owner, 'pool': node.pool,
                        'resource_class': node.resource_class,
                        'lifespan_end': claim.lifespan_end,
                        'claim_id': claim.id, 'claim_resource': i}))
    for n, (key, grants) in enumerate(groups.items()):
        if not binding.grant(conn, grants, free=True,
                             request_actions=json.loads(key),
                             also=also if n == len(groups) - 1 else None,
                             conductor=claim.conductor_affinity):
            return False
    if not groups:
        events.record(conn, also, conductor=claim.conductor_affinity)
    return True


def _bind(conn, claim) -> None:
    """Bind every resource of a locked pending claim that holds no
    machine (all of them, but for a claim that lost some) to nodes its
    node_project (if any) owns or leases, or raise rounds.Rollback (SHORT
    with the indexes of the resources a broker is to make machines for).
    Lock order: the claim, its pools (shared, by name), their nodes.
    """
    found, pools = _lock_pools(conn, claim)
    taken = _take(conn, claim, found, pools)
    instance_uuids = {i: uuidutils.generate_uuid() for i in taken}
    applied = providers_rules.overrides(claim, found, taken, instance_uuids,
                                        db_api.utcnow())
    # The claim's event is recorded with the last grant's (one statement;
    # the update below rolls it back with everything if the claim went).
    bound = [event(claim, event_types.CLAIM_BOUND, claim.state,
                   states.CLAIM_BOUND, 'Bound to nodes %s' % ', '.join(
                       n.uuid for n in taken.values()),
                   changes={'last_error': None})]
    if not _grant(conn, claim, taken, instance_uuids, applied, bound):
        raise rounds.Rollback(BUSY, None)
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
        events.record(conn, [event(
            claim, event_types.CLAIM_ERROR, claim.state, states.CLAIM_ERROR,
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
