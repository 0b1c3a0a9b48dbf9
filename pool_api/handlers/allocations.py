"""Allocations: /v1/allocations and /v1/nodes/<node>/allocation."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import allocations as schema
from pool_api.schemas import common
from pool_api import validation
from pool_conductor import allocations
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import claims as claims_db
from pool_conductor import exception
from pool_conductor import states

FIELDS = ('uuid', 'name', 'node_uuid', 'state', 'last_error',
          'resource_class', 'traits', 'candidate_nodes', 'extra', 'owner',
          'lifespan_end', 'pool', 'start_at', 'busy_from', 'busy_until',
          'missing_resources', 'created_at', 'updated_at', 'links')
SORT_KEYS = ('id', 'uuid', 'name', 'state', 'resource_class', 'owner',
             'lifespan_end', 'created_at', 'updated_at')
PATCHABLE = ('name', 'extra', 'lifespan_end')


def _require_allocations_api() -> None:
    microversion.require(microversion.ALLOCATIONS)


def _visible_fields() -> tuple:
    if microversion.at_least(microversion.ALLOCATION_OWNER):
        return FIELDS
    return tuple(f for f in FIELDS if f != 'owner')


def to_dict(alloc, fields=None) -> dict:
    """The API representation of an allocation."""
    values = {
        'uuid': alloc.uuid,
        'name': alloc.name,
        # A scheduled allocation's tentative node: the one its slot holds.
        'node_uuid': alloc.node_uuid or getattr(alloc, 'slot_node_uuid',
                                                None),
        'state': alloc.state,
        'last_error': alloc.last_error,
        'resource_class': alloc.resource_class,
        'traits': list(alloc.traits or []),
        'candidate_nodes': list(alloc.candidate_nodes or []),
        'extra': alloc.extra or {},
        'owner': alloc.owner,
        'lifespan_end': render.timestamp(alloc.lifespan_end),
        'pool': allocations.pool_of(alloc),
        'start_at': render.timestamp(getattr(alloc, 'start_at', None)),
        'busy_from': render.timestamp(getattr(alloc, 'busy_from', None)),
        'busy_until': render.timestamp(getattr(alloc, 'busy_until', None)),
        # A scheduled allocation that lost its node and has no other yet.
        'missing_resources': bool(getattr(alloc, 'missing_resources',
                                          False)),
        'created_at': render.timestamp(alloc.created_at),
        'updated_at': render.timestamp(alloc.updated_at),
        'links': links.resource_links('allocations', alloc.uuid),
    }
    return render.select(values, fields or _visible_fields())


def _node_for_request(ident: str):
    """A node named by a request body or query that the caller may see:
    a 400 when missing."""
    try:
        return util.get_authorized(ident, 'baremetal:node:get')
    except exception.NodeNotFound as exc:
        raise exception.InvalidParameterValue(err=exc.message) from None


def get_authorized(ident: str, rule: str):
    """The allocation of a request, if the caller may do rule on it.

    :raises: AllocationNotFound (also for one the caller may not see),
        Forbidden
    """
    alloc = allocations_db.get_allocation(flask.g.context, ident)
    policy.authorize_allocation(rule, alloc, ident)
    return alloc


def _not_of_claim(alloc, what: str) -> None:
    """A claim's machines are released and extended with the claim.

    :raises: AllocationOfClaim
    """
    if alloc.claim_id is not None:
        raise exception.AllocationOfClaim(
            allocation=alloc.uuid,
            claim=claims_db.uuid_of(flask.g.context, alloc.claim_id),
            what=what)


def create_allocation():
    """Create an allocation and hand it to a conductor, backfill one, or
    book one for a window."""
    _require_allocations_api()
    policy.authorize('baremetal:allocation:create')
    body = validation.json_body()
    validation.validate(schema.CREATE, body)
    project = util.restrict_owner(body)
    if body.get('node') is not None and not microversion.at_least(
            microversion.ALLOCATION_BACKFILL):
        raise exception.Invalid('Cannot set node when creating an '
                                'allocation in this API version.')
    # As in Ironic, even a null owner needs the version of the field.
    if 'owner' in body and not microversion.at_least(
            microversion.ALLOCATION_OWNER):
        raise exception.NotAcceptable('The owner field needs API version '
                                      '1.%d.' % microversion.ALLOCATION_OWNER)
    common.check_name(body.get('name'), 'allocation')
    common.check_uuid(body.get('uuid'), 'uuid')
    common.check_traits(body.get('traits'))
    values = {k: body[k] for k in ('uuid', 'name', 'resource_class', 'extra',
                                   'owner') if body.get(k) is not None}
    values['traits'] = sorted(set(body.get('traits') or ()))
    if project is not None:
        values['owner'] = project
    values['lifespan_end'] = validation.timestamp(body.get('lifespan_end'),
                                                  'lifespan_end')
    # A pool the caller may not read is not found, as a missing one.
    policy.check_readable('Pool', [body.get('pool')])
    start, end = util.window_of(body)
    node = _node_for_request(body['node']) if body.get('node') else None
    alloc = allocations.create(
        flask.g.context, values, util.rpcapi(), pool=body.get('pool'),
        node=node, candidates=body.get('candidate_nodes') or (),
        project=project, start=start, end=end)
    return util.created(to_dict(alloc), 'allocations', alloc.uuid)


def list_allocations():
    _require_allocations_api()
    policy.authorize('baremetal:allocation:list')
    project = policy.project_scope('baremetal:allocation:list_all')
    fields = params.get_fields(_visible_fields())
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(SORT_KEYS)
    args = {name: params.get_string(name, schema.FILTERS[name])
            for name in ('resource_class', 'node', 'owner')}
    filters = {'resource_class': args['resource_class']}
    state = flask.request.args.get('state')
    if state is not None:
        if state not in states.ALLOCATION_STATES:
            raise exception.InvalidParameterValue(
                err='Invalid allocation state "%s"; expected one of %s.'
                    % (state, ', '.join(states.ALLOCATION_STATES)))
        filters['state'] = state
    if args.get('node'):
        filters['node_id'] = _node_for_request(args['node']).id
    if args.get('owner') is not None:
        if not microversion.at_least(microversion.ALLOCATION_OWNER):
            raise exception.NotAcceptable(
                'The owner filter needs API version 1.%d.'
                % microversion.ALLOCATION_OWNER)
        if project is not None and args['owner'] != project:
            raise exception.Forbidden()
        filters['owner'] = args['owner']
    if project is not None:
        filters['owner'] = project
    allocs = allocations_db.list_allocations(
        flask.g.context, filters, limit=limit, marker=params.get_marker(),
        sort_key=sort_key, sort_dir=sort_dir)
    return params.page('allocations', allocs, limit,
                       [to_dict(a, fields) for a in allocs])


def get_allocation(allocation_ident):
    _require_allocations_api()
    alloc = get_authorized(allocation_ident, 'baremetal:allocation:get')
    fields = params.get_fields(_visible_fields())
    return flask.jsonify(to_dict(alloc, fields))


def update_allocation(allocation_ident):
    """Change the name, extra or lifespan_end of an allocation (JSON
    Patch); a new lifespan_end is within its pool's lifespan limits."""
    _require_allocations_api()
    if not microversion.at_least(microversion.ALLOCATION_UPDATE):
        raise exception.MethodNotAllowed(
            what='Updating an allocation',
            version='1.%d' % microversion.ALLOCATION_UPDATE)
    alloc = get_authorized(allocation_ident, 'baremetal:allocation:update')
    patch = validation.json_body()
    context = flask.g.context
    before = to_dict(alloc)
    after = validation.apply_patch(before, patch, PATCHABLE,
                                   {'name': None, 'extra': {},
                                    'lifespan_end': None})
    if after['extra'] is None:
        # As in Ironic: a null extra is an empty one.
        after['extra'] = {}
    validation.validate(schema.UPDATE, after)
    common.check_name(after['name'], 'allocation')
    changed = validation.changes(before, after, PATCHABLE)
    if 'lifespan_end' in changed:
        _not_of_claim(alloc, 'change the lifespan_end of')
        changed['lifespan_end'] = validation.timestamp(
            changed['lifespan_end'], 'lifespan_end')
    if changed:
        alloc = allocations.update(context, alloc, changed)
    return flask.jsonify(to_dict(alloc))


