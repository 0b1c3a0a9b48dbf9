"""The events of a change of a node, by what the change touched.

A provision state change is Ironic's provision_set, with Ironic's status
rules: ``error`` (level error) for a failure, ``start`` from a stable
state into one in progress, ``end`` from one in progress to a stable one,
``success`` otherwise (stable to stable, as manage and provide here, or
in progress to in progress, as deleting to cleaning).
"""
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import payloads
from pool_conductor import states

# The fields of a node's membership and binding: a change of any of them
# is a pool_status_set event.
MEMBERSHIP = frozenset(('pool', 'pool_status', 'instance_uuid',
                        'allocation_id'))
FAILED_STATES = frozenset(('deploy failed', 'clean failed', 'error',
                           'inspect failed', 'rescue failed',
                           'unrescue failed'))
# Ironic's states that change without a request (its UNSTABLE_STATES).
IN_PROGRESS = frozenset(states.IN_PROGRESS + (
    'deploy wait', 'clean wait', 'verifying', 'inspecting', 'inspect wait',
    'adopting', 'rescuing', 'rescue wait', 'unrescuing', 'servicing',
    'service wait'))
# The event of Ironic's state machine each transition is, for the payload
# of provision_set.
FSM_EVENTS = {
    (states.ENROLL, states.MANAGEABLE): 'manage',
    (states.AVAILABLE, states.MANAGEABLE): 'manage',
    (states.CLEAN_FAIL, states.MANAGEABLE): 'manage',
    (states.MANAGEABLE, states.AVAILABLE): 'provide',
    (states.MANAGEABLE, states.CLEANING): 'clean',
    (states.CLEANING, states.MANAGEABLE): 'done',
    (states.AVAILABLE, states.DEPLOYING): 'deploy',
    (states.DEPLOY_FAIL, states.DEPLOYING): 'deploy',
    (states.ACTIVE, states.DEPLOYING): 'rebuild',
    (states.DEPLOYING, states.ACTIVE): 'done',
    (states.DELETING, states.CLEANING): 'clean',
    (states.CLEANING, states.AVAILABLE): 'done',
    (states.RESCUING, states.RESCUE): 'done',
    (states.UNRESCUING, states.ACTIVE): 'done',
    **{(state, states.DELETING): 'delete' for state in (
        states.ACTIVE, states.DEPLOY_FAIL, states.RESCUE,
        states.RESCUE_FAIL, states.UNRESCUE_FAIL)},
    **{(state, states.RESCUING): 'rescue' for state in (
        states.ACTIVE, states.RESCUE, states.RESCUE_FAIL,
        states.UNRESCUE_FAIL)},
    **{(state, states.UNRESCUING): 'unrescue' for state in (
        states.RESCUE, states.RESCUE_FAIL, states.UNRESCUE_FAIL)},
}


def _event(node, event_type: str, values: dict, message, level='info',
           prev_state=None, state=None, payload=None) -> events.Event:
    return events.Event(
        'node', node.uuid, event_type,
        object_name=values.get('name', getattr(node, 'name', None)),
        level=level, message=message, prev_state=prev_state, state=state,
        payload=payload or payloads.node(node, values),
        owner=values.get('owner', getattr(node, 'owner', None)),
        lessee=values.get('lessee', getattr(node, 'lessee', None)))


def provision_status(prev: str | None, new: str) -> tuple[str, str]:
    """(status, level) of a provision_set event from prev to new."""
    if new in FAILED_STATES:
        return 'error', 'error'
    moving_before, moving_after = prev in IN_PROGRESS, new in IN_PROGRESS
    if not moving_before and moving_after:
        return 'start', 'info'
    if moving_before and not moving_after:
        return 'end', 'info'
    return 'success', 'info'


def _differs(node, key: str, value) -> bool:
    if key == 'traits':
        current = getattr(node, 'traits', None)
        return current is None or sorted(
            getattr(t, 'trait', t) for t in current) != sorted(value or ())
    return not hasattr(node, key) or getattr(node, key) != value


def changed(node, values: dict, message: str | None = None
            ) -> list[events.Event]:
    """The events of changing values of node (as read before the change):
    Ironic's provision_set for a provision state, power_set for a power
    state set alone (one recorded with a provision state is part of that
    transition, as Ironic reads it while verifying), console_set for the
    console mode, maintenance_set,
    pool's pool_status_set for its pool, status, instance or allocation,
    Ironic's update for any other field (traits among them). A value
    equal to the node's is no change."""
    values = {k: v for k, v in values.items() if _differs(node, k, v)}
    out = []
    if 'provision_state' in values:
        prev = getattr(node, 'provision_state', None)
        new = values['provision_state']
        status, level = provision_status(prev, new)
        fsm_event = 'fail' if status == 'error' else FSM_EVENTS.get(
            (prev, new))
        out.append(_event(
            node, event_types.node_provision_set(status), values,
            message or values.get('last_error'), level, prev, new,
            payloads.node(node, values, payloads.NODE_PROVISION,
                          event=fsm_event, previous_provision_state=prev,
                          previous_target_provision_state=getattr(
                              node, 'target_provision_state', None))))
    elif 'power_state' in values:
        out.append(_event(node, event_types.NODE_POWER_SET_END, values,
                          message, 'info',
                          getattr(node, 'power_state', None),
                          values['power_state'],
                          payloads.node(node, values, payloads.NODE_POWER,
                                        to_power=values['power_state'])))
    if 'console_enabled' in values:
        out.append(_event(node, event_types.NODE_CONSOLE_SET_END, values,
                          message))
    if 'maintenance' in values:
        out.append(_event(node, event_types.NODE_MAINTENANCE_SET_END,
                          values, message or values.get(
                              'maintenance_reason')))
    if MEMBERSHIP.intersection(values):
        out.append(_event(node, event_types.NODE_POOL_STATUS_SET_SUCCESS,
                          values, message, 'info',
                          getattr(node, 'pool_status', None),
                          values.get('pool_status',
                                     getattr(node, 'pool_status', None))))
    if values.get('pool_wait_timed_out'):
        status = getattr(node, 'pool_status', None)
        out.append(_event(
            node, event_types.NODE_WAIT_TIMEOUT_ERROR, values, message or (
                'Node %s did not reach stage %s while %s by its deadline '
                '(wait_timeout)' % (node.uuid,
                                    getattr(node, 'pool_wait_stage', None),
                                    status)),
            'warning', status, 'timeout'))
    if not out and values.keys() - {'generation', 'updated_at'}:
        out.append(_event(node, event_types.NODE_UPDATE_END, values,
                          message, payload=payloads.node(
                              node, values, payloads.NODE_CRUD)))
    return out


def created(node) -> list[events.Event]:
    return [_event(node, event_types.NODE_CREATE_END, {}, None,
                   state=getattr(node, 'provision_state', None),
                   payload=payloads.node(node, None, payloads.NODE_CRUD))]


def deleted(node) -> list[events.Event]:
    return [_event(node, event_types.NODE_DELETE_END, {}, None,
                   prev_state=getattr(node, 'provision_state', None),
                   payload=payloads.node(node, None, payloads.NODE_CRUD))]


def record(conn, nodes, changes: dict[int, dict], message=None,
           conductor: str | None = None,
           also: list[events.Event] | None = None) -> None:
    """Record the events of changes (node id -> values) of nodes, and
    the caller's events of the same change (also), with one statement."""
    by_id = {n.id: n for n in nodes}
    events.record(conn, [e for node_id, values in changes.items()
                         for e in changed(by_id[node_id], values, message)]
                  + (also or []), conductor=conductor)
