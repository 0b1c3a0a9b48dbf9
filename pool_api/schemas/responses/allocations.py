"""Response schemas of allocations and of the previews of a request
(candidates, availability)."""
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import INTEGER
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import STRINGS
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import candidates
from pool_conductor import states

ALLOCATION_FIELDS = {
    'uuid': STRING,
    'name': NULLABLE_STRING,
    'node_uuid': NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.ALLOCATION_STATES)},
    'last_error': NULLABLE_STRING,
    'resource_class': NULLABLE_STRING,
    'traits': STRINGS,
    'candidate_nodes': STRINGS,
    'extra': OBJECT,
    'owner': NULLABLE_STRING,
    'lifespan_end': NULLABLE_TIMESTAMP,
    'pool': STRING,
    'start_at': NULLABLE_TIMESTAMP,
    'busy_from': NULLABLE_TIMESTAMP,
    'busy_until': NULLABLE_TIMESTAMP,
    'missing_resources': BOOLEAN,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}
_REJECTED = object_of(dict.fromkeys(candidates.REASONS, INTEGER),
                      required=candidates.REASONS,
                      description='How many nodes each reason left out; a '
                                  'node counts once, under the first reason '
                                  'that removes it, in the order listed.')
ALLOCATION_CANDIDATES = object_of({
    'as_of': TIMESTAMP,
    'candidates': {'type': 'array', 'items': object_of({
        'uuid': STRING, 'name': NULLABLE_STRING, 'pool': STRING,
        'resource_class': NULLABLE_STRING, 'traits': STRINGS,
    }, required=('uuid', 'name', 'pool', 'resource_class', 'traits'))},
    'total_matching': INTEGER,
    'would_pick': NULLABLE_STRING,
    'rejected': _REJECTED,
    'fleet': INTEGER,
    'window': {'oneOf': [{'type': 'null'}, object_of({
        'start_at': TIMESTAMP, 'end_at': TIMESTAMP,
        'busy_from': TIMESTAMP, 'busy_until': TIMESTAMP,
    }, required=('start_at', 'end_at', 'busy_from', 'busy_until'),
        description='The window of the request (start_at in the future) '
                    'and the slot booking it holds, with the margins of '
                    'its pool; null without one.')]},
}, required=('as_of', 'candidates', 'total_matching', 'would_pick',
             'rejected', 'fleet', 'window'))
AVAILABILITY = object_of({
    'earliest_start': NULLABLE_TIMESTAMP,
    'after': TIMESTAMP,
    'before': TIMESTAMP,
    'duration': STRING,
    'count': INTEGER,
    'nodes': {'type': 'array', 'items': object_of({
        'uuid': STRING, 'name': NULLABLE_STRING,
        'free': {'type': 'array', 'items': object_of(
            {'from': TIMESTAMP, 'until': TIMESTAMP},
            required=('from', 'until'))},
    }, required=('uuid', 'name', 'free'))},
}, required=('earliest_start', 'after', 'before', 'duration', 'count',
             'nodes'))

SCHEMAS = {
    'Allocation': object_of(
        ALLOCATION_FIELDS, required=('links',),
        description='An allocation. Which fields it has depends on the '
                    'requested version and the fields parameter; links '
                    'are always there.'),
    'AllocationList': page('allocations', 'Allocation'),
    'AllocationCandidates': ALLOCATION_CANDIDATES,
    'Availability': AVAILABILITY,
}
