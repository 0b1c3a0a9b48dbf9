"""Event cursors on real databases: given in commit order, so that a
watcher reading cursors above the last it saw never skips an event."""
import threading

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor import events
from tests.functional import db_fixtures


class EventOrderMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()

    def _insert(self, conn, name: str) -> None:
        events.record(conn, [events.Event('node', name, 'test.event')])

    def test_out_of_order_commits_never_skip(self):
        engine = db_api.get_engine()
        with engine.connect() as first:
            tx = first.begin()
            # The lower id, committed last.
            self._insert(first, 'a' * 36)
            with db_api.writer_connection(self.context) as conn:
                self._insert(conn, 'b' * 36)
            events.sequence()
            seen = events_db.after(self.context, 0, {}, 100)
            self.assertEqual(['b' * 36], [e.object_uuid for e in seen])
            tx.commit()
        events.sequence()
        later = events_db.after(self.context, seen[-1].seq, {}, 100)
        self.assertEqual(['a' * 36], [e.object_uuid for e in later])

    def test_concurrent_writers_and_sequencers_lose_nothing(self):
        """Eight writers and two sequencers at once: a reader following
        the cursor sees every event exactly once."""
        stop = threading.Event()

        def write(n: int) -> None:
            for i in range(25):
                with db_api.writer_connection(self.context) as conn:
                    self._insert(conn, '%02d-%033d' % (n, i))

        def sequence() -> None:
            while not stop.is_set():
                events.sequence(wait=False)

        writers = [threading.Thread(target=write, args=(n,))
                   for n in range(8)]
        sequencers = [threading.Thread(target=sequence) for _ in range(2)]
        for t in sequencers + writers:
            t.start()
        seen, cursor = [], 0
        while any(t.is_alive() for t in writers) or len(seen) < 200:
            page = events_db.after(self.context, cursor, {}, 50)
            seen.extend(e.object_uuid for e in page)
            if page:
                cursor = page[-1].seq
            if not any(t.is_alive() for t in writers) and not page:
                events.sequence()
                if not events_db.after(self.context, cursor, {}, 1):
                    break
        stop.set()
        for t in sequencers + writers:
            t.join()
        self.assertEqual(200, len(seen))
        self.assertEqual(200, len(set(seen)))


class PostgreSQLEventOrderTestCase(EventOrderMixin,
                                   db_fixtures.PostgreSQLTestCase):
    pass


class MySQLEventOrderTestCase(EventOrderMixin, db_fixtures.MySQLTestCase):
    pass
