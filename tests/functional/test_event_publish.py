"""Publishing and pruning events on real databases: publishers of several
conductors at once send each event once, in cursor order; pruning never
deletes an unpublished event."""
import datetime
import threading

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor.db import models
from pool_conductor import events
from tests.functional import db_fixtures


class EventPublishMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()

    def _record(self, count: int, name: str = 'n') -> None:
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event('node', '%s-%d' % (name, i),
                                              'test.event')
                                 for i in range(count)])

    def test_concurrent_publishers_send_each_once_in_order(self):
        """Four publishers at once while events are written and
        sequenced: every event is sent once, the cursors in increasing
        order, and while one publisher holds the lock the others return
        at once."""
        sent, lock, stop = [], threading.Lock(), threading.Event()
        skipped = []

        def send(row):
            with lock:
                sent.append(row.seq)

        def publisher():
            while not stop.is_set():
                if events_db.publish(7, send) is None:
                    skipped.append(1)

        def writer():
            for _ in range(20):
                self._record(5)
                events.sequence()

        threads = [threading.Thread(target=publisher) for _ in range(4)]
        writers = [threading.Thread(target=writer) for _ in range(2)]
        for t in threads + writers:
            t.start()
        for t in writers:
            t.join()
        events.sequence()
        # Until nothing is left: the last batches go out by the threads or
        # by this loop, all through send.
        while events_db.publish(1, send) != (0, None):
            pass
        stop.set()
        for t in threads:
            t.join()
        self.assertEqual(200, len(sent))
        self.assertEqual(sorted(sent), sent)
        self.assertEqual(len(set(sent)), len(sent))
        self.assertTrue(skipped)

    def test_prune_keeps_unpublished_and_records_the_cursor(self):
        self._record(6, 'old')
        events.sequence()
        seqs = [e.seq for e in events_db.after(self.context, 0, {}, 100)]
        events_db.publish(4, lambda row: None)   # the first four only
        with db_api.writer_connection(self.context) as conn:
            conn.execute(sa.update(models.Event).values(
                created_at=db_api.utcnow() - datetime.timedelta(days=40)))
        done = events_db.prune(db_api.utcnow() - datetime.timedelta(
            days=30), 0, 100)
        left = events_db.after(self.context, 0, {}, 100)
        self.assertEqual(seqs[4:], [e.seq for e in left])
        self.assertEqual((4, seqs[3], True), done)
        self.assertEqual(seqs[3], events_db.cursors(self.context)[1])


class PostgreSQLEventPublishTestCase(EventPublishMixin,
                                     db_fixtures.PostgreSQLTestCase):
    pass


class MySQLEventPublishTestCase(EventPublishMixin,
                                db_fixtures.MySQLTestCase):
    pass
