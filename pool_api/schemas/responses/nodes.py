"""Response schemas of nodes: the node, its states, console, validation,
traits, indicators, maintenance windows and slots."""
from pool_api import microversion
from pool_api.schemas.responses.base import BOOLEAN
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import STRINGS
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor.baremetal import deploy_checks
from pool_conductor import drivers
from pool_conductor import states

NODE_FIELDS = {
    'uuid': STRING,
    'name': NULLABLE_STRING,
    'description': NULLABLE_STRING,
    'driver': STRING,
    'resource_class': NULLABLE_STRING,
    'traits': STRINGS,
    'properties': OBJECT,
    'extra': OBJECT,
    'instance_info': OBJECT,
    'driver_info': OBJECT,
    'driver_internal_info': OBJECT,
    **dict.fromkeys(drivers.FIELDS, NULLABLE_STRING),
    'conductor_group': STRING,
    'conductor': NULLABLE_STRING,
    'automated_clean': {'type': ['boolean', 'null']},
    'protected': BOOLEAN,
    'protected_reason': NULLABLE_STRING,
    'retired': BOOLEAN,
    'retired_reason': NULLABLE_STRING,
    'chassis_uuid': NULLABLE_STRING,
    'instance_uuid': NULLABLE_STRING,
    'allocation_uuid': NULLABLE_STRING,
    'provision_state': NULLABLE_STRING,
    'target_provision_state': NULLABLE_STRING,
    'provision_updated_at': NULLABLE_TIMESTAMP,
    'power_state': NULLABLE_STRING,
    'target_power_state': NULLABLE_STRING,
    'maintenance': BOOLEAN,
    'maintenance_reason': NULLABLE_STRING,
    'owner': NULLABLE_STRING,
    'lessee': NULLABLE_STRING,
    'reservation': NULLABLE_STRING,
    'last_error': NULLABLE_STRING,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'pool': STRING,
    'pool_status': {'type': 'string', 'enum': list(states.POOL_STATUSES)},
    'pool_allocated': BOOLEAN,
    'params': OBJECT,
    'profiles': STRINGS,
    'workflow': NULLABLE_STRING,
    'stage': NULLABLE_STRING,
    'runnable': BOOLEAN,
    'broker': NULLABLE_STRING,
    'broker_ref': NULLABLE_STRING,
    'broker_token': NULLABLE_STRING,
    'console_enabled': BOOLEAN,
    'raid_config': OBJECT,
    'target_raid_config': OBJECT,
    'clean_step': OBJECT,
    'deploy_step': OBJECT,
    'fault': NULLABLE_STRING,
    'external_manager': NULLABLE_STRING,
    'external_ref': NULLABLE_STRING,
    'external_claim': NULLABLE_STRING,
    'external_state': {'type': ['string', 'null'],
                       'enum': ['free', 'ours', 'theirs', 'gone',
                                'unknown', None]},
    'links': LINKS,
}
MAINTENANCE_WINDOW = object_of({
    'uuid': STRING,
    'node_uuid': STRING,
    'start_at': TIMESTAMP,
    'end_at': TIMESTAMP,
    'reason': NULLABLE_STRING,
    'state': {'type': 'string', 'enum': ['scheduled', 'waiting', 'active']},
    'created_at': TIMESTAMP,
}, required=('uuid', 'node_uuid', 'start_at', 'end_at', 'reason', 'state',
             'created_at'))
NODE_SLOT = object_of({
    'purpose': {'type': 'string', 'enum': ['workload', 'maintenance']},
    'busy_from': TIMESTAMP,
    'busy_until': TIMESTAMP,
    'allocation_uuid': NULLABLE_STRING,
    'maintenance_window_uuid': NULLABLE_STRING,
    'reason': NULLABLE_STRING,
    'state': NULLABLE_STRING,
}, required=('purpose', 'busy_from', 'busy_until', 'allocation_uuid',
             'maintenance_window_uuid', 'reason', 'state'))

SCHEMAS = {
    'Node': object_of(
        NODE_FIELDS, required=('links',),
        description='A node. Which fields it has depends on the '
                    'requested version and the fields parameter; '
                    'links are always there.'),
    'NodeList': page('nodes', 'Node'),
    'NodeStates': object_of({
        'console_enabled': BOOLEAN,
        'last_error': NULLABLE_STRING,
        'power_state': NULLABLE_STRING,
        'provision_state': NULLABLE_STRING,
        'provision_updated_at': NULLABLE_TIMESTAMP,
        'target_power_state': NULLABLE_STRING,
        'target_provision_state': NULLABLE_STRING,
        'raid_config': OBJECT,
        'target_raid_config': OBJECT,
    }, required=('console_enabled', 'last_error', 'power_state',
                 'provision_state', 'provision_updated_at',
                 'target_power_state', 'target_provision_state'),
        description='raid_config and target_raid_config appear from '
                    'version 1.%d on.' % microversion.RAID_CONFIG),
    'NodeConsole': object_of({
        'console_enabled': BOOLEAN,
        'console_info': {'type': ['object', 'null'], 'properties': {
            'type': STRING, 'url': STRING}},
    }, required=('console_enabled', 'console_info'),
        description='console_info is null while the console is '
                    'disabled.'),
    'NodeValidation': object_of(
        {name: object_of({'result': BOOLEAN, 'reason': STRING},
                         required=('result',))
         for name in deploy_checks.INTERFACES},
        required=deploy_checks.INTERFACES,
        description='A reason comes with a false result only.'),
    'Traits': object_of({'traits': STRINGS}, required=('traits',)),
    'IndicatorList': object_of({
        'indicators': {'type': 'array', 'items': object_of({
            'name': STRING, 'component': STRING, 'readonly': BOOLEAN,
            'states': STRINGS, 'links': LINKS},
            required=('name', 'component', 'readonly', 'states',
                      'links'))},
    }, required=('indicators',)),
    'IndicatorState': object_of({'state': STRING}, required=('state',)),
    'MaintenanceWindow': MAINTENANCE_WINDOW,
    'MaintenanceWindowList': object_of(
        {'maintenance_windows': {'type': 'array',
                                 'items': MAINTENANCE_WINDOW}},
        required=('maintenance_windows',)),
    'NodeSlotList': object_of(
        {'slots': {'type': 'array', 'items': NODE_SLOT}},
        required=('slots',)),
}
