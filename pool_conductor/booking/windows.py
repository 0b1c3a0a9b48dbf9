"""Windowed allocations: machines booked for a time window ahead.

A windowed allocation asks for a node from start_at to end_at (its
lifespan_end). Booking it holds a slot of one matching node of its pool,
[start_at - pre_margin, end_at + post_margin), half-open so that windows
may touch; the allocation is ``scheduled`` with that tentative node. No
two slots of a node overlap: PostgreSQL refuses them with an exclusion
constraint; on every backend the booking locks the node's row and checks
again in its transaction. A node is free for a window when none of its
slots overlaps it and what holds it now ends before: an allocation holds
its node until its lifespan_end plus the post margin, or forever without
one (an instance without an allocation, too).

Allocations that start at once (open-ended or not) write no slot: they
only take a node whose earliest slot (nodes.booked_from, read and locked
with the node by the search for free nodes) begins no earlier than their
lifespan_end plus the post margin; an allocation without an end only
takes a node with no slot at all. So a node is never given to an
allocation that would still hold it when a slot of it begins, and
extending an allocation (a later lifespan_end) checks the slots of its
node the same way.

A reservation (reservations.py) books several windows alike in one
transaction through the same path, hold(): as many nodes as are free, at
least its minimum, or none.

When a slot begins, a conductor (any: the due rows are claimed with SKIP
LOCKED) makes the allocation ``allocating`` on itself and runs the
allocation path for the tentative node; a dead conductor's allocating
rows are taken over as any. It becomes ``active``, and its lifespan_end
releases it as any other.

A node lost before a window begins is replaced, or the allocation is
flagged missing_resources without a node (pool_conductor.booking.healing).
When a request could start, read with the same rules, is
pool_conductor.booking.availability's.
"""
import dataclasses
import datetime
import random
import typing

from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import uuidutils

from pool_conductor import allocation_events
from pool_conductor.booking import window_policy
from pool_conductor.conf import CONF
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import free_nodes
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states

LOG = log.getLogger(__name__)

# The end of an allocation that never ends: later than any window.
FOREVER = free_nodes.FOREVER
# A windowed allocation whose node is not free at its start yet (its
# previous allocation is being cleaned): it is tried again next round.
WAITING = 'waiting'
# Scheduled allocations one conductor starts per round.
BATCH = 100
# Candidates tried per booking attempt (each is locked with SKIP LOCKED).
_TRIES = 50
# How many conflicts a 409 names.
_NAMED = 5


@dataclasses.dataclass(frozen=True)
class Margins:
    """How long a pool's nodes are held before and after a window."""

    pre: datetime.timedelta
    post: datetime.timedelta


def margins(pre: int | None = None, post: int | None = None) -> Margins:
    """A pool's margins: its own (seconds), else the [windows]
    options."""
    return Margins(
        datetime.timedelta(seconds=CONF.windows.pre_margin
                           if pre is None else pre),
        datetime.timedelta(seconds=CONF.windows.post_margin
                           if post is None else post))


def hold_until(lifespan_end: datetime.datetime | None,
               post_margin: int | None = None) -> datetime.datetime:
    """Until when an allocation that starts now holds its node: its end
    plus its pool's post margin (cleaning), or forever without an end."""
    if lifespan_end is None:
        return FOREVER
    return lifespan_end + margins(post=post_margin).post


@dataclasses.dataclass(frozen=True)
class Window:
    """What a windowed allocation asks for, and the slot it holds."""

    start: datetime.datetime
    end: datetime.datetime
    busy_from: datetime.datetime
    busy_until: datetime.datetime


def window(start: datetime.datetime, end: datetime.datetime,
           pool_margins: Margins) -> Window:
    return Window(start, end, start - pool_margins.pre,
                  end + pool_margins.post)


def iso(value: datetime.datetime | None) -> str:
    if value is None or value >= FOREVER:
        return 'never'
    return value.replace(microsecond=0).isoformat() + 'Z'


def check_window(start: datetime.datetime, end: datetime.datetime,
                 policy: dict | None, pool: str) -> None:
    """A window's end is after its start, and within its pool's lifespan
    (maximum and relative_maximum, counted from the start).

    :raises: InvalidParameterValue
    """
    if end <= start:
        raise exception.InvalidParameterValue(
            err='end_at %s must be later than start_at %s.'
                % (iso(end), iso(start)))
    lifespans.end(policy, start, start, end, holder='the pool %s\'s' % pool)


