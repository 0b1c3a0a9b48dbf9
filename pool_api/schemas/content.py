"""Request schema of a content document (pool_conductor.content)."""
from pool_api.schemas import brokers
from pool_api.schemas import claims
from pool_api.schemas import common
from pool_api.schemas import pools


def _item(create: dict) -> dict:
    """The fields of one object of a section: those of its create, less
    its name, which keys it."""
    return {**create,
            'properties': {k: v for k, v in create['properties'].items()
                           if k != 'name'},
            'required': [f for f in create.get('required', ())
                         if f != 'name']}


def _section(create: dict) -> dict:
    return {'type': 'object', 'maxProperties': 10000,
            'propertyNames': common.NAME,
            'additionalProperties': _item(create)}


META = {
    'type': 'object',
    'properties': {'name': common.NAME, 'version': pools.TEXT,
                   'description': pools.TEXT},
    'additionalProperties': {'type': ['string', 'null'],
                             'maxLength': 4096},
    'maxProperties': 50,
}
CONTENT = {
    'type': 'object',
    'properties': {
        'meta': META,
        'sections': {
            'type': 'object',
            'properties': {
                'workflows': _section(pools.WORKFLOW_CREATE),
                'profiles': _section(pools.PROFILE_CREATE),
                'brokers': _section(brokers.BROKER_CREATE),
                'pools': _section(pools.POOL_CREATE),
                'providers': _section(claims.PROVIDER_CREATE),
            },
            'additionalProperties': False,
        },
    },
    'required': ['sections'],
    'additionalProperties': False,
}
