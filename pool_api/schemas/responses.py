"""Response schemas of the API, by their name in the OpenAPI document.

They follow the handlers' representations: which fields a node or an
allocation has depends on the microversion and on the ``fields``
parameter, so only ``links`` is required of them, and no other field may
appear.
"""
from pool_api.handlers import nodes as node_handlers
from pool_api import microversion
from pool_api.schemas import claims as claim_schemas
from pool_api.schemas import pools as pool_schemas
from pool_conductor.baremetal import deploy_checks
from pool_conductor import candidates
from pool_conductor import drivers
from pool_conductor import events
from pool_conductor import states


def _ref(name: str) -> dict:
    return {'$ref': '#/components/schemas/%s' % name}


def _object(properties: dict, required=(), description=None) -> dict:
    schema = {'type': 'object', 'properties': properties,
              'required': list(required), 'additionalProperties': False}
    if description:
        schema['description'] = description
    return schema


STRING = {'type': 'string'}
_NULLABLE_STRING = {'type': ['string', 'null']}
_TIMESTAMP = {'type': 'string', 'format': 'date-time'}
_NULLABLE_TIMESTAMP = {'type': ['string', 'null'], 'format': 'date-time'}
_OBJECT = {'type': 'object'}
_STRINGS = {'type': 'array', 'items': STRING}
_BOOLEAN = {'type': 'boolean'}
_LINKS = {'type': 'array', 'items': _ref('Link')}

NODE_FIELDS = {
    'uuid': STRING,
    'name': _NULLABLE_STRING,
    'description': _NULLABLE_STRING,
    'driver': STRING,
    'resource_class': _NULLABLE_STRING,
    'traits': _STRINGS,
    'properties': _OBJECT,
    'extra': _OBJECT,
    'instance_info': _OBJECT,
    'driver_info': _OBJECT,
    'driver_internal_info': _OBJECT,
    **dict.fromkeys(drivers.FIELDS, _NULLABLE_STRING),
    'conductor_group': STRING,
    'conductor': _NULLABLE_STRING,
    'automated_clean': {'type': ['boolean', 'null']},
    'protected': _BOOLEAN,
    'protected_reason': _NULLABLE_STRING,
    'retired': _BOOLEAN,
    'retired_reason': _NULLABLE_STRING,
    'chassis_uuid': _NULLABLE_STRING,
    'instance_uuid': _NULLABLE_STRING,
    'allocation_uuid': _NULLABLE_STRING,
    'provision_state': _NULLABLE_STRING,
    'target_provision_state': _NULLABLE_STRING,
    'provision_updated_at': _NULLABLE_TIMESTAMP,
    'power_state': _NULLABLE_STRING,
    'target_power_state': _NULLABLE_STRING,
    'maintenance': _BOOLEAN,
    'maintenance_reason': _NULLABLE_STRING,
    'owner': _NULLABLE_STRING,
    'lessee': _NULLABLE_STRING,
    'reservation': _NULLABLE_STRING,
    'last_error': _NULLABLE_STRING,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'pool': STRING,
    'pool_status': {'type': 'string', 'enum': list(states.POOL_STATUSES)},
    'pool_allocated': _BOOLEAN,
    'params': _OBJECT,
    'profiles': _STRINGS,
    'workflow': _NULLABLE_STRING,
    'stage': _NULLABLE_STRING,
    'runnable': _BOOLEAN,
    'broker': _NULLABLE_STRING,
    'broker_ref': _NULLABLE_STRING,
    'broker_token': _NULLABLE_STRING,
    'console_enabled': _BOOLEAN,
    'raid_config': _OBJECT,
    'target_raid_config': _OBJECT,
    'clean_step': _OBJECT,
    'deploy_step': _OBJECT,
    'fault': _NULLABLE_STRING,
    'external_manager': _NULLABLE_STRING,
    'external_ref': _NULLABLE_STRING,
    'external_claim': _NULLABLE_STRING,
    'external_state': {'type': ['string', 'null'],
                       'enum': ['free', 'ours', 'theirs', 'gone',
                                'unknown', None]},
    'links': _LINKS,
}

