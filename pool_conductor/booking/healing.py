"""Healing of windowed allocations whose node is lost before they start.

A scheduled allocation holds a slot of one node until its window begins.
When that node is lost (deleted, sent out of its pool, its cleaning
failed, put into maintenance, or taken by another user of its external
manager) the change heals it in its own transaction: the writers of a
node's fields (the binding writer, the node API, the reconciler of
external managers) record their change through node_changed(), which
heal()s the nodes it loses; a deletion calls heal() itself. Each slot
of a scheduled allocation on a lost node moves to another node of the
allocation's pool that matches its request and is free for the window
(the rules of booking, pool_conductor.booking.windows), locked with SKIP
LOCKED (pool.allocation.healed). Where none is free, the allocation stays
scheduled without a node and without a slot, flagged missing_resources
with its last_error saying why (pool.allocation.missing_resources).

A periodic check (check()) gives flagged allocations a node as soon as
one is free for their window (pool.allocation.healed), and fails those
that still have none when their window begins: a scheduled allocation
never waits for ever.
"""
import datetime

from pool_conductor.booking import windows
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import node_events
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states

# Flagged allocations one conductor looks at per round.
BATCH = 100


def lost_by(node, values: dict) -> str | None:
    """Why a change of a node's fields loses it for the windows it
    holds, None when it does not: put into maintenance (a fault of its
    external manager among them), its cleaning failed, or sent out of its
    pool."""
    if values.get('maintenance') and not getattr(node, 'maintenance', False):
        reason = values.get('maintenance_reason')
        if values.get('fault'):
            return reason or 'fault %s' % values['fault']
        return 'put into maintenance' + (': %s' % reason if reason else '')
    failed = values.get('provision_state')
    if failed == states.CLEAN_FAIL and node.provision_state != failed:
        error = values.get('last_error')
        return 'its cleaning failed' + (': %s' % error if error else '')
    target = values.get('pool_destination') or values.get('pool')
    if target is not None and target != node.pool:
        return 'removed from pool %s' % node.pool
    return None


def node_changed(conn, nodes: list, changes: dict, *,
                 message: str | None = None, host: str | None = None,
                 also: list | None = None, booked_known: bool = True) -> int:
    """What follows a write of nodes, in the transaction of the change:
    its events (pool_conductor.node_events) with the caller's, and
    heal() of the nodes it loses (lost_by()).

    :param changes: node id -> the fields the change writes.
    :param message: the message of the change's events.
    :param host: the conductor making the change, if one is.
    :param also: the caller's events of the same change.
    :param booked_known: the nodes were read under their lock, so a node
        whose booked_from is None holds no slot (and costs no statement).
    :returns: how many scheduled allocations lost their node.
    """
    node_events.record(conn, nodes, changes, message, conductor=host,
                       also=also)
    done = 0
    for node in nodes:
        if booked_known and getattr(node, 'booked_from', True) is None:
            continue
        why = lost_by(node, changes.get(node.id) or {})
        if why is not None:
            done += heal(conn, [node.id], why, host)
    return done


def _margins(conn, pool: str, found: dict) -> windows.Margins:
    if pool not in found:
        row = slots_db.margins(conn, pool)
        found[pool] = (windows.margins(row.reservation_pre_margin,
                                       row.reservation_post_margin)
                       if row is not None else windows.margins())
    return found[pool]


