"""At most [api] max_active_requests requests of an API process run at
once; the others wait in their request threads for a turn.

Requests that run at once share the process's cores and its interpreter
lock: past a few, each takes longer, and so do the threads that cast new
allocations to conductors and wake watchers. A request that waits without
using the CPU (pool_conductor.waiting: for events, for a node a conductor
holds locked, for a sandbox) gives its turn up meanwhile, and takes it
back at once when the wait ends, even beyond the limit: it may hold rows
locked that the requests ahead of it wait for.
"""
import contextlib
import threading

from pool_conductor.conf import CONF

# The Turns whose turn this thread's request holds.
_held = threading.local()


class Turns:
    """The turns of one application."""

    def __init__(self):
        self._changed = threading.Condition()
        self.running = 0

    def _free(self) -> bool:
        limit = CONF.api.max_active_requests
        return not limit or self.running < limit

    def take(self, wait: bool = True) -> None:
        with self._changed:
            if wait:
                self._changed.wait_for(self._free)
            self.running += 1
        _held.turns = self

    def give(self) -> None:
        _held.turns = None
        with self._changed:
            self.running -= 1
            self._changed.notify()

    def wrap(self, app):
        """The WSGI application app, run in turn."""
        def in_turn(environ: dict, start_response):
            self.take()
            try:
                return app(environ, start_response)
            finally:
                self.give()
        return in_turn


@contextlib.contextmanager
def given_up():
    """Around a wait: the turn of this thread's request, if it holds one,
    is another request's meanwhile."""
    turns = getattr(_held, 'turns', None)
    if turns is None:
        yield
        return
    turns.give()
    try:
        yield
    finally:
        turns.take(wait=False)
