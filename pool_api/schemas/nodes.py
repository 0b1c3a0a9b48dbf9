"""Request schemas of the nodes API."""
from pool_api.schemas import common
from pool_api.schemas import deploy_templates as template_schemas
from pool_api.schemas import pools

DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 4096}
DRIVER = {'type': 'string', 'minLength': 1, 'maxLength': 255}
RESOURCE_CLASS = {'type': ['string', 'null'], 'maxLength': 80}
DICT = common.MAP
INSTANCE_UUID = {'type': ['string', 'null'], 'maxLength': 36}

INTERFACE = {'type': ['string', 'null'], 'maxLength': 255}
CONDUCTOR_GROUP = {'type': ['string', 'null'], 'maxLength': 255}

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
    'chassis_uuid': {'type': ['string', 'null'], 'maxLength': 36},
    'owner': common.PROJECT,
    'lessee': common.PROJECT,
    'params': pools.PARAMS,
    'profiles': common.NAMES,
    'workflow': common.NULLABLE_NAME,
    'conductor_group': CONDUCTOR_GROUP,
    'retired': {'type': ['boolean', 'string', 'null'], 'maxLength': 10},
    'automated_clean': {'type': ['boolean', 'string', 'null'],
                        'maxLength': 10},
    'retired_reason': {'type': ['string', 'null'], 'maxLength': 4096},
    **{'%s_interface' % name: INTERFACE
       for name in ('bios', 'boot', 'console', 'deploy', 'firmware',
                    'inspect', 'management', 'network', 'power', 'raid',
                    'rescue', 'storage', 'vendor')},
    'external_manager': common.NULLABLE_NAME,
    'external_ref': {'type': ['string', 'null'], 'minLength': 1,
                     'maxLength': 255},
}

# Fields of Ironic's node creation that pool's nodes do not have (no
# console; instance_uuid and maintenance have their own
# writers): accepted as null, which Ironic takes as absent.
IRONIC_ONLY_FIELDS = (
    'console_enabled', 'instance_uuid', 'maintenance', 'network_data')

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
                   'runnable': {'type': 'boolean'},
                   'maintenance': {'type': 'boolean'},
                   'retired': {'type': 'boolean'},
                   'automated_clean': {'type': ['boolean', 'null']},
                   'protected': {'type': 'boolean'},
                   'protected_reason': {'type': ['string', 'null'],
                                        'maxLength': 4096}},
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

# Ironic's clean steps, as a manual cleaning takes them (1.15).
CLEAN_STEP = {
    'type': 'object',
    'properties': {
        'interface': {'type': 'string', 'enum': [
            'power', 'management', 'deploy', 'bios', 'raid', 'firmware']},
        'step': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'args': {'type': 'object'},
    },
    'required': ['interface', 'step'],
    'additionalProperties': False,
}

PROVISION = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string', 'maxLength': 255},
        'configdrive': CONFIGDRIVE,
        'clean_steps': {'type': ['array', 'null'], 'maxItems': 100,
                        'items': CLEAN_STEP},
        'rescue_password': {'type': ['string', 'null'], 'maxLength': 255},
        'deploy_steps': {'anyOf': [template_schemas.DEPLOY_STEPS,
                                   {'type': 'null'}]},
    },
    'required': ['target'],
    'additionalProperties': False,
}

CONSOLE = {
    'type': 'object',
    'properties': {'enabled': {'type': ['boolean', 'string'],
                               'maxLength': 10}},
    'required': ['enabled'],
    'additionalProperties': False,
}

# Ironic's RAID configuration (ironic/drivers/raid_config_schema.json):
# the logical disks a node is to have.
_DISK_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
LOGICAL_DISK = {
    'type': 'object',
    'properties': {
        'raid_level': {'type': 'string', 'enum': [
            'JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0']},
        'size_gb': {'anyOf': [{'type': 'integer', 'minimum': 0,
                               'maximum': 2 ** 53},
                              {'type': 'string', 'enum': ['MAX']}]},
        'volume_name': _DISK_NAME,
        'is_root_volume': {'type': 'boolean'},
        'share_physical_disks': {'type': 'boolean'},
        'disk_type': {'type': 'string', 'enum': ['hdd', 'ssd']},
        'interface_type': {'type': 'string',
                           'enum': ['sata', 'scsi', 'sas']},
        'number_of_physical_disks': {'type': 'integer', 'minimum': 1,
                                     'maximum': 10000},
        'controller': _DISK_NAME,
        'physical_disks': {'anyOf': [
            {'type': 'array', 'maxItems': 10000, 'items': _DISK_NAME},
            {'type': 'array', 'minItems': 2, 'maxItems': 10000,
             'items': {'type': 'object'}}]},
    },
    'required': ['raid_level', 'size_gb'],
    'additionalProperties': False,
    'dependentRequired': {'physical_disks': ['controller']},
}
# The handler takes an empty object as is (no RAID configuration).
RAID_CONFIG_BODY = {
    'type': 'object',
    'properties': {'logical_disks': {
        'type': 'array', 'minItems': 1, 'maxItems': 1000,
        'items': LOGICAL_DISK}},
    'required': ['logical_disks'],
    'additionalProperties': False,
}

MAINTENANCE = {
    'type': 'object',
    'properties': {
        'reason': {'type': ['string', 'null'], 'maxLength': 4096},
    },
    'additionalProperties': False,
}

# A maintenance window of a node (pool_conductor.booking.maintenance_windows):
# times with their offset (RFC 3339), checked by the handler.
MAINTENANCE_WINDOW = {
    'type': 'object',
    'properties': {
        'start_at': {'type': 'string', 'minLength': 1, 'maxLength': 64},
        'end_at': {'type': 'string', 'minLength': 1, 'maxLength': 64},
        'reason': {'type': 'string', 'minLength': 1, 'maxLength': 4096},
    },
    'required': ['start_at', 'end_at', 'reason'],
    'additionalProperties': False,
}

INDICATOR_STATE = {
    'type': 'object',
    'properties': {'state': {'type': 'string', 'maxLength': 255}},
    'required': ['state'],
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
    'conductor_group': {'type': 'string', 'maxLength': 255},
    'conductor': {'type': 'string', 'maxLength': 255},
    'fault': {'type': 'string', 'maxLength': 255},
    'instance_uuid': {'type': 'string', 'maxLength': 36},
    'chassis_uuid': {'type': 'string', 'maxLength': 36},
    'maintenance': {'type': 'boolean'},
    'retired': {'type': 'boolean'},
    'associated': {'type': 'boolean'},
}
