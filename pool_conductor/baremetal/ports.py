"""Ports: what is allowed, as Ironic allows it."""
import re

from pool_conductor.baremetal import nodes
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor.db import ports as ports_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import payloads
from pool_conductor import states

# Where Ironic records the VIF a port is bound to.
VIF_KEY = 'tenant_vif_port_id'

# The states in which a port joins or leaves a port group, and a port
# group moves to another node, out of maintenance (as Ironic's).
REWIRE_STATES = (states.ENROLL, states.MANAGEABLE)

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


def event(port: models.Port, action: str, node: models.Node,
           message: str | None = None) -> events.Event:
    """baremetal.port.<action>.end of a port (as it is after the
    change), readable by its node's owner and lessee."""
    return events.Event(
        'port', port.uuid, event_types.resource_change('port', action),
        object_name=getattr(port, 'address', None), message=message,
        payload=payloads.port(port), owner=node.owner, lessee=node.lessee)


def _in_use(node: models.Node) -> bool:
    """Whether a node serves an instance (and is not in maintenance)."""
    return not node.maintenance and (
        node.provision_state == states.ACTIVE or bool(node.instance_uuid))


# What update() is told when a port stays in its port group.
KEEP = object()


def _check_membership(port_uuid: str | None, node: models.Node,
                      portgroup: models.Portgroup | None, pxe_enabled: bool,
                      vif: str | None) -> None:
    """A port may join a port group of its own node; one that does not
    support standalone ports only if it is not PXE-enabled nor bound to a
    VIF.

    :raises: InvalidParameterValue, Conflict
    """
    if portgroup is None:
        return
    if portgroup.node_id != node.id:
        raise exception.InvalidParameterValue(
            err='Port can not be added to a portgroup belonging to a '
                'different node.')
    if portgroup.standalone_ports_supported:
        return
    reason = []
    if pxe_enabled:
        reason.append("'pxe_enabled' was set to True")
    if vif:
        reason.append('VIF %s is attached to the port' % vif)
    if reason:
        raise exception.Conflict(
            "Port group %s doesn't support standalone ports. This port %s "
            "cannot be a member of that port group because of: %s"
            % (portgroup.uuid, port_uuid or '', ', '.join(reason)))


def create(context, node: models.Node, values: dict,
           portgroup: models.Portgroup | None = None) -> models.Port:
    """Create a port of a node, in portgroup if given; a node a
    conductor holds locked takes it (Ironic takes a shared lock).

    :raises: MACAlreadyExists, PortAlreadyExists, InvalidMAC,
        InvalidParameterValue (a port group of another node), Conflict (a
        PXE-enabled port in a port group without standalone ports)
    """
    values = {**values, 'address': normalize_mac(values['address']),
              'node_id': node.id}
    _check_membership(values.get('uuid'), node, portgroup,
                      values.get('pxe_enabled', True), None)
    if portgroup is not None:
        values['portgroup_id'] = portgroup.id
    with db_api.writer(context) as session:
        port = ports_db.create_port(context, values)
        events.record(session, [event(port, 'create', node)])
    return port


def update(context, port: models.Port, node: models.Node,
           changed: dict, new_node: models.Node | None = None,
           portgroup=KEEP) -> models.Port:
    """Change fields of a port; new_node when it moves to another node,
    portgroup (a port group or None) when it joins or leaves one.

    As in Ironic, the address of a port of a node that serves an
    instance changes only in maintenance, a port bound to a VIF stays on
    its node, and a port joins or leaves a port group only while its
    node is in enroll, manageable or maintenance.

    :raises: NodeInWrongState, NodeLocked, InvalidMAC, MACAlreadyExists,
        ConcurrentUpdate, InvalidParameterValue, Conflict
    """
    node = nodes.unlocked(context, node)
    moves = new_node is not None and new_node.id != port.node_id
    if moves:
        new_node = nodes.unlocked(context, new_node)
    values = dict(changed)
    target = new_node or node
    if portgroup is not KEEP and (
            (portgroup.id if portgroup else None) != port.portgroup_id):
        check_rewire(target, 'Port %s can not have its port group '
                     'updated' % port.uuid)
        values['portgroup_id'] = portgroup.id if portgroup else None
    if 'pxe_enabled' in values or 'portgroup_id' in values or (
            new_node is not None):
        if portgroup is KEEP:
            portgroup = (None if port.portgroup_id is None else
                         portgroups_db.get_portgroup_by_id(
                             context, port.portgroup_id))
        _check_membership(port.uuid, target, portgroup,
                          values.get('pxe_enabled', port.pxe_enabled),
                          vif_of(port))
    if 'address' in values:
        values['address'] = normalize_mac(values['address'])
        if values['address'] == port.address:
            del values['address']
        elif _in_use(node):
            raise exception.NodeInWrongState(
                err='Cannot update hardware address for port %s as node '
                    '%s is active or has instance UUID assigned'
                    % (port.uuid, node.uuid))
    if moves:
        if vif_of(port) and not node.maintenance:
            raise exception.NodeInWrongState(
                err='Cannot move port %s to node %s: it is bound to VIF %s.'
                    % (port.uuid, new_node.uuid, vif_of(port)))
        values['node_id'] = new_node.id
    if not values:
        return port
    with db_api.writer(context) as session:
        updated = ports_db.update_port(context, port, values)
        events.record(session, [event(
            updated, 'update', new_node or node,
            'Changed: %s' % ', '.join(sorted(values)))])
    return updated


def check_rewire(node: models.Node, what: str) -> None:
    """:raises: NodeInWrongState unless node is in a state that allows
    changing how its ports are wired (enroll, manageable, maintenance)"""
    if node.provision_state not in REWIRE_STATES and not node.maintenance:
        raise exception.NodeInWrongState(
            err='%s unless node %s is in a %s state or in maintenance '
                'mode. Current state is \'%s\'.'
                % (what, node.uuid, ', '.join(REWIRE_STATES),
                   node.provision_state))


def destroy(context, port: models.Port, node: models.Node) -> None:
    """Delete a port; one bound to a VIF only in maintenance.

    :raises: NodeInWrongState, NodeLocked, ConcurrentUpdate
    """
    node = nodes.unlocked(context, node)
    if vif_of(port) and not node.maintenance:
        raise exception.NodeInWrongState(
            err='Cannot delete the port %s as it is bound to VIF %s for '
                'tenant use.' % (port.uuid, vif_of(port)))
    with db_api.writer(context) as session:
        ports_db.delete_port(context, port)
        events.record(session, [event(port, 'delete', node)])
