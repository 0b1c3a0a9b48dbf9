"""Maintenance windows: a node held for its maintenance from start_at to
end_at.

A maintenance window is a slot of its node (purpose maintenance) with no
allocation: bookings, availability, the preview and the allocator pass
over it as over any slot, and an allocation that starts now takes the
node only if it ends (with its pool's post margin) before the window
begins (nodes.booked_from). It may not overlap another slot of the node,
nor begin before what holds the node now ends (an allocation's
lifespan_end plus its pool's post margin; an allocation without an end,
a claim's or an instance without an allocation hold it forever).

When the window begins, a conductor (any: each window is taken with
SKIP LOCKED on its node and its row) puts the node into maintenance with
the window's reason and fault ``scheduled maintenance`` as soon as
nothing holds it (no allocation or instance, no operation in progress);
until then the window is ``waiting``. A node already in maintenance is
left as it is. When the window ends (or is deleted) the node leaves the
maintenance the window set, if that is still the one it is in (the
fault and the reason are the window's), and the slot is deleted.
"""
import datetime

from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from pool_conductor.booking import windows
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import node_events
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states


FAULT = states.FAULT_SCHEDULED_MAINTENANCE
# Windows one conductor begins or ends per round.
BATCH = 100
# Event types, of the window's node.
CREATED = event_types.NODE_MAINTENANCE_WINDOW_CREATE_END
DELETED = event_types.NODE_MAINTENANCE_WINDOW_DELETE_END
WAITING = event_types.NODE_MAINTENANCE_WINDOW_WAITING
STARTED = event_types.NODE_MAINTENANCE_WINDOW_STARTED
ENDED = event_types.NODE_MAINTENANCE_WINDOW_ENDED

_iso = windows.iso


def payload(window, state: str | None = None) -> dict:
    """A window's payload (MaintenanceWindowPayload), in state (its own
    by default)."""
    return payloads.pool('MaintenanceWindowPayload', '1.0', {
        'uuid': window.uuid, 'node_uuid': window.node_uuid,
        'start_at': payloads.plain(window.busy_from),
        'end_at': payloads.plain(window.busy_until),
        'reason': window.reason, 'state': state or window.state})


def _event(node, window, event_type: str, message: str,
           level: str = 'info', prev_state: str | None = None,
           state: str | None = None) -> events.Event:
    return events.Event('node', node.uuid, event_type,
                        object_name=node.name, level=level, message=message,
                        prev_state=prev_state, state=state,
                        payload=payload(window, state), owner=node.owner,
                        lessee=node.lessee)


def held_until(node, post: datetime.timedelta
               ) -> tuple[str, datetime.datetime | None]:
    """What holds a node now (as slots_db.holder() reads it) and until
    when: its allocation until its end plus the post margin, or forever
    (without an end, or a claim's); an instance without an allocation
    forever; ('', None) when nothing does."""
    if node.allocation_id is not None:
        what = 'allocation %s' % node.bound_uuid
        if node.bound_end is None or node.bound_claim is not None:
            return what, windows.FOREVER
        return what, node.bound_end + post
    if node.instance_uuid is not None:
        return 'instance %s' % node.instance_uuid, windows.FOREVER
    return '', None


def _busy(node) -> str | None:
    """Why a node cannot enter maintenance now, or None."""
    what, _ = held_until(node, datetime.timedelta())
    if what:
        return 'it is held by %s' % what
    if node.reservation is not None:
        return 'conductor %s works on it' % node.reservation
    if node.provision_state in states.IN_PROGRESS:
        return 'it is %s' % node.provision_state
    return None


# Creation, listing, deletion ------------------------------------------------