ALLOCATION_FIELDS = {
    'uuid': STRING,
    'name': _NULLABLE_STRING,
    'node_uuid': _NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.ALLOCATION_STATES)},
    'last_error': _NULLABLE_STRING,
    'resource_class': _NULLABLE_STRING,
    'traits': _STRINGS,
    'candidate_nodes': _STRINGS,
    'extra': _OBJECT,
    'owner': _NULLABLE_STRING,
    'lifespan_end': _NULLABLE_TIMESTAMP,
    'pool': STRING,
    'start_at': _NULLABLE_TIMESTAMP,
    'busy_from': _NULLABLE_TIMESTAMP,
    'busy_until': _NULLABLE_TIMESTAMP,
    'missing_resources': _BOOLEAN,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}

PORT_FIELDS = {
    'uuid': STRING,
    'address': STRING,
    'node_uuid': STRING,
    'portgroup_uuid': _NULLABLE_STRING,
    'pxe_enabled': _BOOLEAN,
    'local_link_connection': _OBJECT,
    'physical_network': _NULLABLE_STRING,
    'extra': _OBJECT,
    'internal_info': _OBJECT,
    'is_smartnic': _BOOLEAN,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}

PORTGROUP_FIELDS = {
    'uuid': STRING,
    'address': _NULLABLE_STRING,
    'name': _NULLABLE_STRING,
    'node_uuid': STRING,
    'standalone_ports_supported': _BOOLEAN,
    'internal_info': _OBJECT,
    'extra': _OBJECT,
    'mode': _NULLABLE_STRING,
    'properties': _OBJECT,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
    'ports': _LINKS,
}

VOLUME_CONNECTOR_FIELDS = {
    'uuid': STRING,
    'node_uuid': STRING,
    'type': STRING,
    'connector_id': STRING,
    'extra': _OBJECT,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}

VOLUME_TARGET_FIELDS = {
    'uuid': STRING,
    'node_uuid': STRING,
    'volume_type': STRING,
    'properties': _OBJECT,
    'boot_index': {'type': 'integer'},
    'volume_id': STRING,
    'extra': _OBJECT,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}

CHASSIS_FIELDS = {
    'uuid': STRING,
    'description': _NULLABLE_STRING,
    'extra': _OBJECT,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
    'nodes': _LINKS,
}

CONDUCTOR_FIELDS = {
    'hostname': STRING,
    'conductor_group': STRING,
    'alive': _BOOLEAN,
    'drivers': _STRINGS,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}

DRIVER_FIELDS = {
    'name': STRING,
    'hosts': _STRINGS,
    'type': STRING,
    'links': _LINKS,
    'properties': _LINKS,
    **{key: value for interface in drivers.INTERFACES
       for key, value in (('default_%s_interface' % interface,
                           _NULLABLE_STRING),
                          ('enabled_%s_interfaces' % interface, _STRINGS))},
}

_ACTIONS = pool_schemas.TRANSITION_ACTIONS
POOL_FIELDS = {
    'name': STRING,
    'description': _NULLABLE_STRING,
    'documentation': _NULLABLE_STRING,
    'meta': pool_schemas.META,
    'parent_pool': _NULLABLE_STRING,
    **dict.fromkeys(pool_schemas.ACTION_SETS, _ACTIONS),
    'lifespan': pool_schemas.LIFESPAN,
    'broker': _NULLABLE_STRING,
    'autofill': pool_schemas.AUTOFILL,
    'keep_params': _BOOLEAN,
    'reservation_pre_margin': pool_schemas.MARGIN,
    'reservation_post_margin': pool_schemas.MARGIN,
    'last_error': _NULLABLE_STRING,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}
_NAMED_COMMON = {'name': STRING, 'description': _NULLABLE_STRING}
_NAMED_TAIL = {'created_at': _TIMESTAMP, 'updated_at': _NULLABLE_TIMESTAMP,
               'links': _LINKS}
PROFILE_FIELDS = {**_NAMED_COMMON, 'params': _OBJECT,
                  'secret_params': _STRINGS, **_NAMED_TAIL}
WORKFLOW_FIELDS = {**_NAMED_COMMON, 'stages': _STRINGS, **_NAMED_TAIL}
BROKER_FIELDS = {**_NAMED_COMMON, 'driver': STRING, 'parameters': _OBJECT,
                 **_NAMED_TAIL}
EXTERNAL_MANAGER_FIELDS = {
    **_NAMED_COMMON, 'driver': STRING, 'parameters': _OBJECT,
    'enabled': _BOOLEAN, 'sync_interval': {'type': ['integer', 'null']},
    'conductor_affinity': _NULLABLE_STRING,
    'last_sync_at': _NULLABLE_TIMESTAMP, 'last_error': _NULLABLE_STRING,
    'error_streak': {'type': 'integer'}, **_NAMED_TAIL}
