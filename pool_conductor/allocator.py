"""The allocator: the conductor's algorithm and worker for allocations.

As Ironic's conductor/allocations.py. The conductor filters the free
nodes of the allocation's pool in the database (free_nodes: its resource
class, traits, candidate nodes and owner, and no booked time before the
allocation would end); it takes the node named as the allocation first,
else starts from a random node id (pivot()) and wraps around, so that
concurrent workers spread over the fleet instead of queueing on the same
rows; it locks one node (SKIP LOCKED where the backend has it), acquires
its hardware from its external manager if it has one, and gives it to
the allocation through the one binding writer (binding.grant), which
makes the allocation active. No matching node is an error recorded on
the allocation (state error, last_error), with its event; all matching
nodes locked by other transactions is a retry. A windowed allocation
gets, at its start, the node its slot holds. Every write is guarded by
the allocation still being allocating on this conductor.

AllocationWorker runs the algorithm on a pool of threads: allocations
wait in a queue, each thread takes a batch of them and claims their
nodes in one transaction (allocate_batch()), and the allocations left
out are processed one by one (allocate_one()). The worker never raises:
an unexpected failure is recorded on the allocation, and work that
cannot be done now (the database is unreachable) stays allocating and is
queued again by the conductor's periodic check.

The request side (create, backfill, update, delete) is
pool_conductor.allocations; the conductor's RPC methods queue the
allocations it creates here.
"""
import collections
import random
import threading
import time

import futurist
from oslo_db import exception as db_exc
from oslo_log import log

from pool_conductor import allocations
from pool_conductor import binding
from pool_conductor.booking import windows
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import free_nodes
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import metrics
from pool_conductor import payloads
from pool_conductor import rounds
from pool_conductor import states

LOG = log.getLogger(__name__)

# What allocate_one() tells its caller: a node was given, the allocation
# is active; or no node matches (recorded as its error), all matching
# nodes are locked now, or it is not this conductor's to process.
ALLOCATED = 'allocated'
FAILED, BUSY, GONE = rounds.FAILED, rounds.BUSY, rounds.GONE

# How long a cached highest node id is used to pick random start points.
_MAX_ID_TTL = 5.0


_NO_NODES = 'No available nodes found %s'


def _describe(alloc) -> str:
    parts = ['resource class %s' % alloc.resource_class]
    if alloc.traits:
        parts.append('traits %s' % ', '.join(alloc.traits))
    if alloc.candidate_nodes:
        parts.append('candidate nodes %s' % ', '.join(alloc.candidate_nodes))
    if alloc.owner:
        parts.append('owner %s' % alloc.owner)
    return 'in pool %s with %s' % (allocations.pool_of(alloc),
                                   ' and '.join(parts))


def pivot(max_node_id: int, rng=random) -> int:
    """A random node id to start the search for free nodes from."""
    return rng.randint(0, max_node_id) if max_node_id > 0 else 0


def _holds_until(alloc):
    """Until when an allocation that starts now holds its node
    (windows.hold_until); a preview's request, without an end, forever."""
    return windows.hold_until(getattr(alloc, 'lifespan_end', None),
                              getattr(alloc, 'post_margin', None))


def _lock_free(conn, alloc, pivot: int, count: int = 1,
               exclude=(), lock: bool = True, hold_until=None) -> list:
    """Lock up to count free nodes matching alloc.

    The search starts at a random node id (pivot) and wraps around, so that
    concurrent workers spread over the fleet instead of queueing on the
    same rows, and every probe is an index range scan.
    """
    pool = allocations.pool_of(alloc)
    hold = hold_until or _holds_until(alloc)
    rows = free_nodes.for_allocation(conn, alloc, pool,
                                     free_nodes.FROM_PIVOT, count, lock=lock,
                                     pivot=pivot, exclude=exclude,
                                     hold_until=hold)
    if len(rows) < count and pivot > 0:
        rows += free_nodes.for_allocation(
            conn, alloc, pool, free_nodes.BEFORE_PIVOT,
            count - len(rows), lock=lock, pivot=pivot, exclude=exclude,
            hold_until=hold)
    return rows


