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
broker through AutoFill's creation path (recorded first, with a token
that names the claim's resource, within the pool's max_unready); a later
round binds them, first to the resources they were made for. Without a
broker, or when the broker fails, the claim is in ``error`` and nothing
is bound. Deleting a claim, or the end of its lifespan, releases
its machines through the binding writer.
"""
import copy
import datetime
import json

import jsonpatch
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import uuidutils

from pool_conductor import autofill
from pool_conductor import binding
from pool_conductor.db import api as db_api
from pool_conductor.db import autofill as autofill_db
from pool_conductor.db import binding as binding_db
from pool_conductor.db import claims as claims_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pool_actions as actions_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import exception
from pool_conductor import lifecycle
from pool_conductor import lifespans
from pool_conductor import providers as providers_rules
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import sandbox
from pool_conductor import states
from pool_conductor import templates

LOG = log.getLogger(__name__)

# What bind() tells its caller.
BOUND = 'bound'
FAILED = 'failed'
BUSY = 'busy'       # matching machines exist, but other claims lock them
GONE = 'gone'       # deleted, bound, or another conductor's meanwhile
WAITING = 'waiting'  # machines are being made for it by a broker
SHORT = 'short'     # (internal) resources a broker is to make machines for

# Claims bound, and expired claims released, per conductor and round.
BATCH = 100
# Candidates read at once when a template has params SQL cannot compare
# (maps, lists, or params partly ignored).
_PAGE = 50
_BUSY_SLEEP_MIN = 0.005
_BUSY_SLEEP_MAX = 0.25
# Machines a broker makes for one resource of a claim before the claim
# gives up: a machine made for it may be taken by another allocation or
# claim before the claim's next round binds it.
MAX_MADE = 3
# Whose lifespan limits a claim, for the messages.
_HOLDER = 'its providers\''


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


def resolve(context, resources: list, claim: dict,
            template_schema: dict, check) -> list[dict]:
    """The resources of a new claim with resolved templates: each
    provider's defaults (rendered) merged under the resource's template,
    checked against template_schema (check(schema, document, where)) and
    the provider's validation.

    :raises: ObjectNotFound for a provider, InvalidParameterValue
    """
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

    :param values: uuid, name, owner, lifespan_end (requested).
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
    return claims_db.create(context, values)


# Binding (a conductor) -----------------------------------------------------

class _Rollback(Exception):
    """Leave the transaction: args[0] is the outcome, args[1] a message."""


def _ignored_under(ignored: list[tuple], prefix: tuple) -> list[tuple]:
    return [p[len(prefix):] for p in ignored if p[:len(prefix)] == prefix]


def _strip(value, ignored: list[tuple]):
    """A copy of value without the places ignored points to."""
    value = copy.deepcopy(value)
    for path in sorted(ignored, key=len, reverse=True):
        parent = value
        for part in path[:-1]:
            if isinstance(parent, dict):
                parent = parent.get(part)
            elif isinstance(parent, list) and part.isdigit() and int(
                    part) < len(parent):
                parent = parent[int(part)]
            else:
                parent = None
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif isinstance(parent, list) and path[-1].isdigit() and int(
                path[-1]) < len(parent):
            parent.pop(int(path[-1]))
    return value


class Match:
    """What a Free machine must be to satisfy a resource template,
    outside its provider's match_ignore: of its resource class, with its
    traits, with its params (the node's own) equal."""

    def __init__(self, template: dict, ignored: list[tuple]):
        whole = () in ignored
        self.resource_class = None if whole or ('resource_class',) in \
            ignored else template.get('resource_class')
        self.traits = () if whole or ('traits',) in ignored else tuple(
            sorted(set(template.get('traits') or ())))
        params = {} if whole or ('params',) in ignored else (
            template.get('params') or {})
        self.sql_params, self.other = {}, {}
        for key, value in params.items():
            under = _ignored_under(ignored, ('params', key))
            if () in under:
                continue
            if (not under and isinstance(value, (str, int, float, bool))
                    and value is not None):
                self.sql_params[key] = value
            else:
                self.other[key] = (value, under)

    def checks(self, node) -> bool:
        """Whether a node's params SQL did not compare match."""
        params = node.params or {}
        return all(
            key in params and _strip(params[key], under) == _strip(value,
                                                                   under)
            for key, (value, under) in self.other.items())

    def find(self, conn, pool: str, exclude, lock: bool = True):
        """A free node of pool that matches, locked (with lock)."""
        after = 0
        while True:
            rows = claims_db.free_nodes(
                conn, pool, self.resource_class, self.traits,
                self.sql_params, exclude, after,
                _PAGE if self.other else 1, lock)
            for row in rows:
                if self.checks(row):
                    return row
            if len(rows) < (_PAGE if self.other else 1):
                return None
            after = rows[-1].id

    def describe(self) -> str:
        parts = []
        if self.resource_class:
            parts.append('resource class %s' % self.resource_class)
        if self.traits:
            parts.append('traits %s' % ', '.join(self.traits))
        params = {**self.sql_params,
                  **{k: v for k, (v, _) in self.other.items()}}
        if params:
            parts.append('params %s' % json.dumps(params, sort_keys=True))
        return ' and '.join(parts) or 'any machine'


def request_actions(template: dict) -> dict:
    """What giving a machine to a resource does to it besides its pool's
    allocate actions: the template's params, profiles and workflow."""
    return {'add_parameters': template.get('params') or {},
            'add_profiles': template.get('profiles') or [],
            'workflow': template.get('workflow')}


def token_prefix(claim_uuid: str, index: int | None = None) -> str:
    """How the broker tokens of the machines made for a claim (for one
    of its resources, with index) start."""
    prefix = claim_uuid.replace('-', '') + '-'
    return prefix if index is None else '%s%d-' % (prefix, index)


def _bind(conn, claim) -> None:
    """Bind every resource of a locked pending claim, or raise _Rollback
    (SHORT with the indexes of the resources a broker is to make
    machines for).
    """
    found = claims_db.providers(conn, [r['provider']
                                       for r in claim.resources])
    for resource in claim.resources:
        if resource['provider'] not in found:
            raise _Rollback(FAILED, 'Provider %s does not exist any more.'
                            % resource['provider'])
    pools = {}
    for name in sorted({p.pool for p in found.values()}):
        pools[name] = actions_db.lock_pool(conn, name)
        if pools[name] is None:
            raise _Rollback(FAILED, 'Pool %s does not exist.' % name)
    # Machines made for the claim are looked for resource by resource
    # only if there are any (one query, not one per resource).
    made = any(p.broker for p in pools.values()) and bool(
        claims_db.made_for(conn, token_prefix(claim.uuid)))
    taken: list = []
    missing: list[int] = []
    for i, resource in enumerate(claim.resources):
        provider = found[resource['provider']]
        broker = pools[provider.pool].broker
        match = Match(resource['template'],
                      providers_rules.ignored(provider))
        exclude = [n.id for n in taken]
        # A machine made for this resource first: it was made to its
        # template, which its params may not show.
        node = claims_db.free_made_for(
            conn, provider.pool, token_prefix(claim.uuid, i),
            exclude) if broker and made else None
        if node is None:
            node = match.find(conn, provider.pool, exclude)
        if node is None:
            if match.find(conn, provider.pool, exclude, lock=False):
                raise _Rollback(BUSY, None)
            if broker:
                missing.append(i)
                continue
            raise _Rollback(FAILED, 'No Free machine of pool %s (provider '
                            '%s) matches resource %d: %s.'
                            % (provider.pool, provider.name, i,
                               match.describe()))
        taken.append(node)
    if missing:
        raise _Rollback(SHORT, missing)
    uuids = [uuidutils.generate_uuid() for _ in taken]
    ids = binding_db.insert_allocations(conn, [
        {'uuid': uuid, 'node_id': node.id, 'owner': claim.owner,
         'resource_class': node.resource_class,
         'traits': sorted(set(r['template'].get('traits') or ())),
         'extra': {'pool': node.pool, 'claim': claim.uuid,
                   'claim_resource': i},
         'lifespan_end': claim.lifespan_end, 'claim_id': claim.id}
        for i, (node, uuid, r) in enumerate(zip(
            taken, uuids, claim.resources, strict=True))])
    # One statement per set of actions: resources asking the same get
    # their machines together.
    groups: dict[str, list] = {}
    for node, uuid, alloc_id, resource in zip(taken, uuids, ids,
                                              claim.resources, strict=True):
        actions = request_actions(resource['template'])
        groups.setdefault(json.dumps(actions, sort_keys=True), []).append(
            binding.Grant(node=node, instance_uuid=uuid,
                          allocation_id=alloc_id,
                          traits=tuple(sorted(set(
                              resource['template'].get('traits') or ())))))
    for key, grants in groups.items():
        if not binding.claim(conn, grants, free=True,
                             request_actions=json.loads(key)):
            raise _Rollback(BUSY, None)
    if not claims_db.update(conn, claim.id,
                            {'state': states.CLAIM_BOUND,
                             'last_error': None}):
        raise _Rollback(GONE, None)


def _record_requests(context, claim_id: int, host: str,
                     missing: list[int]) -> str | None:
    """Under the claim's lock and its pools' (AutoFill's lock: one
    transaction at a time counts a pool's machines in flight), record
    the machines to make for the missing resources that have none on its
    way: one each, within the pool's max_unready, asked with the
    resource's template over the pool's create_parameters.

    :returns: the claim's UUID; None when it is no longer host's and
        pending.
    :raises: _Rollback(FAILED) when a resource's machines were taken
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
            pool = autofill_db.lock_pool(conn, name)
            if pool is None or not pool.broker:
                raise _Rollback(FAILED, 'Pool %s has no broker any more.'
                                % name)
            settings = autofill.Settings.of(pool.autofill)
            room = None if settings.max_unready is None else (
                settings.max_unready - claims_db.creating_count(conn, name))
            for i in by_pool[name]:
                prefix = token_prefix(claim.uuid, i)
                made = claims_db.made_for(conn, prefix)
                if any(m.pool == name and m.allocation_id is None
                       and m.instance_uuid is None for m in made):
                    continue    # on its way, or Free but locked
                if len(made) >= MAX_MADE:
                    raise _Rollback(FAILED, (
                        'Resource %d: the %d machines broker %s made for '
                        'it were taken by others before the claim could '
                        'be bound.') % (i, len(made), pool.broker))
                if room is not None and room <= 0:
                    continue
                request = {**settings.create_parameters,
                           **claim.resources[i]['template']}
                binding.begin_creation(
                    conn, name, pool.broker, host, 1,
                    request.get('resource_class'), token_prefix=prefix,
                    request=request)
                if room is not None:
                    room -= 1
        return claim.uuid


def _make(context, claim_uuid: str, host: str) -> str | None:
    """Have the brokers make the machines recorded for a claim that this
    conductor holds or no conductor does (left by a dead one: asked again
    with their token). After a failure, the requests not made yet are
    given up with the one that failed (the claim ends in error).

    :returns: the first broker's error, if any.
    """
    filler = autofill.AutoFiller(host)
    error = None
    for node in claims_db.creating_for(context, token_prefix(claim_uuid),
                                       host):
        if node.reservation is None and not nodes_db.reserve(
                context, node.id, host):
            continue
        if error is None:
            try:
                filler.make(context, node, autofill.broker_request(
                    node, autofill.Settings()))
                continue
            except exception.BrokerError as exc:
                error = str(exc)
        binding.abandon_creation(context, node.id, host)
    return error


def _order(context, claim_id: int, host: str, missing: list[int]) -> str:
    """Have the brokers make the machines a pending claim misses; a
    broker's failure, or machines taken too often, is the claim's error.

    :returns: WAITING, FAILED or GONE.
    """
    try:
        uuid = retry.on_deadlock(_record_requests, context, claim_id, host,
                                 missing)
    except _Rollback as exc:
        return FAILED if claims_db.fail(context, claim_id, host,
                                        exc.args[1]) else GONE
    if uuid is None:
        return GONE
    error = _make(context, uuid, host)
    if error is not None:
        return FAILED if claims_db.fail(
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
    except _Rollback as exc:
        outcome, error = exc.args
    except (db_exc.DBDeadlock, db_exc.DBDuplicateEntry):
        return BUSY
    if outcome == FAILED:
        recorded = claims_db.fail(context, claim_id, host, error)
        return FAILED if recorded else GONE
    if outcome == SHORT:
        return _order(context, claim_id, host, error)
    return outcome


def process(context, claim_id: int, host: str) -> str | None:
    """bind() until it is not BUSY; never raises.

    :returns: the outcome, or None when the database is unreachable (the
        claim stays pending, and is tried again by the next round).
    """
    try:
        return retry.while_result(lambda: bind(context, claim_id, host),
                                  BUSY, _BUSY_SLEEP_MIN, _BUSY_SLEEP_MAX)
    except Exception as exc:
        if db_api.is_unavailable(exc):
            LOG.warning('Database unreachable while binding claim %(id)s, '
                        'it will be retried: %(exc)s',
                        {'id': claim_id, 'exc': exc})
            return None
        LOG.exception('Unexpected error while binding claim %s', claim_id)
        try:
            claims_db.fail(context, claim_id, host,
                           'Unexpected error while binding: %s' % exc)
        except Exception:
            LOG.exception('Could not record the failure of claim %s',
                          claim_id)
        return FAILED


def bind_pending(context, host: str) -> int:
    """Bind the pending claims of this conductor, of no conductor and of
    dead ones (taken over by a compare-and-swap on their conductor, so
    of several conductors exactly one binds each). Never raises.

    :returns: how many claims this call bound.
    """
    def bind(row):
        if row.conductor_affinity != host and not claims_db.take_over(
                context, row.id, row.conductor_affinity, host):
            return False
        return process(context, row.id, host) == BOUND
    return rounds.run(lambda: claims_db.list_pending(
        context, host, rounds.hosts_to_serve(context, host), BATCH),
        bind, 'binding pending claims')


# Reading -------------------------------------------------------------------

def state_of(claim, machines: list) -> str:
    """The state shown: a bound claim with a machine for each resource,
    all InUse (their workflows done), is ready.

    claims_db.is_ready() is the same rule in SQL, by which the list of
    claims is filtered: change both together.
    """
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


def _paths(op: dict) -> list[tuple[str, str]]:
    """The (op, path) pairs an operation of a generated patch amounts to:
    a move removes its source and adds its target, a copy adds."""
    if op['op'] == 'move':
        return [('remove', op['from']), ('add', op['path'])]
    if op['op'] == 'copy':
        return [('add', op['path'])]
    return [(op['op'], op['path'])]


def template_changes(provider, index: int, old: dict, new: dict
                     ) -> list[dict]:
    """The JSON Patch from a bound resource's template to its new one,
    every operation allowed by the provider's update_filters.

    :raises: InvalidParameterValue naming the path an operation changes
        that no filter allows, or a change of what selected the machine
    """
    patch = jsonpatch.make_patch(old, new).patch
    for op in patch:
        for kind, path in _paths(op):
            root = path.split('/')[1] if path.count('/') else ''
            if root in ('resource_class', 'traits'):
                raise exception.InvalidParameterValue(
                    err='resources/%d/template%s: the %s of a bound '
                        'resource cannot change; it chose the machine.'
                        % (index, path, root))
            if not providers_rules.allowed_op(provider, kind, path):
                raise exception.InvalidParameterValue(
                    err='resources/%d/template%s: the update_filters of '
                        'provider %s do not allow the operation %s on this '
                        'path.' % (index, path, provider.name, kind))
    return patch


def node_actions(old: dict, new: dict) -> dict:
    """The transition actions that take a machine from the params,
    profiles and workflow of one template to those of another."""
    old_params, new_params = old.get('params') or {}, new.get(
        'params') or {}
    old_profiles, new_profiles = (old.get('profiles') or [],
                                  new.get('profiles') or [])
    actions = {
        'add_parameters': {k: v for k, v in new_params.items()
                           if old_params.get(k, v) != v
                           or k not in old_params},
        'remove_parameters': [k for k in old_params if k not in new_params],
        'add_profiles': [p for p in new_profiles if p not in old_profiles],
        'remove_profiles': [p for p in old_profiles
                            if p not in new_profiles],
    }
    if new.get('workflow') != old.get('workflow'):
        actions['workflow'] = new.get('workflow')
    return actions


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
        (already checked by template_changes()).
    :raises: ClaimNotFound, InvalidState for templates of a claim that is
        not bound, ConcurrentUpdate, NodeLocked
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
            if 'resources' in values:
                _apply_templates(conn, current, values['resources'])
            if 'lifespan_end' in values:
                claims_db.set_allocations_end(conn, claim.id,
                                              values['lifespan_end'])
            claims_db.update(conn, claim.id, values)
    retry.on_deadlock(work)


def check_changeable(claim) -> None:
    """:raises: InvalidState unless the claim's templates may change (it
    is bound)"""
    if claim.state != states.CLAIM_BOUND:
        raise exception.InvalidState(
            err='The templates of claim %s cannot change: it is %s, not '
                'bound.' % (claim.uuid, claim.state))


def _apply_templates(conn, claim, resources: list) -> None:
    check_changeable(claim)
    allocs = {(a.extra or {}).get('claim_resource'): a
              for a in claims_db.allocations_of(conn, claim.id)}
    changes = {}
    for i, (old, new) in enumerate(zip(claim.resources, resources,
                                       strict=True)):
        if old['template'] != new['template'] and i in allocs:
            changes[allocs[i].node_id] = node_actions(old['template'],
                                                      new['template'])
    for node in binding_db.lock_nodes(conn, changes):
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid, host=node.reservation)
        if not claims_db.change_node(conn, node, _node_values(
                node, changes[node.id])):
            raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)


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
    held = [n for n in nodes
            if n.allocation_id in {a.id for a in allocs}]
    torn_down = []
    for node in held:
        values = lifespans.torn_down(node, now)
        binding.release(conn, [node], force=True, values=values,
                        for_claim=True)
        if values:
            torn_down.append(node.id)
    claims_db.delete_allocations(conn, claim.id)
    return torn_down


def destroy(context, claim, rpcapi) -> None:
    """Delete a claim, releasing its machines; those deployed are cast to
    a conductor that undeploys them.

    :param rpcapi: a pool_conductor.rpcapi.ConductorAPI.
    :raises: ClaimNotFound, NodeLocked
    """
    def work():
        with db_api.writer_connection(context) as conn:
            current = claims_db.lock(conn, claim.id)
            if current is None:
                raise exception.ClaimNotFound(claim=claim.uuid)
            torn_down = _release(conn, current, db_api.utcnow())
            claims_db.delete(conn, claim.id)
        return torn_down
    torn_down = retry.on_deadlock(work)
    if torn_down:
        # With no live conductor, the first one's provisioning check
        # moves them on.
        try:
            host = rpcapi.pick_conductor(context)
        except exception.NoValidHost:
            return
        for node_id in torn_down:
            rpcapi.continue_provisioning(context, node_id, host)


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
        return True


def expire(context, host: str) -> int:
    """Release the machines of claims whose lifespan has ended and make
    them expired: those of this conductor, of no conductor and of dead
    ones (a takeover, as lifespans.expire()). Never raises.

    :returns: how many claims this call expired.
    """
    return lifespans.expire_each(context, host, claims_db.list_expired,
                                 _expire_one, 'claim')