# Booking ---------------------------------------------------------------

def holder(node, post: datetime.timedelta) -> tuple[str, datetime.datetime]:
    """What holds a node now (as slots_db.matching() reads it), and
    until when; ('', None) for a free node."""
    if node.free:
        return '', None
    if node.allocation_id is None:
        return ('instance %s' % node.instance_uuid if node.instance_uuid
                else 'its state', FOREVER)
    if node.bound_end is None or node.bound_claim is not None:
        return 'allocation %s' % node.bound_uuid, FOREVER
    return 'allocation %s' % node.bound_uuid, node.bound_end + post


def slot_holder(slot) -> str:
    """What a slot holds its node for, as a conflict names it."""
    if slot.purpose == models.SLOT_MAINTENANCE:
        return 'maintenance window %s (%s)' % (slot.uuid, slot.reason)
    return 'allocation %s' % (slot.allocation_uuid or slot.allocation_id)


# Why a node is not free for a window: what holds it now holds it past
# the window's busy_from, or a slot of it overlaps the window.
HELD = 'held'
OVERLAPPING = 'overlapping'


def not_free(node, slots: list, win: Window,
             post: datetime.timedelta) -> str | None:
    """Why a node (as slots_db.matching() reads it) is not free for a
    window, HELD or OVERLAPPING; None when it is free."""
    _, until = holder(node, post)
    if until is not None and until > win.busy_from:
        return HELD
    if any(s.busy_from < win.busy_until and s.busy_until > win.busy_from
           for s in slots):
        return OVERLAPPING
    return None


def free_for(node, slots: list, win: Window,
             post: datetime.timedelta) -> bool:
    """Whether a node is free for a window: what holds it now ends by
    busy_from and none of its slots overlaps the window."""
    return not_free(node, slots, win, post) is None


def free_nodes_for(conn, pool: str, values: dict, win: Window,
                   post: datetime.timedelta) -> tuple[list, list, dict]:
    """(the members of a pool that match a request, in id order; those
    free for a window; the slots over the window by node id).

    :param values: resource_class, traits, owner, candidate_nodes.
    """
    nodes = slots_db.matching(conn, pool, values.get('resource_class'),
                              values.get('traits') or (),
                              values.get('owner'),
                              values.get('candidate_nodes') or ())
    over = by_node(slots_db.overlapping(
        conn, [n.id for n in nodes], win.busy_from, win.busy_until))
    return nodes, [n for n in nodes
                   if free_for(n, over.get(n.id, []), win, post)], over


def order(free: list, rng=None) -> list:
    """The order in which booking tries the nodes free for a window: a
    random one (rng, a random.Random, seeds it)."""
    tried = list(free)
    (rng or random).shuffle(tried)
    return tried


def latest_end(node, slots: list, win: Window,
               pool_margins: Margins) -> datetime.datetime | None:
    """The latest end a window that starts at win.start can have on a
    node (None when the node is not free at busy_from)."""
    _, until = holder(node, pool_margins.post)
    if until is not None and until > win.busy_from:
        return None
    later = [s.busy_from for s in slots if s.busy_until > win.busy_from]
    if any(s.busy_from <= win.busy_from for s in slots
           if s.busy_until > win.busy_from):
        return None
    return (min(later) - pool_margins.post) if later else FOREVER


