"""Ports: /v1/ports and /v1/nodes/<node>/ports."""
import flask
from oslo_utils import strutils
from oslo_utils import uuidutils

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import ports as schema
from pool_api import validation
from pool_conductor.baremetal import ports
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor.db import ports as ports_db
from pool_conductor import exception


FIELDS = ('uuid', 'address', 'node_uuid', 'portgroup_uuid', 'pxe_enabled',
          'local_link_connection', 'physical_network', 'extra',
          'internal_info', 'is_smartnic', 'created_at', 'updated_at',
          'links')
SHORT_FIELDS = ('uuid', 'address', 'links')
# Fields shown from the version 1.<minor> on.
NEW_FIELDS = {
    'internal_info': microversion.PORT_INTERNAL_INFO,
    'pxe_enabled': microversion.LOCAL_LINK,
    'local_link_connection': microversion.LOCAL_LINK,
    'portgroup_uuid': microversion.PORTGROUP_SUBRESOURCES,
    'physical_network': microversion.PHYSICAL_NETWORK,
    'is_smartnic': microversion.SMARTNIC,
}
SORT_KEYS = ('id', 'uuid', 'address', 'created_at', 'updated_at',
             'pxe_enabled', 'physical_network', 'is_smartnic')
PATCHABLE = ('address', 'node_uuid', 'portgroup_uuid', 'pxe_enabled',
             'local_link_connection', 'physical_network', 'extra',
             'is_smartnic')
PATCH_DEFAULTS = {'pxe_enabled': True, 'local_link_connection': {},
                  'portgroup_uuid': None,
                  'physical_network': None, 'extra': {},
                  'is_smartnic': False}


def _visible(field: str) -> bool:
    minor = NEW_FIELDS.get(field)
    return minor is None or microversion.at_least(minor)


def _visible_fields() -> tuple:
    return tuple(f for f in FIELDS if _visible(f))


def to_dict(port, fields=None) -> dict:
    """The API representation of a port."""
    values = {
        'uuid': port.uuid,
        'address': port.address,
        'node_uuid': port.node_uuid,
        'portgroup_uuid': port.portgroup_uuid,
        'pxe_enabled': bool(port.pxe_enabled),
        'local_link_connection': port.local_link_connection or {},
        'physical_network': port.physical_network,
        'extra': port.extra or {},
        'internal_info': port.internal_info or {},
        'is_smartnic': bool(port.is_smartnic),
        'created_at': render.timestamp(port.created_at),
        'updated_at': render.timestamp(port.updated_at),
        'links': links.resource_links('ports', port.uuid),
    }
    return render.select(values, fields or _visible_fields())


def _reject_newer_fields(names, what: str) -> None:
    for name in names:
        if not _visible(name):
            raise exception.NotAcceptable(
                '%s %s needs API version 1.%d or newer.'
                % (what, name, NEW_FIELDS[name]))


def _as_bool(value, name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for %s: expected a boolean.'
                % (value, name)) from None


def _values(body: dict) -> dict:
    """The columns of a port from a checked body; None is the default."""
    values = {k: v for k, v in body.items()
              if k in PATCHABLE and k not in ('node_uuid', 'portgroup_uuid')
              and v is not None}
    for name in ('pxe_enabled', 'is_smartnic'):
        if name in values:
            values[name] = _as_bool(values[name], name)
    return values


def _get_port(port_uuid: str, rule: str):
    """The port of a request and its node, if the caller may do rule on
    it; a caller who may not see the node does not see its port.

    :raises: PortNotFound, Forbidden
    """
    context = flask.g.context
    port = ports_db.get_port(context, port_uuid)
    node = nodes_db.get_node_by_id(context, port.node_id)
    policy.authorize(rule, util.node_target(node), 'baremetal:port:get',
                     exception.PortNotFound(port=port_uuid))
    return port, node


def _body_portgroup(ident: str | None):
    """The port group a request body names, None for none: a 400 when it
    does not exist, as Ironic answers."""
    if ident is None:
        return None
    try:
        return portgroups_db.get_portgroup(flask.g.context, ident)
    except exception.PortgroupNotFound as exc:
        raise exception.InvalidParameterValue(err=exc.message) from None


# Collections -------------------------------------------------------------


def _list_node(node_ident: str | None):
    """The node a list is limited to, from the path or the query."""
    node_uuid = params.get_string('node_uuid', schema.FILTERS['node_uuid'])
    node = params.get_string('node', schema.FILTERS['node'])
    ident = node_ident or node or node_uuid
    if node_ident is None and node and node_uuid:
        raise exception.InvalidParameterValue(
            err='Only one of node and node_uuid may be given.')
    if ident is None:
        return None
    if not uuidutils.is_uuid_like(ident) and not microversion.at_least(
            microversion.NODE_NAMES):
        raise exception.NotAcceptable(
            'Node names need API version 1.%d or newer.'
            % microversion.NODE_NAMES)
    if node_ident is None and node_uuid is not None:
        common.check_uuid(node_uuid, 'node_uuid')
    return util.get_authorized(ident, 'baremetal:node:get')


