"""The versioned payloads of events: what an object was after a change.

Objects Ironic has (nodes, ports, allocations) are in the shape of
Ironic's notification payloads (``ironic_object.*``), so that consumers
of Ironic's notifications read them unchanged; pool's own are
``pool_object.*``. A minor version adds fields; a major one may remove
some.
"""
import datetime

# Fields of a node's payload, as Ironic's NodePayload names them, with
# pool's membership fields after them.
NODE_FIELDS = (
    'uuid', 'name', 'description', 'driver', 'resource_class',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'maintenance',
    'maintenance_reason', 'owner', 'lessee', 'instance_uuid',
    'last_error', 'extra', 'instance_info', 'properties', 'created_at',
    'updated_at')
POOL_NODE_FIELDS = ('pool', 'pool_status', 'pool_allocated', 'workflow',
                    'stage', 'allocation_uuid')
ALLOCATION_FIELDS = (
    'uuid', 'name', 'node_uuid', 'state', 'last_error', 'owner',
    'resource_class', 'traits', 'candidate_nodes', 'extra', 'created_at',
    'updated_at')
NODE_VERSION = '1.0'
ALLOCATION_VERSION = '1.1'


def _plain(value):
    if isinstance(value, datetime.datetime):
        return value.replace(microsecond=0).isoformat() + '+00:00'
    return value


def _data(obj, fields: tuple, changes: dict | None = None) -> dict:
    changes = changes or {}
    return {f: _plain(changes[f] if f in changes else getattr(obj, f, None))
            for f in fields
            if f in changes or hasattr(obj, f)}


def ironic(name: str, version: str, data: dict) -> dict:
    return {'ironic_object.name': name,
            'ironic_object.namespace': 'ironic',
            'ironic_object.version': version,
            'ironic_object.data': data}


def pool(name: str, version: str, data: dict) -> dict:
    return {'pool_object.name': name, 'pool_object.namespace': 'pool',
            'pool_object.version': version, 'pool_object.data': data}


def node(obj, changes: dict | None = None,
         name: str = 'NodePayload') -> dict:
    """A node's payload: the fields read of it, with changes applied."""
    data = _data(obj, NODE_FIELDS + POOL_NODE_FIELDS, changes)
    if 'traits' in (changes or {}):
        data['traits'] = list(changes['traits'])
    return ironic(name, NODE_VERSION, data)


def allocation(obj, changes: dict | None = None) -> dict:
    """An allocation's payload (Ironic's AllocationCRUDPayload fields)."""
    data = _data(obj, ALLOCATION_FIELDS + ('pool',), changes)
    return ironic('AllocationCRUDPayload', ALLOCATION_VERSION, data)
