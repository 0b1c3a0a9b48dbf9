"""The versioned payloads of events: what an object was after a change.

Objects Ironic has (nodes, ports, allocations) are in the shape of
Ironic's notification payloads (``ironic_object.*``, with Ironic's payload
class names, versions and fields), so that consumers of Ironic's
notifications read them unchanged; pool's own fields of a node (its pool,
status, workflow) come after Ironic's. Pool's own objects are
``pool_object.*``. A minor version adds fields; a major one may remove
some.
"""
import datetime

from pool_conductor import drivers
from pool_conductor import secrets

# Fields of a node's payload that a pool node has, as Ironic's
# NodePayload names them.
NODE_FIELDS = (
    'uuid', 'name', 'description', 'driver', 'resource_class',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'maintenance',
    'maintenance_reason', 'owner', 'lessee', 'instance_uuid',
    'last_error', 'extra', 'properties', 'chassis_uuid', 'created_at',
    'updated_at', 'console_enabled', 'clean_step', 'deploy_step',
    'conductor_group', 'retired', 'retired_reason', 'protected',
    'protected_reason', 'fault')
# The interfaces of NodePayload (all but firmware).
NODE_INTERFACES = tuple(i for i in drivers.INTERFACES if i != 'firmware')
# NodePayload's fields that a pool node has no column for, with what they
# always are, and what the fields of pool's columns are where the node
# read has no such column. (chassis_uuid is NodeCRUDPayload's only.)
NODE_CONSTANTS = {
    'boot_mode': None, 'clean_step': None,
    'conductor_group': '', 'console_enabled': False, 'deploy_step': None,
    'disable_power_off': False, 'fault': None,
    'inspection_finished_at': None, 'inspection_started_at': None,
    'protected': False, 'protected_reason': None, 'retired': False,
    'retired_reason': None, 'secure_boot': None,
}
POOL_NODE_FIELDS = ('pool', 'pool_status', 'pool_allocated', 'workflow',
                    'stage', 'runnable', 'profiles', 'params',
                    'allocation_uuid', 'external_manager', 'external_ref',
                    'external_state')
ALLOCATION_FIELDS = (
    'uuid', 'name', 'node_uuid', 'state', 'last_error', 'owner',
    'resource_class', 'traits', 'candidate_nodes', 'extra', 'created_at',
    'updated_at')
PORT_FIELDS = (
    'uuid', 'address', 'node_uuid', 'portgroup_uuid', 'extra',
    'local_link_connection', 'pxe_enabled', 'physical_network',
    'is_smartnic', 'name', 'description', 'vendor', 'category',
    'available_for_dynamic_portgroup', 'created_at', 'updated_at')
# Ironic's payload classes and the versions of their fields.
NODE = ('NodePayload', '1.17')
NODE_CRUD = ('NodeCRUDPayload', '1.15')
NODE_POWER = ('NodeSetPowerStatePayload', '1.17')
NODE_PROVISION = ('NodeSetProvisionStatePayload', '1.18')
ALLOCATION = ('AllocationCRUDPayload', '1.1')
PORT = ('PortCRUDPayload', '1.8')
PORTGROUP = ('PortgroupCRUDPayload', '1.3')
VOLUME_CONNECTOR = ('VolumeConnectorCRUDPayload', '1.0')
VOLUME_TARGET = ('VolumeTargetCRUDPayload', '1.0')
CHASSIS = ('ChassisCRUDPayload', '1.0')
PORTGROUP_FIELDS = (
    'uuid', 'address', 'node_uuid', 'name', 'extra', 'mode', 'properties',
    'standalone_ports_supported', 'physical_network', 'category',
    'dynamic_portgroup', 'created_at', 'updated_at')
VOLUME_CONNECTOR_FIELDS = ('uuid', 'node_uuid', 'type', 'connector_id',
                           'extra', 'created_at', 'updated_at')
VOLUME_TARGET_FIELDS = ('uuid', 'node_uuid', 'volume_type', 'properties',
                        'boot_index', 'volume_id', 'extra', 'created_at',
                        'updated_at')
CHASSIS_FIELDS = ('uuid', 'description', 'extra', 'created_at',
                  'updated_at')


def plain(value):
    """A value of a payload: a time as ISO 8601 UTC."""
    if isinstance(value, datetime.datetime):
        return value.replace(microsecond=0).isoformat() + '+00:00'
    return value


def _data(obj, fields: tuple, changes: dict | None = None) -> dict:
    changes = changes or {}
    return {f: plain(changes[f] if f in changes else getattr(obj, f, None))
            for f in fields
            if f in changes or hasattr(obj, f)}


