"""Request schemas of providers and claims."""
from pool_api.schemas import common
from pool_api.schemas import pools
from pool_conductor import states

# A machine request: what a claim's resource asks of a machine, and what
# a provider's defaults fill in.
RESOURCE_TEMPLATE = {
    'type': 'object',
    'properties': {
        'resource_class': common.RESOURCE_CLASS,
        'traits': common.TRAITS,
        'params': pools.PARAMS,
        'profiles': common.NAMES,
        'workflow': common.NULLABLE_NAME,
    },
    'additionalProperties': False,
}
# JSON pointers into a resource template, such as /params/hostname.
POINTER = {'type': 'string', 'maxLength': 1024, 'pattern': '^(/.*)?$'}
UPDATE_FILTER = {
    'type': 'object',
    'properties': {
        # An RE2 pattern that a whole JSON pointer must match.
        'path_match': {'type': 'string', 'minLength': 1, 'maxLength': 240},
        'allowed_ops': {'type': 'array', 'minItems': 1, 'uniqueItems': True,
                        'items': {'enum': ['add', 'replace', 'remove']}},
    },
    'required': ['path_match'],
    'additionalProperties': False,
}
_PROVIDER_FIELDS = {
    'description': pools.TEXT,
    'pool': common.NAME,
    'defaults': RESOURCE_TEMPLATE,
    'template': {'type': 'object',
                 'properties': {'enable': {'type': 'boolean'}},
                 'additionalProperties': False},
    # A JSON schema (checked with jsonschema's check_schema).
    'validation': {'type': 'object'},
    'match_ignore': {'type': 'array', 'maxItems': 100, 'items': POINTER},
    'update_filters': {'type': 'array', 'maxItems': 100,
                       'items': UPDATE_FILTER},
    'lifespan': pools.LIFESPAN,
    # A claim's resource that names no provider is this provider's when
    # its template has all of match.
    'match': RESOURCE_TEMPLATE,
    # Applied over the claimed template when a machine is bound.
    'override': RESOURCE_TEMPLATE,
    'resource_requires_claim': {'type': 'boolean'},
    'on_lost': {'enum': ['replace', 'error']},
    'keep_params': {'type': 'boolean'},
}
PROVIDER_CREATE = {
    'type': 'object',
    'properties': {'name': common.NAME, **_PROVIDER_FIELDS},
    'required': ['name', 'pool'],
    'additionalProperties': False,
}
PROVIDER_UPDATE = {
    'type': 'object',
    'properties': {'name': common.NAME, **_PROVIDER_FIELDS},
    'required': ['name', 'pool'],
}

MAX_RESOURCES = 100
RESOURCE = {
    'type': 'object',
    'properties': {
        # Without it, the provider whose match the template fits.
        'provider': common.NAME,
        # Checked against RESOURCE_TEMPLATE once the provider's defaults
        # are merged under it.
        'template': {'type': 'object'},
    },
    'additionalProperties': False,
}
CLAIM_CREATE = {
    'type': 'object',
    'properties': {
        'uuid': common.UUID,
        'name': common.NULLABLE_NAME,
        'resources': {'type': 'array', 'minItems': 1,
                      'maxItems': MAX_RESOURCES, 'items': RESOURCE},
        'lifespan_end': pools.TIMESTAMP,
    },
    'required': ['resources'],
    'additionalProperties': False,
}
# The fields a PATCH may change, checked after the patch is applied.
CLAIM_UPDATE = {
    'type': 'object',
    'properties': {
        'lifespan_end': pools.TIMESTAMP,
        'resources': {'type': 'array', 'minItems': 1,
                      'maxItems': MAX_RESOURCES, 'items': RESOURCE},
    },
}
# Query parameters of GET /v1/claims that filter the list.
FILTERS = {
    'state': {'type': 'string', 'maxLength': 15,
              'enum': list(states.CLAIM_STATES)},
    'owner': {'type': 'string', 'maxLength': 255},
}
# Query parameters of GET /v1/handles that filter the list.
HANDLE_FILTERS = {
    'claim': {'type': 'string', 'maxLength': 255},
    'provider': {'type': 'string', 'maxLength': 255},
    'node': {'type': 'string', 'maxLength': 255},
    'owner': {'type': 'string', 'maxLength': 255},
    'state': {'type': 'string', 'maxLength': 15,
              'enum': [s for s in states.HANDLE_STATES
                       if s != states.HANDLE_UNBOUND]},
}
