"""The sequencer's and the publisher's looks for work on PostgreSQL cost
what changed since the previous look, whatever the planner's statistics
say: each event row is updated twice after its insert, and every update
leaves index entries to a dead row version behind it until a vacuum."""
import time

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor import events
from tests.functional import db_fixtures

EVENTS = 3000
# What a look for work may read once the dead versions it passed are
# marked: a few index pages. A look that visits them again reads their
# heap pages (about 75 for 3,000 events), or every event, at each look.
MOST_BLOCKS = 20
# A version is only marked once no running transaction (of any database
# of the server: the other tests') may still need it: the looks repeat,
# as the conductors' do, for up to this many seconds.
LOOKING = 20
# The events still to do when the statistics were taken, in the tests
# where they were taken after a burst: the planner expects this many, fewer
# than a look asks for.
SOME = 300


class OutboxScanTestCase(db_fixtures.PostgreSQLTestCase):

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.sent = lambda row: None
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event('node', '%036d' % i,
                                              'test.event')
                                 for i in range(EVENTS)])

    def analyze(self):
        # As autovacuum does.
        with self.engine.begin() as conn:
            conn.exec_driver_sql('ANALYZE events')

    def assertLooksCheap(self, look, statement: str) -> None:
        """Among looks that find nothing to do, one reads at most
        MOST_BLOCKS blocks for the statement that starts with statement,
        measured in the look's own transaction (its plan, its settings)
        just before the look runs it."""
        read = []

        def explain(conn, cursor, text, parameters, context, many):
            if text.startswith(statement):
                cursor.execute('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) '
                               + text, parameters)
                # psycopg2 hands the plan over as parsed JSON.
                top = cursor.fetchone()[0][0]['Plan']
                read.append(top['Shared Hit Blocks']
                            + top['Shared Read Blocks'])

        engine = db_api.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', explain)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        explain)
        deadline = time.monotonic() + LOOKING
        while time.monotonic() < deadline:
            look()
            if read and read[-1] <= MOST_BLOCKS:
                return
            time.sleep(0.1)
        self.fail('each look read more than %d blocks: %s'
                  % (MOST_BLOCKS, sorted(set(read))))

    def sequence(self, most: int) -> None:
        self.assertEqual(most, events_db.sequence(most)[0])

    def publish(self, most: int) -> None:
        self.assertEqual((most, None), events_db.publish(most, self.sent))

    def assertSequencerLooksCheap(self):
        self.assertLooksCheap(
            lambda: self.assertEqual(0, events_db.sequence(EVENTS)[0]),
            'SELECT events.id \nFROM events \nWHERE events.seq IS NULL')

    def assertPublisherLooksCheap(self):
        self.assertLooksCheap(
            lambda: self.assertEqual(
                (0, None), events_db.publish(EVENTS, self.sent)),
            'SELECT events.id, events.seq')

    def test_sequencer_after_a_burst(self):
        # The statistics were taken in a burst: every event is to do.
        self.analyze()
        self.sequence(EVENTS)
        self.assertSequencerLooksCheap()

    def test_sequencer_after_statistics_of_some_to_do(self):
        self.sequence(EVENTS - SOME)
        self.analyze()
        self.sequence(SOME)
        self.assertSequencerLooksCheap()

    def test_publisher_after_a_burst(self):
        self.sequence(EVENTS)
        self.analyze()
        self.publish(EVENTS)
        self.assertPublisherLooksCheap()

    def test_publisher_after_statistics_of_some_to_do(self):
        self.sequence(EVENTS)
        self.publish(EVENTS - SOME)
        self.analyze()
        self.publish(SOME)
        self.assertPublisherLooksCheap()
