"""Response schemas of port groups."""
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP

PORTGROUP_FIELDS = {
    'uuid': STRING,
    'address': NULLABLE_STRING,
    'name': NULLABLE_STRING,
    'node_uuid': STRING,
    'standalone_ports_supported': BOOLEAN,
    'internal_info': OBJECT,
    'extra': OBJECT,
    'mode': NULLABLE_STRING,
    'properties': OBJECT,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
    'ports': LINKS,
}

SCHEMAS = {
    'Portgroup': object_of(
        PORTGROUP_FIELDS, required=('links',),
        description='A port group. Which fields it has depends on the '
                    'requested version and the fields parameter; links '
                    'are always there.'),
    'PortgroupList': page('portgroups', 'Portgroup'),
}
