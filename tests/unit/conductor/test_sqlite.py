"""pool-server's SQLite: pooled connections, readers beside the writer."""
import datetime
import threading
import time

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor import events
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import claims as claims_db
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor.db import free_nodes
from pool_conductor.db import metrics as metrics_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import window_policy as window_policy_db
from tests import base


def _on_other_thread(work, timeout: float):
    """Run work on a new thread: what it returned, or None if it did not
    finish within timeout seconds."""
    result = []
    thread = threading.Thread(target=lambda: result.append(work()),
                              daemon=True)
    thread.start()
    thread.join(timeout)
    return result[0] if result else None


def _explain(engine, sql: str, params) -> str:
    """SQLite's plan of a statement, its steps joined by " / "."""
    with engine.connect() as conn:
        return ' / '.join(row[3] for row in conn.exec_driver_sql(
            'EXPLAIN QUERY PLAN ' + sql, params))


def _plan(engine, stmt, params: dict) -> str:
    """SQLite's plan of a SQLAlchemy statement with its parameters."""
    compiled = stmt.compile(engine)
    values = compiled.construct_params(params)
    return _explain(engine, compiled.string,
                    tuple(values[name] for name in compiled.positiontup))


def _plan_of(engine, read, needle: str) -> str:
    """SQLite's plan of the statement holding needle that read() sends."""
    statement, params = next(s for s in base.statements(engine, read)
                             if needle in s[0])
    return _explain(engine, statement, params)


def _write() -> bool:
    with db_api.writer_connection(pool_context.get_admin_context()) as conn:
        conn.execute(sa.text('SELECT 1'))
    return True


class SQLiteTransactionsTestCase(base.TestCase):

    def test_connections_are_kept_between_transactions(self):
        opened = []

        def count(*args):
            opened.append(1)
        sa.event.listen(self.db.engine, 'connect', count)
        self.addCleanup(sa.event.remove, self.db.engine, 'connect', count)
        self.db.engine.dispose()
        for _ in range(5):
            with db_api.reader(self.context) as session:
                session.execute(sa.text('SELECT 1'))
            with db_api.writer_connection(self.context) as conn:
                conn.execute(sa.text('SELECT 1'))
        self.assertEqual(1, len(opened))

    def test_reader_does_not_wait_for_the_writer(self):
        node = self.create_node(name='node-0')

        def read():
            return nodes_db.get_node(pool_context.get_admin_context(),
                                     node.uuid).name

        writing = pool_context.get_admin_context()
        with db_api.writer_connection(writing) as conn:
            conn.execute(sa.text('UPDATE nodes SET name = :name WHERE '
                                 'id = :id'), {'name': 'renamed',
                                               'id': node.id})
            # The writer holds the database lock: a reader reads the last
            # committed state meanwhile, another writer waits.
            self.assertEqual('node-0', _on_other_thread(read, 10))
            self.assertIsNone(_on_other_thread(_write, 1))
        self.assertEqual('renamed', read())

    def test_writer_transactions_begin_immediate(self):
        statements = []

        def record(*args):
            statements.append(args[2])
        sa.event.listen(self.db.engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, self.db.engine,
                        'before_cursor_execute', record)
        with db_api.reader(self.context) as session:
            session.execute(sa.text('SELECT 1'))
        with db_api.writer(self.context) as session:
            session.execute(sa.text('SELECT 1'))
        with db_api.writer_connection(self.context) as conn:
            # A reader inside a writer is part of its transaction.
            with db_api.reader(self.context) as session:
                session.execute(sa.text('SELECT 1'))
            conn.execute(sa.text('SELECT 1'))
        self.assertEqual(['BEGIN', 'SELECT 1', 'BEGIN IMMEDIATE', 'SELECT 1',
                          'BEGIN IMMEDIATE', 'SELECT 1', 'SELECT 1'],
                         statements)


    def test_plain_read_connection_begins_deferred_and_joins_a_writer(self):
        statements = []

        def record(*args):
            statements.append(args[2])
        sa.event.listen(self.db.engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, self.db.engine,
                        'before_cursor_execute', record)
        with db_api.reader_connection(self.context) as conn:
            conn.execute(sa.text('SELECT 1'))
        with db_api.writer_connection(self.context) as conn:
            with db_api.reader_connection(self.context) as inner:
                inner.execute(sa.text('SELECT 1'))
            conn.execute(sa.text('SELECT 1'))
        self.assertEqual(['BEGIN', 'SELECT 1', 'BEGIN IMMEDIATE', 'SELECT 1',
                          'SELECT 1'], statements)

    def test_writers_of_one_process_wait_for_their_turn_not_in_sqlite(self):
        # SQLite's busy handler sleeps up to 100 ms between looks at its
        # lock; a writer of the same process waits for the writer before
        # it to end, and only then sends its BEGIN IMMEDIATE.
        node = self.create_node(name='node-0')
        begun = {}

        def record(conn, cursor, statement, *args):
            if statement == 'BEGIN IMMEDIATE':
                begun.setdefault(threading.current_thread().name,
                                 time.monotonic())
        sa.event.listen(self.db.engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, self.db.engine,
                        'before_cursor_execute', record)
        writing = threading.Event()
        second = threading.Thread(target=lambda: writing.wait(10) and _write(),
                                  name='second', daemon=True)
        second.start()
        with db_api.writer_connection(self.context) as conn:
            conn.execute(sa.text('UPDATE nodes SET name = :name WHERE '
                                 'id = :id'), {'name': 'renamed',
                                               'id': node.id})
            writing.set()
            time.sleep(0.3)
            ending = time.monotonic()
        second.join(10)
        self.assertFalse(second.is_alive())
        self.assertGreaterEqual(begun['second'], ending)

    def test_a_writer_gives_its_turn_back_however_it_ends(self):
        def rolled_back():
            with db_api.writer_connection(self.context) as conn:
                conn.execute(sa.text('SELECT 1'))
                raise RuntimeError('rolled back')

        def closed_in_transaction():
            conn = self.db.engine.connect()
            conn.begin()
            conn.exec_driver_sql('SELECT 1')
            conn.close()

        def invalidated():
            conn = self.db.engine.connect()
            conn.begin()
            conn.exec_driver_sql('SELECT 1')
            # Its DBAPI connection closed; oslo.db's listeners refuse to
            # end the transaction of an invalidated connection.
            conn.invalidate()

        for end in (_write, rolled_back, closed_in_transaction, invalidated):
            try:
                end()
            except RuntimeError:
                pass
            # The next writer, on another thread, begins at once.
            self.assertTrue(_on_other_thread(_write, 5), end)

    def _synchronous(self) -> int:
        self.db.engine.dispose()
        with db_api.reader_connection(self.context) as conn:
            return conn.exec_driver_sql('PRAGMA synchronous').scalar()

    def test_commits_wait_for_fsync_unless_told_otherwise(self):
        # SQLite's codes: 1 NORMAL, 2 FULL.
        self.assertEqual(2, self._synchronous())
        self.config(sqlite_wal_synchronous='NORMAL', group='database')
        self.assertEqual(1, self._synchronous())


