"""Response schemas of chassis."""
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP

CHASSIS_FIELDS = {
    'uuid': STRING,
    'description': NULLABLE_STRING,
    'extra': OBJECT,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
    'nodes': LINKS,
}

SCHEMAS = {
    'Chassis': object_of(
        CHASSIS_FIELDS, required=('links',),
        description='A chassis. Which fields it has depends on the fields '
                    'parameter; links are always there.'),
    'ChassisList': page('chassis', 'Chassis'),
}
