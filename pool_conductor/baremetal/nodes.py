"""Changes of a node outside the binding (the node API, its traits and
params, a provision verb), each recorded with its events in its
transaction: Ironic's create, update, power_set, maintenance_set and
provision_set (pool_conductor.node_events decides which).

patch() is the one door of a node PATCH: it hands a report and a change
of instance to the binding writer (pool_conductor.binding), the rest to
update()."""
from pool_conductor import binding
from pool_conductor.booking import healing
from pool_conductor.db import nodes as nodes_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import lifecycle
from pool_conductor import node_events
from pool_conductor import retry


def create(context, values: dict):
    """Create a node (baremetal.node.create.end).

    :raises: NodeAlreadyExists, DuplicateName
    """
    return nodes_db.create_node(
        context, values,
        then=lambda session, node: events.record(
            session, node_events.created(node)))


def update(context, node, values: dict, traits=None, message=None,
           shown: dict | None = None):
    """Save changed fields (and traits, when given) of a node if nobody
    changed it meanwhile, with the events of the change.

    :param shown: what the events show of the change where its columns
        do not (the chassis_uuid of a new chassis_id)
    :raises: ConcurrentUpdate, NodeLocked, DuplicateName,
        InstanceAssociated
    """
    changes = {**values, **(shown or {})}
    if traits is not None:
        changes['traits'] = traits

    def record(session):
        # Put into maintenance, the node gives up the windows it holds.
        healing.node_changed(session.connection(), [node],
                             {node.id: changes}, message=message,
                             booked_known=False)
    return nodes_db.update_node(context, node, values, traits=traits,
                                then=record)


def patch(context, node, changed: dict, reported: bool = False,
          shown: dict | None = None):
    """Save what a node PATCH changes through the writer that owns it: a
    stage or runnable report (reported) through binding.report, which
    moves a waiting node on (a repeated report too); a new instance_uuid
    through the binding writer (binding.set_instance, or
    binding.release_node for none); any other field through update(),
    retried while a conductor holds the node locked.

    :param changed: the changed fields, stage and runnable among them
        for a report.
    :param shown: as update()'s.
    :returns: the node as it is after the change.
    :raises: Invalid for the instance_uuid of a node that has an
        allocation; what update(), binding.report, binding.set_instance
        and binding.release_node raise.
    """
    if 'instance_uuid' not in changed:
        if reported:
            binding.report(context, node, changed)
            return nodes_db.get_node_by_id(context, node.id)
        return retry.on_node_locked(update, context, node, changed,
                                    shown=shown)
    values = dict(changed)
    instance = values.pop('instance_uuid')
    if instance is None:
        binding.release_node(context, node, values)
    elif node.allocation_id is not None:
        raise exception.Invalid(
            'Cannot set the instance_uuid of node %s: it has allocation %s.'
            % (node.uuid, node.allocation_uuid))
    else:
        binding.set_instance(context, node, instance, values)
    return nodes_db.get_node_by_id(context, node.id)


def unlocked(context, node):
    """The node as it is now, once no conductor holds it locked: a
    change of its ports, port groups, VIFs or volumes waits for the lock
    as Ironic's conductor waits for a node's exclusive lock
    ([conductor] node_locked_retry_attempts and
    node_locked_retry_interval).

    :raises: NodeLocked when the node stays locked
    """
    def now():
        fresh = nodes_db.get_node_by_id(context, node.id)
        lifecycle.check_unlocked(fresh)
        return fresh
    return retry.on_node_locked(now)


def set_traits(context, node, traits):
    """Replace the traits of a node."""
    return update(context, node, {}, traits=list(traits))


def add_trait(context, node, trait: str):
    current = [t.trait for t in node.traits]
    if trait in current:
        return node
    return update(context, node, {}, traits=current + [trait])


def remove_trait(context, node, trait: str):
    """:raises: NodeTraitNotFound"""
    current = [t.trait for t in node.traits]
    if trait not in current:
        raise exception.NodeTraitNotFound(node=node.uuid, trait=trait)
    return update(context, node, {},
                  traits=[t for t in current if t != trait])