def _named(conn, alloc, exclude=(), lock: bool = True) -> list:
    """The free node named as the allocation, which it takes first."""
    if not alloc.name:
        return []
    return free_nodes.for_allocation(conn, alloc,
                                     allocations.pool_of(alloc),
                                     free_nodes.BY_NAME, lock=lock,
                                     exclude=exclude,
                                     hold_until=_holds_until(alloc))


def choose(conn, alloc, start: int, lock: bool = True,
           exclude=()) -> list:
    """The free node an allocation gets (a list of one, or empty): the
    node named as it, else the first match from the node id start on,
    wrapping around; locked with lock (SKIP LOCKED); none of exclude (the
    ids of nodes passed over)."""
    return (_named(conn, alloc, exclude, lock=lock)
            or _lock_free(conn, alloc, start, exclude=exclude, lock=lock))


def _outcome(alloc, host: str, state: str, actors: dict, node=None,
             error: str | None = None) -> events.Event:
    """The event of the conductor's outcome of an allocation (Ironic
    records none), caused by the request that created it."""
    changes = {'state': state, 'node_uuid': node.uuid if node else None,
               'last_error': error}
    return events.Event(
        'allocation', alloc.uuid,
        event_types.allocation_state_set(
            'error' if state == states.ALLOCATION_ERROR else 'success'),
        object_name=alloc.name,
        level='error' if state == states.ALLOCATION_ERROR else 'info',
        message=error or 'Allocated node %s.' % node.uuid,
        prev_state=states.ALLOCATING, state=state,
        payload=payloads.allocation(alloc, changes), owner=alloc.owner,
        actor=actors.get(alloc.id))


def _give(conn, pairs: list, host: str, actors: dict,
          values: dict | None = None, also: list | None = None) -> None:
    """Give locked free nodes to allocations through the binding writer
    and make the allocations active; roll back if anything changed.

    :param values: node id -> other fields written with the grant.
    :param also: other events of the same change.
    """
    values = values or {}
    grants = [binding.Grant(node=row, instance_uuid=alloc.uuid,
                            allocation_id=alloc.id,
                            traits=tuple(alloc.traits or ()),
                            values=values.get(row.id))
              for alloc, row in pairs]
    outcomes = [_outcome(alloc, host, states.ALLOCATION_ACTIVE, actors,
                         node=row) for alloc, row in pairs]
    if not binding.grant(conn, grants, free=True,
                         also=(also or []) + outcomes, conductor=host):
        raise rounds.Rollback(BUSY)
    if not binding.activate(conn, grants, host):
        raise rounds.Rollback(GONE)
    _observe([alloc for alloc, _ in pairs], 'active')


def _observe(allocs: list, outcome: str) -> None:
    """Count the time allocations took from creation to outcome."""
    now = db_api.utcnow()
    histogram = metrics.ALLOCATION_SECONDS.labels(outcome)
    for alloc in allocs:
        created = getattr(alloc, 'created_at', None)
        if created is not None:
            histogram.observe(max(0.0, (now - created).total_seconds()))


def _fail(conn, alloc, host: str, error: str, actors: dict) -> bool:
    """Record an allocation's failure and its event, if it is still
    host's to process."""
    return bool(_fail_all(conn, [alloc], host, actors, error))


def _fail_all(conn, allocs: list, host: str, actors: dict,
              error: str | None = None) -> list:
    """Record the failure of allocations (error, else that no node
    matched each) and their events, for those still host's to process.

    :returns: those recorded.
    """
    by_reason: dict[str, list] = {}
    for alloc in allocs:
        by_reason.setdefault(error or _NO_NODES % _describe(alloc),
                             []).append(alloc)
    failed = []
    for reason, group in by_reason.items():
        ours = set(allocations_db.fail_all(conn, [a.id for a in group],
                                           host, reason))
        failed += [(alloc, reason) for alloc in group if alloc.id in ours]
    if failed:
        events.record(conn, [
            _outcome(alloc, host, states.ALLOCATION_ERROR, actors,
                     error=reason) for alloc, reason in failed],
            conductor=host)
        _observe([alloc for alloc, _ in failed], 'error')
    return [alloc for alloc, _ in failed]


