"""Response schemas of pools, their status and actions, and of profiles,
workflows and the params of a node."""
from pool_api.schemas import pools as pool_schemas
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import named
from pool_api.schemas.responses.base import NAMED_COMMON
from pool_api.schemas.responses.base import NAMED_TAIL
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import STRINGS
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import states

_ACTIONS = pool_schemas.TRANSITION_ACTIONS
POOL_FIELDS = {
    'name': STRING,
    'description': NULLABLE_STRING,
    'documentation': NULLABLE_STRING,
    'meta': pool_schemas.META,
    'parent_pool': NULLABLE_STRING,
    **dict.fromkeys(pool_schemas.ACTION_SETS, _ACTIONS),
    'lifespan': pool_schemas.LIFESPAN,
    'broker': NULLABLE_STRING,
    'autofill': pool_schemas.AUTOFILL,
    'keep_params': BOOLEAN,
    'reservation_pre_margin': pool_schemas.MARGIN,
    'reservation_post_margin': pool_schemas.MARGIN,
    'last_error': NULLABLE_STRING,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}
PROFILE_FIELDS = {**NAMED_COMMON, 'params': OBJECT,
                  'secret_params': STRINGS, **NAMED_TAIL}
WORKFLOW_FIELDS = {**NAMED_COMMON, 'stages': STRINGS, **NAMED_TAIL}

SCHEMAS = {
    **named(POOL_FIELDS, 'pools', 'Pool'),
    'PoolStatus': object_of({
        'name': STRING,
        'total': {'type': 'integer'},
        'statuses': object_of(
            dict.fromkeys(states.POOL_STATUSES, {'type': 'integer'}),
            required=states.POOL_STATUSES),
        'creating': {'type': 'integer',
                     'description': 'Members a broker is making.'},
        'unhealthy': {'type': 'integer',
                      'description': 'Members whose creation failed and '
                                     'is tried again.'},
    }, required=('name', 'total', 'statuses', 'creating', 'unhealthy')),
    'PoolActionResults': {'type': 'array', 'items': object_of({
        'status': STRING, 'allocated': BOOLEAN,
        'name': NULLABLE_STRING, 'uuid': STRING},
        required=('status', 'allocated', 'name', 'uuid'))},
    # returnToPool answers as Digital Rebar's: "Success" or an error.
    'Success': {'type': 'string', 'enum': ['Success']},
    **named(PROFILE_FIELDS, 'profiles', 'Profile'),
    'Params': OBJECT,
    **named(WORKFLOW_FIELDS, 'workflows', 'Workflow'),
}
