"""Reservations booked concurrently on real databases: no node ever holds
two overlapping slots, every reservation has from its min to its max
members, and a refused one leaves nothing behind."""
import datetime
import random
import threading

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from pool_conductor import reservations
from tests.functional import db_fixtures
from tests.functional import test_window_races

HOUR = datetime.timedelta(hours=1)
CLIENTS = 30
NODES = 6


class ReservationRaceMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        for _ in range(NODES):
            nodes_db.create_node(self.context, {
                'driver': 'fake-hardware', 'resource_class': 'race',
                'provision_state': 'available', 'power_state': 'power off'})

    overlaps = test_window_races.WindowRaceMixin.overlaps

    def reserve_all(self, wanted):
        """Book every (min, max, start, end) at once, one client each:
        (booked, refused)."""
        barrier = threading.Barrier(len(wanted))
        booked, refused, errors = [], [], []

        def client(low, high, start, end):
            barrier.wait()
            try:
                booked.append(reservations.create(
                    self.context, {'resource_class': 'race'}, low, high,
                    None, start, end))
            except exception.WindowConflict as exc:
                refused.append(exc)
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=client, args=w) for w in wanted]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual([], errors)
        self.assertEqual(len(wanted), len(booked) + len(refused))
        return booked, refused

    def members(self) -> dict[int, list]:
        """The node of each member's slot, by reservation id."""
        with db_api.reader(self.context) as session:
            rows = session.execute(sa.select(
                models.Allocation.reservation_id, models.NodeSlot.node_id)
                .join(models.NodeSlot,
                      models.NodeSlot.allocation_id == models.Allocation.id)
            ).all()
            self.assertEqual(len(rows), session.scalar(sa.select(
                sa.func.count()).select_from(models.Allocation)))
        found: dict[int, list] = {}
        for reservation_id, node_id in rows:
            found.setdefault(reservation_id, []).append(node_id)
        return found

    def check(self, booked):
        self.assertEqual([], self.overlaps())
        members = self.members()
        # Only the booked reservations exist, each with min to max
        # members on as many nodes.
        self.assertEqual({r.id for r in booked}, set(members))
        for r in booked:
            nodes = members[r.id]
            self.assertTrue(r.count_min <= len(nodes) <= r.count_max,
                            (r.count_min, len(nodes), r.count_max))
            self.assertEqual(len(nodes), len(set(nodes)))
        return members

    def test_same_window_is_shared_all_or_nothing(self):
        start = db_api.utcnow() + HOUR
        booked, refused = self.reserve_all(
            [(2, 2, start, start + HOUR)] * CLIENTS)
        # Three pairs of the six nodes, and nothing else.
        self.assertEqual(NODES // 2, len(booked))
        self.assertEqual(NODES, sum(len(m) for m in self.check(
            booked).values()))

    def test_random_windows_and_counts_never_double_book(self):
        now = db_api.utcnow()
        rng = random.Random(41)
        wanted = []
        for _ in range(CLIENTS):
            start = now + HOUR + datetime.timedelta(
                minutes=rng.randrange(0, 600))
            low = rng.randrange(1, 4)
            wanted.append((low, low + rng.randrange(0, 3), start,
                           start + datetime.timedelta(
                               minutes=rng.randrange(30, 240))))
        booked, refused = self.reserve_all(wanted)
        # Both outcomes happened: the clients did fight for the nodes.
        self.assertTrue(booked and refused, (len(booked), len(refused)))
        self.check(booked)


class PostgreSQLReservationRaceTestCase(ReservationRaceMixin,
                                        db_fixtures.PostgreSQLTestCase):
    pass


class MySQLReservationRaceTestCase(ReservationRaceMixin,
                                   db_fixtures.MySQLTestCase):
    pass
