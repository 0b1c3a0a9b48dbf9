"""Nodes: /v1/nodes, their states and their maintenance mode."""
import flask

from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor import binding
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor import deploy_checks
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import filters as node_filters
from pool_conductor import nodes as node_changes
from pool_conductor import provisioning
from pool_conductor import retry
from pool_conductor import secrets
from pool_conductor import states

# Versions of Ironic's API that introduced what only this module checks.
PROVISION_STATE_FILTER = 9
RAID_CONFIG = 12
DRIVER_FILTER = 16
MANAGEMENT_VERBS = 4
CONFIGDRIVE_DICT = 56
CONFIGDRIVE_VENDOR_DATA = 59

FIELDS = ('uuid', 'name', 'description', 'driver', 'resource_class',
          'traits', 'properties', 'extra', 'instance_info', 'driver_info',
          'instance_uuid', 'allocation_uuid', 'provision_state',
          'target_provision_state', 'provision_updated_at', 'power_state',
          'target_power_state', 'maintenance', 'maintenance_reason',
          'owner', 'lessee', 'reservation', 'last_error', 'created_at',
          'updated_at', 'pool', 'pool_status', 'pool_allocated', 'params',
          'profiles', 'workflow', 'stage', 'runnable', 'broker',
          'broker_ref', 'broker_token', 'fault', 'external_manager',
          'external_ref', 'external_claim', 'external_state', 'links')
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
    'fault': microversion.FAULT,
}
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at',
             'provision_state', 'power_state', 'resource_class',
             'maintenance', 'owner', 'lessee', 'driver', 'instance_uuid',
             'provision_updated_at', 'pool', 'pool_status', 'workflow',
             'stage')
PATCHABLE = ('name', 'description', 'driver', 'resource_class',
             'properties', 'extra', 'instance_info', 'driver_info',
             'instance_uuid', 'owner', 'lessee', 'params', 'profiles',
             'workflow', 'stage', 'runnable', 'external_manager',
             'external_ref')
PATCH_DEFAULTS = {'properties': {}, 'extra': {}, 'instance_info': {},
                  'driver_info': {}, 'params': {}, 'profiles': [],
                  'runnable': True}
# Maps that a patch setting them to null empties, as in Ironic.
NULL_AS_EMPTY = ('properties', 'extra', 'instance_info', 'driver_info')
# Read-only fields that have their own API.
_READ_ONLY_HINTS = {
    'traits': 'Cannot update node traits via node patch. Node traits '
              'should be updated via the node traits API.',
    'maintenance': 'Cannot update node maintenance via node patch. Use '
                   'PUT or DELETE /v1/nodes/<node>/maintenance.',
    'maintenance_reason': 'Cannot update node maintenance via node '
                          'patch. Use PUT or DELETE '
                          '/v1/nodes/<node>/maintenance.',
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
POWER_TARGETS = {states.POWER_ON: states.POWER_ON,
                 states.POWER_OFF: states.POWER_OFF,
                 states.REBOOT: states.POWER_ON,
                 states.SOFT_POWER_OFF: states.POWER_OFF,
                 states.SOFT_REBOOT: states.POWER_ON}
# Soft power targets and the timeout came with version 1.27.
SOFT_POWER = 27
# Verbs a node in maintenance refuses, as Ironic's NodeInMaintenance.
MAINTENANCE_REFUSED = ('active', 'deploy', 'deleted', 'undeploy')
DEPLOYING_VERBS = ('active', 'deploy')
DELETE_ALLOWED_STATES = states.UPDATE_ALLOWED_STATES


def _visible(field: str) -> bool:
    minor = NEW_FIELDS.get(field)
    return minor is None or microversion.at_least(minor)


def _visible_fields() -> tuple:
    return tuple(f for f in FIELDS if _visible(f))


def to_dict(node, fields=None) -> dict:
    """The API representation of a node.

    :param fields: the fields to show; ``links`` always comes along, as
        in Ironic. All fields the request version knows when None.
    """
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
        'fault': node.fault,
        'external_manager': node.external_manager,
        'external_ref': node.external_ref,
        'external_claim': node.external_claim,
        'external_state': node.external_state,
        'links': links.resource_links('nodes', node.uuid),
    }
    return render.select(values, fields or _visible_fields())


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
    if body.get('instance_info') and not policy.allowed(
            'show_instance_secrets', target):
        info = secrets.mask(body['instance_info'])
        if info.get('image_url'):
            # It may be a temporary URL that grants access to the image.
            info['image_url'] = secrets.MASK
        body['instance_info'] = info
    return body


def present(node, fields=None) -> dict:
    """A node as the caller may see it: to_dict() with secrets hidden."""
    return hide_secrets(node, to_dict(node, fields))