PROVIDER_FIELDS = {
    **_NAMED_COMMON,
    'pool': STRING,
    'defaults': claim_schemas.RESOURCE_TEMPLATE,
    'template': _OBJECT,
    'validation': _OBJECT,
    'match_ignore': _STRINGS,
    'update_filters': {'type': 'array',
                       'items': claim_schemas.UPDATE_FILTER},
    'lifespan': pool_schemas.LIFESPAN,
    'match': claim_schemas.RESOURCE_TEMPLATE,
    'override': claim_schemas.RESOURCE_TEMPLATE,
    'resource_requires_claim': _BOOLEAN,
    'on_lost': {'enum': ['replace', 'error']},
    'keep_params': _BOOLEAN,
    **_NAMED_TAIL,
}
CLAIM_FIELDS = {
    'uuid': STRING,
    'name': _NULLABLE_STRING,
    'owner': _NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.CLAIM_STATES)},
    'last_error': _NULLABLE_STRING,
    'resources': {'type': 'array', 'items': _object({
        'provider': STRING,
        'template': claim_schemas.RESOURCE_TEMPLATE,
    }, required=('provider', 'template'))},
    'allocations': _STRINGS,
    'handles': {'type': 'array', 'items': _ref('Handle'),
                'description': 'One for each resource (unbound while it '
                               'has no machine), and the lost ones.'},
    'lifespan_end': _NULLABLE_TIMESTAMP,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}
RESERVATION_FIELDS = {
    'uuid': STRING,
    'name': _NULLABLE_STRING,
    'owner': _NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.RESERVATION_STATES)},
    'count': _object({'min': {'type': 'integer'},
                      'max': {'type': 'integer'}}, required=('min', 'max')),
    'pool': STRING,
    'resource_class': _NULLABLE_STRING,
    'traits': _STRINGS,
    'candidate_nodes': _STRINGS,
    'extra': _OBJECT,
    'start_at': _TIMESTAMP,
    'end_at': _TIMESTAMP,
    'allocations': {'type': 'array', 'items': _object({
        'uuid': STRING,
        'node_uuid': _NULLABLE_STRING,
        'state': {'type': 'string', 'enum': list(states.ALLOCATION_STATES)},
    }, required=('uuid', 'node_uuid', 'state'))},
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}
HANDLE_FIELDS = {
    'uuid': _NULLABLE_STRING,
    'claim_uuid': STRING,
    'claim_name': _NULLABLE_STRING,
    'resource_index': {'type': ['integer', 'null']},
    'provider': _NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.HANDLE_STATES)},
    'allocation_uuid': _NULLABLE_STRING,
    'node_uuid': _NULLABLE_STRING,
    'node_name': _NULLABLE_STRING,
    'pool_status': _NULLABLE_STRING,
    'provision_state': _NULLABLE_STRING,
    'last_error': _NULLABLE_STRING,
    'created_at': _NULLABLE_TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}


_NULLABLE_INTEGER = {'type': ['integer', 'null']}
EVENT_FIELDS = {
    'cursor': {'type': 'integer',
               'description': 'The place of the event in the feed.'},
    'uuid': STRING,
    'created_at': _TIMESTAMP,
    'object_type': STRING,
    'object_uuid': STRING,
    'object_name': _NULLABLE_STRING,
    'event_type': STRING,
    'level': {'type': 'string', 'enum': list(events.LEVELS)},
    'prev_state': _NULLABLE_STRING,
    'state': _NULLABLE_STRING,
    'message': _NULLABLE_STRING,
    'request_id': _NULLABLE_STRING,
    'user': _NULLABLE_STRING,
    'project': _NULLABLE_STRING,
    'conductor': _NULLABLE_STRING,
    'payload': {'type': 'object',
                'description': 'The object after the change, versioned '
                               '(detail=true only).'},
}
HISTORY_FIELDS = {
    'uuid': STRING,
    'created_at': _TIMESTAMP,
    'severity': {'type': 'string',
                 'enum': [level.upper() for level in events.LEVELS]},
    'event_type': STRING,
    'event': STRING,
    'conductor': _NULLABLE_STRING,
    'user': _NULLABLE_STRING,
    'project': _NULLABLE_STRING,
    'prev_state': _NULLABLE_STRING,
    'state': _NULLABLE_STRING,
    'request_id': _NULLABLE_STRING,
    'cursor': _NULLABLE_INTEGER,
    'links': _LINKS,
}