def _iso(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat() + 'Z'


def _event(row, event_type: str, message: str, level: str = 'info',
           state: str = states.ALLOCATION_SCHEDULED,
           changes: dict | None = None) -> events.Event:
    return events.Event(
        'allocation', row.uuid, event_type, object_name=row.name,
        level=level, message=message, prev_state=row.state, state=state,
        owner=row.owner, payload=payloads.allocation(row, {
            'state': state, **(changes or {})}))


def heal(conn, node_ids, why: str, host: str | None = None) -> int:
    """Move the slots scheduled allocations hold of lost nodes to other
    free nodes, or flag those allocations missing_resources, in the
    caller's transaction (which holds the lost nodes' locks, or changes
    their rows), with their events. A lost node is no candidate: the
    allocation's own slot overlaps its window there, and the change that
    loses it is written first (maintenance, another pool, not free).

    :param why: how the nodes were lost ("deleted", "removed from pool
        x"...), for the events and last_error.
    :returns: how many scheduled allocations lost their node.
    """
    rows = slots_db.scheduled_on(conn, node_ids)
    pools: dict = {}
    found = []
    for row in rows:
        pool = row.pool or models.DEFAULT_POOL
        post = _margins(conn, pool, pools).post
        win = windows.Window(row.start_at, row.lifespan_end, row.busy_from,
                             row.busy_until)
        lost_msg = 'Node %s was lost before the window began (%s)' % (
            row.node_uuid, why)
        taken = windows.take_free(conn, pool, row, win, post).taken
        node = taken[0] if taken else None
        if node is not None:
            # The allocation's row lock after the nodes': the lock order
            # of every writer (a start in progress keeps it).
            if not slots_db.set_scheduled(conn, row.id, {}):
                continue
            slots_db.move_slot(conn, row.slot_id, row.node_id, node.id)
            slots_db.refresh_booked(conn, [row.node_id, node.id])
            found.append(_event(
                row, event_types.ALLOCATION_HEALED,
                '%s; node %s is held for it from %s to %s instead.'
                % (lost_msg, node.uuid, _iso(win.busy_from),
                   _iso(win.busy_until)),
                changes={'node_uuid': node.uuid}))
            continue
        error = ('%s, and no other node of pool %s is free for the window '
                 'from %s to %s' % (lost_msg, pool, _iso(win.start),
                                    _iso(win.end)))
        if not slots_db.set_scheduled(conn, row.id, {
                'missing_resources': True, 'last_error': error}):
            continue
        windows.drop(conn, [row.id])
        found.append(_event(
            row, event_types.ALLOCATION_MISSING_RESOURCES,
            '%s; a conductor gives it one as soon as one is free.' % error,
            level='warning', changes={'node_uuid': None,
                                      'last_error': error}))
    if found:
        events.record(conn, found, conductor=host)
    return len(found)


def _settle(conn, row, now: datetime.datetime, pools: dict,
            host: str) -> events.Event | None:
    """Give a flagged allocation a free node, or fail it at its start;
    the event of what changed."""
    pool = row.pool or models.DEFAULT_POOL
    pool_margins = _margins(conn, pool, pools)
    if now >= row.start_at:
        error = ('No node was free for the window when it began at %s: %s'
                 % (_iso(row.start_at), row.last_error
                    or 'its node was lost'))
        if not slots_db.set_scheduled(conn, row.id, {
                'state': states.ALLOCATION_ERROR, 'last_error': error}):
            return None
        return _event(row, event_types.ALLOCATION_STATE_SET_ERROR, error,
                      level='error', state=states.ALLOCATION_ERROR,
                      changes={'node_uuid': None, 'last_error': error})
    win = windows.window(row.start_at, row.lifespan_end, pool_margins)
    taken = windows.take_free(conn, pool, row, win, pool_margins.post).taken
    node = taken[0] if taken else None
    if node is None:
        return None
    slots_db.insert(conn, node.id, row.id, win.busy_from, win.busy_until)
    slots_db.refresh_booked(conn, [node.id])
    slots_db.set_scheduled(conn, row.id, {'missing_resources': False,
                                          'last_error': None})
    return _event(
        row, event_types.ALLOCATION_HEALED,
        'Node %s is free for the window: it is held for it from %s to %s.'
        % (node.uuid, _iso(win.busy_from), _iso(win.busy_until)),
        changes={'node_uuid': node.uuid, 'last_error': None})


def check(context, host: str) -> int:
    """Periodic: give flagged allocations (and any scheduled one without
    a slot) a node free for their window, and fail those whose window
    began without one. Never raises.

    :returns: how many allocations changed.
    """
    def round_() -> int:
        now = db_api.utcnow()
        with db_api.writer_connection(context) as conn:
            pools: dict = {}
            found = [e for e in (_settle(conn, row, now, pools, host)
                                 for row in slots_db.flagged(conn, BATCH))
                     if e is not None]
            if found:
                events.record(conn, found, conductor=host)
            return len(found)
    return rounds.once(lambda: retry.on_deadlock(round_),
                       'healing scheduled allocations on %s' % host)
