"""The events of a change of a node, by what the change touched."""
from pool_conductor import events
from pool_conductor import payloads

# The fields of a node's membership and binding: a change of any of them
# is a pool_status_set event.
MEMBERSHIP = frozenset(('pool', 'pool_status', 'instance_uuid',
                        'allocation_id'))
FAILED_STATES = frozenset(('deploy failed', 'clean failed', 'error',
                           'inspect failed', 'rescue failed'))


def _event(node, event_type: str, values: dict, message, level='info',
           prev_state=None, state=None) -> events.Event:
    return events.Event(
        'node', node.uuid, event_type,
        object_name=values.get('name', getattr(node, 'name', None)),
        level=level, message=message, prev_state=prev_state, state=state,
        payload=payloads.node(node, values),
        owner=values.get('owner', getattr(node, 'owner', None)),
        lessee=values.get('lessee', getattr(node, 'lessee', None)))


def changed(node, values: dict, message: str | None = None
            ) -> list[events.Event]:
    """The events of changing values of node (as read before the change):
    Ironic's provision_set for a provision state, pool's pool_status_set
    for its pool, status, instance or allocation, Ironic's update for
    any other field. A value equal to the node's is no change."""
    values = {k: v for k, v in values.items()
              if not hasattr(node, k) or getattr(node, k) != v}
    out = []
    if 'provision_state' in values:
        new = values['provision_state']
        target = values.get('target_provision_state',
                            getattr(node, 'target_provision_state', None))
        if new in FAILED_STATES:
            status, level = 'error', 'error'
        elif target is None:
            status, level = 'end', 'info'
        else:
            status, level = 'success', 'info'
        out.append(_event(
            node, 'baremetal.node.provision_set.%s' % status, values,
            message or values.get('last_error'), level,
            getattr(node, 'provision_state', None), new))
    if 'power_state' in values:
        out.append(_event(node, 'baremetal.node.power_set.end', values,
                          message, 'info',
                          getattr(node, 'power_state', None),
                          values['power_state']))
    if 'maintenance' in values:
        out.append(_event(node, 'baremetal.node.maintenance_set.end',
                          values, message or values.get(
                              'maintenance_reason')))
    if MEMBERSHIP.intersection(values):
        out.append(_event(node, 'pool.node.pool_status_set.success',
                          values, message, 'info',
                          getattr(node, 'pool_status', None),
                          values.get('pool_status',
                                     getattr(node, 'pool_status', None))))
    if not out and values.keys() - {'generation', 'updated_at'}:
        out.append(_event(node, 'baremetal.node.update.end', values,
                          message))
    return out


def created(node) -> list[events.Event]:
    return [_event(node, 'baremetal.node.create.end', {}, None,
                   state=getattr(node, 'provision_state', None))]


def deleted(node) -> list[events.Event]:
    return [_event(node, 'baremetal.node.delete.end', {}, None,
                   prev_state=getattr(node, 'provision_state', None))]


def record(conn, nodes, changes: dict[int, dict], message=None,
           conductor: str | None = None,
           also: list[events.Event] | None = None) -> None:
    """Record the events of changes (node id -> values) of nodes, and
    the caller's events of the same change (also), with one statement."""
    by_id = {n.id: n for n in nodes}
    events.record(conn, [e for node_id, values in changes.items()
                         for e in changed(by_id[node_id], values, message)]
                  + (also or []), conductor=conductor)