def _named(fields: dict, collection: str, item: str) -> dict:
    return {item: _object(fields, required=tuple(fields)),
            item + 'List': _object({
                collection: {'type': 'array', 'items': _ref(item)},
            }, required=(collection,))}


_VERSION = _object({
    'id': STRING,
    'links': _LINKS,
    'status': STRING,
    'min_version': STRING,
    'version': STRING,
}, required=('id', 'links', 'status', 'min_version', 'version'))
_MEDIA_TYPE = _object({'base': STRING, 'type': STRING},
                      required=('base', 'type'))
_FAULT = _object({'faultcode': {'type': 'string',
                                'enum': ['Client', 'Server']},
                  'faultstring': STRING,
                  'debuginfo': _NULLABLE_STRING},
                 required=('faultcode', 'faultstring', 'debuginfo'))

_INTEGER = {'type': 'integer'}
_NULLABLE_URI = {'type': ['string', 'null'], 'format': 'uri'}
_COUNT = _object({'count': _INTEGER, 'href': _NULLABLE_URI},
                 required=('count', 'href'),
                 description='A count, and the list it counts (the API\'s '
                             'list with its filters; null when the list has '
                             'no filter for it).')
_COUNTS = {'type': 'array', 'items': _object(
    {'value': {}, 'count': _INTEGER, 'href': _NULLABLE_URI},
    required=('value', 'count', 'href'))}
_BY_STATE = _object({'total': _COUNT, 'states': _COUNTS},
                    required=('total', 'states'))
_ENDING = _object({
    'total': _INTEGER,
    'items': {'type': 'array', 'items': _object({
        'uuid': STRING, 'name': _NULLABLE_STRING, 'state': STRING,
        'owner': _NULLABLE_STRING, 'lifespan_end': _TIMESTAMP,
        'href': {'type': 'string', 'format': 'uri'},
        'pool': _NULLABLE_STRING, 'node_uuid': _NULLABLE_STRING,
        'node_name': _NULLABLE_STRING, 'node_href': _NULLABLE_URI},
        required=('uuid', 'name', 'state', 'owner', 'lifespan_end',
                  'href'))},
}, required=('total', 'items'), description='The soonest first; total counts '
   'them all, items lists at most [dashboard] max_listed.')
_NAMED_LINK = _object({'name': STRING, 'href': {'type': 'string',
                                                'format': 'uri'}},
                      required=('name', 'href'))
