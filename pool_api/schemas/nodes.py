"""Request schemas of the nodes API."""
from pool_api.schemas import common
from pool_api.schemas import pools

DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 4096}
DRIVER = {'type': 'string', 'minLength': 1, 'maxLength': 255}
RESOURCE_CLASS = {'type': ['string', 'null'], 'maxLength': 80}
DICT = common.MAP
INSTANCE_UUID = {'type': ['string', 'null'], 'maxLength': 36}

# The writable fields of a node, shared by creation and updates.
_FIELDS = {
    'name': common.NULLABLE_NAME,
    'description': DESCRIPTION,
    'driver': DRIVER,
    'resource_class': RESOURCE_CLASS,
    'properties': DICT,
    'extra': DICT,
    'instance_info': DICT,
    'driver_info': DICT,
    'owner': common.PROJECT,
    'lessee': common.PROJECT,
    'params': pools.PARAMS,
    'profiles': common.NAMES,
    'workflow': common.NULLABLE_NAME,
    'external_manager': common.NULLABLE_NAME,
    'external_ref': {'type': ['string', 'null'], 'minLength': 1,
                     'maxLength': 255},
}

# Fields of Ironic's node creation that pool's nodes do not have (no
# hardware, chassis or console; instance_uuid and maintenance have their
# own writers): accepted as null, which Ironic takes as absent.
IRONIC_ONLY_FIELDS = (
    'automated_clean', 'bios_interface', 'boot_interface', 'chassis_uuid',
    'conductor_group', 'console_enabled', 'console_interface',
    'deploy_interface', 'inspect_interface', 'instance_uuid', 'maintenance',
    'management_interface', 'network_data', 'network_interface',
    'power_interface', 'raid_interface', 'rescue_interface', 'retired',
    'retired_reason', 'storage_interface', 'vendor_interface')

# On creation null means the same as leaving the field out, as in Ironic.
CREATE = {
    'type': 'object',
    'properties': {**_FIELDS,
                   **{name: common.nullable(_FIELDS[name])
                      for name in ('properties', 'extra', 'instance_info',
                                   'driver_info', 'params', 'profiles')},
                   'uuid': common.nullable(common.UUID),
                   **{name: {'type': 'null'}
                      for name in IRONIC_ONLY_FIELDS}},
    'required': ['driver'],
    'additionalProperties': False,
}

# The fields a PATCH may change, checked after the patch is applied.
UPDATE = {
    'type': 'object',
    'properties': {'instance_uuid': INSTANCE_UUID, **_FIELDS,
                   'stage': common.NULLABLE_NAME,
                   'runnable': {'type': 'boolean'}},
    'required': ['driver'],
}

POWER = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string', 'maxLength': 255},
        'timeout': {'type': 'integer', 'minimum': 1},
    },
    'required': ['target'],
    'additionalProperties': False,
}

# A config drive as Ironic takes it: a string (base64 gzipped ISO or a
# URL), or from version 1.56 the pieces Ironic builds one from.
CONFIGDRIVE = {
    'anyOf': [
        {'type': 'object',
         'properties': {
             'meta_data': {'type': 'object'},
             'network_data': {'type': 'object'},
             'user_data': {'type': ['object', 'array', 'string', 'null']},
             'vendor_data': {'type': 'object'},
         },
         'additionalProperties': False},
        {'type': ['string', 'null']},
    ],
}

PROVISION = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string', 'maxLength': 255},
        'configdrive': CONFIGDRIVE,
        # Fields of Ironic's clean and rescue verbs, which pool does not
        # have: accepted only when empty, as clients send them.
        'clean_steps': {'type': ['array', 'null'], 'maxItems': 1000},
        'rescue_password': {'type': ['string', 'null'], 'maxLength': 255},
    },
    'required': ['target'],
    'additionalProperties': False,
}

MAINTENANCE = {
    'type': 'object',
    'properties': {
        'reason': {'type': ['string', 'null'], 'maxLength': 4096},
    },
    'additionalProperties': False,
}

TRAITS = {
    'type': 'object',
    'properties': {'traits': common.TRAITS},
    'required': ['traits'],
    'additionalProperties': False,
}

# Query parameters of GET /v1/nodes and /v1/nodes/detail that filter the
# list; the handler checks the length of the string ones.
FILTERS = {
    'provision_state': {'type': 'string', 'maxLength': 255},
    'resource_class': {'type': 'string', 'maxLength': 80},
    'owner': {'type': 'string', 'maxLength': 255},
    'lessee': {'type': 'string', 'maxLength': 255},
    'driver': {'type': 'string', 'maxLength': 255},
    'fault': {'type': 'string', 'maxLength': 255},
    'instance_uuid': {'type': 'string', 'maxLength': 36},
    'maintenance': {'type': 'boolean'},
    'associated': {'type': 'boolean'},
}
