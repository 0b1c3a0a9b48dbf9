"""The versioned payloads of events: what an object was after a change.

Objects Ironic has (nodes, ports, allocations) are in the shape of
Ironic's notification payloads (``ironic_object.*``), so that consumers
of Ironic's notifications read them unchanged; pool's own are
``pool_object.*``. A minor version adds fields; a major one may remove
some.
"""
import datetime

from pool_conductor import secrets

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


# Fields of a port's payload, as Ironic's PortCRUDPayload (1.2) has them;
# pool has no port groups (portgroup_uuid is always None).
PORT_FIELDS = ('uuid', 'address', 'extra', 'local_link_connection',
               'pxe_enabled', 'node_uuid', 'physical_network',
               'created_at', 'updated_at')
PORT_VERSION = '1.2'


def port(obj, changes: dict | None = None) -> dict:
    """A port's payload (Ironic's PortCRUDPayload)."""
    data = _data(obj, PORT_FIELDS, changes)
    data['portgroup_uuid'] = None
    return ironic('PortCRUDPayload', PORT_VERSION, data)


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
    if object_type == 'broker':
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


def conductor(hostname: str, online: bool, **more) -> dict:
    """A conductor's payload (ConductorPayload)."""
    return pool('ConductorPayload', '1.0', {
        'hostname': hostname, 'online': online,
        **{k: _plain(v) for k, v in more.items()}})


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