def ironic(kind: tuple[str, str], data: dict) -> dict:
    """An envelope of Ironic's: kind is (payload class, version)."""
    return {'ironic_object.name': kind[0],
            'ironic_object.namespace': 'ironic',
            'ironic_object.version': kind[1],
            'ironic_object.data': data}


def pool(name: str, version: str, data: dict) -> dict:
    return {'pool_object.name': name, 'pool_object.namespace': 'pool',
            'pool_object.version': version, 'pool_object.data': data}


def _trait_names(obj, changes: dict) -> list | None:
    if 'traits' in changes:
        return sorted(changes['traits'] or ())
    traits = getattr(obj, 'traits', None)
    if traits is None:
        return None
    return sorted(getattr(t, 'trait', t) for t in traits)


def _masked_info(info) -> dict:
    """instance_info or driver_info as Ironic's notifications mask it:
    secrets, and instance_info's image_url (it may grant access to the
    image)."""
    info = secrets.mask(dict(info or {}))
    if info.get('image_url'):
        info['image_url'] = secrets.MASK
    return info


def node(obj, changes: dict | None = None, kind: tuple = NODE,
         **more) -> dict:
    """A node's payload: Ironic's fields read of obj with changes
    applied, then pool's, then more (the fields of kind's class).

    :param kind: NODE (maintenance), NODE_CRUD (create, update, delete:
        with instance_info and driver_info), NODE_POWER (with to_power),
        NODE_PROVISION (with instance_info, driver_internal_info, event,
        previous_provision_state, previous_target_provision_state).
    """
    changes = changes or {}
    data = dict(NODE_CONSTANTS)
    data.update(_data(obj, NODE_FIELDS, changes))
    for name in NODE_INTERFACES:
        field = '%s_interface' % name
        data[field] = (changes[field] if field in changes
                       else drivers.of_node(obj, name))
    traits = _trait_names(obj, changes)
    if traits is not None:
        data['traits'] = traits
    if kind in (NODE_CRUD, NODE_PROVISION):
        data['instance_info'] = _masked_info(
            changes['instance_info'] if 'instance_info' in changes
            else getattr(obj, 'instance_info', None))
    if kind == NODE_CRUD:
        data['driver_info'] = _masked_info(
            changes['driver_info'] if 'driver_info' in changes
            else getattr(obj, 'driver_info', None))
    if kind == NODE_PROVISION:
        data['driver_internal_info'] = _masked_info(
            changes['driver_internal_info']
            if 'driver_internal_info' in changes
            else getattr(obj, 'driver_internal_info', None))
    if kind == NODE_CRUD:
        data.setdefault('chassis_uuid', None)
    else:
        data.pop('chassis_uuid', None)
    data.update(_data(obj, POOL_NODE_FIELDS, changes))
    data.update(more)
    return ironic(kind, data)


def allocation(obj, changes: dict | None = None) -> dict:
    """An allocation's payload: every field of Ironic's
    AllocationCRUDPayload (None where neither obj nor changes tell it),
    and its pool."""
    data = dict.fromkeys(ALLOCATION_FIELDS)
    data.update(_data(obj, ALLOCATION_FIELDS + ('pool',), changes))
    return ironic(ALLOCATION, data)


def port(obj, changes: dict | None = None) -> dict:
    """A port's payload: every field of Ironic's PortCRUDPayload (None
    where neither obj nor changes tell it)."""
    data = dict.fromkeys(PORT_FIELDS)
    data.update(_data(obj, PORT_FIELDS, changes))
    return ironic(PORT, data)


def _crud(kind: tuple[str, str], fields: tuple, obj) -> dict:
    data = dict.fromkeys(fields)
    data.update(_data(obj, fields))
    return ironic(kind, data)


def portgroup(obj) -> dict:
    """A port group's payload: every field of Ironic's
    PortgroupCRUDPayload (None where pool has no such column)."""
    out = _crud(PORTGROUP, PORTGROUP_FIELDS, obj)
    out['ironic_object.data']['dynamic_portgroup'] = False
    return out


def volume_connector(obj) -> dict:
    """A volume connector's payload (VolumeConnectorCRUDPayload)."""
    return _crud(VOLUME_CONNECTOR, VOLUME_CONNECTOR_FIELDS, obj)


def volume_target(obj) -> dict:
    """A volume target's payload (VolumeTargetCRUDPayload)."""
    return _crud(VOLUME_TARGET, VOLUME_TARGET_FIELDS, obj)


def chassis(obj) -> dict:
    """A chassis's payload (ChassisCRUDPayload)."""
    return _crud(CHASSIS, CHASSIS_FIELDS, obj)