def _conflict(nodes: list, slots: dict, win: Window, pool_margins: Margins,
              pool: str, needed: int = 1, free: int = 0
              ) -> exception.WindowConflict:
    """The 409 of a window fewer nodes than needed are free for: what
    holds the first nodes over it, and the latest end possible from its
    start for as many nodes as needed."""
    found = []
    for node in nodes:
        what, until = holder(node, pool_margins.post)
        if until is not None and until > win.busy_from:
            found.append('node %s is held by %s until %s'
                         % (node.uuid, what, iso(until)))
        for s in slots.get(node.id, ()):
            if s.busy_from < win.busy_until and s.busy_until > win.busy_from:
                found.append('node %s is held by %s from %s to %s'
                             % (node.uuid, slot_holder(s),
                                iso(s.busy_from), iso(s.busy_until)))
    ends = sorted((e for e in (latest_end(n, slots.get(n.id, []), win,
                                          pool_margins) for n in nodes)
                   if e is not None and e > win.start), reverse=True)
    if not nodes:
        detail = 'no node of pool %s matches the request' % pool
    elif not found:
        detail = 'only %d node(s) of pool %s match the request' % (
            len(nodes), pool)
    else:
        detail = '; '.join(found[:_NAMED]) + (
            ' (and %d more)' % (len(found) - _NAMED)
            if len(found) > _NAMED else '')
    if len(ends) >= needed:
        latest = 'the latest end possible from start_at%s is %s' % (
            ' for %d nodes' % needed if needed > 1 else '',
            iso(ends[needed - 1]))
    elif needed == 1:
        latest = 'no matching node is free at start_at'
    else:
        latest = 'fewer than %d matching nodes are free at start_at' % needed
    head = ('No node is free' if needed == 1 else
            'Only %d of the %d nodes needed are free' % (free, needed))
    return exception.WindowConflict(
        err='%s for the window from %s to %s (held from %s '
            'to %s with the margins of pool %s): %s; %s.'
            % (head, iso(win.start), iso(win.end), iso(win.busy_from),
               iso(win.busy_until), pool, detail, latest))


class _Busy(Exception):
    """Candidates were locked by other transactions: try again."""


def booking(attempt, on_duplicate):
    """Run a booking transaction (attempt) again while its candidates
    were locked by others or it met a deadlock, and turn what the
    database refused into the API's errors.

    :param on_duplicate: called with a DBDuplicateEntry; raises.
    :raises: WindowConflict for a slot PostgreSQL's exclusion constraint
        refused (a concurrent booking of the node), what on_duplicate
        raises
    """
    def once():
        try:
            return attempt()
        except (_Busy, db_exc.DBDeadlock):
            return rounds.BUSY
    try:
        return retry.while_result(once, rounds.BUSY, 0.005, 0.25)
    except db_exc.DBDuplicateEntry as exc:
        on_duplicate(exc)
    except db_exc.DBError as exc:
        if db_api.is_exclusion_violation(exc):
            raise exception.WindowConflict(
                err='Another allocation booked an overlapping window of '
                    'the node meanwhile; please retry.') from None
        raise


def defaults(values: dict) -> dict:
    """An allocation request's fields with their defaults, and a uuid."""
    return {'traits': [], 'candidate_nodes': [], 'extra': {}, **values,
            'uuid': values.get('uuid') or uuidutils.generate_uuid()}


def book(context, values: dict, pool: str | None, start: datetime.datetime,
         end: datetime.datetime, project: str | None = None,
         rng: random.Random | None = None) -> models.Allocation:
    """Book a window: a scheduled allocation holding a slot of a free
    matching node of its pool, with its events, in one transaction.

    :param values: the allocation's fields (resource_class, traits,
        candidate_nodes, owner, name, uuid, extra).
    :param rng: seeds the order in which the free nodes are tried (as
        the preview of the window seeded alike names its pick).
    :raises: ObjectNotFound for a pool, InvalidParameterValue for a
        window its pool's lifespan or the operators' bounds do not allow,
        WindowLimitExceeded past a cap of its project, WindowConflict
        when no node is free for it, AllocationDuplicateName,
        AllocationAlreadyExists
    """
    values = defaults(values)

    def attempt():
        with db_api.writer_connection(context) as conn:
            return hold(conn, [values], 1, pool, start, end, rng)[0][0]
    alloc = booking(attempt, lambda exc: allocations_db.raise_duplicate(
        exc, values))
    return allocations_db.get_allocation_by_id(context, alloc)


