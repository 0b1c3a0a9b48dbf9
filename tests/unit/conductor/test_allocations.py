"""The allocation algorithm: filters, outcomes, guards."""
import datetime
from unittest import mock

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor import allocations
from pool_conductor import allocator
from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from tests import base


class AllocationWorkerTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.worker = AllocationWorker('test-host', 2)
        self.addCleanup(self.worker.stop)

    def allocate(self, host='test-host', **values):
        values.setdefault('resource_class', 'baremetal')
        alloc = allocations_db.create_allocation(
            self.context, dict(values, state='allocating',
                               conductor_affinity=host))
        outcome = self.worker.process(alloc.id)
        return outcome, allocations_db.get_allocation(self.context,
                                                      alloc.uuid)

    def test_reserves_matching_node(self):
        node = self.create_node(name='n1')
        outcome, alloc = self.allocate()
        self.assertEqual(allocator.ALLOCATED, outcome)
        self.assertEqual('active', alloc.state)
        self.assertEqual(node.uuid, alloc.node_uuid)
        self.assertIsNone(alloc.last_error)

    def test_no_node_records_error(self):
        self.create_node(resource_class='other')
        outcome, alloc = self.allocate()
        self.assertEqual(allocator.FAILED, outcome)
        self.assertEqual('error', alloc.state)
        self.assertEqual('No available nodes found in pool default with '
                         'resource class baremetal', alloc.last_error)
        self.assertIsNone(alloc.node_uuid)

    def test_filters(self):
        cases = [
            ({'provision_state': 'manageable'}, {}),
            ({'maintenance': True}, {}),
            ({'power_state': None}, {}),
            ({'instance_uuid': '6c1e8e5c-4b6a-4b7e-9a51-3c36a0a3f1a7'}, {}),
            ({'traits': ['CUSTOM_A']}, {'traits': ['CUSTOM_A',
                                                   'CUSTOM_B']}),
            ({'owner': 'p1'}, {'owner': 'p2'}),
            ({'reservation': 'someone'}, {}),
        ]
        for i, (node_values, alloc_values) in enumerate(cases):
            rsc = 'class-%d' % i
            self.create_node(resource_class=rsc, **node_values)
            outcome, alloc = self.allocate(resource_class=rsc,
                                           **alloc_values)
            self.assertEqual('error', alloc.state,
                             (node_values, alloc_values))

    def test_traits_owner_lessee_and_candidates_match(self):
        self.create_node(traits=['CUSTOM_A'])
        wanted = self.create_node(traits=['CUSTOM_A', 'CUSTOM_B'],
                                  lessee='p1')
        outcome, alloc = self.allocate(traits=['CUSTOM_B'], owner='p1',
                                       candidate_nodes=[wanted.uuid])
        self.assertEqual(wanted.uuid, alloc.node_uuid)
        self.assertEqual(['CUSTOM_B'], nodes_db.get_node(
            self.context, wanted.uuid).instance_info['traits'])

    def test_candidate_list_limits_choice(self):
        self.create_node()
        other = self.create_node()
        for _ in range(3):
            outcome, alloc = self.allocate(candidate_nodes=[other.uuid])
        self.assertEqual('error', alloc.state)
        self.assertEqual(other.uuid, allocations_db.list_allocations(
            self.context, {'state': 'active'})[0].node_uuid)

    def test_node_named_as_allocation_is_preferred(self):
        for i in range(10):
            self.create_node(name='node-%d' % i)
        outcome, alloc = self.allocate(name='node-7')
        self.assertEqual(
            'node-7', nodes_db.get_node(self.context,
                                        alloc.node_uuid).name)

    def test_every_node_used_once(self):
        nodes = {self.create_node().uuid for _ in range(5)}
        got = {self.allocate()[1].node_uuid for _ in range(5)}
        self.assertEqual(nodes, got)
        self.assertEqual('error', self.allocate()[1].state)

    def test_other_hosts_allocation_is_not_touched(self):
        self.create_node()
        outcome, alloc = self.allocate(host='other-host')
        self.assertEqual(allocator.GONE, outcome)
        self.assertEqual('allocating', alloc.state)

    def test_deleted_allocation_is_gone(self):
        self.create_node()
        alloc = allocations_db.create_allocation(
            self.context, {'resource_class': 'baremetal',
                           'state': 'allocating',
                           'conductor_affinity': 'test-host'})
        allocations.destroy(self.context, alloc.uuid)
        self.assertEqual(allocator.GONE, self.worker.process(alloc.id))

    def test_finished_allocation_is_not_redone(self):
        self.create_node()
        self.create_node()
        outcome, alloc = self.allocate()
        self.assertEqual(allocator.GONE, self.worker.process(alloc.id))
        self.assertEqual(1, len(allocations_db.list_allocations(
            self.context, {'state': 'active'})))

    def test_unexpected_error_is_recorded_not_raised(self):
        self.create_node()
        alloc = allocations_db.create_allocation(
            self.context, {'resource_class': 'baremetal',
                           'state': 'allocating',
                           'conductor_affinity': 'test-host'})
        with mock.patch.object(allocations_db, 'max_node_id',
                               side_effect=RuntimeError('boom')):
            self.assertEqual(allocator.FAILED,
                             self.worker.process(alloc.id))
        alloc = allocations_db.get_allocation(self.context, alloc.uuid)
        self.assertEqual('error', alloc.state)
        self.assertEqual('Unexpected error while allocating: boom',
                         alloc.last_error)

    def test_database_outage_leaves_allocation_to_retry(self):
        self.create_node()
        alloc = allocations_db.create_allocation(
            self.context, {'resource_class': 'baremetal',
                           'state': 'allocating',
                           'conductor_affinity': 'test-host'})
        refused = sa.exc.OperationalError(
            'connect', {}, Exception('Connection refused'))
        for error in (db_exc.DBConnectionError(), refused,
                      sa.exc.TimeoutError('pool exhausted')):
            with mock.patch.object(allocator, 'allocate_one',
                                   side_effect=error):
                self.assertIsNone(self.worker.process(alloc.id))
            self.assertEqual('allocating', allocations_db.get_allocation(
                self.context, alloc.uuid).state)
        self.assertEqual(allocator.ALLOCATED,
                         self.worker.process(alloc.id))


