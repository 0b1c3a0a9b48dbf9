"""Response schemas of external managers and their status."""
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import named
from pool_api.schemas.responses.base import NAMED_COMMON
from pool_api.schemas.responses.base import NAMED_TAIL
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import STRING
from pool_conductor import states

EXTERNAL_MANAGER_FIELDS = {
    **NAMED_COMMON, 'driver': STRING, 'parameters': OBJECT,
    'enabled': BOOLEAN, 'sync_interval': {'type': ['integer', 'null']},
    'conductor_affinity': NULLABLE_STRING,
    'last_sync_at': NULLABLE_TIMESTAMP, 'last_error': NULLABLE_STRING,
    'error_streak': {'type': 'integer'}, **NAMED_TAIL}

SCHEMAS = {
    **named(EXTERNAL_MANAGER_FIELDS, 'external_managers',
            'ExternalManager'),
    'ExternalManagerStatus': object_of({
        'name': STRING,
        'states': object_of({s: {'type': 'integer'}
                             for s in states.EXTERNAL_STATES},
                            required=states.EXTERNAL_STATES),
        'last_sync_at': NULLABLE_TIMESTAMP,
        'last_error': NULLABLE_STRING,
        'error_streak': {'type': 'integer'},
        'conductor': NULLABLE_STRING,
    }, required=('name', 'states', 'last_sync_at', 'last_error',
                 'error_streak', 'conductor')),
}