def hold(conn, members: list[dict], minimum: int, pool: str | None,
         start: datetime.datetime, end: datetime.datetime, rng=None
         ) -> list[tuple[int, object]]:
    """Book a window for as many of members (allocation requests alike
    but for their uuid) as there are free matching nodes and the caps of
    their project allow, at least minimum, in the caller's transaction:
    each a scheduled allocation holding a slot of its node, with its
    events.

    :param rng: seeds the order in which the free nodes are tried.
    :returns: (allocation id, node) of each booked member, in order.
    :raises: ObjectNotFound for a pool, InvalidParameterValue for a
        window its pool's lifespan or the operators' bounds do not allow,
        WindowLimitExceeded past a cap of its project, WindowConflict
        when fewer than minimum nodes are free for it, _Busy when
        candidates were locked by others (try again in a new transaction)
    """
    values = members[0]
    name = pool or models.DEFAULT_POOL
    found = slots_db.margins(conn, name)
    if found is None:
        raise exception.ObjectNotFound(kind='Pool', name=name)
    check_window(start, end, found.lifespan, name)
    # The operators' bounds and the project's caps (under its lock, taken
    # before any node's).
    allowed = window_policy.check_booking(conn, values.get('owner'), start,
                                          end, minimum, len(members))
    pool_margins = margins(found.reservation_pre_margin,
                           found.reservation_post_margin)
    win = window(start, end, pool_margins)
    got = take_free(conn, name, values, win, pool_margins.post, rng,
                    allowed, minimum)
    if len(got.taken) >= minimum:
        return [(_hold(conn, member, pool, node, win), node)
                for member, node in zip(members[:len(got.taken)], got.taken,
                                        strict=True)]
    if got.skipped:
        raise _Busy()
    raise _conflict(got.matching, by_node(slots_db.of_nodes(
        conn, [n.id for n in got.matching], win.busy_from)), win,
        pool_margins, name, minimum, max(len(got.taken), got.free))


class Taken(typing.NamedTuple):
    """What take_free() found."""

    taken: list       # the nodes taken, locked by the transaction
    matching: list    # the members of the pool that match the request
    skipped: bool     # whether a free one was passed over as locked
    free: int         # how many matching nodes were free for the window


def take_free(conn, pool: str, request, win: Window,
              post: datetime.timedelta, rng=None, want: int = 1,
              need: int = 1) -> Taken:
    """Up to want members of a pool that match a request (its
    resource_class, traits, owner and candidate_nodes, as a dict or an
    allocation's row) and are free for a window, each locked by this
    transaction (SKIP LOCKED) and checked again under its lock; none
    when fewer than need are free.

    :param rng: seeds the order in which the free nodes are tried.
    """
    ask = (request if isinstance(request, dict)
           else {k: getattr(request, k) for k in (
               'resource_class', 'traits', 'owner', 'candidate_nodes')})
    # Only the slots over the window decide; the 409 reads the rest.
    nodes, free, _ = free_nodes_for(conn, pool, ask, win, post)
    taken: list = []
    skipped = False
    if len(free) < need:
        return Taken(taken, nodes, skipped, len(free))
    for candidate in order(free, rng)[:want + _TRIES - 1]:
        if len(taken) == want:
            break
        node = binding_db.lock_node(conn, candidate.id)
        if node is None:
            skipped = True
            continue
        # Checked again under the node's lock, with statements that see
        # what committed since the search.
        again = [r for r in slots_db.matching(
            conn, pool, ask.get('resource_class'), ask.get('traits') or (),
            ask.get('owner'), [node.uuid]) if r.id == node.id]
        if again and free_for(again[0], slots_db.overlapping(
                conn, [node.id], win.busy_from, win.busy_until), win, post):
            taken.append(node)
    return Taken(taken, nodes, skipped, len(free))


def by_node(slots: list) -> dict[int, list]:
    found: dict[int, list] = {}
    for slot in slots:
        found.setdefault(slot.node_id, []).append(slot)
    return found


def _hold(conn, values: dict, pool: str | None, node, win: Window) -> int:
    """Insert the scheduled allocation and its slot of a node (locked by
    this transaction), with their events."""
    row = {**values, 'state': states.ALLOCATION_SCHEDULED, 'pool': pool,
           'start_at': win.start, 'lifespan_end': win.end,
           'created_at': db_api.utcnow()}
    alloc_id = allocations_db.insert(conn, row)
    slots_db.insert(conn, node.id, alloc_id, win.busy_from, win.busy_until)
    slots_db.refresh_booked(conn, [node.id])
    shown = {**row, 'node_uuid': node.uuid}
    events.record(conn, [
        allocation_events.created(row=shown),
        events.Event('allocation', row['uuid'],
                     event_types.ALLOCATION_SCHEDULED,
                     object_name=row.get('name'),
                     state=states.ALLOCATION_SCHEDULED,
                     message='Node %s is held from %s to %s.' % (
                         node.uuid, iso(win.busy_from),
                         iso(win.busy_until)),
                     owner=row.get('owner'),
                     payload=payloads.allocation(None, shown))])
    return alloc_id


