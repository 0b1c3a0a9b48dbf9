"""Nodes: /v1/nodes, their lists, creation, patches and deletion.

A node is shown by node_fields, its states and maintenance are changed
by node_states; a patch is checked here and saved by
pool_conductor.baremetal.nodes.patch(), which hands it to its writer.
"""
import re

import flask
from oslo_utils import strutils

from pool_api.handlers import node_fields
from pool_api.handlers import util
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api.schemas import common
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor.baremetal import nodes as node_changes
from pool_conductor import binding
from pool_conductor import claim_release
from pool_conductor.db import chassis as chassis_db
from pool_conductor.db import filters as node_filters
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor import drivers
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import pool_params
from pool_conductor import states

# The states in which a node's interfaces may change (else only in
# maintenance), as Ironic's.
INTERFACE_UPDATE_STATES = (states.ENROLL, 'inspecting', 'inspect wait',
                           states.MANAGEABLE, states.AVAILABLE)

SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at',
             'provision_state', 'power_state', 'resource_class',
             'maintenance', 'owner', 'lessee', 'driver', 'instance_uuid',
             'provision_updated_at', 'pool', 'pool_status', 'workflow',
             'stage')
PATCHABLE = ('name', 'description', 'driver', 'resource_class',
             'properties', 'extra', 'instance_info', 'driver_info',
             'chassis_uuid', 'instance_uuid', 'owner', 'lessee', 'params',
             'profiles', 'workflow', 'stage', 'runnable', 'maintenance',
             *drivers.FIELDS, 'conductor_group', 'automated_clean',
             'protected', 'protected_reason', 'retired', 'retired_reason',
             'external_manager', 'external_ref')
PATCH_DEFAULTS = {'properties': {}, 'extra': {}, 'instance_info': {},
                  'driver_info': {}, 'params': {}, 'profiles': [],
                  'runnable': True, 'maintenance': False, 'retired': False,
                  'protected': False,
                  'conductor_group': ''}
# Maps that a patch setting them to null empties, as in Ironic.
NULL_AS_EMPTY = ('properties', 'extra', 'instance_info', 'driver_info')
# Read-only fields that have their own API.
_READ_ONLY_HINTS = {
    'traits': 'Cannot update node traits via node patch. Node traits '
              'should be updated via the node traits API.',
    'maintenance_reason': 'Cannot update the maintenance reason via '
                          'node patch. Use PUT '
                          '/v1/nodes/<node>/maintenance.',
    'driver_internal_info': 'Cannot update driver_internal_info via node '
                            'patch: the conductors write it.',
    'conductor': 'Cannot update conductor via node patch: it is the '
                 'conductor that serves the node (see conductor_group).',
    'provision_state': 'Cannot update the provision state via node '
                       'patch. Use PUT /v1/nodes/<node>/states/provision.',
    'power_state': 'Cannot update the power state via node patch. Use '
                   'PUT /v1/nodes/<node>/states/power.',
    **{field: 'Cannot update %s via node patch: the pool actions '
              '(POST /v1/pools/<pool>/<action>) change it.' % field
       for field in ('pool', 'pool_status', 'pool_allocated')},
    **{field: 'Cannot update %s via node patch: it is the broker that '
              'made the node.' % field
       for field in ('broker', 'broker_ref', 'broker_token')},
    'fault': 'Cannot update fault via node patch: pool sets it.',
    **{field: 'Cannot update %s via node patch: the reconciler of the '
              'node\'s external manager sets it.' % field
       for field in ('external_claim', 'external_state')},
}
CONDUCTOR_GROUP_RE = re.compile(r'^[a-zA-Z0-9_\-\.:]{0,255}$')
DELETE_ALLOWED_STATES = states.UPDATE_ALLOWED_STATES


# Collections -------------------------------------------------------------


def _filter_arg(name: str, minor: int | None = None):
    value = params.get_string(name, schema.FILTERS[name])
    if value is not None and minor is not None:
        util.require_version(minor, 'The %s filter' % name)
    return value


def _filters() -> dict:
    filters = {
        'provision_state': _filter_arg('provision_state',
                                       microversion.PROVISION_STATE_FILTER),
        'resource_class': _filter_arg('resource_class',
                                      microversion.RESOURCE_CLASS),
        'owner': _filter_arg('owner', microversion.OWNER),
        'lessee': _filter_arg('lessee', microversion.LESSEE),
        'driver': _filter_arg('driver', microversion.DRIVER_FILTER),
        'conductor_group': _group_arg(_filter_arg('conductor_group',
                                                  microversion.CONDUCTOR_GROUP)),
        'fault': _filter_arg('fault', microversion.FAULT),
        'instance_uuid': _filter_arg('instance_uuid'),
        'maintenance': params.get_bool('maintenance'),
        'retired': _retired_arg(),
        'associated': params.get_bool('associated'),
    }
    common.check_uuid(filters['instance_uuid'], 'instance_uuid')
    chassis_uuid = _filter_arg('chassis_uuid')
    if chassis_uuid is not None:
        common.check_uuid(chassis_uuid, 'chassis_uuid')
        filters['chassis_id'] = _body_chassis(chassis_uuid).id
    filters['match'] = _match_filters()
    return filters


