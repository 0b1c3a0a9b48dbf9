"""Port groups: /v1/portgroups and /v1/nodes/<node>/portgroups."""
import flask
from oslo_utils import strutils

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import portgroups as schema
from pool_api import validation
from pool_conductor.baremetal import portgroups
from pool_conductor.baremetal import ports
from pool_conductor.conf import CONF
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor import exception


FIELDS = ('uuid', 'address', 'name', 'node_uuid',
          'standalone_ports_supported', 'internal_info', 'extra', 'mode',
          'properties', 'created_at', 'updated_at', 'links', 'ports')
SHORT_FIELDS = ('uuid', 'address', 'name', 'links')
NEW_FIELDS = {'mode': microversion.PORTGROUP_MODE,
              'properties': microversion.PORTGROUP_MODE}
SORT_KEYS = ('id', 'uuid', 'address', 'name', 'standalone_ports_supported',
             'mode', 'created_at', 'updated_at')
PATCHABLE = ('address', 'extra', 'mode', 'name', 'node_uuid', 'properties',
             'standalone_ports_supported')
PATCH_DEFAULTS = {'extra': {}, 'properties': {},
                  'standalone_ports_supported': True}


def _visible(field: str) -> bool:
    minor = NEW_FIELDS.get(field)
    return minor is None or microversion.at_least(minor)


def _visible_fields() -> tuple:
    return tuple(f for f in FIELDS if _visible(f))


def to_dict(portgroup, fields=None) -> dict:
    """The API representation of a port group."""
    own = links.resource_links('portgroups', portgroup.uuid)
    values = {
        'uuid': portgroup.uuid,
        'address': portgroup.address,
        'name': portgroup.name,
        'node_uuid': portgroup.node_uuid,
        'standalone_ports_supported': bool(
            portgroup.standalone_ports_supported),
        'internal_info': portgroup.internal_info or {},
        'extra': portgroup.extra or {},
        'mode': portgroup.mode,
        'properties': portgroup.properties or {},
        'created_at': render.timestamp(portgroup.created_at),
        'updated_at': render.timestamp(portgroup.updated_at),
        'links': own,
        'ports': [{'href': link['href'] + '/ports', 'rel': link['rel']}
                  for link in own],
    }
    return render.select(values, fields or _visible_fields())


def _check_version(minor: int = microversion.PORTGROUPS) -> None:
    """:raises: NotFound below the version that has the resource"""
    if not microversion.at_least(minor):
        raise exception.NotFound()


def get_authorized(ident: str, rule: str):
    """The port group a request names and its node, if the caller may do
    rule on it; a caller who may not see the node does not see it.

    :raises: PortgroupNotFound, Forbidden
    """
    context = flask.g.context
    portgroup = portgroups_db.get_portgroup(context, ident)
    node = nodes_db.get_node_by_id(context, portgroup.node_id)
    policy.authorize(rule, util.node_target(node), 'baremetal:portgroup:get',
                     exception.PortgroupNotFound(portgroup=ident))
    return portgroup, node


def _as_bool(value, name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for %s: expected a boolean.'
                % (value, name)) from None


def _check_name(name: str | None, message: str) -> None:
    if name is None:
        return
    try:
        validation.validate(common.NAME, name)
        common.check_name(name, 'portgroup')
    except exception.Invalid:
        raise exception.Invalid(message % name) from None


def _values(body: dict) -> dict:
    """The columns of a port group from a checked body."""
    values = {k: v for k, v in body.items()
              if k in PATCHABLE and k != 'node_uuid'}
    if 'standalone_ports_supported' in values:
        values['standalone_ports_supported'] = _as_bool(
            values['standalone_ports_supported'],
            'standalone_ports_supported')
    return values


# Collections -------------------------------------------------------------


def _list(detail: bool, node_ident: str | None = None):
    _check_version(microversion.PORTGROUP_SUBRESOURCES if node_ident
                   else microversion.PORTGROUPS)
    policy.authorize('baremetal:portgroup:list')
    project = policy.project_scope('baremetal:portgroup:list_all')
    fields = params.get_list_fields(_visible_fields(), SHORT_FIELDS, detail)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(
        [k for k in SORT_KEYS if _visible(k)])
    filters = {'project': project}
    ident = node_ident or params.get_string('node', schema.FILTERS['node'])
    address = params.get_string('address', schema.FILTERS['address'])
    if ident is not None and address is not None and node_ident is None:
        raise exception.Invalid('Filtering by node, address, or shard '
                                'simultaneously is not supported.')
    if ident is not None:
        filters['node_id'] = util.get_authorized(
            ident, 'baremetal:node:get').id
    if address is not None:
        filters['address'] = ports.normalize_mac(address)
    found = portgroups_db.list_portgroups(
        flask.g.context, filters, limit=limit, marker=params.get_marker(),
        sort_key=sort_key, sort_dir=sort_dir)
    return params.page('portgroups', found, limit,
                       [to_dict(p, fields) for p in found])


