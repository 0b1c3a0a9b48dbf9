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

from pool_conductor import deploy_checks
from pool_conductor import secrets

# Fields of a node's payload that a pool node has, as Ironic's
# NodePayload names them.
NODE_FIELDS = (
    'uuid', 'name', 'description', 'driver', 'resource_class',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'maintenance',
    'maintenance_reason', 'owner', 'lessee', 'instance_uuid',
    'last_error', 'extra', 'properties', 'created_at', 'updated_at')
# NodePayload's fields that a pool node has no column for, with what they
# always are: every driver interface is fake-hardware's fake one
# (pool_conductor.deploy_checks), and a pool node is never protected,
# retired, in a conductor group, or stepping through clean or deploy
# steps.
NODE_CONSTANTS = {
    'boot_mode': None, 'chassis_uuid': None, 'clean_step': None,
    'conductor_group': '', 'console_enabled': False, 'deploy_step': None,
    'disable_power_off': False, 'fault': None,
    'inspection_finished_at': None, 'inspection_started_at': None,
    'protected': False, 'protected_reason': None, 'retired': False,
    'retired_reason': None, 'secure_boot': None,
    **{'%s_interface' % name: 'fake'
       for name in deploy_checks.INTERFACES + ('vendor',)},
}
POOL_NODE_FIELDS = ('pool', 'pool_status', 'pool_allocated', 'workflow',
                    'stage', 'runnable', 'profiles', 'params',
                    'allocation_uuid')
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


def _plain(value):
    if isinstance(value, datetime.datetime):
        return value.replace(microsecond=0).isoformat() + '+00:00'
    return value


def _data(obj, fields: tuple, changes: dict | None = None) -> dict:
    changes = changes or {}
    return {f: _plain(changes[f] if f in changes else getattr(obj, f, None))
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
        data['driver_internal_info'] = {}
    if kind != NODE_CRUD:
        del data['chassis_uuid']
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


def port(obj, node_uuid: str | None, changes: dict | None = None) -> dict:
    """A port's payload (Ironic's PortCRUDPayload fields)."""
    data = _data(obj, PORT_FIELDS, {'node_uuid': node_uuid,
                                    'portgroup_uuid': None,
                                    **(changes or {})})
    return ironic(PORT, data)
