"""Volume connectors and targets: /v1/volume, /v1/volume/connectors,
/v1/volume/targets and their forms under /v1/nodes/<node>."""
import dataclasses

import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import volumes as schema
from pool_api import validation
from pool_conductor.baremetal import volumes
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import volumes as volumes_db
from pool_conductor import exception
from pool_conductor import secrets

REDACTED = {'redacted_contents': (
    '** Value redacted: Requires permission '
    'baremetal:volume:view_target_properties access. Permission denied. '
    '**')}


@dataclasses.dataclass(frozen=True)
class Resource:
    """What the API says of connectors or of targets."""

    kind: volumes.Kind
    collection: str
    fields: tuple
    short_fields: tuple
    sort_keys: tuple
    create: dict
    update: dict


CONNECTORS = Resource(
    volumes.CONNECTOR, 'connectors',
    ('uuid', 'node_uuid', 'type', 'connector_id', 'extra', 'created_at',
     'updated_at', 'links'),
    ('uuid', 'node_uuid', 'type', 'connector_id', 'links'),
    ('id', 'uuid', 'type', 'connector_id', 'created_at', 'updated_at'),
    schema.CONNECTOR_CREATE, schema.CONNECTOR_UPDATE)
TARGETS = Resource(
    volumes.TARGET, 'targets',
    ('uuid', 'node_uuid', 'volume_type', 'properties', 'boot_index',
     'volume_id', 'extra', 'created_at', 'updated_at', 'links'),
    ('uuid', 'node_uuid', 'volume_type', 'boot_index', 'volume_id',
     'links'),
    ('id', 'uuid', 'volume_type', 'boot_index', 'volume_id', 'created_at',
     'updated_at'),
    schema.TARGET_CREATE, schema.TARGET_UPDATE)
# Fields a PATCH may change, and what a removed one becomes.
PATCH_DEFAULTS = {'extra': {}, 'properties': {}}


def _patchable(resource: Resource) -> tuple:
    return tuple(resource.update['properties'])


def _check_version() -> None:
    """:raises: NotFound below 1.32"""
    if not microversion.at_least(microversion.VOLUME):
        raise exception.NotFound()


def to_dict(resource: Resource, row, fields=None) -> dict:
    """The API representation of a connector or a target."""
    values = {name: getattr(row, name, None) for name in resource.fields
              if name not in ('created_at', 'updated_at', 'links')}
    values['extra'] = row.extra or {}
    values['created_at'] = render.timestamp(row.created_at)
    values['updated_at'] = render.timestamp(row.updated_at)
    values['links'] = links.resource_links(
        'volume/' + resource.collection, row.uuid)
    if resource is TARGETS:
        properties = row.properties or {}
        if not policy.allowed('baremetal:volume:view_target_properties'):
            properties = REDACTED
        values['properties'] = secrets.mask(dict(properties))
    return render.select(values, fields or resource.fields)


def _get(resource: Resource, uuid: str, rule: str):
    """The connector or target of a request and its node, if the caller
    may do rule on it; one of a node the caller cannot see is not found.

    :raises: VolumeConnectorNotFound, VolumeTargetNotFound, Forbidden
    """
    _check_version()
    context = flask.g.context
    row = volumes_db.get(context, resource.kind.model, uuid)
    node = nodes_db.get_node_by_id(context, row.node_id)
    policy.authorize(rule, util.node_target(node), 'baremetal:volume:get',
                     volumes_db.not_found(resource.kind.model, uuid))
    return row, node


# The volume root ---------------------------------------------------------


def _volume_links(prefix: str) -> dict:
    base = links.base_url()
    out = {}
    for name, suffix in (('links', ''), ('connectors', 'connectors'),
                         ('targets', 'targets')):
        out[name] = [
            {'href': '%s/v1/%s/%s' % (base, prefix, suffix), 'rel': 'self'},
            {'href': '%s/%s/%s' % (base, prefix, suffix),
             'rel': 'bookmark'}]
    return out


def get_volume():
    _check_version()
    # As Ironic checks it: on the caller's own project.
    project = flask.g.context.project_id or ''
    policy.authorize('baremetal:volume:get',
                     {'node.owner': project, 'node.lessee': project})
    return flask.jsonify(_volume_links('volume'))


def get_node_volume(node_ident):
    _check_version()
    node = util.get_authorized(node_ident, 'baremetal:node:get')
    policy.authorize('baremetal:volume:get', util.node_target(node))
    return flask.jsonify(_volume_links('nodes/%s/volume' % node_ident))


