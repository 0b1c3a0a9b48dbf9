"""Bulk pool allocations racing single allocations on real databases."""
import threading

from pool_conductor import context as pool_context
from pool_conductor.db import models
from pool_conductor.db import pool_actions
from pool_conductor.db import pools as pools_db
from pool_conductor import exception
from tests.functional import db_fixtures
from tests.functional import test_allocation_races


class PoolRaceMixin(test_allocation_races.AllocationRaceHelpers):

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        pools_db.create(self.context, models.Pool, {'name': 'race'})

    def fill_pool(self, count: int) -> None:
        pool_actions.add_machines(self.context, 'race', pool_actions.Request(
            machine_list=self.enroll(count)))

    def bulk(self, results: list, count: int, partial: bool,
             start: threading.Barrier) -> None:
        start.wait()
        try:
            results.append(pool_actions.allocate_machines(
                self.context, 'race', pool_actions.Request(
                    count=count, partial_success=partial)))
        except exception.InsufficientNodes:
            results.append([])

    def test_bulk_and_single_allocations_never_share_a_node(self):
        self.fill_pool(40)
        results: list = []
        start = threading.Barrier(3)
        bulks = [threading.Thread(target=self.bulk,
                                  args=(results, 12, partial, start))
                 for partial in (True, False)]
        for t in bulks:
            t.start()
        start.wait()
        singles = self.race(20)
        for t in bulks:
            t.join()
        # Allocations of both kinds hold distinct nodes.
        active = self.check_consistent(singles)
        bulk_uuids = [r['uuid'] for res in results for r in res]
        self.assertEqual(len(bulk_uuids), len(set(bulk_uuids)))
        single_nodes = {a.node_uuid for a in active
                        if a.extra.get('pool') != 'race'}
        self.assertEqual(set(), single_nodes & set(bulk_uuids))
        # Every node went to someone: no deadlock, no lost node.
        self.assertEqual(40, len(single_nodes) + len(bulk_uuids))

    def test_concurrent_all_or_nothing_bulks(self):
        self.fill_pool(30)
        results: list = []
        start = threading.Barrier(4)
        threads = [threading.Thread(target=self.bulk,
                                    args=(results, 10, False, start))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        sizes = sorted(len(r) for r in results)
        # Each bulk got its 10 nodes or none at all.
        self.assertEqual({0, 10}, set(sizes) | {0, 10})
        uuids = [r['uuid'] for res in results for r in res]
        self.assertEqual(len(uuids), len(set(uuids)))
        counts = pools_db.status_counts(self.context, 'race')
        self.assertEqual(len(uuids), counts.get('InUse', 0))
        self.assertEqual(30 - len(uuids), counts.get('Free', 0))


class PostgreSQLPoolRaceTestCase(PoolRaceMixin,
                                 db_fixtures.PostgreSQLTestCase):
    pass


class MySQLPoolRaceTestCase(PoolRaceMixin, db_fixtures.MySQLTestCase):
    pass
