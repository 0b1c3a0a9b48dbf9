"""Healing on real databases: booked nodes deleted while clients book the
same window. No node ever holds two overlapping slots, an allocation that
lost its node either holds a slot of another or is flagged without one,
and the periodic check gives flagged ones the nodes left free."""
import datetime
import threading

import sqlalchemy as sa

from pool_conductor import binding
from pool_conductor.booking import healing
from pool_conductor.booking import windows
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import slots as slots_db
from pool_conductor import exception
from tests.functional import db_fixtures

HOUR = datetime.timedelta(hours=1)
CLIENTS = 20
LOST = 3
SPARE = 3


class HealingRaceMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.start = db_api.utcnow() + HOUR
        self.lost = [self.node() for _ in range(LOST)]
        self.originals = [windows.book(
            self.context, {'resource_class': 'race'}, None, self.start,
            self.start + HOUR) for _ in range(LOST)]
        self.spare = [self.node() for _ in range(SPARE)]

    def node(self):
        return nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'resource_class': 'race',
            'provision_state': 'available', 'power_state': 'power off'})

    def overlaps(self):
        with db_api.reader(self.context) as session:
            return slots_db.overlaps(session.connection())

    def state(self):
        """Each original allocation's (missing_resources, slot node id),
        and the node ids holding slots."""
        with db_api.reader(self.context) as session:
            rows = session.execute(sa.select(
                models.Allocation.id, models.Allocation.state,
                models.Allocation.missing_resources)).all()
            slots = dict(session.execute(sa.select(
                models.NodeSlot.allocation_id, models.NodeSlot.node_id)
            ).all())
        ids = {a.id for a in self.originals}
        return ({r.id: (r.state, r.missing_resources, slots.get(r.id))
                 for r in rows if r.id in ids}, set(slots.values()))

    def test_deleting_booked_nodes_while_clients_book(self):
        barrier = threading.Barrier(CLIENTS + LOST)
        errors, booked = [], []

        def client():
            barrier.wait()
            try:
                booked.append(windows.book(
                    self.context, {'resource_class': 'race'}, None,
                    self.start, self.start + HOUR))
            except exception.WindowConflict:
                pass
            except Exception as exc:
                errors.append(exc)

        def delete(node):
            barrier.wait()
            try:
                binding.delete_node(self.context,
                                    nodes_db.get_node(self.context, node.uuid))
            except Exception as exc:
                errors.append(exc)

        threads = ([threading.Thread(target=client) for _ in range(CLIENTS)]
                   + [threading.Thread(target=delete, args=(n,))
                      for n in self.lost])
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual([], errors)
        self.assertEqual([], self.overlaps())
        spare_ids = {n.id for n in self.spare}
        originals, held = self.state()
        self.assertLessEqual(held, spare_ids)
        for state, flagged, node_id in originals.values():
            self.assertEqual('scheduled', state)
            # Healed onto a spare, or flagged without a slot.
            self.assertEqual(flagged, node_id is None)
        self.assertEqual(len(held), len(booked) + sum(
            1 for _s, flagged, _n in originals.values() if not flagged))
        # The periodic check gives flagged ones what is left free.
        healing.check(self.context, 'conductor-a')
        self.assertEqual([], self.overlaps())
        originals, held = self.state()
        self.assertEqual(spare_ids, held)
        for state, flagged, node_id in originals.values():
            self.assertEqual('scheduled', state)
            self.assertEqual(flagged, node_id is None)


class PostgreSQLHealingRaceTestCase(HealingRaceMixin,
                                    db_fixtures.PostgreSQLTestCase):
    pass


class MySQLHealingRaceTestCase(HealingRaceMixin, db_fixtures.MySQLTestCase):
    pass
