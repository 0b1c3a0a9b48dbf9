"""The operator's overview of the fleet: the document of GET /v1/fleet,
which the dashboard renders. Every count links to the list it counts."""
import datetime
import urllib.parse

import flask

from pool_api import links
from pool_api import render
from pool_api import validation
from pool_conductor import autofill
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import metrics as metrics_db
from pool_conductor import exception
from pool_conductor import states

# The longest look ahead for lifespans ending soon: ten years.
MAX_ENDING_WITHIN = 10 * 366 * 86400
# Where the event of an object of each type links to, and by what.
_EVENT_OBJECTS = {
    'node': ('nodes', 'object_uuid'),
    'allocation': ('allocations', 'object_uuid'),
    'claim': ('claims', 'object_uuid'),
    'port': ('ports', 'object_uuid'),
    'pool': ('pools', 'object_name'),
    'profile': ('profiles', 'object_name'),
    'workflow': ('workflows', 'object_name'),
    'broker': ('brokers', 'object_name'),
    'provider': ('providers', 'object_name'),
    'conductor': ('conductors', 'object_name'),
}


def _href(path: str, **query) -> str:
    """The URL of an API path, with a filter of the list it names."""
    url = links.base_url() + path
    if query:
        url += '?' + urllib.parse.urlencode(query)
    return url


def _resource(collection: str, ident: str | None) -> str | None:
    if not ident:
        return None
    return _href('/v1/%s/%s' % (collection,
                                urllib.parse.quote(ident, safe='')))


def _count(count: int, href: str | None) -> dict:
    return {'count': count, 'href': href}


def _by_value(counts: dict, path: str, name: str, order=()) -> list[dict]:
    """Counts by the value of a field, each with the filtered list (none
    for a null value: the lists have no filter for it); the values of
    order first (zeros included), then the others by name."""
    values = list(order) + sorted(
        (v for v in counts if v not in order),
        key=lambda v: (v is None, str(v)))
    found = []
    for value in values:
        if value is None:
            href = None
        else:
            text = str(value).lower() if isinstance(value, bool) else value
            href = _href(path, **{name: text})
        found.append({'value': value, **_count(counts.get(value, 0), href)})
    return found


def _sum_by(rows, index: int) -> dict:
    summed: dict = {}
    for row in rows:
        summed[row[index]] = summed.get(row[index], 0) + row[-1]
    return summed


def _nodes(rows) -> dict:
    return {
        'total': _count(sum(r[-1] for r in rows), _href('/v1/nodes')),
        'provision_states': _by_value(_sum_by(rows, 0), '/v1/nodes',
                                      'provision_state'),
        'power_states': _by_value(_sum_by(rows, 1), '/v1/nodes',
                                  'power_state'),
        'maintenance': _by_value(
            {bool(k): v for k, v in _sum_by(rows, 2).items()},
            '/v1/nodes', 'maintenance', order=(False, True)),
    }


def _states(rows, collection: str, order) -> dict:
    path = '/v1/%s' % collection
    return {
        'total': _count(sum(r[-1] for r in rows), _href(path)),
        'states': _by_value(dict(rows), path, 'state', order=order),
    }


def _pools(found: dict) -> list[dict]:
    members: dict = {}
    for pool, status, count in found['members']:
        members.setdefault(pool, {})[status] = count
    pools = []
    for row in found['pools']:
        counts = members.get(row.name, {})
        fill = autofill.normalized(row.autofill or {})
        pools.append({
            'name': row.name,
            'parent_pool': row.parent_pool,
            'broker': row.broker,
            'autofill': ({'min_free': fill.get('min_free'),
                          'max_free': fill.get('max_free')}
                         if row.broker and fill.get('use_autofill')
                         else None),
            'autofill_conductor': row.autofill_conductor,
            'href': _resource('pools', row.name),
            'total': _count(sum(counts.values()),
                            _href('/v1/nodes', pool=row.name)),
            'statuses': {
                status: _count(counts.get(status, 0), _href(
                    '/v1/nodes', pool=row.name, pool_status=status))
                for status in states.POOL_STATUSES},
        })
    return pools