def _retired_arg() -> bool | None:
    value = params.get_bool('retired')
    if value is not None:
        util.require_version(microversion.RETIRED, 'The retired filter')
    return value


def _group_arg(value: str | None) -> str | None:
    """A conductor group, checked and lower-cased as Ironic keeps it.

    :raises: InvalidParameterValue
    """
    if value is None:
        return None
    if not isinstance(value, str) or not CONDUCTOR_GROUP_RE.match(value):
        raise exception.InvalidParameterValue(
            err='Invalid conductor_group "%s": it may have only letters, '
                'digits and the characters _-.: (at most 255).' % value)
    return value.lower()


def _match_filters() -> list:
    """Digital Rebar filters among the query parameters.

    Every parameter the route does not document is one (the API refused
    the others before the handler ran, see ``pool_api.app``): a function
    on a field or param (inventory/data/CPUS=Gte(4)), or a plain value on
    a field (pool=web), which means Eq.
    """
    documented = params.route_doc().query_names
    found = []
    for key, value in flask.request.args.items(multi=True):
        if key in documented:
            continue
        if node_filters.is_call(value):
            found.append(node_filters.parse(key, value))
        else:
            quoted = value if key in node_filters.BOOLEAN_KEYS else (
                '"%s"' % value)
            found.append(node_filters.parse(key, 'Eq(%s)' % quoted))
    return found


def _list(detail: bool, chassis=None):
    policy.authorize('baremetal:node:list')
    project = policy.project_scope('baremetal:node:list_all')
    fields = params.get_list_fields(node_fields.visible_fields(),
                                    node_fields.SHORT_FIELDS, detail)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(
        [k for k in SORT_KEYS if node_fields.visible(k)])
    filters = _filters()
    filters['project'] = project
    conductor = _filter_arg('conductor', microversion.CONDUCTORS)
    if chassis is not None:
        filters['chassis_id'] = chassis.id
    nodes = nodes_db.list_nodes(flask.g.context, filters, limit=limit,
                                marker=params.get_marker(),
                                sort_key=sort_key, sort_dir=sort_dir)
    alive = None
    if conductor is not None or 'conductor' in fields:
        alive = node_fields.alive_conductors()
    shown = nodes
    if conductor is not None:
        # As in Ironic, the page read is filtered: it may come out
        # shorter than the limit, and the next link follows the page.
        shown = [n for n in nodes
                 if node_fields.conductor_of(n, alive) == conductor]
    return params.page('nodes', nodes, limit,
                       [node_fields.present(n, fields, alive) for n in shown])


def list_nodes():
    return _list(detail=False)


def list_nodes_detail():
    return _list(detail=True)


def list_nodes_of_chassis(chassis, detail: bool):
    """The nodes of a chassis (/v1/chassis/<chassis>/nodes)."""
    return _list(detail, chassis)


def _body_chassis(chassis_uuid: str):
    """The chassis a request names: a 400 when it does not exist, as
    Ironic answers.

    :raises: InvalidParameterValue
    """
    try:
        return chassis_db.get_chassis(flask.g.context, chassis_uuid)
    except exception.ChassisNotFound as exc:
        raise exception.InvalidParameterValue(err=exc.message) from None


# A single node -----------------------------------------------------------


def create_node():
    policy.authorize('baremetal:node:create')
    body = validation.json_body()
    if isinstance(body, dict) and 'traits' in body:
        raise exception.Invalid('Cannot specify node traits on node '
                                'creation. Traits must be set via the node '
                                'traits API.')
    validation.validate(schema.CREATE, body)
    # As in Ironic, a null field is no field, in any version.
    node_fields.reject_newer_fields(
        [k for k, v in body.items() if v is not None], 'The field')
    common.check_uuid(body.get('uuid'), 'uuid')
    common.check_name(body.get('name'), 'node')
    check_pool_references(body)
    _booleans(body, ('retired', 'automated_clean'))
    if body.get('retired_reason') and not body.get('retired'):
        raise exception.InvalidParameterValue(
            err='The retired_reason field can only be set when retired is '
                'True')
    values = {k: v for k, v in body.items() if v is not None}
    values.update(drivers.check_interfaces(body['driver'], body,
                                           reset=True))
    values['conductor_group'] = _group_arg(body.get('conductor_group')) or ''
    if 'chassis_uuid' in values:
        common.check_uuid(values['chassis_uuid'], 'chassis_uuid')
        values['chassis_id'] = _body_chassis(values.pop('chassis_uuid')).id
    external.check_node_values(flask.g.context, values)
    values.update(
        provision_state=(states.ENROLL
                         if microversion.at_least(microversion.ENROLL)
                         else states.AVAILABLE),
        power_state=None, maintenance=False)
    node = node_changes.create(flask.g.context, values)
    return util.created(node_fields.present(node), 'nodes', node.uuid)


