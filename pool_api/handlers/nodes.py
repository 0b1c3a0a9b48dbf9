"""Nodes: /v1/nodes, their states and their maintenance mode."""
import re

import flask
from oslo_utils import strutils

from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor.baremetal import deploy_checks
from pool_conductor.baremetal import deploy_templates
from pool_conductor.baremetal import nodes as node_changes
from pool_conductor.baremetal import provisioning
from pool_conductor.baremetal import steps
from pool_conductor import binding
from pool_conductor import claim_release
from pool_conductor import conductors
from pool_conductor.db import api as db_api
from pool_conductor.db import chassis as chassis_db
from pool_conductor.db import filters as node_filters
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor import drivers
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import pool_params
from pool_conductor import retry
from pool_conductor import secrets
from pool_conductor import states

# Versions of Ironic's API that introduced what only this module checks.
CLEAN_STEP = 7
PROVISION_STATE_FILTER = 9
RAID_CONFIG = 12
DRIVER_FILTER = 16
MANAGEMENT_VERBS = 4
MANUAL_CLEAN = 15
REBUILD_CONFIGDRIVE = 35
RESCUE = 38
DEPLOY_STEP = 44
UNSET_CHASSIS = 25
CONFIGDRIVE_DICT = 56
DEPLOY_STEPS = 69
CONFIGDRIVE_VENDOR_DATA = 59
DRIVER_INTERNAL_INFO = 3
NETWORK_INTERFACE = 20
DYNAMIC_INTERFACES = 31
STORAGE_INTERFACE = 33
RESCUE_INTERFACE = 38
BIOS_INTERFACE = 40
RESET_INTERFACES = 45
CONDUCTOR_GROUP = 46
AUTOMATED_CLEAN = 47
PROTECTED = 48
FIRMWARE_INTERFACE = 86
# The version that introduced each interface field of a node.
INTERFACE_VERSIONS = {
    'bios_interface': BIOS_INTERFACE,
    'boot_interface': DYNAMIC_INTERFACES,
    'console_interface': DYNAMIC_INTERFACES,
    'deploy_interface': DYNAMIC_INTERFACES,
    'firmware_interface': FIRMWARE_INTERFACE,
    'inspect_interface': DYNAMIC_INTERFACES,
    'management_interface': DYNAMIC_INTERFACES,
    'network_interface': NETWORK_INTERFACE,
    'power_interface': DYNAMIC_INTERFACES,
    'raid_interface': DYNAMIC_INTERFACES,
    'rescue_interface': RESCUE_INTERFACE,
    'storage_interface': STORAGE_INTERFACE,
    'vendor_interface': DYNAMIC_INTERFACES,
}
# The states in which a node's interfaces may change (else only in
# maintenance), as Ironic's.
INTERFACE_UPDATE_STATES = (states.ENROLL, 'inspecting', 'inspect wait',
                           states.MANAGEABLE, states.AVAILABLE)

FIELDS = ('uuid', 'name', 'description', 'driver', 'resource_class',
          'traits', 'properties', 'extra', 'instance_info', 'driver_info',
          'driver_internal_info', *drivers.FIELDS, 'conductor_group',
          'conductor', 'automated_clean', 'protected', 'protected_reason',
          'retired', 'retired_reason', 'chassis_uuid', 'instance_uuid',
          'allocation_uuid', 'provision_state',
          'target_provision_state', 'provision_updated_at', 'power_state',
          'target_power_state', 'maintenance', 'maintenance_reason',
          'owner', 'lessee', 'reservation', 'last_error', 'created_at',
          'updated_at', 'pool', 'pool_status', 'pool_allocated', 'params',
          'profiles', 'workflow', 'stage', 'runnable', 'broker',
          'broker_ref', 'broker_token', 'console_enabled', 'raid_config',
          'target_raid_config', 'clean_step', 'deploy_step', 'fault',
          'external_manager', 'external_ref', 'external_claim',
          'external_state', 'links')
SHORT_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
                'provision_state', 'maintenance', 'links')
