"""VIFs of nodes, recorded on their port groups and ports as Ironic's
network interfaces record them (not plugged into any network)."""
from pool_conductor.baremetal import nodes
from pool_conductor.baremetal import portgroups
from pool_conductor.baremetal import ports
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor.db import ports as ports_db
from pool_conductor import drivers
from pool_conductor import events
from pool_conductor import exception


def _keeps_vifs(node: models.Node) -> bool:
    """Whether a node's network interface records VIFs: Ironic's noop one
    keeps none (attaching and detaching succeed and do nothing, the list
    is empty), with or without ports."""
    return drivers.of_node(node, 'network') != drivers.NOOP_NETWORK


def list_vifs(context, node: models.Node) -> list[str]:
    """The VIFs attached to the ports and port groups of a node."""
    if not _keeps_vifs(node):
        return []
    found = (ports_db.ports_of_node(context, node.id)
             + portgroups_db.portgroups_of_node(context, node.id))
    return [ports.vif_of(p) for p in found if ports.vif_of(p)]


def _free_port_likes(vif: str, found: list, groups: list) -> list:
    """The ports and port groups of a node that vif may be attached to,
    as Ironic's network interfaces choose them: a port group with free
    ports and no VIF on any of them, else the free ports of port groups
    with a VIF on a member, and the free ports in no port group.

    :raises: VifAlreadyAttached
    """
    free = []
    members: dict[int, list] = {}
    busy_groups = set()
    for port_like in found + groups:
        if ports.vif_of(port_like) == vif:
            raise exception.VifAlreadyAttached(
                vif=vif, port=port_like.uuid,
                object_type=type(port_like).__name__)
    for port in found:
        if ports.vif_of(port):
            busy_groups.add(port.portgroup_id)
        elif port.portgroup_id is None:
            free.append(port)
        else:
            members.setdefault(port.portgroup_id, []).append(port)
    for group in groups:
        if ports.vif_of(group):
            continue
        if group.id in busy_groups:
            free.extend(members.get(group.id, ()))
        elif members.get(group.id):
            free.append(group)
    return free


def _preference(port_like) -> tuple:
    # As Ironic's network interfaces: port groups first, then
    # PXE-enabled ports.
    if isinstance(port_like, models.Portgroup):
        return (0, 0, port_like.id)
    return (1, not port_like.pxe_enabled, port_like.id)


def attach_vif(context, node: models.Node, vif: str):
    """Record a VIF on a free port group or port of a node (one with no
    VIF; a port group with a member port that has none).

    Attaches and detaches on a node are serialized by its row lock: two
    attaches never take the same port nor record the same VIF twice.

    :returns: the port or port group the VIF is recorded on; None with
        the noop network interface, which records nothing
    :raises: VifAlreadyAttached, NoFreePhysicalPorts, NodeLocked
    """
    node = nodes.unlocked(context, node)
    if not _keeps_vifs(node):
        return None
    with ports_db.locked_ports_of_node(context, node.id) as found:
        groups = portgroups_db.portgroups_of_node(context, node.id)
        free = sorted(_free_port_likes(vif, found, groups), key=_preference)
        if not free:
            raise exception.NoFreePhysicalPorts(vif=vif)
        chosen = free[0]
        info = {**(chosen.internal_info or {}), ports.VIF_KEY: vif}
        return _save_internal_info(context, node, chosen, info,
                                   'VIF %s attached' % vif)


def _save_internal_info(context, node: models.Node, port_like, info: dict,
                        message: str):
    """Save the internal_info of a port or port group and record its
    event, in the transaction open on context."""
    if isinstance(port_like, models.Portgroup):
        saved = portgroups_db.update_portgroup(
            context, port_like, {'internal_info': info})
        event = portgroups.event(saved, 'update', node, message)
    else:
        saved = ports_db.update_port(context, port_like,
                                     {'internal_info': info})
        event = ports.event(saved, 'update', node, message)
    with db_api.writer(context) as session:
        events.record(session, [event])
    return saved


def detach_vif(context, node: models.Node, vif: str) -> None:
    """Remove a VIF from the port group or port of a node it is recorded
    on. With the noop network interface, nothing (as Ironic's).

    :raises: VifNotAttached, NodeLocked, ConcurrentUpdate
    """
    node = nodes.unlocked(context, node)
    if not _keeps_vifs(node):
        return
    with ports_db.locked_ports_of_node(context, node.id) as found:
        groups = portgroups_db.portgroups_of_node(context, node.id)
        for port_like in groups + found:
            if ports.vif_of(port_like) == vif:
                info = dict(port_like.internal_info)
                del info[ports.VIF_KEY]
                _save_internal_info(context, node, port_like, info,
                                    'VIF %s detached' % vif)
                return
    raise exception.VifNotAttached(vif=vif, node=node.uuid)