# The fields of the payloads of pool's named objects, by object type.
# A broker's parameters are left out (they hold its credentials); their
# names are given.
NAMED_FIELDS = {
    'pool': ('name', 'description', 'parent_pool', 'enter_actions',
             'allocate_actions', 'release_actions', 'exit_actions',
             'lifespan', 'broker', 'autofill', 'last_error',
             'created_at', 'updated_at'),
    'broker': ('name', 'description', 'driver', 'created_at',
               'updated_at'),
    'profile': ('name', 'description', 'params', 'secret_params',
                'created_at', 'updated_at'),
    'workflow': ('name', 'description', 'stages', 'created_at',
                 'updated_at'),
    'external_manager': ('name', 'description', 'driver', 'enabled',
                         'sync_interval', 'last_sync_at', 'last_error',
                         'created_at', 'updated_at'),
    'provider': ('name', 'description', 'pool', 'defaults', 'template',
                 'validation', 'match_ignore', 'update_filters',
                 'lifespan', 'created_at', 'updated_at'),
}
NAMED_VERSION = '1.0'


def named(object_type: str, obj, changes: dict | None = None) -> dict:
    """The payload of a pool, broker, profile, workflow or provider
    (PoolPayload, BrokerPayload, ...): its fields, a profile's secret
    params masked."""
    data = _data(obj, NAMED_FIELDS[object_type], changes)
    if object_type in ('broker', 'external_manager'):
        data['parameter_names'] = sorted(
            (changes or {}).get('parameters',
                                getattr(obj, 'parameters', None)) or ())
    if object_type == 'profile':
        data['params'] = secrets.mask(data.get('params') or {},
                                      keys=data.get('secret_params') or ())
    return pool(object_type.capitalize() + 'Payload', NAMED_VERSION, data)


CLAIM_FIELDS = ('uuid', 'name', 'owner', 'state', 'last_error',
                'lifespan_end', 'node_project', 'created_at', 'updated_at')
CLAIM_VERSION = '1.0'


def claim(obj, changes: dict | None = None) -> dict:
    """A claim's payload (ClaimPayload): its fields and the providers of
    its resources, in order."""
    data = _data(obj, CLAIM_FIELDS, changes)
    data['providers'] = [r.get('provider') for r in
                         getattr(obj, 'resources', None) or ()]
    return pool('ClaimPayload', CLAIM_VERSION, data)


RESERVATION_FIELDS = ('uuid', 'name', 'owner', 'pool', 'resource_class',
                      'traits', 'count_min', 'count_max', 'start_at',
                      'end_at', 'created_at')
RESERVATION_VERSION = '1.0'


def reservation(obj: dict, allocations: list[str]) -> dict:
    """A reservation's payload (ReservationPayload): its fields and the
    uuids of its allocations."""
    data = {f: plain(obj.get(f)) for f in RESERVATION_FIELDS}
    data['allocations'] = list(allocations)
    return pool('ReservationPayload', RESERVATION_VERSION, data)


def conductor(hostname: str, online: bool, **more) -> dict:
    """A conductor's payload (ConductorPayload)."""
    return pool('ConductorPayload', '1.0', {
        'hostname': hostname, 'online': online,
        **{k: plain(v) for k, v in more.items()}})


def autofill(pool_name: str, counts: dict) -> dict:
    """The payload of a round of AutoFill on a pool (AutoFillPayload):
    what it did, by kind."""
    return pool('AutoFillPayload', '1.0', {'pool': pool_name, **counts})


def machine(broker: str, node, pool_name: str | None,
            ref: str | None = None, error: str | None = None) -> dict:
    """The payload of a machine a broker made or destroyed, or failed to
    (BrokerMachinePayload)."""
    return pool('BrokerMachinePayload', '1.0', {
        'broker': broker, 'node_uuid': getattr(node, 'uuid', None),
        'pool': pool_name, 'ref': ref, 'error': error})


DEPLOY_TEMPLATE = ('DeployTemplateCRUDPayload', '1.0')
DEPLOY_TEMPLATE_FIELDS = ('uuid', 'name', 'extra', 'created_at',
                          'updated_at')


def deploy_template(obj) -> dict:
    """A deploy template's payload (Ironic's DeployTemplateCRUDPayload),
    the secrets of its steps' args masked."""
    data = _data(obj, DEPLOY_TEMPLATE_FIELDS)
    data['steps'] = [{**step, 'args': secrets.mask(step.get('args') or {})}
                     for step in obj.steps or ()]
    return ironic(DEPLOY_TEMPLATE, data)