# Fields shown from the version 1.<minor> on.
NEW_FIELDS = {
    'description': microversion.DESCRIPTION,
    'resource_class': microversion.RESOURCE_CLASS,
    'traits': microversion.TRAITS,
    'allocation_uuid': microversion.ALLOCATIONS,
    'owner': microversion.OWNER,
    'lessee': microversion.LESSEE,
    'raid_config': RAID_CONFIG,
    'target_raid_config': RAID_CONFIG,
    'clean_step': CLEAN_STEP,
    'deploy_step': DEPLOY_STEP,
    'driver_internal_info': DRIVER_INTERNAL_INFO,
    **INTERFACE_VERSIONS,
    'conductor_group': CONDUCTOR_GROUP,
    'conductor': microversion.CONDUCTORS,
    'automated_clean': AUTOMATED_CLEAN,
    'protected': PROTECTED,
    'protected_reason': PROTECTED,
    'retired': microversion.RETIRED,
    'retired_reason': microversion.RETIRED,
    'fault': microversion.FAULT,
}
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
POWER_TARGETS = {states.POWER_ON: states.POWER_ON,
                 states.POWER_OFF: states.POWER_OFF,
                 states.REBOOT: states.POWER_ON,
                 states.SOFT_POWER_OFF: states.POWER_OFF,
                 states.SOFT_REBOOT: states.POWER_ON}
# Soft power targets and the timeout came with version 1.27.
SOFT_POWER = 27
# Verbs a node in maintenance refuses, as Ironic's NodeInMaintenance.
MAINTENANCE_REFUSED = ('active', 'deploy', 'rebuild', 'deleted',
                       'undeploy', 'clean', 'rescue', 'unrescue')
DEPLOYING_VERBS = ('active', 'deploy', 'rebuild')
# The version that introduced each verb, where it is not 1.1.
VERB_VERSIONS = {'manage': MANAGEMENT_VERBS, 'provide': MANAGEMENT_VERBS,
                 'clean': MANUAL_CLEAN, 'rescue': RESCUE,
                 'unrescue': RESCUE}
DELETE_ALLOWED_STATES = states.UPDATE_ALLOWED_STATES


def _visible(field: str) -> bool:
    minor = NEW_FIELDS.get(field)
    return minor is None or microversion.at_least(minor)


def _visible_fields() -> tuple:
    return tuple(f for f in FIELDS if _visible(f))


def _alive_conductors() -> list[tuple[str, str]]:
    return flask.current_app.config['RPCAPI'].alive_with_groups(
        flask.g.context)


def conductor_of(node, alive: list[tuple[str, str]]) -> str | None:
    """The conductor of a node as Ironic's conductor field shows it: the
    one holding it locked, else the one driving its workflow, else the
    live one of its conductor group that serves it."""
    return (node.reservation or node.pool_conductor_affinity
            or conductors.serving(alive, node.uuid,
                                  node.conductor_group or ''))


