"""Request schemas of external managers."""
from pool_api.schemas import common
from pool_api.schemas import pools

EXTERNAL_MANAGER_CREATE = {
    'type': 'object',
    'properties': {
        'name': common.NAME,
        'description': pools.TEXT,
        'driver': common.NAME,
        # What the driver needs (pool_conductor.external_managers);
        # secrets are masked in responses.
        'parameters': {'type': 'object', 'maxProperties': 100},
        'enabled': {'type': 'boolean'},
        'sync_interval': {'type': ['integer', 'null'], 'minimum': 1,
                          'maximum': 86400},
    },
    'required': ['name', 'driver'],
    'additionalProperties': False,
}
EXTERNAL_MANAGER_UPDATE = {**EXTERNAL_MANAGER_CREATE,
                           'additionalProperties': True}