def create(context, node_id: int, start: datetime.datetime,
           end: datetime.datetime, reason: str | None):
    """Book a maintenance window of a node, with its event, in one
    transaction. A start in the past is now.

    :raises: InvalidParameterValue for an end not after the start (or
        now), NodeNotFound, WindowConflict naming what holds the node
        over the window
    """
    now = db_api.utcnow()
    start = max(start, now)
    if end <= start:
        raise exception.InvalidParameterValue(
            err='end_at %s must be later than start_at %s (and than now).'
                % (_iso(end), _iso(start)))
    uuid = uuidutils.generate_uuid()

    def attempt():
        with db_api.writer_connection(context) as conn:
            node = _lock(conn, node_id)
            _check_free(conn, node, start, end)
            slots_db.insert_window(conn, node.id, uuid, start, end, reason,
                                   states.WINDOW_SCHEDULED)
            slots_db.refresh_booked(conn, [node.id])
            window = slots_db.window(conn, node.id, uuid)
            events.record(conn, [_event(
                node, window, CREATED,
                'Node %s is held for maintenance from %s to %s: %s.'
                % (node.uuid, _iso(start), _iso(end), reason),
                state=states.WINDOW_SCHEDULED)])
            return window
    try:
        return retry.on_deadlock(attempt)
    except db_exc.DBError as exc:
        if db_api.is_exclusion_violation(exc):
            raise exception.WindowConflict(
                err='Another slot of the node was booked over the '
                    'maintenance window meanwhile; please retry.') from None
        raise


def _lock(conn, node_id: int):
    """A node as slots_db.holder() reads it, locked.

    :raises: NodeNotFound
    """
    if binding_db.lock_node(conn, node_id, skip_locked=False) is None:
        raise exception.NodeNotFound(node=node_id)
    return slots_db.holder(conn, node_id)


def _post_margin(conn, node) -> datetime.timedelta:
    pool = slots_db.margins(conn, node.pool or models.DEFAULT_POOL)
    return windows.margins(
        post=pool.reservation_post_margin if pool else None).post


def _check_free(conn, node, start: datetime.datetime,
                end: datetime.datetime) -> None:
    """:raises: WindowConflict naming what holds the node over
    [start, end)"""
    found = []
    what, until = held_until(node, _post_margin(conn, node))
    if until is not None and until > start:
        found.append('node %s is held by %s until %s'
                     % (node.uuid, what, _iso(until)))
    for slot in slots_db.overlapping(conn, [node.id], start, end):
        found.append('node %s is held by %s from %s to %s'
                     % (node.uuid, windows.slot_holder(slot),
                        _iso(slot.busy_from), _iso(slot.busy_until)))
    if found:
        raise exception.WindowConflict(
            err='The maintenance window from %s to %s cannot be booked: '
                '%s.' % (_iso(start), _iso(end), '; '.join(found)))


def list_windows(context, node_id: int, maintenance_only: bool = True
                 ) -> list:
    """The maintenance windows (or every slot) of a node, by start."""
    with db_api.reader(context) as session:
        return slots_db.of_node(session.connection(), node_id,
                                maintenance_only)


def get(context, node_id: int, uuid: str):
    """:raises: ObjectNotFound"""
    with db_api.reader(context) as session:
        window = slots_db.window(session.connection(), node_id, uuid)
    if window is None:
        raise exception.ObjectNotFound(kind='Maintenance window', name=uuid)
    return window


def delete(context, node_id: int, uuid: str) -> None:
    """Delete a maintenance window: an active one's node leaves the
    maintenance it set (as at its end), with the events.

    :raises: ObjectNotFound
    """
    def attempt():
        with db_api.writer_connection(context) as conn:
            node = _lock(conn, node_id)
            window = slots_db.window(conn, node_id, uuid, lock=True)
            if window is None:
                raise exception.ObjectNotFound(kind='Maintenance window',
                                               name=uuid)
            _finish(conn, node, window, DELETED,
                    'The maintenance window of node %s from %s to %s was '
                    'deleted' % (node.uuid, _iso(window.busy_from),
                                 _iso(window.busy_until)))
    retry.on_deadlock(attempt)