def to_dict(node, fields=None, alive=None) -> dict:
    """The API representation of a node.

    :param fields: the fields to show; ``links`` always comes along, as
        in Ironic. All fields the request version knows when None.
    :param alive: the live conductors, for the conductor field (read
        when not given and the field is shown).
    """
    fields = fields or _visible_fields()
    if 'conductor' in fields and alive is None:
        alive = _alive_conductors()
    values = {
        'uuid': node.uuid,
        'name': node.name,
        'description': node.description,
        'driver': node.driver,
        'resource_class': node.resource_class,
        'traits': sorted(t.trait for t in node.traits),
        'properties': node.properties or {},
        'extra': node.extra or {},
        'instance_info': node.instance_info or {},
        'driver_info': node.driver_info or {},
        'driver_internal_info': node.driver_internal_info or {},
        **{'%s_interface' % interface: drivers.of_node(node, interface)
           for interface in drivers.INTERFACES
           if '%s_interface' % interface in fields},
        'conductor_group': node.conductor_group or '',
        'automated_clean': node.automated_clean,
        'protected': bool(node.protected),
        'protected_reason': node.protected_reason,
        'retired': bool(node.retired),
        'retired_reason': node.retired_reason,
        'conductor': (conductor_of(node, alive) if 'conductor' in fields
                      else None),
        'chassis_uuid': node.chassis_uuid,
        'instance_uuid': node.instance_uuid,
        'allocation_uuid': node.allocation_uuid,
        'provision_state': node.provision_state,
        'target_provision_state': node.target_provision_state,
        'provision_updated_at': render.timestamp(node.provision_updated_at),
        'power_state': node.power_state,
        'target_power_state': node.target_power_state,
        'maintenance': bool(node.maintenance),
        'maintenance_reason': node.maintenance_reason,
        'owner': node.owner,
        'lessee': node.lessee,
        'reservation': node.reservation,
        'last_error': node.last_error,
        'created_at': render.timestamp(node.created_at),
        'updated_at': render.timestamp(node.updated_at),
        'pool': node.pool,
        'pool_status': node.pool_status,
        'pool_allocated': bool(node.pool_allocated),
        'params': node.params or {},
        'profiles': node.profiles or [],
        'workflow': node.workflow,
        'stage': node.stage,
        'runnable': node.runnable is not False,
        'broker': node.broker,
        'broker_ref': node.broker_ref,
        'broker_token': node.broker_token,
        'console_enabled': bool(node.console_enabled),
        'raid_config': node.raid_config or {},
        'target_raid_config': node.target_raid_config or {},
        'clean_step': node.clean_step or {},
        'deploy_step': node.deploy_step or {},
        'fault': node.fault,
        'external_manager': node.external_manager,
        'external_ref': node.external_ref,
        'external_claim': node.external_claim,
        'external_state': node.external_state,
        'links': links.resource_links('nodes', node.uuid),
    }
    return render.select(values, fields)


def hide_secrets(node, body: dict) -> dict:
    """Mask the secrets of a node's representation as Ironic does: the
    secrets of driver_info and instance_info (pool_conductor.secrets:
    keys such as password, at any depth, and a config drive whole, also
    one given as an object) and instance_info's image_url, unless the
    caller passes show_password or show_instance_secrets."""
    target = {'node.owner': node.owner or '',
              'node.lessee': node.lessee or ''}
    if body.get('driver_info') and not policy.allowed('show_password',
                                                      target):
        body['driver_info'] = secrets.mask(body['driver_info'])
    if body.get('driver_internal_info') and not policy.allowed(
            'show_password', target):
        body['driver_internal_info'] = secrets.mask(
            body['driver_internal_info'])
    if body.get('instance_info') and not policy.allowed(
            'show_instance_secrets', target):
        info = secrets.mask(body['instance_info'])
        if info.get('image_url'):
            # It may be a temporary URL that grants access to the image.
            info['image_url'] = secrets.MASK
        body['instance_info'] = info
    return body


def present(node, fields=None, alive=None) -> dict:
    """A node as the caller may see it: to_dict() with secrets hidden."""
    return hide_secrets(node, to_dict(node, fields, alive))


def node_url(node, suffix: str = '') -> str:
    return links.resource_links('nodes', node.uuid)[0]['href'] + suffix


def _require_version(minor: int, what: str) -> None:
    if not microversion.at_least(minor):
        raise exception.NotAcceptable('%s needs API version 1.%d or newer.'
                                      % (what, minor))


def _reject_newer_fields(names, what: str) -> None:
    for name in names:
        if name in NEW_FIELDS and not _visible(name):
            _require_version(NEW_FIELDS[name], '%s %s' % (what, name))


# Collections -------------------------------------------------------------


def _filter_arg(name: str, minor: int | None = None):
    value = params.get_string(name, schema.FILTERS[name])
    if value is not None and minor is not None:
        _require_version(minor, 'The %s filter' % name)
    return value