def get_node(node_ident):
    node = util.get_authorized(node_ident, 'baremetal:node:get')
    fields = params.get_fields(node_fields.visible_fields())
    return flask.jsonify(node_fields.present(node, fields))


def check_pool_references(values: dict, node=None) -> None:
    """Check the profiles and workflow a node is given exist, and that
    the caller may read those the node did not have already.

    :raises: ObjectNotFound
    """
    had = set(node.profiles or ()) if node is not None else set()
    if node is None or values.get('workflow') != node.workflow:
        policy.check_readable('Workflow', [values.get('workflow')])
    policy.check_readable('Profile', [p for p in values.get('profiles') or ()
                                      if p not in had])
    if values.get('workflow'):
        pools_db.get(flask.g.context, models.Workflow, values['workflow'])
    pools_db.get_many(flask.g.context, models.Profile,
                      values.get('profiles') or ())


def _check_patch_paths(patch) -> None:
    validation.validate(validation.PATCH_SCHEMA, patch)
    for op in patch:
        root = op['path'].split('/')[1]
        if root in _READ_ONLY_HINTS:
            raise exception.Invalid(_READ_ONLY_HINTS[root])
        node_fields.reject_newer_fields([root], 'Updating the field')


def _reset_interfaces(patch) -> bool:
    """The reset_interfaces parameter of a PATCH (version 1.45).

    :raises: NotAcceptable below 1.45, Invalid without a driver change
    """
    reset = params.get_bool('reset_interfaces')
    if reset is None:
        return False
    util.require_version(microversion.RESET_INTERFACES,
                         'The reset_interfaces parameter')
    if reset and not any(op['path'] == '/driver' for op in patch):
        raise exception.Invalid('The reset_interfaces parameter can only '
                                'be used when changing the node\'s driver.')
    return reset


def _booleans(values: dict, names=('maintenance', 'retired', 'protected',
                                    'automated_clean')) -> None:
    """Booleans given as strings, as Ironic takes them ("true"); null is
    false (automated_clean keeps null: the conductors' default).

    :raises: InvalidParameterValue
    """
    for name in names:
        value = values.get(name)
        if isinstance(value, str):
            try:
                values[name] = strutils.bool_from_string(value, strict=True)
            except ValueError:
                raise exception.InvalidParameterValue(
                    err='Invalid %s "%s": a boolean is expected.'
                        % (name, value)) from None
        elif value is None and name in values and name != 'automated_clean':
            values[name] = False


def _check_retired(node, changed: dict, after: dict) -> None:
    """Ironic's rules of retirement: not for an available node, with a
    reason only when retired, and the reason goes when the node comes
    back.

    :raises: NodeInWrongState, InvalidParameterValue
    """
    if 'retired' in changed:
        if not changed['retired']:
            changed['retired_reason'] = None
        elif node.provision_state == states.AVAILABLE:
            raise exception.NodeInWrongState(
                err="Node %s can not have 'retired' set in provision state "
                    "'available', the current state is '%s'"
                    % (node.uuid, node.provision_state))
    if changed.get('retired_reason') and not after.get('retired'):
        raise exception.InvalidParameterValue(
            err='The retired_reason field can only be set when retired is '
                'True')


def _check_protected(node, changed: dict, after: dict) -> None:
    """Ironic's rules of protection: only for an active node, with a
    reason only when protected, and the reason goes with it.

    :raises: NodeInWrongState, InvalidParameterValue
    """
    if 'protected' in changed:
        if not changed['protected']:
            changed['protected_reason'] = None
        elif node.provision_state != states.ACTIVE:
            raise exception.NodeInWrongState(
                err="Node %s can only be made protected in provision states "
                    "'active' or 'rescue', the current state is '%s'"
                    % (node.uuid, node.provision_state))
    if changed.get('protected_reason') and not after.get('protected'):
        raise exception.InvalidParameterValue(
            err='The protected_reason field can only be set when protected '
                'is True')