def _finish(conn, node, window, event_type: str, message: str,
            conductor: str | None = None) -> None:
    """The node leaves the maintenance the window set (if it is still in
    it: the window's fault and reason), or only loses the window's fault
    (an operator's maintenance in its place stays); the slot goes."""
    values = {}
    if window.state == states.WINDOW_ACTIVE and node.fault == FAULT:
        values['fault'] = None
        if node.maintenance and node.maintenance_reason == window.reason:
            values.update(maintenance=False, maintenance_reason=None)
    if values and not slots_db.set_maintenance(conn, node.id,
                                               node.generation, values):
        raise exception.NodeLocked(node=node.uuid, host=node.reservation)
    slots_db.delete_window(conn, window.id, node.id)
    if window.state != states.WINDOW_ACTIVE:
        message += '; the node did not enter maintenance for it'
    elif 'maintenance' in values:
        message += '; the node leaves maintenance'
    elif node.maintenance:
        message += '; the node stays in the maintenance set since'
    message += '.'
    node_events.record(conn, [node], {node.id: values} if values else {},
                       message, conductor=conductor,
                       also=[_event(node, window, event_type, message,
                                    prev_state=window.state)])


# The conductors' round ------------------------------------------------------

def check(context, host: str) -> int:
    """Begin the maintenance windows whose start has come (the node
    enters maintenance once nothing holds it) and end those whose end has
    come, each in its own transaction with its events. Never raises.

    :returns: how many windows moved on.
    """
    def due() -> list:
        with db_api.reader(context) as session:
            return slots_db.due_windows(session.connection(),
                                        db_api.utcnow(), BATCH)
    return rounds.run(
        due, lambda row: retry.on_deadlock(_step, context, row[0], row[1],
                                           host),
        'beginning and ending maintenance windows on %s' % host,
        lambda row: 'maintenance window %s' % row[1])


def _step(context, node_id: int, uuid: str, host: str) -> int:
    """Begin or end one window; 0 when another conductor holds it or
    nothing changed."""
    with db_api.writer_connection(context) as conn:
        if binding_db.lock_node(conn, node_id) is None:
            return 0
        window = slots_db.window(conn, node_id, uuid, lock=True,
                                 skip_locked=True)
        if window is None:
            return 0
        node = slots_db.holder(conn, node_id)
        now = db_api.utcnow()
        if node.reservation is not None and window.busy_until <= now:
            # A conductor works on the node: the end waits a round.
            return 0
        if window.busy_until <= now:
            _finish(conn, node, window, ENDED,
                    'The maintenance window of node %s ended at %s'
                    % (node.uuid, _iso(window.busy_until)), conductor=host)
            return 1
        if window.busy_from > now or window.state == states.WINDOW_ACTIVE:
            return 0
        return _begin(conn, node, window, host)


def _begin(conn, node, window, host: str) -> int:
    if node.fault == FAULT and any(
            w.state == states.WINDOW_ACTIVE and w.id != window.id
            for w in slots_db.of_node(conn, node.id, True)):
        # The window before this one has not ended yet: next round.
        return 0
    if node.maintenance:
        message = ('The maintenance window of node %s began; the node is '
                   'in maintenance already (%s) and is left as it is.'
                   % (node.uuid, node.maintenance_reason))
        return _move(conn, node, window, states.WINDOW_ACTIVE, STARTED,
                     message, host)
    why = _busy(node)
    if why is not None:
        if window.state == states.WINDOW_WAITING:
            return 0
        message = ('The maintenance window of node %s began at %s; the '
                   'node enters maintenance once free: %s.'
                   % (node.uuid, _iso(window.busy_from), why))
        return _move(conn, node, window, states.WINDOW_WAITING, WAITING,
                     message, host, level='warning')
    values = {'maintenance': True, 'maintenance_reason': window.reason,
              'fault': FAULT}
    if not slots_db.set_maintenance(conn, node.id, node.generation, values):
        return 0
    message = ('The maintenance window of node %s began; the node is in '
               'maintenance until %s: %s.'
               % (node.uuid, _iso(window.busy_until), window.reason))
    return _move(conn, node, window, states.WINDOW_ACTIVE, STARTED,
                 message, host, changes=values)


def _move(conn, node, window, state: str, event_type: str, message: str,
          host: str, level: str = 'info', changes: dict | None = None
          ) -> int:
    """The window moves to state, with its event and the node's."""
    if not slots_db.set_window_state(conn, window.id, window.state, state):
        return 0
    node_events.record(conn, [node], {node.id: changes} if changes else {},
                       message, conductor=host,
                       also=[_event(node, window, event_type, message, level,
                                    window.state, state)])
    return 1
