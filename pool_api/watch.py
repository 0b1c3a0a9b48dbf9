"""Watching events: requests of GET /v1/events that wait for new ones.

Blocking pool actions wait the same way, and count among the waiters.

A request that finds no event after its cursor waits on this process's
condition (pool_conductor.events.wait_for) until a cursor above it is
given or seen, then reads again. One thread per API process, the pump,
runs while requests wait: every [api] watch_poll_interval it gives
committed events their cursors (as conductors do) and, on MariaDB and
SQLite, reads the last cursor given, which wakes the waiting requests;
on PostgreSQL it also listens to the cursors any process announces, so
that they wake at once.
"""
from collections.abc import Callable
import dataclasses
import threading
import time
import typing

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import waiting

LOG = log.getLogger(__name__)

# Waiting requests re-read at least this often, whatever woke them or not.
_LONGEST_NAP = 5.0
# Seconds between two attempts of the pump after a database error.
_PUMP_RETRY = 1.0


@dataclasses.dataclass
class Page:
    """What a request to the event feed answers."""

    events: list
    cursor: int
    more: bool
    # The lowest since accepted: the events after it are retained.
    oldest: int


def read(context, since: int | None, filters: dict, limit: int) -> Page:
    """The events after since the filters let through, and the cursor to
    read from next.

    :param since: None for now: no event, the last cursor given.
    :raises: CursorExpired for a cursor below the retained events, or
        above the last given
    """
    last, pruned, rows = events_db.page(context, since, filters, limit + 1)
    if since is not None and not pruned <= since <= last:
        raise exception.CursorExpired(since=since, pruned=pruned,
                                      last=last)
    more = len(rows) > limit
    rows = rows[:limit]
    if more:
        cursor = rows[-1].seq
    else:
        # Every event up to the last cursor given was visible to the
        # read: the ones the filters dropped need not be read again.
        cursor = max([last, *(r.seq for r in rows)])
    return Page(rows, cursor, more, pruned)


class _Waiters:
    """The requests of this process waiting for events, at most
    [api] max_waiters, and never all the request threads."""

    def __init__(self):
        self.count = 0
        self.lock = threading.Lock()

    @staticmethod
    def limit() -> int:
        return max(0, min(CONF.api.max_waiters, CONF.api.threads - 1))

    def enter(self, refusal=exception.TooManyWatchers) -> None:
        """:raises: refusal (TooManyWatchers) when the waiters are full"""
        limit = self.limit()
        with self.lock:
            if self.count >= limit:
                raise refusal(
                    count=limit,
                    retry=max(1, round(CONF.api.watch_poll_interval)))
            self.count += 1

    def leave(self) -> None:
        with self.lock:
            self.count -= 1

    def any(self) -> bool:
        return self.count > 0


WAITERS = _Waiters()


class _Pump:
    """The thread of this process that looks for new events while
    requests wait (module docstring)."""

    def __init__(self):
        self.thread = None
        self.lock = threading.Lock()
        self.work = threading.Event()
        # Whether the PostgreSQL listener is up: the looks for cursors of
        # other processes are then unnecessary.
        self.listening = False

    def ensure(self) -> None:
        """Start the thread once; wake it."""
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(
                    target=self._run, name='pool-events-pump', daemon=True)
                self.thread.start()
        self.work.set()

    def _run(self) -> None:
        while True:
            try:
                if db_api.get_engine().dialect.name == 'postgresql':
                    self._listen()
                else:
                    self._poll()
            except Exception:
                LOG.exception('Looking for new events failed; trying '
                              'again in %s s', _PUMP_RETRY)
                self.listening = False
                time.sleep(_PUMP_RETRY)

    def _idle(self) -> None:
        # Sleeps until a request waits; forever costs nothing.
        while not WAITERS.any():
            self.work.clear()
            if WAITERS.any():
                return
            self.work.wait(_LONGEST_NAP)

    def _look(self) -> None:
        """Give cursors to what committed, and tell the waiters the last
        cursor given."""
        if events.sequence(wait=False) is None and not self.listening:
            # Another process was sequencing: read what it gave.
            events.seen(events_db.cursors(
                pool_context.get_admin_context())[0])

    def _poll(self) -> None:
        while True:
            self._idle()
            self._look()
            time.sleep(CONF.api.watch_poll_interval)

    def _listen(self) -> None:
        deadline = [0.0]

        def stop() -> bool:
            # Called at least every poll interval: the listener also
            # sequences, for deployments whose conductors do not yet.
            now = time.monotonic()
            if WAITERS.any() and now >= deadline[0]:
                deadline[0] = now + CONF.api.watch_poll_interval
                self._look()
            return False

        def connected(cursor: int) -> None:
            self.listening = True
            events.seen(cursor)

        events_db.listen(stop, events.seen, CONF.api.watch_poll_interval,
                         connected)


PUMP = _Pump()

T = typing.TypeVar('T')


def wait_until(context, look: Callable[[], T], done: Callable[[T], bool],
               wait: float) -> tuple[T, bool]:
    """look() now, then again whenever this process sees new events (at
    least every few seconds), until done(what it returned), at most wait
    seconds. The caller holds a place among the WAITERS.

    :returns: the last look, and whether it was done.
    """
    deadline = time.monotonic() + wait
    PUMP.ensure()
    cursor = max(events_db.cursors(context)[0], events.last_seen())
    value = look()
    while not done(value):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return value, False
        events.wait_for(cursor, min(remaining, _LONGEST_NAP))
        cursor = max(cursor, events.last_seen())
        value = look()
    return value, True


def watch(context, since: int | None, filters: dict, limit: int,
          wait: float) -> Page:
    """The events after since, at once when there are any; else wait up
    to wait seconds for some, and answer an empty page with the cursor
    when none came.

    :raises: CursorExpired, TooManyWatchers
    """
    page = read(context, since, filters, limit)
    if page.events or wait <= 0:
        return page
    deadline = time.monotonic() + wait
    WAITERS.enter()
    try:
        PUMP.ensure()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return page
            before = page.cursor
            woke = events.wait_for(before, min(remaining, _LONGEST_NAP))
            page = read(context, before, filters, limit)
            if page.events:
                return page
            if woke and page.cursor <= before:
                # The process saw a cursor the database does not have (a
                # database restored from a backup): wait, do not spin.
                waiting.sleep(min(remaining, CONF.api.watch_poll_interval))
    finally:
        WAITERS.leave()
