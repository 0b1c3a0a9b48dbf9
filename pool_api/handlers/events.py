"""Events: the feed (GET /v1/events, which can wait for new ones) and the
history of nodes, allocations, pools and claims."""
import math
import re

import flask

from pool_api.handlers import allocations
from pool_api.handlers import claims
from pool_api.handlers import util
from pool_api import links
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api import watch
from pool_conductor.conf import CONF
from pool_conductor.db import events as events_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import events
from pool_conductor import exception

# The query parameters of the feed, as the OpenAPI document shows them.
_STRING_FILTERS = {
    'object_type': {'type': 'string', 'maxLength': 32,
                    'pattern': '^[a-z_]+$'},
    'object_uuid': {'type': 'string', 'maxLength': 36},
    'event_type': {'type': 'string', 'maxLength': 128},
    'event_type_prefix': {'type': 'string', 'maxLength': 128},
    'request_id': {'type': 'string', 'maxLength': 64},
}
# A cursor fits a signed 64-bit column.
MAX_CURSOR = 2 ** 63 - 1
# Seconds of wait, written as a decimal number.
_WAIT_RE = re.compile(r'^[0-9]{1,9}(\.[0-9]{1,9})?$')
FEED_QUERY = {
    'since': {'type': 'integer', 'minimum': 0, 'maximum': MAX_CURSOR},
    'wait': {'type': 'number', 'minimum': 0},
    'level': {'type': 'string', 'enum': list(events.LEVELS)},
    'detail': {'type': 'boolean'},
    **_STRING_FILTERS,
}
HISTORY_QUERY = {'detail': {'type': 'boolean'}}

# Ironic's fields of node history (API 1.78): the short ones, and those of
# ?detail=true and of one event; pool adds the states and the request.
HISTORY_FIELDS = ('uuid', 'created_at', 'severity', 'event')
HISTORY_DETAIL_FIELDS = ('uuid', 'created_at', 'severity', 'event_type',
                         'event', 'conductor', 'user', 'project',
                         'prev_state', 'state', 'request_id', 'cursor')
# Ironic shortens the event of the short form to this many characters.
SHORT_EVENT = 255


def _get_since() -> int | None:
    value = flask.request.args.get('since')
    if value is None:
        return None
    if not (value.isascii() and value.isdigit() and len(value) <= 19
            and int(value) <= MAX_CURSOR):
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for the since parameter: expected a '
                'cursor, an integer from 0 to %d.' % (value[:40],
                                                      MAX_CURSOR))
    return int(value)


def _get_wait() -> float:
    """Seconds to wait, capped by [api] max_watch_wait."""
    value = flask.request.args.get('wait')
    if value is None:
        return 0.0
    if not _WAIT_RE.match(value) or not math.isfinite(float(value)):
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for the wait parameter: expected a '
                'number of seconds, 0 or more, such as 30 or 2.5.'
                % value[:40])
    return min(float(value), CONF.api.max_watch_wait)


def _get_levels() -> list[str] | None:
    value = flask.request.args.get('level')
    if value is None:
        return None
    if value not in events.LEVELS:
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for the level parameter: expected one '
                'of %s.' % (value[:40], ', '.join(events.LEVELS)))
    return list(events.LEVELS[events.LEVELS.index(value):])


def _get_filters() -> dict:
    filters = {name: params.get_string(name, schema)
               for name, schema in _STRING_FILTERS.items()}
    object_type = filters['object_type']
    if object_type is not None and not re.fullmatch(
            _STRING_FILTERS['object_type']['pattern'], object_type):
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for the object_type parameter: '
                'expected a lowercase name such as node or allocation.'
                % object_type)
    filters['levels'] = _get_levels()
    return filters


def event_to_dict(row, detail: bool) -> dict:
    """An event of the feed."""
    body = {
        'cursor': row.seq,
        'uuid': row.uuid,
        'created_at': render.timestamp(row.created_at),
        'object_type': row.object_type,
        'object_uuid': row.object_uuid,
        'object_name': row.object_name,
        'event_type': row.event_type,
        'level': row.level,
        'prev_state': row.prev_state,
        'state': row.state,
        'message': row.message,
        'request_id': row.request_id,
        'user': row.user_id,
        'project': row.project_id,
        'conductor': row.conductor,
    }
    if detail:
        body['payload'] = row.payload
    return body


