"""Maintenance windows on real databases: booked at the same time as
windowed allocations they never overlap another slot, and conductors
running their round at once begin each window once."""
import datetime
import random
import threading

import sqlalchemy as sa

from pool_conductor.booking import maintenance_windows
from pool_conductor.booking import windows
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import slots as slots_db
from pool_conductor import exception
from tests.functional import db_fixtures

HOUR = datetime.timedelta(hours=1)
NODES = 4
CLIENTS = 40


class MaintenanceWindowRaceMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.nodes = [nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'resource_class': 'race',
            'provision_state': 'available', 'power_state': 'power off'}).id
            for _ in range(NODES)]

    def run_all(self, calls):
        """Run every call at once, one thread each: (done, refused)."""
        barrier = threading.Barrier(len(calls))
        done, refused, errors = [], [], []

        def run(call):
            barrier.wait()
            try:
                done.append(call())
            except exception.WindowConflict as exc:
                refused.append(exc)
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(c,)) for c in calls]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual([], errors)
        return done, refused

    def test_windows_and_bookings_never_overlap(self):
        now = db_api.utcnow()
        rng = random.Random(53)
        calls = []
        for i in range(CLIENTS):
            start = now + HOUR + datetime.timedelta(
                minutes=rng.randrange(0, 600))
            end = start + datetime.timedelta(minutes=rng.randrange(30, 240))
            if i % 2:
                calls.append(lambda s=start, e=end: windows.book(
                    self.context, {'resource_class': 'race'}, None, s, e))
            else:
                node_id = self.nodes[i % NODES]
                calls.append(lambda n=node_id, s=start, e=end:
                             maintenance_windows.create(
                                 self.context, n, s, e, 'race'))
        done, refused = self.run_all(calls)
        self.assertEqual(CLIENTS, len(done) + len(refused))
        self.assertTrue(done and refused, (len(done), len(refused)))
        with db_api.reader(self.context) as session:
            conn = session.connection()
            self.assertEqual([], slots_db.overlaps(conn))
            slots = conn.execute(sa.select(
                models.NodeSlot.node_id, models.NodeSlot.busy_from,
                models.NodeSlot.purpose)).all()
            booked_from = dict(conn.execute(sa.select(
                models.Node.id, models.Node.booked_from)).all())
        self.assertEqual(len(done), len(slots))
        self.assertIn('maintenance', {s.purpose for s in slots})
        earliest = {}
        for node_id, busy_from, _purpose in slots:
            earliest[node_id] = min(busy_from,
                                    earliest.get(node_id, busy_from))
        self.assertEqual({n: earliest.get(n) for n in self.nodes},
                         booked_from)

    def test_conductors_begin_each_window_once(self):
        start = db_api.utcnow() + HOUR
        for node_id in self.nodes:
            maintenance_windows.create(self.context, node_id, start,
                                       start + HOUR, 'race')
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.NodeSlot).values(
                busy_from=db_api.utcnow() - datetime.timedelta(seconds=1)))
        done, _ = self.run_all([
            lambda h=host: maintenance_windows.check(self.context, h)
            for host in ('conductor-a', 'conductor-b', 'conductor-c',
                         'conductor-d')])
        # A window another conductor held is taken by a later round.
        while maintenance_windows.check(self.context, 'conductor-a'):
            pass
        with db_api.reader(self.context) as session:
            started = session.scalars(sa.select(models.Event.object_uuid)
                                      .where(models.Event.event_type
                                             == maintenance_windows.STARTED)
                                      ).all()
            nodes = session.execute(sa.select(
                models.Node.maintenance, models.Node.fault)).all()
            states = session.scalars(sa.select(models.NodeSlot.state)).all()
        self.assertEqual(NODES, len(started))
        self.assertEqual(NODES, len(set(started)))
        self.assertEqual({(True, 'scheduled maintenance')}, set(nodes))
        self.assertEqual(['active'] * NODES, states)


class PostgreSQLMaintenanceWindowRaceTestCase(
        MaintenanceWindowRaceMixin, db_fixtures.PostgreSQLTestCase):
    pass


class MySQLMaintenanceWindowRaceTestCase(
        MaintenanceWindowRaceMixin, db_fixtures.MySQLTestCase):
    pass
