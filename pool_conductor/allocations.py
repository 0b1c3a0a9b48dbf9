"""The conductor's allocation worker: reserves nodes for allocations."""
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

    An allocation is queued at most once at a time; work that cannot be
    finished now (the database is unreachable) stays ``allocating`` in the
    database and is queued again by the conductor's periodic check.
    """

    def __init__(self, host: str, workers: int):
        self.host = host
        self._executor = futurist.ThreadPoolExecutor(max_workers=workers)
        self._lock = threading.Lock()
        self._queued: set[int] = set()
        self._max_id = 0
        self._max_id_at = 0.0

    def submit(self, allocation_id: int) -> bool:
        """Queue an allocation unless it is queued already.

        :returns: whether it was queued now.
        """
        with self._lock:
            if allocation_id in self._queued:
                return False
            self._queued.add(allocation_id)
        try:
            self._executor.submit(self._run, allocation_id)
        except RuntimeError:
            # The executor is shut down: the conductor is stopping, and the
            # allocation is resumed or taken over from the database.
            with self._lock:
                self._queued.discard(allocation_id)
            return False
        return True

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

    def _run(self, allocation_id: int) -> None:
        try:
            self.process(allocation_id)
        finally:
            with self._lock:
                self._queued.discard(allocation_id)

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
