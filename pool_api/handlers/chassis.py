"""Chassis: /v1/chassis and the nodes of a chassis."""
import flask

from pool_api.handlers import nodes
from pool_api.handlers import util
from pool_api import links
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import chassis as schema
from pool_api.schemas import common
from pool_api import validation
from pool_conductor.baremetal import chassis as chassis_core
from pool_conductor.db import chassis as chassis_db

FIELDS = ('uuid', 'description', 'extra', 'created_at', 'updated_at',
          'links', 'nodes')
SHORT_FIELDS = ('uuid', 'description', 'links')
SORT_KEYS = ('id', 'uuid', 'description', 'created_at', 'updated_at')
PATCHABLE = ('description', 'extra')
PATCH_DEFAULTS = {'extra': {}}


def to_dict(chassis, fields=None) -> dict:
    """The API representation of a chassis."""
    own = links.resource_links('chassis', chassis.uuid)
    values = {
        'uuid': chassis.uuid,
        'description': chassis.description,
        'extra': chassis.extra or {},
        'created_at': render.timestamp(chassis.created_at),
        'updated_at': render.timestamp(chassis.updated_at),
        'links': own,
        'nodes': [{'href': link['href'] + '/nodes', 'rel': link['rel']}
                  for link in own],
    }
    return render.select(values, fields or FIELDS)


def _get(chassis_uuid: str, rule: str):
    policy.authorize(rule)
    return chassis_db.get_chassis(flask.g.context, chassis_uuid)


def _list(detail: bool):
    policy.authorize('baremetal:chassis:get')
    fields = params.get_list_fields(FIELDS, SHORT_FIELDS, detail)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(SORT_KEYS)
    found = chassis_db.list_chassis(flask.g.context, limit=limit,
                                    marker=params.get_marker(),
                                    sort_key=sort_key, sort_dir=sort_dir)
    return params.page('chassis', found, limit,
                       [to_dict(c, fields) for c in found])


def list_chassis():
    return _list(detail=False)


def list_chassis_detail():
    return _list(detail=True)


def create_chassis():
    policy.authorize('baremetal:chassis:create')
    body = validation.json_body()
    validation.validate(schema.CREATE, body)
    common.check_uuid(body.get('uuid'), 'uuid')
    values = {k: v for k, v in body.items() if v is not None}
    chassis = chassis_core.create(flask.g.context, values)
    return util.created(to_dict(chassis), 'chassis', chassis.uuid)


def get_chassis(chassis_uuid):
    chassis = _get(chassis_uuid, 'baremetal:chassis:get')
    return flask.jsonify(to_dict(chassis, params.get_fields(FIELDS)))


def update_chassis(chassis_uuid):
    """Change the description or extra of a chassis (JSON Patch)."""
    chassis = _get(chassis_uuid, 'baremetal:chassis:update')
    patch = validation.json_body()
    before = to_dict(chassis)
    after = validation.apply_patch(before, patch, PATCHABLE, PATCH_DEFAULTS)
    if after.get('extra') is None:
        after['extra'] = {}
    validation.validate(schema.UPDATE, {f: after[f] for f in PATCHABLE})
    changed = validation.changes(before, after, PATCHABLE)
    chassis = chassis_core.update(flask.g.context, chassis, changed)
    return flask.jsonify(to_dict(chassis))


def delete_chassis(chassis_uuid):
    chassis = _get(chassis_uuid, 'baremetal:chassis:delete')
    chassis_core.destroy(flask.g.context, chassis)
    return '', 204


def list_chassis_nodes(chassis_uuid):
    chassis = _get(chassis_uuid, 'baremetal:chassis:get')
    return nodes.list_nodes_of_chassis(chassis, detail=False)


def list_chassis_nodes_detail(chassis_uuid):
    chassis = _get(chassis_uuid, 'baremetal:chassis:get')
    return nodes.list_nodes_of_chassis(chassis, detail=True)
