"""Request schemas of brokers."""
from pool_api.schemas import common
from pool_api.schemas import pools

BROKER_CREATE = {
    'type': 'object',
    'properties': {
        'name': common.NAME,
        'description': pools.TEXT,
        'driver': common.NAME,
        # What the driver needs (pool_conductor.brokers); secrets are
        # masked in responses.
        'parameters': {'type': 'object', 'maxProperties': 100},
    },
    'required': ['name', 'driver'],
    'additionalProperties': False,
}
BROKER_UPDATE = {**BROKER_CREATE, 'additionalProperties': True}