def _node_url(node, suffix: str = '') -> str:
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
        'fault': _filter_arg('fault', microversion.FAULT),
        'instance_uuid': _filter_arg('instance_uuid'),
        'maintenance': params.get_bool('maintenance'),
        'associated': params.get_bool('associated'),
    }
    common.check_uuid(filters['instance_uuid'], 'instance_uuid')
    filters['match'] = _match_filters()
    return filters


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
            quoted = value if key in node_filters.BOOLEAN_FIELDS else (
                '"%s"' % value)
            found.append(node_filters.parse(key, 'Eq(%s)' % quoted))
    return found


def _list(detail: bool):
    policy.authorize('baremetal:node:list')
    project = policy.project_scope('baremetal:node:list_all')
    fields = params.get_list_fields(_visible_fields(), SHORT_FIELDS, detail)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(
        [k for k in SORT_KEYS if _visible(k)])
    filters = _filters()
    filters['project'] = project
    nodes = nodes_db.list_nodes(flask.g.context, filters, limit=limit,
                                marker=params.get_marker(),
                                sort_key=sort_key, sort_dir=sort_dir)
    return params.page('nodes', nodes, limit,
                       [present(n, fields) for n in nodes])


def list_nodes():
    return _list(detail=False)


def list_nodes_detail():
    return _list(detail=True)


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
    values = {k: v for k, v in body.items() if v is not None}
    external.check_node_values(flask.g.context, values)
    values.update(
        provision_state=(states.ENROLL
                         if microversion.at_least(microversion.ENROLL)
                         else states.AVAILABLE),
        power_state=None, maintenance=False)
    node = node_changes.create(flask.g.context, values)
    response = flask.jsonify(present(node))
    response.status_code = 201
    response.headers['Location'] = _node_url(node)
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


def update_node(node_ident):
    """Change fields of a node (JSON Patch)."""
    node = get_authorized(node_ident, 'baremetal:node:update')
    patch = validation.json_body()
    _check_patch_paths(patch)
    context = flask.g.context
    before = to_dict(node)
    patchable = [f for f in PATCHABLE if _visible(f)]
    after = validation.apply_patch(before, patch, patchable, PATCH_DEFAULTS)
    for field in NULL_AS_EMPTY:
        if after.get(field, {}) is None:
            after[field] = {}
    validation.validate(schema.UPDATE, {f: after[f] for f in patchable})
    common.check_name(after['name'], 'node')
    common.check_uuid(after['instance_uuid'], 'instance_uuid')
    changed = validation.changes(before, after, patchable)
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
    if reported and 'instance_uuid' not in changed:
        # A stage or runnable report moves a waiting node on, a repeated
        # one too.
        binding.report(context, node, changed)
        return flask.jsonify(present(nodes_db.get_node_by_id(context,
                                                             node.id)))
    if 'instance_uuid' not in changed:
        node = retry.on_node_locked(node_changes.update, context, node,
                                    changed)
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
    binding.delete_node(context, node)
    return '', 204


# States ------------------------------------------------------------------


def get_node_states(node_ident):
    node = get_authorized(node_ident, 'baremetal:node:get')
    body = {
        'console_enabled': False,
        'last_error': node.last_error,
        'power_state': node.power_state,
        'provision_state': node.provision_state,
        'provision_updated_at': render.timestamp(node.provision_updated_at),
        'target_power_state': node.target_power_state,
        'target_provision_state': node.target_provision_state,
    }
    if microversion.at_least(RAID_CONFIG):
        body.update(raid_config={}, target_raid_config={})
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
        if verb not in DEPLOYING_VERBS:
            raise exception.InvalidParameterValue(
                err='Adding a config drive is only supported when setting '
                    'provision state to active')
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
    # Ironic's messages: pool has neither the clean nor the rescue verb.
    if body.get('clean_steps'):
        raise exception.InvalidParameterValue(
            err='"clean_steps" is only valid when setting target provision '
                'state to clean')
    if body.get('rescue_password') is not None:
        raise exception.InvalidParameterValue(
            err='"rescue_password" is only valid when setting target '
                'provision state to rescue')


def _accepted(node):
    return '', 202, {'Location': _node_url(node, '/states')}


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
    if verb in ('manage', 'provide'):
        _require_version(MANAGEMENT_VERBS, 'The "%s" action' % verb)
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
    values = provisioning.begin(verb, db_api.utcnow(), node)
    if verb in DEPLOYING_VERBS:
        deploy_checks.check_instance_traits(node)
        # Ironic keeps the config drive of a deployment in instance_info
        # (an image it builds from a dict), where responses mask it.
        info = dict(node.instance_info or {})
        info.pop('configdrive', None)
        if body.get('configdrive'):
            info['configdrive'] = body['configdrive']
        values['instance_info'] = info
    if verb == 'manage' and node.power_state is None:
        # Ironic reads the power state while verifying a node it manages;
        # with no hardware behind the node it is recorded as off.
        values['power_state'] = states.POWER_OFF
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
    retry.on_node_locked(node_changes.update, flask.g.context, node, {
        'maintenance': False, 'maintenance_reason': None})
    return '', 202
