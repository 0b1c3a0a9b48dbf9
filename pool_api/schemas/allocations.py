"""Request schemas of the allocations API."""
from pool_api.schemas import common
from pool_api.schemas import pools
from pool_conductor import states

# As in Ironic, every field may be null, which means the same as leaving
# it out: openstacksdk sends null for each attribute a caller leaves unset.
CREATE = {
    'type': 'object',
    'properties': {
        'uuid': common.nullable(common.UUID),
        'name': common.NULLABLE_NAME,
        'resource_class': common.nullable(common.RESOURCE_CLASS),
        'traits': common.nullable(common.TRAITS),
        'candidate_nodes': {'type': ['array', 'null'], 'maxItems': 1000,
                            'items': common.IDENT},
        'extra': common.nullable(common.EXTRA),
        'node': common.nullable(common.IDENT),
        'owner': common.PROJECT,
        # Take a Free node of this pool, with its allocate actions.
        'pool': common.NULLABLE_NAME,
        # When the allocation ends by itself, within its pool's lifespan.
        'lifespan_end': pools.TIMESTAMP,
        # A window: when it starts (RFC 3339, with an offset), and when it
        # ends (end_at, its lifespan_end) or how long it lasts (duration,
        # such as "4h").
        'start_at': pools.TIMESTAMP,
        'end_at': pools.TIMESTAMP,
        'duration': {'type': ['string', 'null'], 'minLength': 1,
                     'maxLength': 64},
    },
    'additionalProperties': False,
}

# A preview of an allocation request: what the allocator reads of it,
# the seed of its random start, and how many matches to list.
PREVIEW = {
    'type': 'object',
    'properties': {
        'name': common.NULLABLE_NAME,
        'resource_class': common.nullable(common.RESOURCE_CLASS),
        'traits': common.nullable(common.TRAITS),
        'candidate_nodes': CREATE['properties']['candidate_nodes'],
        'owner': common.PROJECT,
        'pool': common.NULLABLE_NAME,
        'seed': {'type': ['integer', 'null'], 'minimum': 0,
                 'maximum': 2 ** 63 - 1},
        'limit': {'type': ['integer', 'null'], 'minimum': 1,
                  'maximum': 2 ** 31 - 1},
        # When the allocation would end: nodes a window holds before then
        # (plus the post margin) are left out as overlapping_window.
        'lifespan_end': pools.TIMESTAMP,
        # A window, as an allocation books it: the nodes booking it would
        # find free.
        'start_at': CREATE['properties']['start_at'],
        'end_at': CREATE['properties']['end_at'],
        'duration': CREATE['properties']['duration'],
    },
    'additionalProperties': False,
}

# The query parameters of GET /v1/allocation_candidates: the fields of
# the body, lists separated by commas.
PREVIEW_QUERY = {
    'resource_class': {'type': 'string', 'maxLength': 80},
    'traits': {'type': 'string', 'maxLength': 10000},
    'candidate_nodes': {'type': 'string', 'maxLength': 100000},
    'owner': {'type': 'string', 'maxLength': 255},
    'pool': {'type': 'string', 'maxLength': 255},
    'name': {'type': 'string', 'maxLength': 255},
    'seed': {'type': 'integer', 'minimum': 0, 'maximum': 2 ** 63 - 1},
    'limit': {'type': 'integer', 'minimum': 1, 'maximum': 2 ** 31 - 1},
    'lifespan_end': {'type': 'string', 'maxLength': 64},
    'start_at': {'type': 'string', 'maxLength': 64},
    'end_at': {'type': 'string', 'maxLength': 64},
    'duration': {'type': 'string', 'maxLength': 64},
}

# The fields a PATCH may change, checked after the patch is applied.
UPDATE = {
    'type': 'object',
    'properties': {
        'name': common.NULLABLE_NAME,
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
