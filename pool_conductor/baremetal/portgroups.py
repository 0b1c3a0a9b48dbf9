"""Port groups: bonded ports of a node, what is allowed as Ironic allows
it."""
from pool_conductor.baremetal import nodes
from pool_conductor.baremetal import ports
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor.db import ports as ports_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import payloads


def event(portgroup: models.Portgroup, action: str, node: models.Node,
           message: str | None = None) -> events.Event:
    """baremetal.portgroup.<action>.end, readable by its node's owner and
    lessee."""
    return events.Event(
        'portgroup', portgroup.uuid,
        event_types.resource_change('portgroup', action),
        object_name=portgroup.name, message=message,
        payload=payloads.portgroup(portgroup), owner=node.owner,
        lessee=node.lessee)


def _normalize(values: dict) -> dict:
    values = dict(values)
    if values.get('address') is not None:
        values['address'] = ports.normalize_mac(values['address'])
    return values


def create(context, node: models.Node, values: dict) -> models.Portgroup:
    """Create a port group of a node, even one a conductor holds locked
    (as Ironic's API creates it).

    :raises: PortgroupAlreadyExists, PortgroupDuplicateName,
        PortgroupMACAlreadyExists, InvalidMAC
    """
    values = {**_normalize(values), 'node_id': node.id}
    with db_api.writer(context) as session:
        portgroup = portgroups_db.create_portgroup(context, values)
        events.record(session, [event(portgroup, 'create', node)])
    return portgroup


def _check_members_standalone(context, portgroup: models.Portgroup) -> None:
    """:raises: Conflict if a member port could not stand alone: it is
    PXE-enabled or bound to a VIF"""
    for port in ports_db.ports_of_portgroup(context, portgroup.id):
        reason = []
        if port.pxe_enabled:
            reason.append("'pxe_enabled' is set to True")
        if ports.vif_of(port):
            reason.append('VIF %s is attached to this port'
                          % ports.vif_of(port))
        if reason:
            raise exception.Conflict(
                'standalone_ports_supported can not be set to False, '
                'because the port group %s contains port with %s'
                % (portgroup.uuid, ', '.join(reason)))


def update(context, portgroup: models.Portgroup, node: models.Node,
           changed: dict, new_node: models.Node | None = None
           ) -> models.Portgroup:
    """Change fields of a port group; new_node when it moves to another
    node, which only an empty port group does, to a node in enroll,
    manageable or maintenance.

    :raises: NodeLocked, NodeInWrongState, PortgroupNotEmpty, Conflict,
        InvalidMAC, PortgroupMACAlreadyExists, PortgroupDuplicateName,
        ConcurrentUpdate
    """
    node = nodes.unlocked(context, node)
    values = _normalize(changed)
    if new_node is not None and new_node.id != portgroup.node_id:
        new_node = nodes.unlocked(context, new_node)
        ports.check_rewire(new_node, 'Portgroup %s can not be associated '
                           'to node %s' % (portgroup.uuid, new_node.uuid))
        if ports_db.ports_of_portgroup(context, portgroup.id):
            raise exception.PortgroupNotEmpty(portgroup=portgroup.uuid)
        values['node_id'] = new_node.id
    if values.get('standalone_ports_supported') is False:
        _check_members_standalone(context, portgroup)
    if not values:
        return portgroup
    with db_api.writer(context) as session:
        updated = portgroups_db.update_portgroup(context, portgroup, values)
        events.record(session, [event(
            updated, 'update', new_node or node,
            'Changed: %s' % ', '.join(sorted(values)))])
    return updated


def destroy(context, portgroup: models.Portgroup, node: models.Node) -> None:
    """Delete a port group that has no ports.

    :raises: NodeLocked, PortgroupNotEmpty, ConcurrentUpdate
    """
    node = nodes.unlocked(context, node)
    with db_api.writer(context) as session:
        portgroups_db.delete_portgroup(context, portgroup)
        events.record(session, [event(portgroup, 'delete', node)])
