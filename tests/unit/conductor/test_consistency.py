"""The consistency checks pool-dbsync check runs."""
import datetime

import sqlalchemy as sa

from pool_conductor.allocations import AllocationWorker
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import consistency
from pool_conductor.db import models
from tests import base


class ConsistencyTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'test-host')
        worker = AllocationWorker('test-host', 1)
        self.addCleanup(worker.stop)
        self.node = self.create_node(name='n1')
        self.create_node(name='n2')
        alloc = allocations_db.create_allocation(self.context, {
            'resource_class': 'baremetal', 'state': 'allocating',
            'conductor_affinity': 'test-host', 'candidate_nodes':
            [self.node.uuid]})
        worker.process(alloc.id)
        self.alloc = allocations_db.get_allocation(self.context, alloc.uuid)

    def problems(self, stuck_after=60):
        return consistency.find_problems(self.context, 15, stuck_after)

    def execute(self, statement):
        with db_api.writer(self.context) as session:
            session.execute(statement)

    def test_healthy_fleet_has_no_problems(self):
        self.assertEqual('active', self.alloc.state)
        self.assertEqual([], self.problems())

    def test_node_held_by_two_allocations(self):
        self.execute(sa.insert(models.Allocation).values(
            uuid='5b8f6f38-3d2a-4b35-9d59-6f7d8a0e4b11', state='active',
            node_id=self.alloc.node_id, resource_class='baremetal',
            created_at=db_api.utcnow()))
        problems = self.problems()
        self.assertIn('node %s is held by 2 allocations' % self.node.uuid,
                      problems)

    def test_node_not_carrying_its_allocation(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(instance_uuid=None, allocation_id=None))
        self.assertEqual(['active allocation %s is not carried by its node '
                          '%s' % (self.alloc.uuid, self.node.uuid)],
                         self.problems())

    def test_error_allocation_holding_a_node(self):
        self.execute(sa.update(models.Allocation)
                     .where(models.Allocation.id == self.alloc.id)
                     .values(state='error'))
        problems = self.problems()
        self.assertIn('allocation %s in state error holds a node'
                      % self.alloc.uuid, problems)
        self.assertIn('node %s points at allocation %d, which is missing, '
                      'not active or not its own'
                      % (self.node.uuid, self.alloc.id), problems)

    def test_lock_of_dead_conductor(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(reservation='gone-host'))
        self.assertEqual(['node %s is locked by gone-host, which is not '
                          'alive' % self._n2_uuid()], self.problems())

    def test_node_driven_by_dead_conductor(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(pool_status='Building',
                             pool_conductor_affinity='gone-host'))
        self.assertEqual(['node %s in Building is driven by gone-host, '
                          'which is not alive' % self._n2_uuid()],
                         self.problems())
        # Driven by a live conductor: all is well.
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(pool_conductor_affinity='test-host'))
        self.assertEqual([], self.problems())

    def _n2_uuid(self):
        with db_api.reader(self.context) as session:
            return session.scalar(sa.select(models.Node.uuid)
                                  .where(models.Node.name == 'n2'))

    def test_stuck_allocation(self):
        alloc = allocations_db.create_allocation(self.context, {
            'resource_class': 'baremetal', 'state': 'allocating',
            'conductor_affinity': 'test-host'})
        self.assertEqual([], self.problems())
        self.execute(sa.update(models.Allocation)
                     .where(models.Allocation.id == alloc.id)
                     .values(created_at=db_api.utcnow()
                             - datetime.timedelta(seconds=120)))
        self.assertEqual(['allocation %s has been allocating for more than '
                          '60 s (conductor test-host)' % alloc.uuid],
                         self.problems())