class FreeNodeProbePlanTestCase(base.TestCase):
    """SQLite has no statistics: the plan of the Free-node probe must not
    depend on the size of the fleet."""

    def plan(self, probe: free_nodes.Probe, **params) -> str:
        return _plan(self.db.engine, free_nodes.probe_statement(probe),
                     {'count': 1, 'pivot': 1, 'resource_class': 'baremetal',
                      'pool': 'default', **params})

    def test_probe_reads_the_free_nodes_of_its_pool_and_class(self):
        for i in range(50):
            self.create_node(name='node-%d' % i)
        for where in (free_nodes.FROM_PIVOT, free_nodes.BEFORE_PIVOT):
            for pool_index in (False, True):
                plan = self.plan(free_nodes.Probe(
                    resource_class=True, traits=0, candidates=False,
                    owner=False, pool_index=pool_index, where=where,
                    lock=False, exclude=False))
                self.assertIn('SEARCH nodes USING INDEX '
                              'nodes_free_pool_class_idx (pool=? AND '
                              'resource_class=? AND provision_state=? AND '
                              'id', plan)

    def test_deleting_an_allocation_reads_only_the_nodes_it_holds(self):
        # The foreign key's check when an allocation row is deleted: by
        # an index, whatever the size of the fleet.
        plan = _explain(self.db.engine,
                        'SELECT 1 FROM nodes WHERE allocation_id = ?', (1,))
        self.assertIn('USING COVERING INDEX nodes_allocation_id_idx', plan)


class EventFeedPlanTestCase(base.TestCase):
    """A read of the event feed after a cursor costs what came since the
    cursor, not every event retained: SQLite has no statistics."""

    def plan(self, filters: dict) -> str:
        return _plan(self.db.engine, events_db.page_statement(filters, 1001),
                     {'since': 1})

    def test_a_watch_of_an_object_type_reads_from_its_cursor(self):
        for filters in (
                {'object_type': 'allocation'},
                {'object_type': 'allocation',
                 'event_type_prefix': 'pool.allocation.state_set.'},
                {'object_type': 'node', 'project': 'p1'}):
            plan = self.plan(filters)
            self.assertIn('USING INDEX events_type_seq_idx (object_type=? '
                          'AND seq>?)', plan, filters)
            self.assertNotIn('TEMP B-TREE', plan, filters)

    def test_a_watch_of_one_object_reads_its_events_from_its_cursor(self):
        plan = self.plan({'object_type': 'node', 'object_uuid': 'u1'})
        self.assertIn('USING INDEX events_object_idx (object_type=? AND '
                      'object_uuid=? AND seq>?)', plan)
        self.assertNotIn('TEMP B-TREE', plan)

    def test_a_watch_of_every_event_reads_from_its_cursor(self):
        plan = self.plan({'event_type_prefix': 'pool.node.'})
        self.assertIn('(seq>?)', plan)
        self.assertNotIn('TEMP B-TREE', plan)


