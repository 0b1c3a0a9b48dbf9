"""RAID configuration of nodes, as Ironic's RAID interface keeps it.

A node has the configuration asked for (target_raid_config, set through
the API) and the one it has (raid_config). The fake RAID interface has no
controller to configure: a manual cleaning's ``raid.create_configuration``
step makes raid_config the target (with Ironic's last_updated), and
``raid.delete_configuration`` empties it.
"""
from pool_conductor.baremetal import nodes
from pool_conductor import exception

CREATE = 'create_configuration'
DELETE = 'delete_configuration'
# The clean steps of the raid interface (the fake one has no others).
STEPS = (CREATE, DELETE)


def check_root_volumes(config: dict) -> None:
    """At most one logical disk may be the root volume, as in Ironic.

    :raises: InvalidParameterValue
    """
    roots = [d for d in config.get('logical_disks') or ()
             if d.get('is_root_volume')]
    if len(roots) > 1:
        raise exception.InvalidParameterValue(
            err='Raid config cannot have more than one root volume. %d root '
                'volumes were specified' % len(roots))


def set_target(context, node, config: dict):
    """Record the RAID configuration a node is to have ({} for none).

    :raises: InvalidParameterValue, NodeLocked, ConcurrentUpdate
    """
    check_root_volumes(config)
    return nodes.update(context, node, {'target_raid_config': config})


def apply_step(node, step: str, now) -> dict:
    """The fields a RAID clean step changes on a node.

    :raises: InvalidParameterValue for a create_configuration step on a
        node with no target RAID configuration, as Ironic fails it.
    """
    if step == DELETE:
        return {'raid_config': {}}
    target = node.target_raid_config or {}
    if not target.get('logical_disks'):
        raise exception.InvalidParameterValue(
            err='Node %s has no target RAID configuration to create.'
                % node.uuid)
    return {'raid_config': {**target, 'last_updated': str(now)}}