FLEET = _object({
    'as_of': _TIMESTAMP,
    'heartbeat_timeout': _INTEGER,
    'pools': {'type': 'array', 'items': _object({
        'name': STRING, 'parent_pool': _NULLABLE_STRING,
        'broker': _NULLABLE_STRING,
        'autofill': {'oneOf': [{'type': 'null'}, _object(
            {'min_free': _INTEGER,
             'max_free': {'type': ['integer', 'null']}},
            required=('min_free', 'max_free'))]},
        'autofill_conductor': _NULLABLE_STRING,
        'href': {'type': 'string', 'format': 'uri'},
        'total': _COUNT,
        'statuses': _object(dict.fromkeys(states.POOL_STATUSES, _COUNT),
                            required=states.POOL_STATUSES),
    }, required=('name', 'parent_pool', 'broker', 'autofill',
                 'autofill_conductor', 'href', 'total', 'statuses'))},
    'nodes': _object({'total': _COUNT, 'provision_states': _COUNTS,
                      'power_states': _COUNTS, 'maintenance': _COUNTS},
                     required=('total', 'provision_states', 'power_states',
                               'maintenance')),
    'allocations': _BY_STATE,
    'claims': _BY_STATE,
    'ending_soon': _object({
        'within': _INTEGER, 'until': _TIMESTAMP,
        'allocations': _ENDING, 'claims': _ENDING,
    }, required=('within', 'until', 'allocations', 'claims')),
    'conductors': {'type': 'array', 'items': _object({
        'hostname': STRING, 'alive': _BOOLEAN,
        'updated_at': _NULLABLE_TIMESTAMP,
        'href': {'type': 'string', 'format': 'uri'},
        'allocations': _INTEGER, 'claims': _INTEGER,
        'node_locks': _INTEGER,
        'autofill_pools': {'type': 'array', 'items': _NAMED_LINK},
    }, required=('hostname', 'alive', 'updated_at', 'href', 'allocations',
                 'claims', 'node_locks', 'autofill_pools'),
        description='allocations: in progress (allocating) on the '
                    'conductor; claims: pending, bound or ready ones it '
                    'binds and expires; node_locks: nodes it has '
                    'reserved; autofill_pools: the pools it fills.')},
    'stranded': _object(
        {'allocations': _INTEGER, 'claims': _INTEGER,
         'node_locks': _INTEGER}, required=('allocations', 'claims',
                                             'node_locks'),
        description='Work held by conductors that are not alive.'),
    'alerts': {'type': 'array', 'items': _object({
        'cursor': {'type': ['integer', 'null']}, 'uuid': STRING,
        'created_at': _TIMESTAMP,
        'level': {'type': 'string', 'enum': ['warning', 'error',
                                             'critical']},
        'event_type': STRING, 'object_type': STRING,
        'object_uuid': STRING, 'object_name': _NULLABLE_STRING,
        'message': _NULLABLE_STRING, 'conductor': _NULLABLE_STRING,
        'href': _NULLABLE_URI,
    }, required=('cursor', 'uuid', 'created_at', 'level', 'event_type',
                 'object_type', 'object_uuid', 'object_name', 'message',
                 'conductor', 'href')),
        'description': 'The newest events of level warning, error or '
                       'critical, newest first, at most [dashboard] '
                       'max_listed.'},
}, required=('as_of', 'heartbeat_timeout', 'pools', 'nodes', 'allocations',
             'claims', 'ending_soon', 'conductors', 'stranded', 'alerts'))

_REJECTED = _object(dict.fromkeys(candidates.REASONS, _INTEGER),
                    required=candidates.REASONS,
                    description='How many nodes each reason left out; a '
                                'node counts once, under the first reason '
                                'that removes it, in the order listed.')
ALLOCATION_CANDIDATES = _object({
    'as_of': _TIMESTAMP,
    'candidates': {'type': 'array', 'items': _object({
        'uuid': STRING, 'name': _NULLABLE_STRING, 'pool': STRING,
        'resource_class': _NULLABLE_STRING, 'traits': _STRINGS,
    }, required=('uuid', 'name', 'pool', 'resource_class', 'traits'))},
    'total_matching': _INTEGER,
    'would_pick': _NULLABLE_STRING,
    'rejected': _REJECTED,
    'fleet': _INTEGER,
    'window': {'oneOf': [{'type': 'null'}, _object({
        'start_at': _TIMESTAMP, 'end_at': _TIMESTAMP,
        'busy_from': _TIMESTAMP, 'busy_until': _TIMESTAMP,
    }, required=('start_at', 'end_at', 'busy_from', 'busy_until'),
        description='The window of the request (start_at in the future) '
                    'and the slot booking it holds, with the margins of '
                    'its pool; null without one.')]},
}, required=('as_of', 'candidates', 'total_matching', 'would_pick',
             'rejected', 'fleet', 'window'))

AVAILABILITY = _object({
    'earliest_start': _NULLABLE_TIMESTAMP,
    'after': _TIMESTAMP,
    'before': _TIMESTAMP,
    'duration': STRING,
    'count': _INTEGER,
    'nodes': {'type': 'array', 'items': _object({
        'uuid': STRING, 'name': _NULLABLE_STRING,
        'free': {'type': 'array', 'items': _object(
            {'from': _TIMESTAMP, 'until': _TIMESTAMP},
            required=('from', 'until'))},
    }, required=('uuid', 'name', 'free'))},
}, required=('earliest_start', 'after', 'before', 'duration', 'count',
             'nodes'))

MAINTENANCE_WINDOW = _object({
    'uuid': STRING,
    'node_uuid': STRING,
    'start_at': _TIMESTAMP,
    'end_at': _TIMESTAMP,
    'reason': _NULLABLE_STRING,
    'state': {'type': 'string', 'enum': ['scheduled', 'waiting', 'active']},
    'created_at': _TIMESTAMP,
}, required=('uuid', 'node_uuid', 'start_at', 'end_at', 'reason', 'state',
             'created_at'))