class BatchTestCase(base.TestCase):
    """Several queued allocations reserved in one transaction."""

    def setUp(self):
        super().setUp()
        self.worker = AllocationWorker('test-host', 1, batch_size=10)
        self.addCleanup(self.worker.stop)

    def queue(self, count, host='test-host', **values):
        values.setdefault('resource_class', 'baremetal')
        return [allocations_db.create_allocation(
            self.context, dict(values, state='allocating',
                               conductor_affinity=host)).id
                for _ in range(count)]

    def states(self, ids):
        return [allocations_db.get_allocation_by_id(self.context, i)
                for i in ids]

    def test_batch_takes_distinct_nodes(self):
        nodes = {self.create_node().uuid for _ in range(6)}
        ids = self.queue(4)
        served = allocator.allocate_batch(self.context, ids,
                                          'test-host', 0)
        self.assertEqual(set(ids), served)
        allocs = self.states(ids)
        self.assertEqual({'active'}, {a.state for a in allocs})
        taken = {a.node_uuid for a in allocs}
        self.assertEqual(4, len(taken))
        self.assertLessEqual(taken, nodes)
        for alloc in allocs:
            node = nodes_db.get_node(self.context, alloc.node_uuid)
            self.assertEqual(alloc.uuid, node.instance_uuid)
            self.assertEqual(alloc.id, node.allocation_id)

    def test_more_allocations_than_nodes(self):
        for _ in range(3):
            self.create_node()
        ids = self.queue(5)
        self.worker.process_batch(ids)
        allocs = self.states(ids)
        self.assertEqual(3, sum(a.state == 'active' for a in allocs))
        errors = [a for a in allocs if a.state == 'error']
        self.assertEqual(2, len(errors))
        self.assertIn('No available nodes found', errors[0].last_error)
        self.assertEqual(3, len({a.node_uuid for a in allocs
                                 if a.node_uuid}))

    def test_batch_fails_what_no_node_serves(self):
        for _ in range(3):
            self.create_node()
        self.create_node(resource_class='other')
        ids = self.queue(5)
        with mock.patch.object(allocator, 'allocate_one') as one:
            self.worker.process_batch(ids)
        one.assert_not_called()
        allocs = self.states(ids)
        self.assertEqual(['active'] * 3 + ['error'] * 2,
                         sorted(a.state for a in allocs))
        for alloc in allocs:
            if alloc.state == 'error':
                self.assertEqual('No available nodes found in pool default '
                                 'with resource class baremetal',
                                 alloc.last_error)

    def test_batch_leaves_shorter_windows_to_their_own_search(self):
        # A node booked from an hour on serves an allocation that ends
        # before then, not one that holds it longer: the batch does not
        # fail either for the other's sake.
        node = self.create_node()
        now = datetime.datetime.utcnow()
        with db_api.writer_connection(self.context) as conn:
            conn.execute(sa.update(models.Node).where(
                models.Node.id == node.id).values(
                    booked_from=now + datetime.timedelta(hours=1)))
        short = self.queue(1, lifespan_end=now + datetime.timedelta(
            minutes=10))
        forever = self.queue(1)
        self.worker.process_batch(forever + short)
        self.assertEqual(['error', 'active'],
                         [a.state for a in self.states(forever + short)])

    def test_different_requests_in_one_batch(self):
        gold = self.create_node(resource_class='gold',
                                traits=['CUSTOM_FAST'])
        self.create_node(resource_class='gold')
        silver = self.create_node(resource_class='silver', owner='p1')
        ids = (self.queue(1, resource_class='gold', traits=['CUSTOM_FAST'])
               + self.queue(1, resource_class='silver', owner='p1')
               + self.queue(1, resource_class='bronze'))
        self.worker.process_batch(ids)
        fast, owned, missing = self.states(ids)
        self.assertEqual(gold.uuid, fast.node_uuid)
        self.assertEqual(['CUSTOM_FAST'], nodes_db.get_node(
            self.context, gold.uuid).instance_info['traits'])
        self.assertEqual(silver.uuid, owned.node_uuid)
        self.assertEqual('error', missing.state)

    def test_named_allocation_keeps_its_node(self):
        for i in range(5):
            self.create_node(name='node-%d' % i)
        ids = self.queue(2) + self.queue(1, name='node-3')
        self.worker.process_batch(ids)
        allocs = self.states(ids)
        self.assertEqual({'active'}, {a.state for a in allocs})
        self.assertEqual('node-3', nodes_db.get_node(
            self.context, allocs[2].node_uuid).name)

    def test_node_taken_by_name_is_not_claimed_again(self):
        self.create_node(name='node-0')
        self.create_node(name='node-1')
        ids = self.queue(1) + self.queue(1, name='node-0')
        # Pivot 0: the claim of the first allocation starts at node-0.
        self.assertEqual(set(ids), allocator.allocate_batch(
            self.context, ids, 'test-host', 0))
        anonymous, named = self.states(ids)
        self.assertEqual('node-0', nodes_db.get_node(
            self.context, named.node_uuid).name)
        self.assertEqual('node-1', nodes_db.get_node(
            self.context, anonymous.node_uuid).name)

    def test_only_this_hosts_allocating_rows(self):
        for _ in range(4):
            self.create_node()
        mine = self.queue(2)
        other = self.queue(1, host='other-host')
        allocations.destroy(
            self.context, allocations_db.get_allocation_by_id(
                self.context, mine[1]).uuid)
        served = allocator.allocate_batch(
            self.context, mine + other, 'test-host', 0)
        self.assertEqual({mine[0]}, served)
        self.assertEqual('allocating', self.states(other)[0].state)

    def test_queued_allocations_are_batched(self):
        for _ in range(20):
            self.create_node()
        ids = self.queue(20)
        with mock.patch.object(allocator, 'allocate_batch',
                               wraps=allocator.allocate_batch) as spy:
            for alloc_id in ids:
                self.worker.submit(alloc_id)
            self.worker.stop()
        self.assertEqual({'active'}, {a.state for a in self.states(ids)})
        # One transaction for most of them, not one each.
        self.assertGreaterEqual(spy.call_count, 1)
        self.assertLess(spy.call_count, 5)

    def test_database_outage_leaves_batch_to_retry(self):
        self.create_node()
        self.create_node()
        ids = self.queue(2)
        with mock.patch.object(allocator, 'allocate_batch',
                               side_effect=db_exc.DBConnectionError()):
            self.worker.process_batch(ids)
        self.assertEqual({'allocating'},
                         {a.state for a in self.states(ids)})
        self.worker.process_batch(ids)
        self.assertEqual({'active'}, {a.state for a in self.states(ids)})