def _conductors(found: dict) -> list[dict]:
    alive = dict(found['conductors'])
    held = found['held']
    return [{
        'hostname': row.hostname,
        'alive': alive.get(row.hostname, False),
        'updated_at': render.timestamp(row.updated_at),
        'href': _resource('conductors', row.hostname),
        'allocations': held['allocations'].get(row.hostname, 0),
        'claims': held['claims'].get(row.hostname, 0),
        'node_locks': held['node_locks'].get(row.hostname, 0),
        'autofill_pools': [{'name': name, 'href': _resource('pools', name)}
                           for name in held['autofill_pools'].get(
                               row.hostname, ())],
    } for row in found['conductor_rows']]


def _ending(rows_total, collection: str) -> dict:
    rows, total = rows_total
    items = []
    for row in rows:
        item = {'uuid': row.uuid, 'name': row.name, 'state': row.state,
                'owner': row.owner,
                'lifespan_end': render.timestamp(row.lifespan_end),
                'href': _resource(collection, row.uuid)}
        if collection == 'allocations':
            item.update(pool=row.pool, node_uuid=row.node_uuid,
                        node_name=row.node_name,
                        node_href=_resource('nodes', row.node_uuid))
        items.append(item)
    return {'total': total, 'items': items}


def _alert(row) -> dict:
    collection, field = _EVENT_OBJECTS.get(row.object_type, (None, None))
    return {
        'cursor': row.seq,
        'uuid': row.uuid,
        'created_at': render.timestamp(row.created_at),
        'level': row.level,
        'event_type': row.event_type,
        'object_type': row.object_type,
        'object_uuid': row.object_uuid,
        'object_name': row.object_name,
        'message': row.message,
        'conductor': row.conductor,
        'href': (_resource(collection, getattr(row, field))
                 if collection else None),
    }


def overview(context, ending_within: int) -> dict:
    """The document of GET /v1/fleet.

    :param ending_within: seconds ahead that lifespans ending soon looks.
    """
    now = db_api.utcnow()
    until = now + datetime.timedelta(seconds=ending_within)
    found = metrics_db.overview(context, CONF.conductor.heartbeat_timeout,
                                until, CONF.dashboard.max_listed)
    return {
        'as_of': render.timestamp(now),
        'heartbeat_timeout': CONF.conductor.heartbeat_timeout,
        'pools': _pools(found),
        'nodes': _nodes(found['nodes']),
        'allocations': _states(found['allocations'], 'allocations',
                               states.ALLOCATION_STATES),
        'claims': _states(found['claims'], 'claims', states.CLAIM_STATES),
        'ending_soon': {
            'within': ending_within,
            'until': render.timestamp(until),
            'allocations': _ending(found['ending_allocations'],
                                   'allocations'),
            'claims': _ending(found['ending_claims'], 'claims'),
        },
        'conductors': _conductors(found),
        'stranded': {kind: count or 0
                     for kind, count in found['stranded'].items()},
        'alerts': [_alert(row) for row in found['alerts']],
    }


def flask_overview() -> dict:
    """overview() of the request: its context and ending_within."""
    return overview(flask.g.context, ending_within())


def ending_within() -> int:
    """The ending_within query parameter, else [dashboard] ending_within.

    :raises: InvalidParameterValue
    """
    value = flask.request.args.get('ending_within')
    if value is None:
        return CONF.dashboard.ending_within
    seconds = validation.integer(value, 'ending_within')
    if not 0 <= seconds <= MAX_ENDING_WITHIN:
        raise exception.InvalidParameterValue(
            err='Invalid value %s for the ending_within parameter: '
                'expected seconds from 0 to %d.'
                % (value, MAX_ENDING_WITHIN))
    return seconds
