"""Ports and the VIFs attached to them: what is allowed, as Ironic
allows it. VIFs are recorded on a port, not plugged into any network."""
import re

from pool_conductor.db import api as db_api
from pool_conductor import drivers
from pool_conductor.db import models
from pool_conductor.db import ports as ports_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import payloads
from pool_conductor import states

# Where Ironic records the VIF a port is bound to.
VIF_KEY = 'tenant_vif_port_id'

_MAC = re.compile(r'^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$')


def normalize_mac(address) -> str:
    """A MAC address in lower-case colon form.

    :raises: InvalidMAC
    """
    if not isinstance(address, str) or not _MAC.match(address.lower()):
        raise exception.InvalidMAC(mac=address)
    return address.lower().replace('-', ':')


def vif_of(port: models.Port) -> str | None:
    """The VIF attached to a port, if any."""
    return (port.internal_info or {}).get(VIF_KEY)


def _check_unlocked(node: models.Node) -> None:
    if node.reservation:
        raise exception.NodeLocked(node=node.uuid, host=node.reservation)


def _event(port: models.Port, action: str, node: models.Node,
           message: str | None = None) -> events.Event:
    """baremetal.port.<action>.end of a port (as it is after the
    change), readable by its node's owner and lessee."""
    return events.Event(
        'port', port.uuid, 'baremetal.port.%s.end' % action,
        object_name=getattr(port, 'address', None), message=message,
        payload=payloads.port(port), owner=node.owner, lessee=node.lessee)


def _record(context, event: events.Event) -> None:
    """Record an event in the write transaction open on context."""
    with db_api.writer(context) as session:
        events.record(session, [event])


def _in_use(node: models.Node) -> bool:
    """Whether a node serves an instance (and is not in maintenance)."""
    return not node.maintenance and (
        node.provision_state == states.ACTIVE or bool(node.instance_uuid))


def create(context, node: models.Node, values: dict) -> models.Port:
    """Create a port of a node.

    :raises: NodeLocked, MACAlreadyExists, PortAlreadyExists, InvalidMAC
    """
    _check_unlocked(node)
    values = {**values, 'address': normalize_mac(values['address']),
              'node_id': node.id}
    with db_api.writer(context) as session:
        port = ports_db.create_port(context, values)
        events.record(session, [_event(port, 'create', node)])
    return port


def update(context, port: models.Port, node: models.Node,
           changed: dict, new_node: models.Node | None = None
           ) -> models.Port:
    """Change fields of a port; new_node when it moves to another node.

    As in Ironic, the address of a port of a node that serves an
    instance changes only in maintenance, and a port bound to a VIF
    stays on its node.

    :raises: NodeInWrongState, NodeLocked, InvalidMAC, MACAlreadyExists,
        ConcurrentUpdate
    """
    _check_unlocked(node)
    values = dict(changed)
    if 'address' in values:
        values['address'] = normalize_mac(values['address'])
        if values['address'] == port.address:
            del values['address']
        elif _in_use(node):
            raise exception.NodeInWrongState(
                err='Cannot update hardware address for port %s as node '
                    '%s is active or has instance UUID assigned'
                    % (port.uuid, node.uuid))
    if new_node is not None and new_node.id != port.node_id:
        _check_unlocked(new_node)
        if vif_of(port) and not node.maintenance:
            raise exception.NodeInWrongState(
                err='Cannot move port %s to node %s: it is bound to VIF %s.'
                    % (port.uuid, new_node.uuid, vif_of(port)))
        values['node_id'] = new_node.id
    if not values:
        return port
    with db_api.writer(context) as session:
        updated = ports_db.update_port(context, port, values)
        events.record(session, [_event(
            updated, 'update', new_node or node,
            'Changed: %s' % ', '.join(sorted(values)))])
    return updated


def destroy(context, port: models.Port, node: models.Node) -> None:
    """Delete a port; one bound to a VIF only in maintenance.

    :raises: NodeInWrongState, NodeLocked, ConcurrentUpdate
    """
    _check_unlocked(node)
    if vif_of(port) and not node.maintenance:
        raise exception.NodeInWrongState(
            err='Cannot delete the port %s as it is bound to VIF %s for '
                'tenant use.' % (port.uuid, vif_of(port)))
    with db_api.writer(context) as session:
        ports_db.delete_port(context, port)
        events.record(session, [_event(port, 'delete', node)])


def _keeps_vifs(node: models.Node) -> bool:
    """Whether a node's network interface records VIFs: Ironic's noop one
    keeps none (attaching and detaching succeed and do nothing, the list
    is empty), with or without ports."""
    return drivers.of_node(node, 'network') != drivers.NOOP_NETWORK


def list_vifs(context, node: models.Node) -> list[str]:
    """The VIFs attached to the ports of a node."""
    if not _keeps_vifs(node):
        return []
    return [vif_of(p) for p in ports_db.ports_of_node(context, node.id)
            if vif_of(p)]


def _preference(port: models.Port) -> tuple:
    # As Ironic's network interfaces: PXE-enabled ports first.
    return (not port.pxe_enabled, port.id)


def attach_vif(context, node: models.Node,
               vif: str) -> models.Port | None:
    """Record a VIF on a free port of a node (one with no VIF).

    Attaches and detaches on a node are serialized by its row lock: two
    attaches never take the same port nor record the same VIF twice.

    :returns: the port the VIF is recorded on; None with the noop
        network interface, which records nothing
    :raises: VifAlreadyAttached, NoFreePhysicalPorts, NodeLocked
    """
    _check_unlocked(node)
    if not _keeps_vifs(node):
        return None
    with ports_db.locked_ports_of_node(context, node.id) as found:
        for port in found:
            if vif_of(port) == vif:
                raise exception.VifAlreadyAttached(vif=vif, port=port.uuid)
        free = sorted((p for p in found if not vif_of(p)), key=_preference)
        if not free:
            raise exception.NoFreePhysicalPorts(vif=vif)
        port = free[0]
        port = ports_db.update_port(context, port, {
            'internal_info': {**(port.internal_info or {}), VIF_KEY: vif}})
        _record(context, _event(port, 'update', node,
                                'VIF %s attached' % vif))
        return port


def detach_vif(context, node: models.Node, vif: str) -> None:
    """Remove a VIF from the port of a node it is recorded on.

    With the noop network interface, nothing (as Ironic's).

    :raises: VifNotAttached, NodeLocked, ConcurrentUpdate
    """
    _check_unlocked(node)
    if not _keeps_vifs(node):
        return
    with ports_db.locked_ports_of_node(context, node.id) as found:
        for port in found:
            if vif_of(port) == vif:
                info = dict(port.internal_info)
                del info[VIF_KEY]
                port = ports_db.update_port(context, port,
                                            {'internal_info': info})
                _record(context, _event(port, 'update', node,
                                        'VIF %s detached' % vif))
                return
    raise exception.VifNotAttached(vif=vif, node=node.uuid)