def set_error(context, alloc_id: int, host: str, error: str,
              actors: dict | None = None) -> bool:
    """Record an allocation's failure in a transaction of its own."""
    with db_api.writer_connection(context) as conn:
        alloc = allocations_db.by_id(conn, alloc_id)
        return alloc is not None and _fail(conn, alloc, host, error,
                                           actors or {})


def allocate_one(context, alloc_id: int, host: str,
                 max_node_id: int, actors: dict | None = None) -> str:
    """Run the allocation algorithm for one allocation in one transaction.

    A node named as the allocation is preferred, then free nodes of the
    allocation's pool from a random start. Every write is guarded by the
    allocation still being allocating on this host.

    :returns: ALLOCATED, FAILED (recorded as error on the allocation), BUSY
        (all matching nodes are locked by other transactions: retry), or
        GONE (the allocation is not this host's to process any more).
    """
    actors = actors or {}
    try:
        with db_api.writer_connection(context) as conn:
            allocs = allocations_db.to_process(conn, [alloc_id], host)
            if not allocs:
                return GONE
            alloc = allocs[0]
            if alloc.slot_node_id is not None:
                return _start_window(conn, alloc, host, actors)
            passed: list[int] = []
            reasons: list[str] = []
            rows = None
            for _ in range(CONF.external_manager.acquire_attempts + 1):
                rows = choose(conn, alloc, pivot(max_node_id), exclude=passed)
                if not rows:
                    break
                acquired = _acquire(conn, alloc, rows[0], host, reasons)
                if acquired is None:
                    passed.append(rows[0].id)
                    continue
                _give(conn, [(alloc, rows[0])], host, actors, *acquired)
                return ALLOCATED
            if (rows is not None and not rows
                    and free_nodes.for_allocation(
                        conn, alloc, allocations.pool_of(alloc),
                        free_nodes.ANYWHERE,
                        lock=False, exclude=passed,
                        hold_until=_holds_until(alloc))):
                return BUSY
            _fail(conn, alloc, host, _NO_NODES % _describe(alloc) + ''.join(
                '; %s' % r for r in reasons), actors)
            return FAILED
    except rounds.Rollback as exc:
        return exc.args[0]
    except db_exc.DBDuplicateEntry:
        # A node was given this allocation's UUID as instance_uuid
        # meanwhile.
        recorded = set_error(
            context, alloc_id, host,
            "A node already has this allocation's UUID as its "
            "instance_uuid", actors)
        return FAILED if recorded else GONE


def _start_window(conn, alloc, host: str, actors: dict) -> str:
    """Give a windowed allocation, at its start, the node its slot holds
    (the node is not free yet: WAITING, until start_grace has passed)."""
    rows = free_nodes.tentative(conn, alloc.slot_node_id)
    if not rows:
        if not windows.overdue(alloc):
            return windows.WAITING
        windows.drop(conn, [alloc.id])
        _fail(conn, alloc, host,
              'The node held for the window was not free within '
              '[windows] start_grace of its start', actors)
        return FAILED
    reasons: list[str] = []
    acquired = _acquire(conn, alloc, rows[0], host, reasons)
    if acquired is None:
        # Its external manager's hardware is not to be had now.
        if not windows.overdue(alloc):
            return windows.WAITING
        windows.drop(conn, [alloc.id])
        _fail(conn, alloc, host, 'The node held for the window could not '
              'be acquired: %s' % '; '.join(reasons), actors)
        return FAILED
    _give(conn, [(alloc, rows[0])], host, actors, *acquired)
    events.record(conn, [windows.started(alloc, rows[0], host)],
                  conductor=host)
    return ALLOCATED


def _acquire(conn, alloc, row, host: str, reasons: list):
    """Acquire a candidate's hardware from its external manager, if it
    has one, before the allocation becomes active: (values, events) for
    _give(), or None to pass over the node. A node the other user took
    meanwhile is held (and the next candidate tried): the race costs a
    retry, never a failed deployment."""
    if row.external_manager is None:
        return {}, []
    if external.skip_candidate(row):
        reasons.append('node %s passed over: the state of its external '
                       'manager %s is unknown' % (row.uuid,
                                                  row.external_manager))
        return None
    try:
        values = external.acquire_for_allocation(conn, row, alloc.uuid)
    except exception.ExternalTaken as exc:
        external.hold_taken(conn, row, host, 'taken by another user of '
                            'external manager %s while allocation %s chose '
                            'it' % (row.external_manager, alloc.uuid))
        reasons.append('node %s: %s' % (row.uuid, exc))
        return None
    except exception.PoolException as exc:
        reasons.append('node %s: %s' % (row.uuid, exc))
        return None
    return {row.id: values}, [external.acquired_event(row, values)]