def _filters() -> dict:
    filters = {
        'provision_state': _filter_arg('provision_state',
                                       PROVISION_STATE_FILTER),
        'resource_class': _filter_arg('resource_class',
                                      microversion.RESOURCE_CLASS),
        'owner': _filter_arg('owner', microversion.OWNER),
        'lessee': _filter_arg('lessee', microversion.LESSEE),
        'driver': _filter_arg('driver', DRIVER_FILTER),
        'conductor_group': _group_arg(_filter_arg('conductor_group',
                                                  CONDUCTOR_GROUP)),
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
        _require_version(microversion.RETIRED, 'The retired filter')
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
    fields = params.get_list_fields(_visible_fields(), SHORT_FIELDS, detail)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(
        [k for k in SORT_KEYS if _visible(k)])
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
        alive = _alive_conductors()
    shown = nodes
    if conductor is not None:
        # As in Ironic, the page read is filtered: it may come out
        # shorter than the limit, and the next link follows the page.
        shown = [n for n in nodes if conductor_of(n, alive) == conductor]
    return params.page('nodes', nodes, limit,
                       [present(n, fields, alive) for n in shown])


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


def get_authorized(node_ident: str, rule: str):
    """The node of a request, if the caller may do rule on it.

    :raises: NodeNotFound (also for a node the caller may not see),
        Forbidden
    """
    node = nodes_db.get_node(flask.g.context, node_ident)
    policy.authorize_node(rule, node, node_ident)
    return node


def create_node():
    policy.authorize('baremetal:node:create')
    body = validation.json_body()
    if isinstance(body, dict) and 'traits' in body:
        raise exception.Invalid('Cannot specify node traits on node '
                                'creation. Traits must be set via the node '
                                'traits API.')
    validation.validate(schema.CREATE, body)
    # As in Ironic, a null field is no field, in any version.
    _reject_newer_fields([k for k, v in body.items() if v is not None],
                         'The field')
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
    response = flask.jsonify(present(node))
    response.status_code = 201
    response.headers['Location'] = node_url(node)
    return response


def get_node(node_ident):
    node = get_authorized(node_ident, 'baremetal:node:get')
    fields = params.get_fields(_visible_fields())
    return flask.jsonify(present(node, fields))


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
        _reject_newer_fields([root], 'Updating the field')


def _reset_interfaces(patch) -> bool:
    """The reset_interfaces parameter of a PATCH (version 1.45).

    :raises: NotAcceptable below 1.45, Invalid without a driver change
    """
    reset = params.get_bool('reset_interfaces')
    if reset is None:
        return False
    _require_version(RESET_INTERFACES, 'The reset_interfaces parameter')
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
    node = get_authorized(node_ident, 'baremetal:node:update')
    patch = validation.json_body()
    _check_patch_paths(patch)
    reset = _reset_interfaces(patch)
    context = flask.g.context
    before = to_dict(node)
    patchable = [f for f in PATCHABLE if _visible(f)]
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
        return flask.jsonify(hide_secrets(node, before))
    check_pool_references(changed, node)
    external.check_node_values(context, changed, node)
    if 'owner' in changed or 'lessee' in changed:
        policy.authorize('baremetal:node:update_owner')
    shown = {}
    if 'chassis_uuid' in changed:
        policy.authorize('baremetal:node:update:chassis_uuid')
        shown['chassis_uuid'] = changed.pop('chassis_uuid')
        if shown['chassis_uuid'] is None:
            _require_version(UNSET_CHASSIS, 'Removing chassis_uuid')
            changed['chassis_id'] = None
        else:
            common.check_uuid(shown['chassis_uuid'], 'chassis_uuid')
            changed['chassis_id'] = _body_chassis(shown['chassis_uuid']).id
    if reported and 'instance_uuid' not in changed:
        # A stage or runnable report moves a waiting node on, a repeated
        # one too.
        binding.report(context, node, changed)
        return flask.jsonify(present(nodes_db.get_node_by_id(context,
                                                             node.id)))
    if 'instance_uuid' not in changed:
        node = retry.on_node_locked(node_changes.update, context, node,
                                    changed, shown=shown)
        return flask.jsonify(present(node))
    instance = changed.pop('instance_uuid')
    if instance is None:
        binding.release_node(context, node, changed)
    elif node.allocation_id is not None:
        raise exception.Invalid(
            'Cannot set the instance_uuid of node %s: it has allocation %s.'
            % (node.uuid, node.allocation_uuid))
    else:
        binding.set_instance(context, node, instance, changed)
    return flask.jsonify(present(nodes_db.get_node_by_id(context, node.id)))


def delete_node(node_ident):
    context = flask.g.context
    node = get_authorized(node_ident, 'baremetal:node:delete')
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


# States ------------------------------------------------------------------


def get_node_states(node_ident):
    node = get_authorized(node_ident, 'baremetal:node:get')
    body = {
        'console_enabled': bool(node.console_enabled),
        'last_error': node.last_error,
        'power_state': node.power_state,
        'provision_state': node.provision_state,
        'provision_updated_at': render.timestamp(node.provision_updated_at),
        'target_power_state': node.target_power_state,
        'target_provision_state': node.target_provision_state,
    }
    if microversion.at_least(RAID_CONFIG):
        body.update(raid_config=node.raid_config or {},
                    target_raid_config=node.target_raid_config or {})
    return flask.jsonify(body)


def validate_node(node_ident):
    """Each driver interface's validation, as Ironic's fake-hardware
    answers it."""
    node = get_authorized(node_ident, 'baremetal:node:validate')
    return flask.jsonify(deploy_checks.validate_interfaces(node))


def _check_provision_body(verb: str, body: dict) -> None:
    """The fields beside the target, checked as Ironic checks them.

    :raises: InvalidParameterValue
    """
    configdrive = body.get('configdrive')
    if configdrive:
        allowed = ['active'] + (['rebuild'] if microversion.at_least(
            REBUILD_CONFIGDRIVE) else [])
        if verb not in allowed + ['deploy']:
            raise exception.InvalidParameterValue(
                err='Adding a config drive is only supported when setting '
                    'provision state to %s' % ', '.join(allowed))
        if isinstance(configdrive, dict):
            if not microversion.at_least(CONFIGDRIVE_DICT):
                raise exception.InvalidParameterValue(
                    err='Providing a JSON object for configdrive is only '
                        'supported starting with API version 1.%d'
                        % CONFIGDRIVE_DICT)
            if ('vendor_data' in configdrive and not microversion.at_least(
                    CONFIGDRIVE_VENDOR_DATA)):
                raise exception.InvalidParameterValue(
                    err='Providing vendor_data in configdrive is only '
                        'supported starting with API version 1.%d'
                        % CONFIGDRIVE_VENDOR_DATA)
    if body.get('clean_steps') and verb != 'clean':
        raise exception.InvalidParameterValue(
            err='"clean_steps" is only valid when setting target provision '
                'state to clean')
    if verb == 'clean' and not body.get('clean_steps'):
        raise exception.InvalidParameterValue(
            err='"clean_steps" is required when setting target provision '
                'state to clean')
    if body.get('deploy_steps'):
        _require_version(DEPLOY_STEPS, 'Providing deploy_steps')
        if verb not in DEPLOYING_VERBS:
            raise exception.InvalidParameterValue(
                err='"deploy_steps" is only valid when setting target '
                    'provision state to active or rebuild')
    password = body.get('rescue_password')
    if password is not None and verb != 'rescue':
        raise exception.InvalidParameterValue(
            err='"rescue_password" is only valid when setting target '
                'provision state to rescue')
    if verb == 'rescue' and not (password and password.strip()):
        raise exception.InvalidParameterValue(
            err='A non-empty "rescue_password" is required when setting '
                'target provision state to rescue')


def _verb_values(verb: str, node, body: dict) -> dict:
    """What a verb records beside its states: the config drive of a
    deployment (Ironic keeps it in instance_info, an image it builds
    from a dict, where responses mask it) and the deploy steps it runs
    (pool_conductor.baremetal.deploy_templates), the clean steps of a manual
    cleaning, the rescue password (also in
    instance_info, masked) until unrescue, the power state a managed
    node is read in."""
    values = {}
    info = dict(node.instance_info or {})
    if verb in DEPLOYING_VERBS:
        info.pop('configdrive', None)
        if body.get('configdrive'):
            info['configdrive'] = body['configdrive']
        values['instance_info'] = info
        values['provision_steps'] = deploy_templates.deploy_steps(
            flask.g.context, node, body.get('deploy_steps'))
    elif verb == 'clean':
        values['provision_steps'] = steps.clean_steps(body['clean_steps'])
    elif verb == 'rescue':
        values['instance_info'] = {**info,
                                   'rescue_password': body['rescue_password']}
    elif verb == 'unrescue' and 'rescue_password' in info:
        info.pop('rescue_password')
        values['instance_info'] = info
    if verb == 'manage' and node.power_state is None:
        # Ironic reads the power state while verifying a node it manages;
        # with no hardware behind the node it is recorded as off.
        values['power_state'] = states.POWER_OFF
    return values


def _accepted(node):
    return '', 202, {'Location': node_url(node, '/states')}


def set_power_state(node_ident):
    """Record a power state change; a reboot ends powered on."""
    node = get_authorized(node_ident, 'baremetal:node:set_power_state')
    body = validation.json_body()
    validation.validate(schema.POWER, body)
    target = body['target']
    if target in (states.SOFT_POWER_OFF, states.SOFT_REBOOT):
        _require_version(SOFT_POWER, 'The power state "%s"' % target)
    if body.get('timeout') is not None:
        _require_version(SOFT_POWER, 'A power state timeout')
    if target not in POWER_TARGETS:
        raise exception.InvalidParameterValue(
            err='Invalid power state "%s"; expected one of: %s.'
                % (target, ', '.join(POWER_TARGETS)))
    context = flask.g.context
    node = retry.on_node_locked(node_changes.update, context, node, {
        'power_state': POWER_TARGETS[target], 'target_power_state': None})
    return _accepted(node)


def set_provision_state(node_ident):
    """Record a provision state transition named by a verb."""
    node = get_authorized(node_ident, 'baremetal:node:set_provision_state')
    body = validation.json_body()
    validation.validate(schema.PROVISION, body)
    verb = body['target']
    if verb not in states.VERBS:
        raise exception.InvalidParameterValue(
            err='Invalid provision state target "%s"; expected one of: %s.'
                % (verb, ', '.join(states.VERBS)))
    if verb in VERB_VERSIONS:
        _require_version(VERB_VERSIONS[verb], 'The "%s" action' % verb)
    if verb in ('deleted', 'undeploy') and node.protected:
        raise exception.NodeProtected(node=node.uuid)
    if verb == 'provide' and node.retired:
        raise exception.NodeIsRetired(op='providing', node=node.uuid)
    context = flask.g.context
    if node.maintenance and verb in MAINTENANCE_REFUSED:
        raise exception.InvalidState(
            err='The requested action "%s" can not be performed on node '
                '"%s" while it is in maintenance mode.' % (verb, node.uuid))
    allowed_from = states.VERBS[verb][0]
    if node.provision_state not in allowed_from:
        # As in Ironic: a 409 only for a node something works on, else a
        # 400 (InvalidStateRequested), which clients do not retry.
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid,
                                       host=node.reservation)
        raise exception.InvalidState(
            err='The requested action "%s" can not be performed on node '
                '"%s" while it is in state "%s".'
                % (verb, node.uuid, node.provision_state))
    # After the state check, as in Ironic.
    _check_provision_body(verb, body)
    if verb in DEPLOYING_VERBS:
        deploy_checks.check_instance_traits(node)
    values = provisioning.begin(verb, db_api.utcnow(), node)
    values.update(_verb_values(verb, node, body))
    provisioning.request(context, node, values,
                         flask.current_app.config['RPCAPI'])
    return _accepted(node)


# Maintenance -------------------------------------------------------------


def set_maintenance(node_ident):
    node = get_authorized(node_ident, 'baremetal:node:set_maintenance')
    reason = flask.request.args.get('reason')
    if validation.body().strip():
        body = validation.json_body()
        validation.validate(schema.MAINTENANCE, body)
        reason = body.get('reason', reason)
    elif reason is not None:
        validation.validate(schema.MAINTENANCE, {'reason': reason})
    retry.on_node_locked(node_changes.update, flask.g.context, node, {
        'maintenance': True, 'maintenance_reason': reason})
    return '', 202


def unset_maintenance(node_ident):
    node = get_authorized(node_ident, 'baremetal:node:clear_maintenance')
    if node.fault in states.EXTERNAL_FAULTS:
        raise exception.ExternalHold(node=node.uuid, fault=node.fault)
    values = {'maintenance': False, 'maintenance_reason': None}
    if node.fault == states.FAULT_SCHEDULED_MAINTENANCE:
        # As Ironic clears a fault with the maintenance.
        values['fault'] = None
    retry.on_node_locked(node_changes.update, flask.g.context, node, values)
    return '', 202
