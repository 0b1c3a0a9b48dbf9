"""Response schemas of content documents, exported and imported."""
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import STRINGS

SCHEMAS = {
    # A content document (pool_conductor.content), as an import takes it.
    'Content': object_of({'meta': OBJECT, 'sections': object_of(
        dict.fromkeys(('workflows', 'profiles', 'brokers', 'pools',
                       'providers'), OBJECT))},
        required=('meta', 'sections')),
    # What an import did, per kind: the names created, updated, unchanged.
    'ContentImported': {'type': 'object', 'additionalProperties': object_of(
        dict.fromkeys(('created', 'updated', 'unchanged'), STRINGS))},
}