def delete_allocation(allocation_ident):
    """Delete an allocation and release its node."""
    _require_allocations_api()
    alloc = get_authorized(allocation_ident, 'baremetal:allocation:delete')
    _not_of_claim(alloc, 'delete')
    allocations.destroy(flask.g.context, alloc.uuid)
    return '', 204


def _allocation_of_node(node_ident: str, rule: str):
    context = flask.g.context
    node = util.get_authorized(node_ident, 'baremetal:node:get')
    if node.allocation_id is None:
        if node.instance_uuid:
            raise exception.Invalid(
                'Node %s has instance_uuid %s, which is not an '
                'allocation.' % (node.uuid, node.instance_uuid))
        raise exception.AllocationNotFound(allocation='of node %s'
                                           % node.uuid)
    alloc = allocations_db.get_allocation_by_id(context, node.allocation_id)
    policy.authorize_allocation(rule, alloc, 'of node %s' % node.uuid)
    return alloc


def get_node_allocation(node_ident):
    _require_allocations_api()
    alloc = _allocation_of_node(node_ident, 'baremetal:allocation:get')
    fields = params.get_fields(_visible_fields())
    return flask.jsonify(to_dict(alloc, fields))


def delete_node_allocation(node_ident):
    _require_allocations_api()
    alloc = _allocation_of_node(node_ident, 'baremetal:allocation:delete')
    _not_of_claim(alloc, 'delete')
    allocations.destroy(flask.g.context, alloc.uuid)
    return '', 204