def _interface_changes(node, after: dict, changed: dict,
                       reset: bool) -> dict:
    """The interface fields a patch changes, checked and resolved (a
    null one is the default), and reset ones as Ironic resets them.

    :raises: InterfaceNotEnabled, NodeInWrongState
    """
    named = {f: after[f] for f in drivers.FIELDS if f in changed}
    if not named and not (reset and 'driver' in changed):
        return {}
    if named and not (node.provision_state in INTERFACE_UPDATE_STATES
                      or after.get('maintenance')):
        raise exception.NodeInWrongState(
            err='Node %s can not have %s updated unless it is in one of '
                'allowed (%s) states or in maintenance mode. Current state '
                'is \'%s\'.' % (node.uuid, ', '.join(sorted(named)),
                                 ', '.join(INTERFACE_UPDATE_STATES),
                                 node.provision_state))
    resolved = drivers.check_interfaces(after['driver'], named, reset=reset)
    return {f: v for f, v in resolved.items()
            if f in named or v != getattr(node, f)}


def update_node(node_ident):
    """Change fields of a node (JSON Patch)."""
    node = util.get_authorized(node_ident, 'baremetal:node:update')
    patch = validation.json_body()
    _check_patch_paths(patch)
    reset = _reset_interfaces(patch)
    context = flask.g.context
    before = node_fields.to_dict(node)
    patchable = [f for f in PATCHABLE if node_fields.visible(f)]
    after = validation.apply_patch(before, patch, patchable, PATCH_DEFAULTS)
    for field in NULL_AS_EMPTY:
        if after.get(field, {}) is None:
            after[field] = {}
    _booleans(after)
    if 'conductor_group' in after:
        after['conductor_group'] = _group_arg(after['conductor_group']
                                              or '')
    validation.validate(schema.UPDATE, {f: after[f] for f in patchable})
    common.check_name(after['name'], 'node')
    common.check_uuid(after['instance_uuid'], 'instance_uuid')
    changed = validation.changes(before, after, patchable)
    changed.update(_interface_changes(node, after, changed, reset))
    _check_retired(node, changed, after)
    _check_protected(node, changed, after)
    if 'automated_clean' in changed and changed['automated_clean'] is False:
        policy.authorize('baremetal:node:disable_cleaning')
    if 'maintenance' in changed and not changed['maintenance']:
        # As Ironic: leaving maintenance by a patch clears its reason.
        changed['maintenance_reason'] = None
    if 'params' in changed:
        changed['params'] = pool_params.without(node, changed['params'])
        if changed['params'] == (node.params or {}):
            del changed['params']
    reported = {op['path'].split('/')[1] for op in patch} & {'stage',
                                                             'runnable'}
    if reported:
        changed.update({f: after[f] for f in reported})
    if not changed:
        return flask.jsonify(node_fields.hide_secrets(node, before))
    check_pool_references(changed, node)
    external.check_node_values(context, changed, node)
    if 'owner' in changed or 'lessee' in changed:
        policy.authorize('baremetal:node:update_owner')
    shown = {}
    if 'chassis_uuid' in changed:
        policy.authorize('baremetal:node:update:chassis_uuid')
        shown['chassis_uuid'] = changed.pop('chassis_uuid')
        if shown['chassis_uuid'] is None:
            util.require_version(microversion.UNSET_CHASSIS,
                                 'Removing chassis_uuid')
            changed['chassis_id'] = None
        else:
            common.check_uuid(shown['chassis_uuid'], 'chassis_uuid')
            changed['chassis_id'] = _body_chassis(shown['chassis_uuid']).id
    node = node_changes.patch(context, node, changed, reported=bool(reported),
                              shown=shown)
    return flask.jsonify(node_fields.present(node))


def delete_node(node_ident):
    context = flask.g.context
    node = util.get_authorized(node_ident, 'baremetal:node:delete')
    if node.protected:
        raise exception.NodeProtected(node=node.uuid)
    # In maintenance a node goes away with its instance and allocation.
    if node.instance_uuid is not None and not node.maintenance:
        raise exception.NodeAssociated(node=node.uuid,
                                       instance=node.instance_uuid)
    if (node.provision_state not in DELETE_ALLOWED_STATES
            and not node.maintenance):
        raise exception.NodeInWrongState(
            err='Can not delete node "%s" while it is in provision state '
                '"%s". Valid provision states to perform deletion are: '
                '"%s", or set the node into maintenance mode.'
                % (node.uuid, node.provision_state,
                   ', '.join(DELETE_ALLOWED_STATES)))
    # A claim's machine is lost to its claim, which replaces it or
    # reports the loss.
    binding.delete_node(context, node, lose=claim_release.lose_machine)
    return '', 204