def _criteria(alloc) -> tuple:
    return (alloc.resource_class, tuple(alloc.traits or ()),
            tuple(alloc.candidate_nodes or ()), alloc.owner,
            allocations.pool_of(alloc))


def allocate_batch(context, alloc_ids: list[int], host: str,
                  max_node_id: int, actors: dict | None = None) -> set[int]:
    """Claim nodes for several allocations in one transaction.

    An allocation named as a free node takes that node first; the others
    share, by what they ask for, one claim of as many free nodes (SKIP
    LOCKED, from a random start); the binding writer gives them all with
    one statement, so a batch costs a handful of round trips whatever its
    size. Allocations that find no node fail together when no matching
    node is free at all (none locked by another transaction either); the
    others left out, and those that changed meanwhile, are handled one by
    one by allocate_one().

    :returns: the ids of the allocations that are active or failed now.
    """
    try:
        with db_api.writer_connection(context) as conn:
            pairs = []
            unserved = []
            groups: dict[tuple, list] = {}
            for alloc in allocations_db.to_process(conn, alloc_ids, host):
                if alloc.slot_node_id is not None:
                    # A window's node: allocate_one() gives it.
                    continue
                if not alloc.name:
                    groups.setdefault(_criteria(alloc), []).append(alloc)
                    continue
                # The node named as the allocation goes first, before
                # another allocation of the batch takes it.
                named = _named(conn, alloc, [r.id for _, r in pairs])
                if named:
                    pairs.append((alloc, named[0]))
            for group in groups.values():
                rows = _lock_free(conn, group[0], pivot(max_node_id),
                                  len(group), exclude=[r.id for _, r in pairs],
                                  hold_until=max(map(_holds_until, group)))
                # Fewer nodes than allocations: the rest get none here.
                pairs.extend(zip(group, rows, strict=False))
                if len(rows) < len(group):
                    unserved.append(group[len(rows):])
            failed = [alloc for group in unserved
                      if _none_free(conn, group, [r.id for _, r in pairs])
                      for alloc in group]
            # Nodes shared with an external manager are acquired one by
            # one: allocate_one() gives those.
            pairs = [(a, r) for a, r in pairs if r.external_manager is None]
            if pairs:
                _give(conn, pairs, host, actors or {})
            failed = _fail_all(conn, failed, host, actors or {})
            return {alloc.id for alloc, _ in pairs} | {a.id for a in failed}
    except (rounds.Rollback, db_exc.DBDuplicateEntry, db_exc.DBDeadlock):
        return set()


def _none_free(conn, group: list, taken: list[int]) -> bool:
    """Whether no node but those taken matches allocations that ask for
    the same thing, locked or not. Only for allocations that would hold
    a node equally long: a shorter one may fit before a window."""
    holds = {_holds_until(alloc) for alloc in group}
    return len(holds) == 1 and not free_nodes.for_allocation(
        conn, group[0], allocations.pool_of(group[0]), free_nodes.ANYWHERE,
        lock=False, exclude=taken, hold_until=holds.pop())


