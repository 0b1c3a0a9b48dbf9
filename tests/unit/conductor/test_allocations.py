"""The allocation algorithm: filters, outcomes, guards."""
from unittest import mock

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.allocations import AllocationWorker
from pool_conductor.db import allocations as allocations_db
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
        self.assertEqual(allocations_db.RESERVED, outcome)
        self.assertEqual('active', alloc.state)
        self.assertEqual(node.uuid, alloc.node_uuid)
        self.assertIsNone(alloc.last_error)

    def test_no_node_records_error(self):
        self.create_node(resource_class='other')
        outcome, alloc = self.allocate()
        self.assertEqual(allocations_db.FAILED, outcome)
        self.assertEqual('error', alloc.state)
        self.assertIn('No available nodes found with resource class '
                      'baremetal', alloc.last_error)
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
        self.assertEqual(allocations_db.GONE, outcome)
        self.assertEqual('allocating', alloc.state)

    def test_deleted_allocation_is_gone(self):
        self.create_node()
        alloc = allocations_db.create_allocation(
            self.context, {'resource_class': 'baremetal',
                           'state': 'allocating',
                           'conductor_affinity': 'test-host'})
        allocations_db.destroy_allocation(self.context, alloc.uuid)
        self.assertEqual(allocations_db.GONE, self.worker.process(alloc.id))

    def test_finished_allocation_is_not_redone(self):
        self.create_node()
        self.create_node()
        outcome, alloc = self.allocate()
        self.assertEqual(allocations_db.GONE, self.worker.process(alloc.id))
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
            self.assertEqual(allocations_db.FAILED,
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
            with mock.patch.object(allocations_db, 'reserve_node',
                                   side_effect=error):
                self.assertIsNone(self.worker.process(alloc.id))
            self.assertEqual('allocating', allocations_db.get_allocation(
                self.context, alloc.uuid).state)
        self.assertEqual(allocations_db.RESERVED,
                         self.worker.process(alloc.id))
