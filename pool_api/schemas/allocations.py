"""Request schemas of the allocations API."""
from pool_api.schemas import common
from pool_api.schemas import pools
from pool_conductor import states

CREATE = {
    'type': 'object',
    'properties': {
        'uuid': common.UUID,
        'name': common.NAME,
        'resource_class': common.RESOURCE_CLASS,
        'traits': common.TRAITS,
        'candidate_nodes': {'type': 'array', 'maxItems': 1000,
                            'items': common.IDENT},
        'extra': common.EXTRA,
        'node': common.IDENT,
        'owner': common.PROJECT,
        # Take a Free node of this pool, with its allocate actions.
        'pool': pools.NAME,
        # When the allocation ends by itself, within its pool's lifespan.
        'lifespan_end': pools.TIMESTAMP,
    },
    'additionalProperties': False,
}

# The fields a PATCH may change, checked after the patch is applied.
UPDATE = {
    'type': 'object',
    'properties': {
        'name': common.NAME,
        'extra': common.EXTRA,
        'lifespan_end': pools.TIMESTAMP,
    },
}

# Query parameters of GET /v1/allocations that filter the list.
FILTERS = {
    'resource_class': {'type': 'string', 'maxLength': 80},
    'state': {'type': 'string', 'enum': list(states.ALLOCATION_STATES)},
    'node': {'type': 'string', 'maxLength': 255},
    'owner': {'type': 'string', 'maxLength': 255},
}
