"""Request schemas of the reservations API."""
from pool_api.schemas import allocations
from pool_api.schemas import common
from pool_api.schemas import pools

# How many nodes: between min and max (as many as are free), or exactly
# an integer. The largest max is the [windows] max_count option.
COUNT = {
    'oneOf': [
        {'type': 'integer', 'minimum': 1},
        {'type': 'object',
         'properties': {'min': {'type': 'integer', 'minimum': 1},
                        'max': {'type': 'integer', 'minimum': 1}},
         'required': ['min', 'max'],
         'additionalProperties': False},
    ],
}

_ALLOCATION = allocations.CREATE['properties']
CREATE = {
    'type': 'object',
    'properties': {
        'uuid': common.nullable(common.UUID),
        'name': common.NULLABLE_NAME,
        'count': COUNT,
        # The window (RFC 3339, with an offset), as a windowed
        # allocation's: its end (end_at) or how long it lasts (duration).
        'start_at': pools.TIMESTAMP,
        'end_at': pools.TIMESTAMP,
        'duration': _ALLOCATION['duration'],
        'resource_class': _ALLOCATION['resource_class'],
        'traits': _ALLOCATION['traits'],
        'candidate_nodes': _ALLOCATION['candidate_nodes'],
        'pool': common.NULLABLE_NAME,
        'owner': common.PROJECT,
        'extra': common.nullable(common.EXTRA),
    },
    'required': ['count', 'start_at'],
    'additionalProperties': False,
}

# Query parameters of GET /v1/reservations that filter the list.
FILTERS = {
    'owner': {'type': 'string', 'maxLength': 255},
    'pool': {'type': 'string', 'maxLength': 255},
}
