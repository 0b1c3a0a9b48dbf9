"""A conductor's event sequencer: a thread that gives committed events
their cursors every ``[events] sequence_interval`` seconds, and as soon as
it is told that the conductor committed some (watchers then see an
allocation's outcome without waiting for the next interval)."""
import threading
import time

from pool_conductor.conf import CONF

# However often it is poked, at most a pass every this many seconds: under
# load each pass serves the batches of several.
SOONEST = 0.05


class Sequencer:
    """Runs sequence() in a thread of its own: every interval, and at once
    after poke(). Pokes during a pass make one pass more."""

    def __init__(self, sequence):
        """:param sequence: the pass; it never raises."""
        self._sequence = sequence
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run,
                                        name='pool-event-sequencer',
                                        daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """Events were committed: a pass now."""
        self._wanted.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wanted.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while True:
            self._wanted.wait(CONF.events.sequence_interval)
            self._wanted.clear()
            if self._stopping.is_set():
                return
            started = time.monotonic()
            self._sequence()
            self._stopping.wait(SOONEST - (time.monotonic() - started))