def list_portgroups():
    return _list(detail=False)


def list_portgroups_detail():
    return _list(detail=True)


def list_node_portgroups(node_ident):
    return _list(detail=False, node_ident=node_ident)


def list_node_portgroups_detail(node_ident):
    return _list(detail=True, node_ident=node_ident)


# A single port group -----------------------------------------------------


def create_portgroup():
    """Create a port group of a node."""
    _check_version()
    body = validation.json_body()
    validation.validate(schema.CREATE, body)
    if not microversion.at_least(microversion.PORTGROUP_MODE) and (
            body.get('mode') or body.get('properties')):
        raise exception.NotAcceptable(
            'The fields mode and properties need API version 1.%d or newer.'
            % microversion.PORTGROUP_MODE)
    common.check_uuid(body.get('uuid'), 'uuid')
    _check_name(body.get('name'),
                "Cannot create portgroup with invalid name '%s'")
    node = util.body_node(body['node_uuid'], 'baremetal:portgroup:get')
    policy.authorize('baremetal:portgroup:create', util.node_target(node))
    values = {k: v for k, v in _values(body).items() if v is not None}
    values.setdefault('mode', CONF.default_portgroup_mode)
    if body.get('uuid'):
        values['uuid'] = body['uuid']
    portgroup = portgroups.create(flask.g.context, node, values)
    return util.created(to_dict(portgroup), 'portgroups', portgroup.uuid)


def get_portgroup(portgroup_ident):
    _check_version()
    portgroup, _node = get_authorized(portgroup_ident,
                                      'baremetal:portgroup:get')
    fields = params.get_fields(_visible_fields())
    return flask.jsonify(to_dict(portgroup, fields))


def update_portgroup(portgroup_ident):
    """Change fields of a port group (JSON Patch)."""
    _check_version()
    portgroup, node = get_authorized(portgroup_ident,
                                     'baremetal:portgroup:update')
    patch = validation.json_body()
    validation.validate(validation.PATCH_SCHEMA, patch)
    roots = {op['path'].split('/')[1] for op in patch}
    if (not microversion.at_least(microversion.PORTGROUP_MODE)
            and roots & set(NEW_FIELDS)):
        raise exception.NotAcceptable(
            'Updating the fields mode and properties needs API version '
            '1.%d or newer.' % microversion.PORTGROUP_MODE)
    before = to_dict(portgroup, FIELDS)
    after = validation.apply_patch(before, patch, PATCHABLE, PATCH_DEFAULTS)
    if after.get('mode') is None:
        raise exception.Invalid("'mode' is a mandatory attribute and can "
                                "not be removed")
    if after.get('node_uuid') is None:
        raise exception.Invalid('Mandatory field missing: node_uuid')
    validation.validate(schema.UPDATE, {f: after[f] for f in PATCHABLE})
    changed = validation.changes(before, after, PATCHABLE)
    if 'name' in changed:
        _check_name(changed['name'], "Portgroup %s: Cannot change name to "
                    "invalid name '%%s'" % portgroup_ident)
    new_node = None
    if 'node_uuid' in changed:
        new_node = util.body_node(changed.pop('node_uuid'),
                                  'baremetal:portgroup:get')
        policy.authorize('baremetal:portgroup:update',
                         util.node_target(new_node))
    values = _values(changed)
    for name, default in PATCH_DEFAULTS.items():
        if name in values and values[name] is None:
            values[name] = default
    portgroup = portgroups.update(flask.g.context, portgroup, node, values,
                                  new_node)
    return flask.jsonify(to_dict(portgroup))


def delete_portgroup(portgroup_ident):
    _check_version()
    portgroup, node = get_authorized(portgroup_ident,
                                     'baremetal:portgroup:delete')
    portgroups.destroy(flask.g.context, portgroup, node)
    return '', 204
