"""Response schemas of drivers (hardware types) and of the conductors
that serve them."""
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import ref
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import STRINGS
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import drivers

DRIVER_FIELDS = {
    'name': STRING,
    'hosts': STRINGS,
    'type': STRING,
    'links': LINKS,
    'properties': LINKS,
    **{key: value for interface in drivers.INTERFACES
       for key, value in (('default_%s_interface' % interface,
                           NULLABLE_STRING),
                          ('enabled_%s_interfaces' % interface, STRINGS))},
}
CONDUCTOR_FIELDS = {
    'hostname': STRING,
    'conductor_group': STRING,
    'alive': BOOLEAN,
    'drivers': STRINGS,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}

SCHEMAS = {
    'Driver': object_of(
        DRIVER_FIELDS, required=('links',),
        description='A driver (hardware type). Which fields it has '
                    'depends on the requested version, detail and the '
                    'fields parameter.'),
    'DriverList': object_of({
        'drivers': {'type': 'array', 'items': ref('Driver')},
    }, required=('drivers',)),
    'DriverProperties': {'type': 'object',
                         'additionalProperties': STRING},
    'Conductor': object_of(
        CONDUCTOR_FIELDS, required=('links',),
        description='A conductor; alive when it is online and its last '
                    'heartbeat is recent.'),
    'ConductorList': object_of({
        'conductors': {'type': 'array', 'items': ref('Conductor')},
    }, required=('conductors',)),
}