# Releasing a slot --------------------------------------------------------

def drop(conn, alloc_ids) -> None:
    """Delete the slots of allocations that end (deleted, expired,
    failed to start) and recompute their nodes' booked_from."""
    slots_db.drop(conn, alloc_ids)


# Extension ---------------------------------------------------------------

def check_end(conn, alloc, new_end: datetime.datetime | None) -> None:
    """Whether an allocation may end at new_end (None: never) without
    holding its node (the one it has, or its slot's) into a slot of
    another allocation; its own slot, if any, moves to the new end. Locks
    the node first (the lock order of every writer).

    :raises: InvalidParameterValue for a window's end not after its
        start, WindowConflict naming the slot in the way and the latest
        end possible
    """
    slot = slots_db.of_allocation(conn, alloc.id)
    # A window that lost its node keeps its window without a slot.
    windowed = slot is not None or getattr(alloc, 'missing_resources', False)
    if windowed and (new_end is None or (
            alloc.start_at is not None and new_end <= alloc.start_at)):
        raise exception.InvalidParameterValue(
            err='The lifespan_end of allocation %s must be later than its '
                'start_at %s.' % (alloc.uuid, iso(alloc.start_at)))
    node_id = alloc.node_id if alloc.node_id is not None else (
        slot.node_id if slot is not None else None)
    if node_id is None:
        return
    binding_db.lock_node(conn, node_id, skip_locked=False)
    pool = slots_db.margins(conn, alloc.pool or models.DEFAULT_POOL)
    post = margins(post=pool.reservation_post_margin if pool else None).post
    since = slot.busy_from if slot is not None else db_api.utcnow()
    until = FOREVER if new_end is None else new_end + post
    others = slots_db.overlapping(conn, [node_id], since, until,
                                  exclude_allocation=alloc.id)
    if others:
        first = others[0]
        raise exception.WindowConflict(
            err='Allocation %s cannot end at %s: its node %s is held by %s '
                'from %s; the latest end possible is %s.'
                % (alloc.uuid, iso(new_end), first.node_uuid,
                   slot_holder(first), iso(first.busy_from),
                   iso(first.busy_from - post)))
    if slot is not None:
        slots_db.set_until(conn, alloc.id, until)
        slots_db.refresh_booked(conn, [node_id])


# Starting ----------------------------------------------------------------

def start_due(context, host: str, submit) -> int:
    """Make the scheduled allocations whose slot has begun allocating on
    this conductor, each with its event, and hand them to submit (the
    allocation worker). Never raises.

    :returns: how many this call started.
    """
    def claim() -> list[int]:
        now = db_api.utcnow()
        with db_api.writer_connection(context) as conn:
            rows = slots_db.due(conn, now, BATCH)
            started = []
            for row in rows:
                if not slots_db.start(conn, row.id, host):
                    continue
                events.record(conn, [events.Event(
                    'allocation', row.uuid, event_types.ALLOCATION_STARTING,
                    object_name=row.name, prev_state=row.state,
                    state=states.ALLOCATING, owner=row.owner,
                    message='The window of the allocation began at %s; '
                            'conductor %s gives it node its slot holds.'
                            % (iso(row.busy_from), host))],
                    conductor=host)
                started.append(row.id)
            return started
    ids = rounds.once(lambda: retry.on_deadlock(claim),
                      'starting scheduled allocations on %s' % host, [])
    for alloc_id in ids:
        LOG.info('Starting scheduled allocation %s', alloc_id)
        submit(alloc_id)
    return len(ids)


def overdue(alloc) -> bool:
    """Whether a windowed allocation waited for its node longer than
    start_grace after its slot began."""
    return (db_api.utcnow() - alloc.slot_from).total_seconds() > (
        CONF.windows.start_grace)


def started(alloc, node, host: str) -> events.Event:
    """The event of a windowed allocation given its node at its start."""
    return events.Event(
        'allocation', alloc.uuid, event_types.ALLOCATION_STARTED,
        object_name=alloc.name, prev_state=states.ALLOCATING,
        state=states.ALLOCATION_ACTIVE, owner=alloc.owner,
        message='The window of the allocation started on node %s.'
                % node.uuid)