class AllocationWorker:
    """Processes the allocations of one conductor on a pool of threads.

    Allocations wait in a queue; each worker thread takes up to
    ``batch_size`` of them at a time and claims their nodes in one
    transaction, so that under load the cost of a transaction is shared.
    An allocation is queued at most once at a time; work that cannot be
    finished now (the database is unreachable) stays ``allocating`` in the
    database and is queued again by the conductor's periodic check.
    """

    def __init__(self, host: str, workers: int, batch_size: int = 1,
                 processed=None):
        """:param processed: called (without arguments) after each batch
            is processed and committed."""
        self.host = host
        self._processed = processed
        self._workers = workers
        self._batch_size = max(1, batch_size)
        self._executor = futurist.ThreadPoolExecutor(max_workers=workers)
        self._lock = threading.Lock()
        self._queued: set[int] = set()
        self._pending: collections.deque[int] = collections.deque()
        # Who asked for each queued allocation (its events name them).
        self._actors: dict[int, events.Actor] = {}
        self._draining = 0
        self._max_id = 0
        self._max_id_at = 0.0

    def submit(self, allocation_id: int) -> bool:
        """Queue an allocation unless it is queued already.

        :returns: whether it was queued now.
        """
        return self.submit_many([allocation_id]) == 1

    def submit_many(self, allocation_ids: list[int],
                    actors: dict | None = None) -> int:
        """Queue allocations, skipping those queued already.

        :param actors: id -> who asked for it (events.Actor).
        :returns: how many were queued now.
        """
        with self._lock:
            new = [i for i in dict.fromkeys(allocation_ids)
                   if i not in self._queued]
            self._queued.update(new)
            self._actors.update((i, actors[i]) for i in new
                                if actors and i in actors)
            self._pending.extend(new)
            # One more thread, unless every thread is busy already: a busy
            # thread takes them with its next batch.
            start = bool(new) and self._draining < self._workers
            if start:
                self._draining += 1
        if start:
            try:
                self._executor.submit(self._drain)
            except RuntimeError:
                # The executor is shut down: the conductor is stopping,
                # and the allocations are resumed or taken over from the
                # database.
                with self._lock:
                    self._draining -= 1
                    for i in new:
                        self._pending.remove(i)
                        self._queued.discard(i)
                        self._actors.pop(i, None)
                return 0
        return len(new)

    def queued(self) -> set[int]:
        with self._lock:
            return set(self._queued)

    def stop(self, wait: bool = True) -> None:
        self._executor.shutdown(wait=wait)

    def _max_node_id(self, context) -> int:
        now = time.monotonic()
        if now - self._max_id_at > _MAX_ID_TTL:
            self._max_id = allocations_db.max_node_id(context)
            self._max_id_at = now
        return self._max_id

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    self._draining -= 1
                    return
                batch = [self._pending.popleft() for _ in
                         range(min(self._batch_size, len(self._pending)))]
                actors = {i: self._actors[i] for i in batch
                          if i in self._actors}
            try:
                self.process_batch(batch, actors)
            finally:
                with self._lock:
                    self._queued.difference_update(batch)
                    for i in batch:
                        self._actors.pop(i, None)
            if self._processed is not None:
                self._processed()

    def process_batch(self, allocation_ids: list[int],
                      actors: dict | None = None) -> None:
        """Claim nodes for allocations, together where possible; never
        raises.

        :param actors: allocation id -> who asked for it.
        """
        actors = actors or {}
        served: set[int] = set()
        if len(allocation_ids) > 1:
            context = pool_context.get_admin_context()
            try:
                served = allocate_batch(
                    context, allocation_ids, self.host,
                    self._max_node_id(context), actors)
            except Exception as exc:
                if db_api.is_unavailable(exc):
                    LOG.warning('Database unreachable while processing '
                                'allocations %(ids)s, they will be '
                                'retried: %(exc)s',
                                {'ids': allocation_ids, 'exc': exc})
                    return
                # Each allocation is tried on its own below, which records
                # its own failure.
                LOG.exception('Reserving nodes for allocations %s together '
                              'failed', allocation_ids)
        for allocation_id in allocation_ids:
            if allocation_id not in served:
                self.process(allocation_id, actors)

    def process(self, allocation_id: int,
                actors: dict | None = None) -> str | None:
        """Claim a node for an allocation; never raises.

        :returns: the outcome of allocate_one(), or None when
            the database could not be reached (the allocation stays
            allocating and is retried later).
        """
        context = pool_context.get_admin_context()

        def attempt() -> str:
            try:
                return allocate_one(context, allocation_id, self.host,
                                    self._max_node_id(context), actors)
            except db_exc.DBDeadlock:
                return BUSY

        outcome = rounds.settle(
            attempt, lambda error: set_error(
                context, allocation_id, self.host,
                'Unexpected error while allocating: %s' % error),
            'allocation %s' % allocation_id)
        LOG.debug('Allocation %(id)s: %(outcome)s',
                  {'id': allocation_id, 'outcome': outcome})
        return outcome