class NodePagePlanTestCase(base.TestCase):
    """A page of the list of nodes reads its rows in id order, whatever
    the size of the fleet: SQLite never sorts the table for it."""

    def test_a_page_of_nodes_reads_the_nodes_in_id_order(self):
        for i in range(5):
            self.create_node(name='node-%d' % i)
        marker = self.create_node(name='marker')
        for after in (None, marker):
            for direction in ('asc', 'desc'):
                plan = _plan(self.db.engine, db_api.paginate(
                    sa.select(models.Node), models.Node, 50, after, 'id',
                    direction), {})
                self.assertNotIn('TEMP B-TREE', plan, (after, direction))
                if after is not None:
                    self.assertIn('INTEGER PRIMARY KEY (rowid', plan)


class AlertsPlanTestCase(base.TestCase):

    def test_overview_reads_the_alerts_by_their_index(self):
        # Not every event back from the newest until enough alerts are
        # found (63 ms among 100,000 events, at each look).
        self.assertIn('USING INDEX events_alerts_idx', _plan_of(
            self.db.engine, lambda: metrics_db.overview(
                self.context, 60, db_api.utcnow(), 10), 'level IN'))


class RetentionPlanTestCase(base.TestCase):
    """A retention pass reads the events recorded since the previous one,
    not every event retained (0.9 to 1.3 s among 1,000,000 events, holding
    SQLite's one writer)."""

    def test_a_pass_reads_no_whole_table_of_events(self):
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event('node', 'n-%d' % (i % 3),
                                              'test.e') for i in range(30)])
        events.sequence()
        events_db.publish(1000, None)
        reads = [s for s in base.statements(self.db.engine, events.prune)
                 if s[0].startswith('SELECT') and 'FROM events' in s[0]]
        self.assertTrue(reads)
        for statement, params in reads:
            plan = _explain(self.db.engine, statement, params)
            self.assertNotRegex(plan, r'SCAN events\b', statement)
            if 'created_at <' in statement:
                # Not the cursors from the first on, to find none old.
                self.assertIn('USING INDEX events_created_idx', plan)

    def test_a_long_history_is_counted_in_short_transactions(self):
        # SQLite has one writer: a pass holds it for the objects of at
        # most cleanup_batch events at a time.
        self.config(max_per_object=3, cleanup_batch=10, group='events')
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event('node', 'n-%d' % i, 'test.e')
                                 for i in range(50)])
        events.sequence()
        events_db.publish(1000, None)
        begun = []

        def begin(conn):
            begun.append(conn)
        sa.event.listen(self.db.engine, 'begin', begin)
        self.addCleanup(sa.event.remove, self.db.engine, 'begin', begin)
        self.assertEqual(0, events.prune())
        self.assertEqual(5, len(begun))


class FleetCountPlanTestCase(base.TestCase):

    def test_fleet_counts_read_an_index_of_the_node_states(self):
        # Not every row of the nodes table (125 ms among 100,000 nodes,
        # at each look at the overview and each scrape of /metrics).
        self.assertEqual(
            'SCAN nodes USING COVERING INDEX nodes_states_idx', _plan_of(
                self.db.engine, lambda: metrics_db.fleet(self.context, 60),
                'GROUP BY nodes.provision_state'))


class LifespanPlanTestCase(base.TestCase):

    def test_expiry_reads_the_allocations_past_their_end(self):
        # Not every allocation without a claim, along the index of
        # claim_id (15 ms among 100,000 allocations, every 10 s).
        self.assertEqual(
            'SEARCH allocations USING INDEX allocations_lifespan_end_idx '
            '(lifespan_end<?)', _plan_of(
                self.db.engine, lambda: allocations_db.list_expired(
                    self.context, db_api.utcnow(), 'host', ['host'], 50),
                'FROM allocations'))

    def test_claims_expiry_reads_the_unexpired_claims_past_their_end(self):
        # Not every claim past its end, the expired ones included (they
        # stay until deleted), along the index of lifespan_end.
        self.assertIn(
            'SEARCH claims USING INDEX claims_state_lifespan_end_idx '
            '(state=? AND lifespan_end<?)', _plan_of(
                self.db.engine, lambda: claims_db.list_expired(
                    self.context, db_api.utcnow(), 'host', ['host'], 50),
                'FROM claims'))

    def test_window_end_notices_read_the_allocations_ending_soon(self):
        # Not every active allocation, along the index of the state (35
        # ms among 100,000 allocations, every 10 s).
        now = db_api.utcnow()
        self.assertEqual(
            'SEARCH allocations USING INDEX allocations_lifespan_end_idx '
            '(lifespan_end>? AND lifespan_end<?)', _plan_of(
                self.db.engine, lambda: self._ending(now),
                'FROM allocations'))

    def _ending(self, now):
        with self.db.engine.connect() as conn:
            window_policy_db.ending(
                conn, now, now + datetime.timedelta(hours=1), 50)
