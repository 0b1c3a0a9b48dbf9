"""The conductor's allocation worker: reserves nodes for allocations."""
import collections
import random
import threading
import time

import futurist
from oslo_db import exception as db_exc
from oslo_log import log

from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api

LOG = log.getLogger(__name__)

# How long a cached highest node id is used to pick random start points.
_MAX_ID_TTL = 5.0
# Backoff while every matching node is locked by another transaction.
_BUSY_SLEEP_MIN = 0.005
_BUSY_SLEEP_MAX = 0.25


class AllocationWorker:
    """Processes the allocations of one conductor on a pool of threads.

    Allocations wait in a queue; each worker thread takes up to
    ``batch_size`` of them at a time and reserves their nodes in one
    transaction, so that under load the cost of a transaction is shared.
    An allocation is queued at most once at a time; work that cannot be
    finished now (the database is unreachable) stays ``allocating`` in the
    database and is queued again by the conductor's periodic check.
    """

    def __init__(self, host: str, workers: int, batch_size: int = 1):
        self.host = host
        self._workers = workers
        self._batch_size = max(1, batch_size)
        self._executor = futurist.ThreadPoolExecutor(max_workers=workers)
        self._lock = threading.Lock()
        self._queued: set[int] = set()
        self._pending: collections.deque[int] = collections.deque()
        self._draining = 0
        self._max_id = 0
        self._max_id_at = 0.0

    def submit(self, allocation_id: int) -> bool:
        """Queue an allocation unless it is queued already.

        :returns: whether it was queued now.
        """
        return self.submit_many([allocation_id]) == 1

    def submit_many(self, allocation_ids: list[int]) -> int:
        """Queue allocations, skipping those queued already.

        :returns: how many were queued now.
        """
        with self._lock:
            new = [i for i in dict.fromkeys(allocation_ids)
                   if i not in self._queued]
            self._queued.update(new)
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
            try:
                self.process_batch(batch)
            finally:
                with self._lock:
                    self._queued.difference_update(batch)

    def process_batch(self, allocation_ids: list[int]) -> None:
        """Reserve nodes for allocations, together where possible; never
        raises.
        """
        served: set[int] = set()
        if len(allocation_ids) > 1:
            context = pool_context.get_admin_context()
            try:
                served = allocations_db.reserve_nodes(
                    context, allocation_ids, self.host,
                    self._max_node_id(context))
            except db_api.UNAVAILABLE_ERRORS as exc:
                LOG.warning('Database unreachable while processing '
                            'allocations %(ids)s, they will be retried: '
                            '%(exc)s', {'ids': allocation_ids, 'exc': exc})
                return
            except Exception:
                # Each allocation is tried on its own below, which records
                # its own failure.
                LOG.exception('Reserving nodes for allocations %s together '
                              'failed', allocation_ids)
        for allocation_id in allocation_ids:
            if allocation_id not in served:
                self.process(allocation_id)

    def process(self, allocation_id: int) -> str | None:
        """Reserve a node for an allocation; never raises.

        :returns: the outcome of allocations_db.reserve_node, or None when
            the database could not be reached (the allocation stays
            allocating and is retried later).
        """
        context = pool_context.get_admin_context()
        sleep = _BUSY_SLEEP_MIN
        try:
            while True:
                try:
                    outcome = allocations_db.reserve_node(
                        context, allocation_id, self.host,
                        self._max_node_id(context))
                except db_exc.DBDeadlock:
                    outcome = allocations_db.BUSY
                if outcome != allocations_db.BUSY:
                    break
                # Matching nodes exist but other transactions hold them;
                # one of them commits soon, then we know whether a node is
                # left for us.
                time.sleep(sleep * (0.5 + random.random()))
                sleep = min(sleep * 2, _BUSY_SLEEP_MAX)
        except db_api.UNAVAILABLE_ERRORS as exc:
            LOG.warning('Database unreachable while processing allocation '
                        '%(id)s, it will be retried: %(exc)s',
                        {'id': allocation_id, 'exc': exc})
            return None
        except Exception as exc:
            LOG.exception('Unexpected error while processing allocation %s',
                          allocation_id)
            try:
                allocations_db.set_error(
                    context, allocation_id, self.host,
                    'Unexpected error while allocating: %s' % exc)
            except Exception:
                LOG.exception('Could not record the failure of allocation '
                              '%s; it will be retried', allocation_id)
            return allocations_db.FAILED
        LOG.debug('Allocation %(id)s: %(outcome)s',
                  {'id': allocation_id, 'outcome': outcome})
        return outcome
