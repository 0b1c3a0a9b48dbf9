"""Response schemas of claims, their handles and the providers they
name."""
from pool_api.schemas import claims as claim_schemas
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
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import ref
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import STRINGS
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import states

PROVIDER_FIELDS = {
    **NAMED_COMMON,
    'pool': STRING,
    'defaults': claim_schemas.RESOURCE_TEMPLATE,
    'template': OBJECT,
    'validation': OBJECT,
    'match_ignore': STRINGS,
    'update_filters': {'type': 'array',
                       'items': claim_schemas.UPDATE_FILTER},
    'lifespan': pool_schemas.LIFESPAN,
    'match': claim_schemas.RESOURCE_TEMPLATE,
    'override': claim_schemas.RESOURCE_TEMPLATE,
    'resource_requires_claim': BOOLEAN,
    'on_lost': {'enum': ['replace', 'error']},
    'keep_params': BOOLEAN,
    **NAMED_TAIL,
}
CLAIM_FIELDS = {
    'uuid': STRING,
    'name': NULLABLE_STRING,
    'owner': NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.CLAIM_STATES)},
    'last_error': NULLABLE_STRING,
    'resources': {'type': 'array', 'items': object_of({
        'provider': STRING,
        'template': claim_schemas.RESOURCE_TEMPLATE,
    }, required=('provider', 'template'))},
    'allocations': STRINGS,
    'handles': {'type': 'array', 'items': ref('Handle'),
                'description': 'One for each resource (unbound while it '
                               'has no machine), and the lost ones.'},
    'lifespan_end': NULLABLE_TIMESTAMP,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}
HANDLE_FIELDS = {
    'uuid': NULLABLE_STRING,
    'claim_uuid': STRING,
    'claim_name': NULLABLE_STRING,
    'resource_index': {'type': ['integer', 'null']},
    'provider': NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.HANDLE_STATES)},
    'allocation_uuid': NULLABLE_STRING,
    'node_uuid': NULLABLE_STRING,
    'node_name': NULLABLE_STRING,
    'pool_status': NULLABLE_STRING,
    'provision_state': NULLABLE_STRING,
    'last_error': NULLABLE_STRING,
    'created_at': NULLABLE_TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}

SCHEMAS = {
    **named(PROVIDER_FIELDS, 'providers', 'Provider'),
    'Claim': object_of(
        CLAIM_FIELDS, required=('links',),
        description='A claim. Which fields it has depends on the fields '
                    'parameter; links are always there.'),
    'ClaimList': page('claims', 'Claim'),
    'Handle': object_of(
        HANDLE_FIELDS,
        description='What a claim holds for one resource (Poolboy\'s '
                    'ResourceHandle): the allocation and the machine. '
                    'Which fields it has depends on the fields parameter.'),
    'HandleList': page('handles', 'Handle'),
}
