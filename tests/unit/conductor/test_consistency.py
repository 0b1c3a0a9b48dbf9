"""The consistency checks pool-dbsync check runs."""
import datetime

import sqlalchemy as sa

from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import consistency
from pool_conductor.db import models
from tests import base

OTHER_UUID = '0f1e2d3c-4b5a-4697-8877-665544332211'


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
                     .values(pool_status='Joining',
                             pool_conductor_affinity='gone-host'))
        self.assertEqual(['node %s in Joining is driven by gone-host, '
                          'which is not alive' % self._n2_uuid()],
                         self.problems())
        # Driven by a live conductor: all is well.
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(pool_conductor_affinity='test-host'))
        self.assertEqual([], self.problems())

    def test_building_node_driven_by_dead_conductor(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(pool_status='HoldBuild',
                             pool_conductor_affinity='gone-host'))
        self.assertEqual(['node %s in HoldBuild is driven by gone-host, '
                          'which is not alive' % self.node.uuid],
                         self.problems())

    # Pool statuses

    def test_node_with_instance_is_free(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(instance_uuid=OTHER_UUID))
        self.assertEqual(['node %s has an instance or an allocation but is '
                          'Free with pool_allocated False'
                          % self._n2_uuid()], self.problems())

    def test_node_with_allocation_is_free(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(pool_status='Free', pool_allocated=False))
        self.assertEqual(['node %s has an instance or an allocation but is '
                          'Free with pool_allocated False' % self.node.uuid],
                         self.problems())

    def test_node_with_allocation_is_not_pool_allocated(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(pool_allocated=False))
        self.assertEqual(
            ['node %s has an instance or an allocation but is InUse with '
             'pool_allocated False' % self.node.uuid,
             'node %s is not pool_allocated but InUse' % self.node.uuid],
            self.problems())

    def test_node_with_allocation_is_joining(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(pool_status='Joining'))
        self.assertEqual(
            ['node %s has an instance or an allocation but is Joining with '
             'pool_allocated True' % self.node.uuid,
             'node %s is pool_allocated but Joining' % self.node.uuid],
            self.problems())

    def test_allocated_node_in_workflow_is_healthy(self):
        for status in ('Building', 'HoldBuild', 'Destroying',
                       'HoldDestroy'):
            self.execute(sa.update(models.Node)
                         .where(models.Node.id == self.node.id)
                         .values(pool_status=status))
            self.assertEqual([], self.problems())

    def test_pool_allocated_node_is_free(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(pool_allocated=True))
        self.assertEqual(['node %s is pool_allocated but Free'
                          % self._n2_uuid()], self.problems())

    def test_unallocated_node_is_in_use(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(pool_status='InUse'))
        self.assertEqual(['node %s is not pool_allocated but InUse'
                          % self._n2_uuid()], self.problems())

    def test_unallocated_node_without_pool_status(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2')
                     .values(pool_status=None, pool_allocated=None))
        self.assertEqual(['node %s is not pool_allocated but None'
                          % self._n2_uuid()], self.problems())

    def test_unallocated_node_in_every_unallocated_status_is_healthy(self):
        for status in ('Free', 'Joining', 'HoldJoin', 'Leaving',
                       'HoldLeave'):
            self.execute(sa.update(models.Node)
                         .where(models.Node.name == 'n2')
                         .values(pool_status=status))
            self.assertEqual([], self.problems())

    # The instance of an allocated node

    def test_node_with_the_instance_of_another(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(instance_uuid=OTHER_UUID))
        self.assertEqual(['node %s has instance_uuid %s, not the uuid of '
                          'its allocation %s'
                          % (self.node.uuid, OTHER_UUID, self.alloc.uuid)],
                         self.problems())

    def test_node_with_allocation_and_no_instance(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.id == self.node.id)
                     .values(instance_uuid=None))
        self.assertEqual(['node %s has instance_uuid None, not the uuid of '
                          'its allocation %s'
                          % (self.node.uuid, self.alloc.uuid)],
                         self.problems())

    # Pools

    def test_node_in_no_pool(self):
        self.execute(sa.update(models.Node)
                     .where(models.Node.name == 'n2').values(pool=None))
        self.assertEqual(['node %s is in no pool' % self._n2_uuid()],
                         self.problems())

    def test_node_in_missing_pool(self):
        # The foreign key forbids it; a database restored in part, or one
        # that does not enforce foreign keys, can still hold it.
        conn = self.db.engine.raw_connection()
        try:
            conn.execute('PRAGMA foreign_keys=OFF')
            conn.execute("UPDATE nodes SET pool = 'gone' WHERE name = 'n2'")
            conn.commit()
        finally:
            conn.execute('PRAGMA foreign_keys=ON')
            conn.close()
        self.assertEqual(['node %s is in pool gone, which does not exist'
                          % self._n2_uuid()], self.problems())

    def test_pool_with_missing_parent(self):
        self.execute(sa.insert(models.Pool).values(
            name='web', parent_pool='gone', created_at=db_api.utcnow()))
        self.execute(sa.insert(models.Pool).values(
            name='db', parent_pool='default', created_at=db_api.utcnow()))
        self.assertEqual(['pool web has parent pool gone, which does not '
                          'exist'], self.problems())

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
