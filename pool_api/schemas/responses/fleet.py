"""Response schemas of the views of the whole fleet: its overview, the
dashboard's pages and the Prometheus metrics."""
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import INTEGER
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import NULLABLE_URI
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import states

_COUNT = object_of({'count': INTEGER, 'href': NULLABLE_URI},
                   required=('count', 'href'),
                   description='A count, and the list it counts (the API\'s '
                               'list with its filters; null when the list has '
                               'no filter for it).')
_COUNTS = {'type': 'array', 'items': object_of(
    {'value': {}, 'count': INTEGER, 'href': NULLABLE_URI},
    required=('value', 'count', 'href'))}
_BY_STATE = object_of({'total': _COUNT, 'states': _COUNTS},
                      required=('total', 'states'))
_ENDING = object_of({
    'total': INTEGER,
    'items': {'type': 'array', 'items': object_of({
        'uuid': STRING, 'name': NULLABLE_STRING, 'state': STRING,
        'owner': NULLABLE_STRING, 'lifespan_end': TIMESTAMP,
        'href': {'type': 'string', 'format': 'uri'},
        'pool': NULLABLE_STRING, 'node_uuid': NULLABLE_STRING,
        'node_name': NULLABLE_STRING, 'node_href': NULLABLE_URI},
        required=('uuid', 'name', 'state', 'owner', 'lifespan_end',
                  'href'))},
}, required=('total', 'items'), description='The soonest first; total counts '
   'them all, items lists at most [dashboard] max_listed.')
_NAMED_LINK = object_of({'name': STRING, 'href': {'type': 'string',
                                                  'format': 'uri'}},
                        required=('name', 'href'))
FLEET = object_of({
    'as_of': TIMESTAMP,
    'heartbeat_timeout': INTEGER,
    'pools': {'type': 'array', 'items': object_of({
        'name': STRING, 'parent_pool': NULLABLE_STRING,
        'broker': NULLABLE_STRING,
        'autofill': {'oneOf': [{'type': 'null'}, object_of(
            {'min_free': INTEGER,
             'max_free': {'type': ['integer', 'null']}},
            required=('min_free', 'max_free'))]},
        'autofill_conductor': NULLABLE_STRING,
        'href': {'type': 'string', 'format': 'uri'},
        'total': _COUNT,
        'statuses': object_of(dict.fromkeys(states.POOL_STATUSES, _COUNT),
                              required=states.POOL_STATUSES),
    }, required=('name', 'parent_pool', 'broker', 'autofill',
                 'autofill_conductor', 'href', 'total', 'statuses'))},
    'nodes': object_of({'total': _COUNT, 'provision_states': _COUNTS,
                        'power_states': _COUNTS, 'maintenance': _COUNTS},
                       required=('total', 'provision_states', 'power_states',
                                 'maintenance')),
    'allocations': _BY_STATE,
    'claims': _BY_STATE,
    'ending_soon': object_of({
        'within': INTEGER, 'until': TIMESTAMP,
        'allocations': _ENDING, 'claims': _ENDING,
    }, required=('within', 'until', 'allocations', 'claims')),
    'conductors': {'type': 'array', 'items': object_of({
        'hostname': STRING, 'alive': BOOLEAN,
        'updated_at': NULLABLE_TIMESTAMP,
        'href': {'type': 'string', 'format': 'uri'},
        'allocations': INTEGER, 'claims': INTEGER,
        'node_locks': INTEGER,
        'autofill_pools': {'type': 'array', 'items': _NAMED_LINK},
    }, required=('hostname', 'alive', 'updated_at', 'href', 'allocations',
                 'claims', 'node_locks', 'autofill_pools'),
        description='allocations: in progress (allocating) on the '
                    'conductor; claims: pending, bound or ready ones it '
                    'binds and expires; node_locks: nodes it has '
                    'reserved; autofill_pools: the pools it fills.')},
    'stranded': object_of(
        {'allocations': INTEGER, 'claims': INTEGER,
         'node_locks': INTEGER}, required=('allocations', 'claims',
                                           'node_locks'),
        description='Work held by conductors that are not alive.'),
    'alerts': {'type': 'array', 'items': object_of({
        'cursor': {'type': ['integer', 'null']}, 'uuid': STRING,
        'created_at': TIMESTAMP,
        'level': {'type': 'string', 'enum': ['warning', 'error',
                                             'critical']},
        'event_type': STRING, 'object_type': STRING,
        'object_uuid': STRING, 'object_name': NULLABLE_STRING,
        'message': NULLABLE_STRING, 'conductor': NULLABLE_STRING,
        'href': NULLABLE_URI,
    }, required=('cursor', 'uuid', 'created_at', 'level', 'event_type',
                 'object_type', 'object_uuid', 'object_name', 'message',
                 'conductor', 'href')),
        'description': 'The newest events of level warning, error or '
                       'critical, newest first, at most [dashboard] '
                       'max_listed.'},
}, required=('as_of', 'heartbeat_timeout', 'pools', 'nodes', 'allocations',
             'claims', 'ending_soon', 'conductors', 'stranded', 'alerts'))

SCHEMAS = {
    'Fleet': FLEET,
    'Page': {'type': 'string', 'description': 'An HTML page, a style '
             'sheet or a script of the dashboard.'},
    'EventWatch': {'type': 'object', 'description': 'The answer of GET '
                   '/v1/events.'},
    'Metrics': {'type': 'string', 'description': 'Prometheus\' text '
                'exposition format.'},
}