# Collections -------------------------------------------------------------


def _list_fields(resource: Resource) -> list:
    detail = params.get_bool('detail')
    fields = params.get_fields(resource.fields)
    if detail and fields is not None:
        raise exception.InvalidParameterValue(
            err="Can't fetch a subset of fields with 'detail' set")
    if fields is None:
        return list(resource.fields if detail else resource.short_fields)
    return fields


def _list(resource: Resource, node_ident: str | None = None):
    _check_version()
    policy.authorize('baremetal:volume:list')
    project = policy.project_scope('baremetal:volume:list_all')
    fields = _list_fields(resource)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(resource.sort_keys)
    filters = {'project': project}
    ident = node_ident or params.get_string('node', schema.FILTERS['node'])
    if ident is not None:
        node = util.get_authorized(ident, 'baremetal:node:get')
        policy.authorize('baremetal:volume:get', util.node_target(node))
        filters['node_id'] = node.id
    found = volumes_db.list_of(
        flask.g.context, resource.kind.model, filters, limit=limit,
        marker=params.get_marker(), sort_key=sort_key, sort_dir=sort_dir)
    return params.page(resource.collection, found, limit,
                       [to_dict(resource, r, fields) for r in found])


def list_connectors():
    return _list(CONNECTORS)


def list_node_connectors(node_ident):
    return _list(CONNECTORS, node_ident)


def list_targets():
    return _list(TARGETS)


def list_node_targets(node_ident):
    return _list(TARGETS, node_ident)


# One connector or target -------------------------------------------------


def _create(resource: Resource):
    _check_version()
    body = validation.json_body()
    validation.validate(resource.create, body)
    common.check_uuid(body.get('uuid'), 'uuid')
    node = util.body_node(body['node_uuid'], 'baremetal:volume:get')
    policy.authorize('baremetal:volume:create', util.node_target(node))
    values = {k: v for k, v in body.items()
              if k != 'node_uuid' and v is not None}
    row = volumes.create(flask.g.context, resource.kind, node, values)
    return util.created(to_dict(resource, row),
                        'volume/' + resource.collection, row.uuid)


def _show(resource: Resource, uuid: str):
    row, _node = _get(resource, uuid, 'baremetal:volume:get')
    return flask.jsonify(to_dict(resource, row,
                                 params.get_fields(resource.fields)))


def _update(resource: Resource, uuid: str):
    row, node = _get(resource, uuid, 'baremetal:volume:update')
    patch = validation.json_body()
    patchable = _patchable(resource)
    before = to_dict(resource, row, resource.fields)
    if resource is TARGETS:
        # The patch applies to the stored properties, not to what the
        # caller is shown of them.
        before['properties'] = row.properties or {}
    after = validation.apply_patch(before, patch, patchable, PATCH_DEFAULTS)
    for name in resource.update['required']:
        if after.get(name) is None:
            raise exception.Invalid('Mandatory field missing: %s' % name)
    validation.validate(resource.update, {f: after[f] for f in patchable})
    changed = validation.changes(before, after, patchable)
    for name, default in PATCH_DEFAULTS.items():
        if name in changed and changed[name] is None:
            changed[name] = default
    new_node = None
    if 'node_uuid' in changed:
        new_node = util.body_node(changed.pop('node_uuid'),
                                  'baremetal:volume:get')
        policy.authorize('baremetal:volume:update', util.node_target(new_node))
    row = volumes.update(flask.g.context, row, node, changed, new_node)
    return flask.jsonify(to_dict(resource, row))


def _delete(resource: Resource, uuid: str):
    row, node = _get(resource, uuid, 'baremetal:volume:delete')
    volumes.destroy(flask.g.context, row, node)
    return '', 204


def create_connector():
    return _create(CONNECTORS)


def get_connector(connector_uuid):
    return _show(CONNECTORS, connector_uuid)


def update_connector(connector_uuid):
    return _update(CONNECTORS, connector_uuid)


def delete_connector(connector_uuid):
    return _delete(CONNECTORS, connector_uuid)


def create_target():
    return _create(TARGETS)


def get_target(target_uuid):
    return _show(TARGETS, target_uuid)


def update_target(target_uuid):
    return _update(TARGETS, target_uuid)


def delete_target(target_uuid):
    return _delete(TARGETS, target_uuid)
