"""Response schemas of reservations: windowed allocations of several
nodes booked together."""
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import STRINGS
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import states

RESERVATION_FIELDS = {
    'uuid': STRING,
    'name': NULLABLE_STRING,
    'owner': NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.RESERVATION_STATES)},
    'count': object_of({'min': {'type': 'integer'},
                        'max': {'type': 'integer'}}, required=('min', 'max')),
    'pool': STRING,
    'resource_class': NULLABLE_STRING,
    'traits': STRINGS,
    'candidate_nodes': STRINGS,
    'extra': OBJECT,
    'start_at': TIMESTAMP,
    'end_at': TIMESTAMP,
    'allocations': {'type': 'array', 'items': object_of({
        'uuid': STRING,
        'node_uuid': NULLABLE_STRING,
        'state': {'type': 'string', 'enum': list(states.ALLOCATION_STATES)},
    }, required=('uuid', 'node_uuid', 'state'))},
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}

SCHEMAS = {
    'Reservation': object_of(
        RESERVATION_FIELDS, required=('links',),
        description='A reservation: windowed allocations of several nodes '
                    'booked together. Which fields it has depends on the '
                    'fields parameter; links are always there.'),
    'ReservationList': page('reservations', 'Reservation'),
}
