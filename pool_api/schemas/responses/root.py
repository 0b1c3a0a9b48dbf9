"""Response schemas of version discovery: the root, /v1 and this
document."""
from pool_api import microversion
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import ref
from pool_api.schemas.responses.base import STRING

_VERSION = object_of({
    'id': STRING,
    'links': LINKS,
    'status': STRING,
    'min_version': STRING,
    'version': STRING,
}, required=('id', 'links', 'status', 'min_version', 'version'))
_MEDIA_TYPE = object_of({'base': STRING, 'type': STRING},
                        required=('base', 'type'))

SCHEMAS = {
    'Version': _VERSION,
    'Root': object_of({
        'name': STRING,
        'description': STRING,
        'default_version': ref('Version'),
        'versions': {'type': 'array', 'items': ref('Version')},
    }, required=('name', 'description', 'default_version', 'versions')),
    'V1': object_of({
        'id': STRING,
        'links': LINKS,
        'media_types': {'type': 'array', 'items': _MEDIA_TYPE},
        'nodes': LINKS,
        'ports': LINKS,
        'allocations': LINKS,
        'drivers': LINKS,
        'version': ref('Version'),
    }, required=('id', 'links', 'media_types', 'nodes', 'version'),
        description='allocations appears from version 1.%d on.'
                    % microversion.ALLOCATIONS),
    'OpenAPI': {'type': 'object', 'required': ['openapi', 'info', 'paths']},
}
