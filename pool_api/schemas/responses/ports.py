"""Response schemas of ports and of the VIFs attached to a node."""
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP

PORT_FIELDS = {
    'uuid': STRING,
    'address': STRING,
    'node_uuid': STRING,
    'portgroup_uuid': NULLABLE_STRING,
    'pxe_enabled': BOOLEAN,
    'local_link_connection': OBJECT,
    'physical_network': NULLABLE_STRING,
    'extra': OBJECT,
    'internal_info': OBJECT,
    'is_smartnic': BOOLEAN,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}

SCHEMAS = {
    'Port': object_of(
        PORT_FIELDS, required=('links',),
        description='A port. Which fields it has depends on the '
                    'requested version and the fields parameter; links '
                    'are always there.'),
    'PortList': page('ports', 'Port'),
    'VIFList': object_of({
        'vifs': {'type': 'array', 'items': object_of(
            {'id': STRING}, required=('id',))},
    }, required=('vifs',)),
}