NODE_SLOT = _object({
    'purpose': {'type': 'string', 'enum': ['workload', 'maintenance']},
    'busy_from': _TIMESTAMP,
    'busy_until': _TIMESTAMP,
    'allocation_uuid': _NULLABLE_STRING,
    'maintenance_window_uuid': _NULLABLE_STRING,
    'reason': _NULLABLE_STRING,
    'state': _NULLABLE_STRING,
}, required=('purpose', 'busy_from', 'busy_until', 'allocation_uuid',
             'maintenance_window_uuid', 'reason', 'state'))

SCHEMAS = {
    'Fleet': FLEET,
    'MaintenanceWindow': MAINTENANCE_WINDOW,
    'MaintenanceWindowList': _object(
        {'maintenance_windows': {'type': 'array',
                                 'items': MAINTENANCE_WINDOW}},
        required=('maintenance_windows',)),
    'NodeSlotList': _object(
        {'slots': {'type': 'array', 'items': NODE_SLOT}},
        required=('slots',)),
    'Availability': AVAILABILITY,
    'AllocationCandidates': ALLOCATION_CANDIDATES,
    'Page': {'type': 'string', 'description': 'An HTML page, a style '
             'sheet or a script of the dashboard.'},
    'EventWatch': {'type': 'object', 'description': 'The answer of GET '
                   '/v1/events.'},
    'Metrics': {'type': 'string', 'description': 'Prometheus\' text '
                'exposition format.'},
    'Link': _object({'href': STRING, 'rel': STRING, 'type': STRING},
                    required=('href', 'rel')),
    'Version': _VERSION,
    'Root': _object({
        'name': STRING,
        'description': STRING,
        'default_version': _ref('Version'),
        'versions': {'type': 'array', 'items': _ref('Version')},
    }, required=('name', 'description', 'default_version', 'versions')),
    'V1': _object({
        'id': STRING,
        'links': _LINKS,
        'media_types': {'type': 'array', 'items': _MEDIA_TYPE},
        'nodes': _LINKS,
        'ports': _LINKS,
        'allocations': _LINKS,
        'drivers': _LINKS,
        'version': _ref('Version'),
    }, required=('id', 'links', 'media_types', 'nodes', 'version'),
        description='allocations appears from version 1.%d on.'
                    % microversion.ALLOCATIONS),
    'Node': _object(
        NODE_FIELDS, required=('links',),
        description='A node. Which fields it has depends on the '
                    'requested version and the fields parameter; '
                    'links are always there.'),
    'NodeList': _object({
        'nodes': {'type': 'array', 'items': _ref('Node')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('nodes',)),
    'NodeStates': _object({
        'console_enabled': _BOOLEAN,
        'last_error': _NULLABLE_STRING,
        'power_state': _NULLABLE_STRING,
        'provision_state': _NULLABLE_STRING,
        'provision_updated_at': _NULLABLE_TIMESTAMP,
        'target_power_state': _NULLABLE_STRING,
        'target_provision_state': _NULLABLE_STRING,
        'raid_config': _OBJECT,
        'target_raid_config': _OBJECT,
    }, required=('console_enabled', 'last_error', 'power_state',
                 'provision_state', 'provision_updated_at',
                 'target_power_state', 'target_provision_state'),
        description='raid_config and target_raid_config appear from '
                    'version 1.%d on.' % node_handlers.RAID_CONFIG),
    'NodeConsole': _object({
        'console_enabled': _BOOLEAN,
        'console_info': {'type': ['object', 'null'], 'properties': {
            'type': STRING, 'url': STRING}},
    }, required=('console_enabled', 'console_info'),
        description='console_info is null while the console is '
                    'disabled.'),
    'NodeValidation': _object(
        {name: _object({'result': _BOOLEAN, 'reason': STRING},
                       required=('result',))
         for name in deploy_checks.INTERFACES},
        required=deploy_checks.INTERFACES,
        description='A reason comes with a false result only.'),
    'Traits': _object({'traits': _STRINGS}, required=('traits',)),
    'IndicatorList': _object({
        'indicators': {'type': 'array', 'items': _object({
            'name': STRING, 'component': STRING, 'readonly': _BOOLEAN,
            'states': _STRINGS, 'links': _LINKS},
            required=('name', 'component', 'readonly', 'states',
                      'links'))},
    }, required=('indicators',)),
    'IndicatorState': _object({'state': STRING}, required=('state',)),
    'Allocation': _object(
        ALLOCATION_FIELDS, required=('links',),
        description='An allocation. Which fields it has depends on the '
                    'requested version and the fields parameter; links '
                    'are always there.'),
    'AllocationList': _object({
        'allocations': {'type': 'array', 'items': _ref('Allocation')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('allocations',)),
    'DeployTemplate': _object({
        'uuid': STRING,
        'name': STRING,
        'steps': {'type': 'array', 'items': _object({
            'interface': STRING, 'step': STRING, 'args': _OBJECT,
            'priority': {'type': 'integer'}},
            required=('interface', 'step', 'args', 'priority'))},
        'extra': _OBJECT,
        'created_at': _TIMESTAMP,
        'updated_at': _NULLABLE_TIMESTAMP,
        'links': _LINKS,
    }, required=('links',),
        description='A deploy template. Which fields it has depends on '
                    'the fields parameter; links are always there.'),
    'DeployTemplateList': _object({
        'deploy_templates': {'type': 'array',
                             'items': _ref('DeployTemplate')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('deploy_templates',)),
    'Port': _object(
        PORT_FIELDS, required=('links',),
        description='A port. Which fields it has depends on the '
                    'requested version and the fields parameter; links '
                    'are always there.'),
    'PortList': _object({
        'ports': {'type': 'array', 'items': _ref('Port')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('ports',)),
    'Portgroup': _object(
        PORTGROUP_FIELDS, required=('links',),
        description='A port group. Which fields it has depends on the '
                    'requested version and the fields parameter; links '
                    'are always there.'),
    'PortgroupList': _object({
        'portgroups': {'type': 'array', 'items': _ref('Portgroup')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('portgroups',)),
    'Chassis': _object(
        CHASSIS_FIELDS, required=('links',),
        description='A chassis. Which fields it has depends on the fields '
                    'parameter; links are always there.'),
    'ChassisList': _object({
        'chassis': {'type': 'array', 'items': _ref('Chassis')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('chassis',)),
    'Volume': _object({'links': _LINKS, 'connectors': _LINKS,
                       'targets': _LINKS},
                      required=('links', 'connectors', 'targets')),
    'VolumeConnector': _object(
        VOLUME_CONNECTOR_FIELDS, required=('links',),
        description='A volume connector. Which fields it has depends on '
                    'the fields parameter; links are always there.'),
    'VolumeConnectorList': _object({
        'connectors': {'type': 'array', 'items': _ref('VolumeConnector')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('connectors',)),
    'VolumeTarget': _object(
        VOLUME_TARGET_FIELDS, required=('links',),
        description='A volume target. Which fields it has depends on the '
                    'fields parameter; links are always there. Its '
                    'properties are redacted for callers without '
                    'baremetal:volume:view_target_properties, and their '
                    'secrets masked for all.'),
    'VolumeTargetList': _object({
        'targets': {'type': 'array', 'items': _ref('VolumeTarget')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('targets',)),
    'VIFList': _object({
        'vifs': {'type': 'array', 'items': _object(
            {'id': STRING}, required=('id',))},
    }, required=('vifs',)),
    'Driver': _object(
        DRIVER_FIELDS, required=('links',),
        description='A driver (hardware type). Which fields it has '
                    'depends on the requested version, detail and the '
                    'fields parameter.'),
    'DriverList': _object({
        'drivers': {'type': 'array', 'items': _ref('Driver')},
    }, required=('drivers',)),
    'DriverProperties': {'type': 'object',
                         'additionalProperties': STRING},
    'Conductor': _object(
        CONDUCTOR_FIELDS, required=('links',),
        description='A conductor; alive when it is online and its last '
                    'heartbeat is recent.'),
    'ConductorList': _object({
        'conductors': {'type': 'array', 'items': _ref('Conductor')},
    }, required=('conductors',)),
    'Error': _object({
        'error_message': {
            'type': 'string',
            'description': 'A JSON document (a fault) in a string, as '
                           'Ironic sends it.',
            'contentMediaType': 'application/json',
            'contentSchema': _FAULT,
        },
    }, required=('error_message',)),
    **_named(POOL_FIELDS, 'pools', 'Pool'),
    **_named(PROFILE_FIELDS, 'profiles', 'Profile'),
    **_named(WORKFLOW_FIELDS, 'workflows', 'Workflow'),
    **_named(BROKER_FIELDS, 'brokers', 'Broker'),
    **_named(EXTERNAL_MANAGER_FIELDS, 'external_managers',
             'ExternalManager'),
    'ExternalManagerStatus': _object({
        'name': STRING,
        'states': _object({s: {'type': 'integer'}
                           for s in states.EXTERNAL_STATES},
                          required=states.EXTERNAL_STATES),
        'last_sync_at': _NULLABLE_TIMESTAMP,
        'last_error': _NULLABLE_STRING,
        'error_streak': {'type': 'integer'},
        'conductor': _NULLABLE_STRING,
    }, required=('name', 'states', 'last_sync_at', 'last_error',
                 'error_streak', 'conductor')),
    **_named(PROVIDER_FIELDS, 'providers', 'Provider'),
    'Claim': _object(
        CLAIM_FIELDS, required=('links',),
        description='A claim. Which fields it has depends on the fields '
                    'parameter; links are always there.'),
    'ClaimList': _object({
        'claims': {'type': 'array', 'items': _ref('Claim')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('claims',)),
    'Reservation': _object(
        RESERVATION_FIELDS, required=('links',),
        description='A reservation: windowed allocations of several nodes '
                    'booked together. Which fields it has depends on the '
                    'fields parameter; links are always there.'),
    'ReservationList': _object({
        'reservations': {'type': 'array', 'items': _ref('Reservation')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('reservations',)),
    'Handle': _object(
        HANDLE_FIELDS,
        description='What a claim holds for one resource (Poolboy\'s '
                    'ResourceHandle): the allocation and the machine. '
                    'Which fields it has depends on the fields parameter.'),
    'HandleList': _object({
        'handles': {'type': 'array', 'items': _ref('Handle')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('handles',)),
    'PoolStatus': _object({
        'name': STRING,
        'total': {'type': 'integer'},
        'statuses': _object(
            dict.fromkeys(states.POOL_STATUSES, {'type': 'integer'}),
            required=states.POOL_STATUSES),
        'creating': {'type': 'integer',
                     'description': 'Members a broker is making.'},
        'unhealthy': {'type': 'integer',
                      'description': 'Members whose creation failed and '
                                     'is tried again.'},
    }, required=('name', 'total', 'statuses', 'creating', 'unhealthy')),
    'Params': _OBJECT,
    'PoolActionResults': {'type': 'array', 'items': _object({
        'status': STRING, 'allocated': _BOOLEAN,
        'name': _NULLABLE_STRING, 'uuid': STRING},
        required=('status', 'allocated', 'name', 'uuid'))},
    # returnToPool answers as Digital Rebar's: "Success" or an error.
    'Success': {'type': 'string', 'enum': ['Success']},
    # A content document (pool_conductor.content), as an import takes it.
    'Content': _object({'meta': _OBJECT, 'sections': _object(
        dict.fromkeys(('workflows', 'profiles', 'brokers', 'pools',
                       'providers'), _OBJECT))},
        required=('meta', 'sections')),
    # What an import did, per kind: the names created, updated, unchanged.
    'ContentImported': {'type': 'object', 'additionalProperties': _object(
        dict.fromkeys(('created', 'updated', 'unchanged'), _STRINGS))},
    'OpenAPI': {'type': 'object', 'required': ['openapi', 'info', 'paths']},
    'EventPage': _object({
        'events': {'type': 'array', 'items': _object(
            EVENT_FIELDS, required=tuple(f for f in EVENT_FIELDS
                                         if f != 'payload'))},
        'cursor': {'type': 'integer',
                   'description': 'The since of the next request: the '
                                  'last event of the page, or the last '
                                  'cursor given when none (a bookmark).'},
        'more': {'type': 'boolean',
                 'description': 'Whether more events follow at once.'},
        'oldest': {'type': 'integer',
                   'description': 'The lowest since accepted: the events '
                                  'after it are retained.'},
    }, required=('events', 'cursor', 'more', 'oldest')),
    'HistoryEvent': _object(
        HISTORY_FIELDS, required=('uuid', 'created_at', 'severity', 'event',
                                  'links'),
        description='An event of the history of an object, in the shape '
                    'of Ironic\'s node history (API 1.78): uuid, '
                    'created_at, severity and event in a list, every field '
                    'with detail=true and for one event.'),
    'HistoryList': _object({
        'history': {'type': 'array', 'items': _ref('HistoryEvent')},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=('history',)),
}
