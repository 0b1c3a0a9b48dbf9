"""Windows booked concurrently on real databases: no node ever holds two
overlapping slots, and no allocation that starts now takes a node it
would still hold when a slot of it begins."""
import datetime
import random
import threading

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.allocator import AllocationWorker
from pool_conductor.booking import windows
from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import slots as slots_db
from pool_conductor import exception
from tests.functional import db_fixtures

HOUR = datetime.timedelta(hours=1)
CLIENTS = 50
NODES = 4


class WindowRaceMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.nodes = [nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'resource_class': 'race',
            'provision_state': 'available', 'power_state': 'power off'}).id
            for _ in range(NODES)]
        self.worker = AllocationWorker('conductor-a', 8, batch_size=4)
        self.addCleanup(self.worker.stop)

    def book_all(self, windows_wanted):
        """Book every window at once, one client each: (booked, refused)."""
        barrier = threading.Barrier(len(windows_wanted))
        booked, refused, errors = [], [], []

        def client(start, end):
            barrier.wait()
            try:
                booked.append(windows.book(
                    self.context, {'resource_class': 'race'}, None, start,
                    end))
            except exception.WindowConflict as exc:
                refused.append(exc)
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=client, args=w)
                   for w in windows_wanted]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual([], errors)
        return booked, refused

    def overlaps(self):
        with db_api.reader(self.context) as session:
            return slots_db.overlaps(session.connection())

    def test_fifty_clients_never_double_book(self):
        now = db_api.utcnow()
        rng = random.Random(30)
        wanted = []
        for _ in range(CLIENTS):
            start = now + HOUR + datetime.timedelta(
                minutes=rng.randrange(0, 600))
            wanted.append((start, start + datetime.timedelta(
                minutes=rng.randrange(30, 240))))
        booked, refused = self.book_all(wanted)
        self.assertEqual(CLIENTS, len(booked) + len(refused))
        # Both outcomes happened: the clients did fight for the nodes.
        self.assertTrue(booked and refused, (len(booked), len(refused)))
        self.assertEqual([], self.overlaps())
        with db_api.reader(self.context) as session:
            slots = session.execute(sa.select(
                models.NodeSlot.node_id, models.NodeSlot.busy_from)).all()
            booked_from = dict(session.execute(sa.select(
                models.Node.id, models.Node.booked_from)).all())
        self.assertEqual(len(booked), len(slots))
        earliest = {}
        for node_id, busy_from in slots:
            earliest[node_id] = min(busy_from, earliest.get(node_id,
                                                            busy_from))
        self.assertEqual({n: earliest.get(n) for n in self.nodes},
                         booked_from)

    def test_same_window_once_per_node(self):
        start = db_api.utcnow() + HOUR
        booked, refused = self.book_all([(start, start + HOUR)] * CLIENTS)
        self.assertEqual(NODES, len(booked))
        self.assertEqual(CLIENTS - NODES, len(refused))
        self.assertEqual(NODES, len({a.slot_node_uuid for a in booked}))
        self.assertEqual([], self.overlaps())

    def test_allocations_now_and_bookings_race(self):
        """Allocations that start now (with and without an end) and
        bookings at the same time: no node ends up given to an allocation
        that holds it past the start of one of its slots."""
        now = db_api.utcnow()
        rng = random.Random(27)
        allocs = [allocations_db.create_allocation(self.context, {
            'resource_class': 'race', 'state': 'allocating',
            'conductor_affinity': 'conductor-a',
            'lifespan_end': None if i % 3 == 0 else now + datetime.timedelta(
                minutes=rng.randrange(10, 300))}) for i in range(20)]
        starter = threading.Thread(target=lambda: [
            self.worker.submit(a.id) for a in allocs])
        wanted = []
        for _ in range(CLIENTS):
            start = now + datetime.timedelta(minutes=rng.randrange(60, 400))
            wanted.append((start, start + HOUR))
        starter.start()
        self.book_all(wanted)
        starter.join()
        deadline = datetime.datetime.now() + datetime.timedelta(minutes=2)
        while self.worker.queued():
            self.assertLess(datetime.datetime.now(), deadline)
            threading.Event().wait(0.05)
        self.assertEqual([], self.overlaps())
        post = datetime.timedelta(seconds=1800)
        with db_api.reader(self.context) as session:
            held = session.execute(sa.select(
                models.Node.id, models.Allocation.lifespan_end).join(
                models.Allocation,
                models.Allocation.id == models.Node.allocation_id)).all()
            slots = session.execute(sa.select(
                models.NodeSlot.node_id, models.NodeSlot.busy_from)).all()
        self.assertTrue(held)
        for node_id, end in held:
            for slot_node, busy_from in slots:
                if slot_node == node_id:
                    self.assertIsNotNone(end)
                    self.assertLessEqual(end + post, busy_from)

    def test_project_caps_hold_under_concurrent_bookings(self):
        """Clients of one project book windows that no node conflict
        stops at once: exactly its cap of them is booked."""
        self.config(max_future_per_project=3, max_active_per_project=0,
                    group='windows')
        for _ in range(2):
            nodes_db.create_node(self.context, {
                'driver': 'fake-hardware', 'resource_class': 'capped',
                'owner': 'p1', 'provision_state': 'available',
                'power_state': 'power off'})
        now = db_api.utcnow()
        barrier = threading.Barrier(20)
        booked, refused, errors = [], [], []

        def client(i):
            start = now + HOUR + i * 2 * HOUR
            barrier.wait()
            try:
                booked.append(windows.book(
                    self.context, {'resource_class': 'capped',
                                   'owner': 'p1'}, None, start,
                    start + HOUR))
            except exception.WindowLimitExceeded as exc:
                refused.append(exc)
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=client, args=(i,))
                   for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual([], errors)
        self.assertEqual((3, 17), (len(booked), len(refused)))
        self.assertIn('Project p1 has 3 scheduled windows',
                      str(refused[0]))


class PostgreSQLWindowRaceTestCase(WindowRaceMixin,
                                   db_fixtures.PostgreSQLTestCase):

    def test_the_database_refuses_overlapping_slots(self):
        """The exclusion constraint holds without the writer's check."""
        start = db_api.utcnow() + HOUR
        alloc = windows.book(self.context, {'resource_class': 'race',
                                            'candidate_nodes': []},
                             None, start, start + HOUR)
        node_id = self.nodes[0]
        with db_api.writer_connection(self.context) as conn:
            node_id = conn.scalar(sa.select(models.NodeSlot.node_id))
        with db_api.writer_connection(self.context) as conn:
            # Back to back is allowed (half-open).
            slots_db.insert(conn, node_id, None, start + 2 * HOUR,
                            start + 3 * HOUR)
        error = self.assertRaises(
            db_exc.DBError, self._insert, node_id, start + 90 * HOUR / 60,
            start + 4 * HOUR)
        self.assertTrue(db_api.is_exclusion_violation(error), error)
        self.assertIsNotNone(alloc)

    def _insert(self, node_id, busy_from, busy_until):
        with db_api.writer_connection(self.context) as conn:
            slots_db.insert(conn, node_id, None, busy_from, busy_until)


class MySQLWindowRaceTestCase(WindowRaceMixin, db_fixtures.MySQLTestCase):
    pass