def _list_portgroup(portgroup_ident: str | None):
    """The port group a list is limited to, from the path or the query.

    :raises: NotFound (nested) or NotAcceptable (query) below 1.24
    """
    ident = portgroup_ident or params.get_string(
        'portgroup', schema.FILTERS['portgroup'])
    if ident is None:
        return None
    if not microversion.at_least(microversion.PORTGROUP_SUBRESOURCES):
        if portgroup_ident is not None:
            raise exception.NotFound()
        raise exception.NotAcceptable(
            'The portgroup filter needs API version 1.%d or newer.'
            % microversion.PORTGROUP_SUBRESOURCES)
    portgroup = portgroups_db.get_portgroup(flask.g.context, ident)
    node = nodes_db.get_node_by_id(flask.g.context, portgroup.node_id)
    policy.authorize('baremetal:portgroup:get', util.node_target(node),
                     'baremetal:portgroup:get',
                     exception.PortgroupNotFound(portgroup=ident))
    return portgroup


def _list(detail: bool, node_ident: str | None = None,
          portgroup_ident: str | None = None):
    policy.authorize('baremetal:port:list')
    portgroup = _list_portgroup(portgroup_ident)
    project = policy.project_scope('baremetal:port:list_all')
    fields = params.get_list_fields(_visible_fields(), SHORT_FIELDS, detail)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(
        [k for k in SORT_KEYS if _visible(k)])
    filters = {'project': project}
    node = _list_node(node_ident)
    if node is not None and portgroup is not None:
        raise exception.Invalid('Filtering by node and portgroup '
                                'simultaneously is not supported.')
    if node is not None:
        filters['node_id'] = node.id
    if portgroup is not None:
        filters['portgroup_id'] = portgroup.id
    address = params.get_string('address', schema.FILTERS['address'])
    if address is not None:
        filters['address'] = ports.normalize_mac(address)
    found = ports_db.list_ports(flask.g.context, filters, limit=limit,
                                marker=params.get_marker(),
                                sort_key=sort_key, sort_dir=sort_dir)
    return params.page('ports', found, limit,
                       [to_dict(p, fields) for p in found])


def list_ports():
    return _list(detail=False)


def list_ports_detail():
    return _list(detail=True)


def list_node_ports(node_ident):
    return _list(detail=False, node_ident=node_ident)


def list_node_ports_detail(node_ident):
    return _list(detail=True, node_ident=node_ident)


def list_portgroup_ports(portgroup_ident):
    return _list(detail=False, portgroup_ident=portgroup_ident)


def list_portgroup_ports_detail(portgroup_ident):
    return _list(detail=True, portgroup_ident=portgroup_ident)


# A single port -----------------------------------------------------------


def create_port():
    """Create a port of a node."""
    body = validation.json_body()
    validation.validate(schema.CREATE, body)
    _reject_newer_fields([k for k, v in body.items() if v is not None],
                         'The field')
    common.check_uuid(body.get('uuid'), 'uuid')
    node = util.body_node(body['node_uuid'], 'baremetal:port:get')
    policy.authorize('baremetal:port:create', util.node_target(node))
    values = _values(body)
    if body.get('uuid'):
        values['uuid'] = body['uuid']
    port = ports.create(flask.g.context, node, values,
                        _body_portgroup(body.get('portgroup_uuid')))
    return util.created(to_dict(port), 'ports', port.uuid)


def get_port(port_uuid):
    port, _node = _get_port(port_uuid, 'baremetal:port:get')
    fields = params.get_fields(_visible_fields())
    return flask.jsonify(to_dict(port, fields))


def update_port(port_uuid):
    """Change fields of a port (JSON Patch)."""
    port, node = _get_port(port_uuid, 'baremetal:port:update')
    patch = validation.json_body()
    validation.validate(validation.PATCH_SCHEMA, patch)
    _reject_newer_fields([op['path'].split('/')[1] for op in patch
                          if op['path'].split('/')[1] in NEW_FIELDS],
                         'Updating the field')
    before = to_dict(port, FIELDS)
    patchable = [f for f in PATCHABLE if _visible(f)]
    after = validation.apply_patch(before, patch, patchable, PATCH_DEFAULTS)
    for name in ('address', 'node_uuid'):
        if after.get(name) is None:
            raise exception.Invalid('Mandatory field missing: %s' % name)
    validation.validate(schema.UPDATE, {f: after[f] for f in patchable})
    changed = validation.changes(before, after, patchable)
    new_node = None
    if 'node_uuid' in changed:
        new_node = util.body_node(changed.pop('node_uuid'),
                                  'baremetal:port:get')
        policy.authorize('baremetal:port:update', util.node_target(new_node))
    portgroup = ports.KEEP
    if 'portgroup_uuid' in changed:
        portgroup = _body_portgroup(changed.pop('portgroup_uuid'))
    values = _values(changed)
    for name in PATCH_DEFAULTS:
        if name in changed and changed[name] is None:
            values[name] = PATCH_DEFAULTS[name]
    port = ports.update(flask.g.context, port, node, values, new_node,
                        portgroup)
    return flask.jsonify(to_dict(port))


def delete_port(port_uuid):
    port, node = _get_port(port_uuid, 'baremetal:port:delete')
    ports.destroy(flask.g.context, port, node)
    return '', 204
