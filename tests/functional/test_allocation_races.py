"""Concurrent allocation on real databases: no double allocation, no loss."""
import threading
import time

from pool_conductor.allocator import AllocationWorker
from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import nodes as nodes_db
from tests.functional import db_fixtures

HOSTS = ('conductor-a', 'conductor-b', 'conductor-c')


class AllocationRaceHelpers:
    """Three conductors' workers racing for the same few nodes, one
    reserving nodes one allocation at a time, two in batches."""

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        # One conductor reserves allocations one by one, the others in
        # batches of different sizes.
        self.workers = [AllocationWorker(HOSTS[0], 8),
                        AllocationWorker(HOSTS[1], 4, batch_size=8),
                        AllocationWorker(HOSTS[2], 2, batch_size=32)]
        for worker in self.workers:
            self.addCleanup(worker.stop)

    def enroll(self, count, **values):
        return [nodes_db.create_node(self.context, dict(
            driver='fake-hardware', resource_class='race',
            provision_state='available', power_state='power off',
            **values)).uuid for _ in range(count)]

    def race(self, count, **values):
        """Create count allocations spread over the hosts, run them all."""
        allocs = [allocations_db.create_allocation(self.context, dict(
            values, resource_class='race', state='allocating',
            conductor_affinity=HOSTS[i % len(HOSTS)]))
            for i in range(count)]
        start = threading.Barrier(len(self.workers))

        def submit(worker, mine):
            start.wait()
            for alloc in mine:
                worker.submit(alloc.id)

        threads = [threading.Thread(target=submit, args=(
            w, [a for a in allocs if a.conductor_affinity == w.host]))
            for w in self.workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        deadline = time.monotonic() + 120
        while any(w.queued() for w in self.workers):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        return allocations_db.list_allocations(self.context, {
            'resource_class': 'race'})

    def check_consistent(self, allocs):
        active = [a for a in allocs if a.state == 'active']
        node_ids = [a.node_id for a in active]
        self.assertEqual(len(node_ids), len(set(node_ids)),
                         'a node is held by two allocations')
        for alloc in active:
            node = nodes_db.get_node_by_id(self.context, alloc.node_id)
            self.assertEqual(alloc.uuid, node.instance_uuid)
            self.assertEqual(alloc.id, node.allocation_id)
        taken = nodes_db.list_nodes(self.context, {'associated': True,
                                                   'resource_class': 'race'})
        self.assertEqual(len(active), len(taken))
        return active


class AllocationRaceMixin(AllocationRaceHelpers):

    def test_more_allocations_than_nodes(self):
        self.enroll(10)
        allocs = self.race(40)
        active = self.check_consistent(allocs)
        self.assertEqual(10, len(active))
        errors = [a for a in allocs if a.state == 'error']
        self.assertEqual(30, len(errors))
        for alloc in errors:
            self.assertIn('No available nodes found', alloc.last_error)

    def test_no_spurious_errors_while_nodes_are_free(self):
        self.enroll(45)
        allocs = self.race(45)
        self.assertEqual([], [a.last_error for a in allocs
                              if a.state != 'active'])
        self.check_consistent(allocs)

    def test_traits_and_owner_under_contention(self):
        self.enroll(6, owner='p1')
        self.enroll(6, owner='p2')
        allocs = self.race(12, owner='p1')
        active = self.check_consistent(allocs)
        self.assertEqual(6, len(active))
        for alloc in active:
            self.assertEqual('p1', nodes_db.get_node_by_id(
                self.context, alloc.node_id).owner)


class PostgreSQLAllocationRaceTestCase(AllocationRaceMixin,
                                       db_fixtures.PostgreSQLTestCase):
    pass


class MySQLAllocationRaceTestCase(AllocationRaceMixin,
                                  db_fixtures.MySQLTestCase):
    pass
