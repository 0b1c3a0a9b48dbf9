"""The candidate probe reads an index range on PostgreSQL and MariaDB,
never the whole nodes table, with and without table statistics; so do
the read of an allocation (the request waiting clients repeat), a page
of the list of nodes, the overview's newest alerts and fleet counts, a
conductor's retention pass over the events and its look for claims past
their lifespan."""
import datetime
import types

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import claims as claims_db
from pool_conductor.db import events as events_db
from pool_conductor.db import free_nodes
from pool_conductor.db import metrics as metrics_db
from pool_conductor.db import models
from pool_conductor import events
from tests import base
from tests.functional import cluster
from tests.functional import db_fixtures

NODES = 6000


class CandidatePlanMixin:

    def setUp(self):
        super().setUp()
        with self.engine.begin() as conn:
            conn.execute(sa.insert(models.Node), [
                {'uuid': '%08x-0000-4000-8000-%012x' % (i, i),
                 'driver': 'fake-hardware',
                 'resource_class': 'rc-%d' % (i % 10),
                 'provision_state': 'available', 'power_state': 'power off',
                 'maintenance': False, 'generation': 0, 'pool': 'default',
                 'pool_status': 'Free', 'created_at': models._utcnow(),
                 # A third of the fleet is allocated.
                 'instance_uuid': ('%08x-0000-4000-9000-%012x' % (i, i)
                                   if i % 3 == 0 else None)}
                for i in range(NODES)])

    def plan(self, has_class: bool, has_pool: bool) -> str:
        stmt = free_nodes.probe_statement(free_nodes.Probe(
            resource_class=has_class, traits=0, candidates=False,
            owner=False, pool_index=has_pool,
            where=free_nodes.FROM_PIVOT, lock=True, exclude=False))
        return self.plan_text(cluster.explain(self.engine, stmt, {
            'resource_class': 'rc-3', 'pool': 'default', 'count': 1,
            'pivot': NODES // 2}))

    def plan_text(self, rows: list) -> str:
        if self.engine.dialect.name == 'mysql':
            return '\n'.join('%(type)s %(key)s (%(Extra)s)' % r
                             for r in rows)
        return '\n'.join(r['QUERY PLAN'] for r in rows)

    def explained(self, read, needle: str) -> str:
        """The plan of the statement holding needle that read() sends."""
        statement, params = next(
            s for s in base.statements(self.engine, read) if needle in s[0])
        with self.engine.connect() as conn:
            return self.plan_text(conn.exec_driver_sql(
                'EXPLAIN ' + statement, params).mappings().all())

    def analyze(self):
        with self.engine.begin() as conn:
            conn.exec_driver_sql(self.ANALYZE)

    def vacuum(self):
        """Statistics, and on PostgreSQL the visibility map that a vacuum
        keeps."""
        if self.engine.dialect.name != 'postgresql':
            return self.analyze()
        with self.engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            conn.exec_driver_sql('VACUUM ANALYZE nodes')

    def test_probes_read_an_index_range(self):
        for statistics in (False, True):
            if statistics:
                self.analyze()
            for has_class, has_pool, index in self.SHAPES:
                plan = self.plan(has_class, has_pool)
                self.assertIn(index, plan, (statistics, plan))
                for scan in self.SCANS:
                    self.assertNotIn(scan, plan, (statistics, plan))


    def test_allocation_read_looks_nodes_up_by_id(self):
        # An allocation's node and the node of its window's slot are each
        # found by id; a plan that walks the nodes for every allocation
        # made a list of 1,000 allocations take 0.4 s at 1,000 nodes.
        for statistics in (False, True):
            if statistics:
                self.analyze()
            for stmt, params in (
                    (allocations_db._SHOW['uuid'], {'ident': 'x'}),
                    (allocations_db._FIELDS.order_by('id').limit(1000),
                     {})):
                plan = cluster.explain(self.engine, stmt, params)
                self.assertEqual([], self.walked(plan),
                                 (statistics, plan))

    def test_a_page_of_nodes_reads_the_nodes_in_id_order(self):
        # A page of the list costs its rows: with the order of its key
        # behind a CASE, a page of 50 among 100,000 nodes sorted the
        # whole table (163 ms on PostgreSQL, 46 ms on MariaDB).
        marker = types.SimpleNamespace(id=NODES // 2)
        for statistics in (False, True):
            if statistics:
                self.analyze()
            for after in (None, marker):
                for direction in ('asc', 'desc'):
                    stmt = db_api.paginate(sa.select(models.Node),
                                           models.Node, 50, after, 'id',
                                           direction)
                    plan = self.plan_text(
                        cluster.explain(self.engine, stmt, {}))
                    for scan in self.SCANS:
                        self.assertNotIn(scan, plan,
                                         (statistics, after, direction))

    def test_overview_reads_the_alerts_by_their_index(self):
        # Not every event back from the newest until enough alerts are
        # found: 46 ms on PostgreSQL among 100,000 events, at each look.
        context = pool_context.get_admin_context()
        with db_api.writer_connection(context) as conn:
            events.record(conn, [events.Event('node', '%036d' % i,
                                              'test.event')
                                 for i in range(2000)])
        for statistics in (False, True):
            if statistics:
                with self.engine.begin() as conn:
                    conn.exec_driver_sql(self.ANALYZE_EVENTS)
            plan = self.explained(lambda: metrics_db.overview(
                context, 60, db_api.utcnow(), 10), 'level IN')
            self.assertIn(self.ALERTS_INDEX, plan, (statistics, plan))

    def test_retention_reads_no_whole_table_of_events(self):
        # The objects over [events] max_per_object once grouped every
        # event retained (150 to 200 ms among 300,000, each pass); the
        # events past retention were looked for from the first cursor.
        now = models._utcnow()
        with self.engine.begin() as conn:
            # 20,000 published events, four for each object.
            conn.execute(sa.insert(models.Event), [
                {'seq': i + 1, 'uuid': '%036d' % i, 'created_at': now,
                 'object_type': 'node', 'object_uuid': '%036d' % (i // 4),
                 'event_type': 'test.event', 'level': 'info',
                 'payload': {}, 'published_at': now}
                for i in range(20000)])
            conn.execute(sa.delete(models.EventCursor).where(
                models.EventCursor.name == events_db.SEQUENCE))
            conn.execute(sa.insert(models.EventCursor).values(
                name=events_db.SEQUENCE, value=20000))
        for statistics in (False, True):
            if statistics:
                with self.engine.begin() as conn:
                    conn.exec_driver_sql(self.ANALYZE_EVENTS)
            # A pass after 50 new events.
            with self.engine.begin() as conn:
                conn.execute(sa.delete(models.EventCursor).where(
                    models.EventCursor.name == events_db.COUNTED))
                conn.execute(sa.insert(models.EventCursor).values(
                    name=events_db.COUNTED, value=sa.select(
                        models.EventCursor.value - 50).where(
                        models.EventCursor.name == events_db.SEQUENCE)
                    .scalar_subquery()))
            reads = [s for s in base.statements(self.engine, events.prune)
                     if s[0].startswith('SELECT') and 'FROM events' in s[0]]
            self.assertGreaterEqual(len(reads), 2)
            for statement, params in reads:
                with self.engine.connect() as conn:
                    plan = conn.exec_driver_sql(
                        'EXPLAIN ' + statement, params).mappings().all()
                self.assertEqual([], self.walked(plan, 'events'),
                                 (statistics, statement))

    def test_fleet_counts_read_an_index_of_the_node_states(self):
        # Not every row of the nodes table: 49 to 170 ms among 100,000
        # nodes, at each look at the overview and each scrape of /metrics.
        self.vacuum()
        plan = self.explained(lambda: metrics_db.fleet(
            pool_context.get_admin_context(), 60),
            'GROUP BY nodes.provision_state')
        self.assertIn(self.STATES_READ, plan)

    def test_claims_expiry_reads_the_unexpired_claims_past_their_end(self):
        # Not the expired claims too, which stay until deleted, in the
        # order of the index of lifespan_end: 37 ms on PostgreSQL and
        # 167 ms on MariaDB among 100,000, at each look (every 10 s).
        now = db_api.utcnow()
        with self.engine.begin() as conn:
            conn.execute(sa.insert(models.Claim), [
                {'uuid': '%08x-0000-4000-d000-%012x' % (i, i),
                 'state': 'expired' if i % 2 else 'bound', 'resources': [],
                 'created_at': now,
                 'lifespan_end': now + datetime.timedelta(
                     hours=-1 if i % 2 else 1)}
                for i in range(4000)])
        for statistics in (False, True):
            if statistics:
                with self.engine.begin() as conn:
                    conn.exec_driver_sql(self.ANALYZE_CLAIMS)
            plan = self.explained(lambda: claims_db.list_expired(
                pool_context.get_admin_context(), now, 'host', ['host'], 50),
                'FROM claims')
            self.assertIn('claims_state_lifespan_end_idx', plan,
                          (statistics, plan))

    def test_probe_does_not_lock_the_pool(self):
        # The probe reads the pool's allocate actions in a sub-select;
        # locking the pool row would make every claim of the pool wait
        # for the others.
        stmt = free_nodes.probe_statement(free_nodes.Probe(
            resource_class=True, traits=0, candidates=False, owner=False,
            pool_index=False, where=free_nodes.FROM_PIVOT, lock=True,
            exclude=False))
        with self.engine.connect() as probe, probe.begin():
            rows = probe.execute(stmt, {'resource_class': 'rc-3',
                                        'pool': 'default', 'count': 1,
                                        'pivot': 0}).all()
            self.assertEqual(1, len(rows))
            with self.engine.connect() as other, other.begin():
                other.exec_driver_sql(self.NO_WAIT)
                other.execute(sa.select(models.Pool.id).where(
                    models.Pool.name == 'default').with_for_update()).one()


class PostgreSQLCandidatePlanTestCase(CandidatePlanMixin,
                                      db_fixtures.PostgreSQLTestCase):
    ANALYZE = 'ANALYZE nodes'
    ANALYZE_EVENTS = 'ANALYZE events'
    ANALYZE_CLAIMS = 'ANALYZE claims'
    # Where the visibility map is current (autovacuum keeps it so).
    STATES_READ = 'Index Only Scan using nodes_states_idx on nodes'
    # An index scan, or a bitmap of it, then a sort of the few alerts.
    ALERTS_INDEX = 'events_alerts_idx'
    NO_WAIT = "SET LOCAL lock_timeout = '1s'"
    # An index scan in id order from the start: no sort, no table scan.
    SCANS = ('Seq Scan', 'Sort')
    SHAPES = ((True, False, 'Index Scan'), (False, True, 'Index Scan'))

    @staticmethod
    def walked(plan: list, table: str = 'nodes') -> list:
        """Scans of table without a condition on the index."""
        lines = [row['QUERY PLAN'] for row in plan]
        return [line for i, line in enumerate(lines)
                if ' on %s' % table in line and 'Scan' in line
                and 'Index Cond' not in ''.join(lines[i + 1:i + 2])
                and 'Recheck Cond' not in ''.join(lines[i + 1:i + 2])]


class MySQLCandidatePlanTestCase(CandidatePlanMixin,
                                 db_fixtures.MySQLTestCase):
    ANALYZE = 'ANALYZE TABLE nodes'
    ANALYZE_EVENTS = 'ANALYZE TABLE events'
    ANALYZE_CLAIMS = 'ANALYZE TABLE claims'
    STATES_READ = 'index nodes_states_idx (Using index)'
    ALERTS_INDEX = 'events_level_idx'
    NO_WAIT = 'SET SESSION innodb_lock_wait_timeout = 1'
    SCANS = ('ALL', 'filesort')
    SHAPES = ((True, False, 'range nodes_free_candidate_idx'),
              (False, True, 'range nodes_pool_status_idx'))

    @staticmethod
    def walked(plan: list, table: str = 'nodes') -> list:
        """Reads of table that are not a lookup by key or a range."""
        return [row for row in plan if row['table'] == table
                and row['type'] not in ('eq_ref', 'const', 'ref', 'range')]