def list_events():
    """The events after a cursor; with wait, held until some come."""
    policy.authorize('pool:event:list')
    project = policy.project_scope('pool:event:list_all')
    filters = _get_filters()
    if project is not None:
        filters['project'] = project
    detail = bool(params.get_bool('detail'))
    page = watch.watch(flask.g.context, _get_since(), filters,
                       params.get_limit(), _get_wait())
    return flask.jsonify(
        events=[event_to_dict(row, detail) for row in page.events],
        cursor=page.cursor, more=page.more, oldest=page.oldest)


# History -------------------------------------------------------------------

def _event_text(row) -> str:
    """The event of Ironic's history: the message recorded, else what
    changed."""
    if row.message:
        return row.message
    if row.prev_state is not None or row.state is not None:
        return '%s: %s -> %s' % (row.event_type, row.prev_state, row.state)
    return row.event_type


def history_to_dict(row, collection: str, ident: str, detail: bool
                    ) -> dict:
    """An event as Ironic shows an entry of a node's history."""
    values = {
        'uuid': row.uuid,
        'created_at': render.timestamp(row.created_at),
        'severity': row.level.upper(),
        'event_type': row.event_type,
        'event': _event_text(row),
        'conductor': row.conductor,
        'user': row.user_id,
        'project': row.project_id,
        'prev_state': row.prev_state,
        'state': row.state,
        'request_id': row.request_id,
        'cursor': row.seq,
    }
    fields = HISTORY_DETAIL_FIELDS if detail else HISTORY_FIELDS
    body = {f: values[f] for f in fields}
    if not detail and len(body['event']) > SHORT_EVENT:
        body['event'] = body['event'][:SHORT_EVENT - 4] + '...'
    body['links'] = [links.link('/v1/%s/%s/history/%s'
                                % (collection, ident, row.uuid))]
    return body


def _history_page(collection: str, ident: str, object_type: str,
                  object_uuid: str | None = None,
                  object_name: str | None = None):
    detail = bool(params.get_bool('detail'))
    limit = params.get_limit()
    _sort_key, sort_dir = params.get_sort(('id',))
    found = events_db.history(
        flask.g.context, object_type, object_uuid, object_name,
        marker=params.get_marker(), limit=limit,
        descending=sort_dir == 'desc')
    return params.page('history', found, limit, [
        history_to_dict(row, collection, ident, detail) for row in found])


def _history_event(collection: str, ident: str, event_uuid: str,
                   object_type: str, object_uuid: str | None = None,
                   object_name: str | None = None):
    row = events_db.get_of_object(flask.g.context, event_uuid, object_type,
                                  object_uuid, object_name)
    return flask.jsonify(history_to_dict(row, collection, ident, True))


def _node(node_ident: str):
    return util.get_authorized(node_ident, 'baremetal:node:history:get')


def list_node_history(node_ident):
    node = _node(node_ident)
    return _history_page('nodes', node.uuid, 'node', node.uuid)


def get_node_history(node_ident, event_uuid):
    node = _node(node_ident)
    return _history_event('nodes', node.uuid, event_uuid, 'node', node.uuid)


def _allocation(allocation_ident: str):
    return allocations.get_authorized(allocation_ident,
                                      'pool:allocation:history:get')


def list_allocation_history(allocation_ident):
    alloc = _allocation(allocation_ident)
    return _history_page('allocations', alloc.uuid, 'allocation',
                         alloc.uuid)


def get_allocation_history(allocation_ident, event_uuid):
    alloc = _allocation(allocation_ident)
    return _history_event('allocations', alloc.uuid, event_uuid,
                          'allocation', alloc.uuid)


def _claim(claim_ident: str):
    return claims.get_authorized(claim_ident, 'pool:claim:history:get')


def list_claim_history(claim_ident):
    claim = _claim(claim_ident)
    return _history_page('claims', claim.uuid, 'claim', claim.uuid)


def get_claim_history(claim_ident, event_uuid):
    claim = _claim(claim_ident)
    return _history_event('claims', claim.uuid, event_uuid, 'claim',
                          claim.uuid)


def _pool(pool_name: str):
    policy.authorize('pool:pool:history:get')
    return pools_db.get(flask.g.context, models.Pool, pool_name)


# Pools have no UUID: their events name them.
def list_pool_history(pool_name):
    pool = _pool(pool_name)
    return _history_page('pools', pool.name, 'pool', object_name=pool.name)


def get_pool_history(pool_name, event_uuid):
    pool = _pool(pool_name)
    return _history_event('pools', pool.name, event_uuid, 'pool',
                          object_name=pool.name)
