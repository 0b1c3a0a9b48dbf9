"""Maintenance windows of a node, /v1/nodes/<node>/maintenance_windows,
and the slots that hold it, /v1/nodes/<node>/slots."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import render
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor.booking import maintenance_windows

# What a window shows, and a slot.
FIELDS = ('uuid', 'node_uuid', 'start_at', 'end_at', 'reason', 'state',
          'created_at')
SLOT_FIELDS = ('purpose', 'busy_from', 'busy_until', 'allocation_uuid',
               'maintenance_window_uuid', 'reason', 'state')


def _url(node, window_uuid: str | None = None) -> str:
    url = (links.resource_links('nodes', node.uuid)[0]['href']
           + '/maintenance_windows')
    return url + '/' + window_uuid if window_uuid else url


def _show(window) -> dict:
    return {'uuid': window.uuid, 'node_uuid': window.node_uuid,
            'start_at': render.timestamp(window.busy_from),
            'end_at': render.timestamp(window.busy_until),
            'reason': window.reason, 'state': window.state,
            'created_at': render.timestamp(window.created_at)}


def _show_slot(slot) -> dict:
    return {'purpose': slot.purpose,
            'busy_from': render.timestamp(slot.busy_from),
            'busy_until': render.timestamp(slot.busy_until),
            'allocation_uuid': slot.allocation_uuid,
            'maintenance_window_uuid': slot.uuid,
            'reason': slot.reason, 'state': slot.state}


def create_maintenance_window(node_ident):
    node = util.get_authorized(node_ident,
                               'pool:node:maintenance_window:create')
    body = validation.json_body()
    validation.validate(schema.MAINTENANCE_WINDOW, body)
    start = util.instant(body, 'start_at')
    end = util.instant(body, 'end_at')
    window = maintenance_windows.create(flask.g.context, node.id, start, end,
                                        body['reason'])
    return (flask.jsonify(_show(window)), 201,
            {'Location': _url(node, window.uuid)})


def list_maintenance_windows(node_ident):
    node = util.get_authorized(node_ident,
                               'pool:node:maintenance_window:list')
    found = maintenance_windows.list_windows(flask.g.context, node.id)
    return flask.jsonify(maintenance_windows=[_show(w) for w in found])


def get_maintenance_window(node_ident, window_uuid):
    node = util.get_authorized(node_ident,
                               'pool:node:maintenance_window:list')
    return flask.jsonify(_show(maintenance_windows.get(
        flask.g.context, node.id, window_uuid)))


def delete_maintenance_window(node_ident, window_uuid):
    node = util.get_authorized(node_ident,
                               'pool:node:maintenance_window:delete')
    maintenance_windows.delete(flask.g.context, node.id, window_uuid)
    return '', 204


def list_node_slots(node_ident):
    node = util.get_authorized(node_ident, 'pool:node:slot:list')
    found = maintenance_windows.list_windows(flask.g.context, node.id,
                                             maintenance_only=False)
    return flask.jsonify(slots=[_show_slot(s) for s in found])
