"""The one writer of the binding: each of its calls leaves the fleet
consistent, and no other module writes what it owns."""
import uuid

from sqlalchemy.dialects import postgresql

from pool_conductor import binding
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import consistency
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import workflows as workflows_db
from pool_conductor import pools
from tests import base

# The statements that write the binding and pool membership.

class BindingTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'test-host')
        pools_db.create(self.context, models.Workflow,
                        {'name': 'join', 'stages': ['start', 'done']})
        pools.create_pool(self.context, {'name': 'lab'})
        pools.create_pool(self.context, {
            'name': 'staged', 'enter_actions': {'workflow': 'join',
                                                'wait_for_stage': 'done'}})

    def tearDown(self):
        self.assertEqual([], consistency.find_problems(self.context, 15, 60))
        super().tearDown()

    def locked(self, *nodes):
        return binding_db.lock_nodes(self.conn, [n.id for n in nodes])

    def write(self, work):
        with db_api.writer_connection(self.context) as self.conn:
            return work()

    def node(self, name):
        return nodes_db.get_node(self.context, name)

    def test_grant_inserts_the_allocation_and_binds_both_sides(self):
        self.create_node(name='n1', traits=['CUSTOM_A'])
        instance = str(uuid.uuid4())
        self.assertTrue(self.write(lambda: binding.grant(self.conn, [
            binding.Grant(node=self.locked(self.node('n1'))[0],
                          instance_uuid=instance, traits=('CUSTOM_A',),
                          allocation={'resource_class': 'baremetal',
                                      'owner': 'p1'})], free=True)))
        node = self.node('n1')
        alloc = allocations_db.get_allocation(self.context, instance)
        self.assertEqual(('active', node.id, ['CUSTOM_A'], 'p1'),
                         (alloc.state, alloc.node_id, alloc.traits,
                          alloc.owner))
        self.assertEqual((instance, alloc.id, 'InUse', True,
                          {'traits': ['CUSTOM_A']}),
                         (node.instance_uuid, node.allocation_id,
                          node.pool_status, node.pool_allocated,
                          node.instance_info))

    def test_grant_of_a_node_that_is_not_free_changes_nothing(self):
        self.create_node(name='n1', maintenance=True)
        self.assertFalse(self.write(lambda: binding.grant(self.conn, [
            binding.Grant(node=self.locked(self.node('n1'))[0],
                          instance_uuid=str(uuid.uuid4()))], free=True)))
        self.assertIsNone(self.node('n1').instance_uuid)

    def test_release_frees_the_node_and_deletes_the_allocation(self):
        self.create_node(name='n1')
        instance = str(uuid.uuid4())
        self.write(lambda: binding.grant(self.conn, [binding.Grant(
            node=self.locked(self.node('n1'))[0], instance_uuid=instance,
            allocation={'resource_class': 'baremetal'})]))
        self.write(lambda: binding.release(self.conn,
                                           self.locked(self.node('n1'))))
        node = self.node('n1')
        self.assertEqual((None, None, 'Free', False),
                         (node.instance_uuid, node.allocation_id,
                          node.pool_status, node.pool_allocated))
        self.assertEqual([], allocations_db.list_allocations(self.context,
                                                             {}))

    def test_move_then_reports_bring_the_node_in(self):
        self.create_node(name='n1')
        self.write(lambda: binding.move(self.conn,
                                        self.locked(self.node('n1')), 'lab'))
        self.assertEqual(('lab', 'Free'), (self.node('n1').pool,
                                           self.node('n1').pool_status))
        self.write(lambda: binding.move(self.conn,
                                        self.locked(self.node('n1')),
                                        'staged'))
        node = self.node('n1')
        self.assertEqual(('staged', 'Joining', 'join'),
                         (node.pool, node.pool_status, node.workflow))
        # The API's report of a stage that is not the one waited for
        # leaves it Joining; the conductor driving it reports the one.
        binding.report(self.context, node, {'stage': 'start'})
        self.assertEqual('Joining', self.node('n1').pool_status)
        workflows_db.take_nodes(self.context, 'test-host', ['test-host'],
                                10)
        driven, = workflows_db.list_driven_nodes(self.context, 'test-host')
        self.assertTrue(binding.report_driven(self.context, driven,
                                              'test-host', {'stage': 'done'}))
        node = self.node('n1')
        self.assertEqual(('Free', 'done'), (node.pool_status, node.stage))
        self.assertIsNotNone(node.stage_updated_at)

    def test_report_through_the_api_moves_a_waiting_node(self):
        self.create_node(name='n1')
        self.write(lambda: binding.move(self.conn,
                                        self.locked(self.node('n1')),
                                        'staged'))
        binding.report(self.context, self.node('n1'), {'stage': 'done'})
        self.assertEqual('Free', self.node('n1').pool_status)


class OneWriterTestCase(base.TestCase):
    """Only binding.py calls the write statements of db/binding.py:
    tests/unit/test_layout.py checks it, whatever the alias."""

    def test_node_updates_refuse_the_binding_columns(self):
        node = self.create_node(name='n1')
        for column in sorted(binding_db.BINDING_COLUMNS):
            self.assertRaises(ValueError, nodes_db.update_node,
                              self.context, node, {column: None})


class NodeLockTestCase(base.TestCase):
    """The one lock of one node: FOR UPDATE, SKIP LOCKED where the
    backend has it and the caller asks (SQLite drops both, so the
    statement is read as PostgreSQL gets it)."""

    def statement(self, backend: bool = True, **kwargs) -> str:
        seen = []

        class Conn:
            def execute(self, q):
                seen.append(str(q.compile(dialect=postgresql.dialect())))
                return self

            def first(self):
                return None

        self.patch(db_api, 'backend_supports_skip_locked',
                   lambda conn: backend)
        binding_db.lock_node(Conn(), 7, **kwargs)
        return seen[0]

    def test_skip_locked_where_the_backend_has_it(self):
        self.assertTrue(self.statement().endswith('FOR UPDATE SKIP LOCKED'))
        self.assertTrue(self.statement(False).endswith('FOR UPDATE'))

    def test_waiting_for_the_lock_when_asked(self):
        self.assertTrue(self.statement(skip_locked=False).endswith(
            'FOR UPDATE'))

    def test_the_row_of_the_node_locked(self):
        node = self.create_node(name='n1')
        with db_api.writer_connection(self.context) as conn:
            self.assertEqual('n1', binding_db.lock_node(conn, node.id).name)
            self.assertIsNone(binding_db.lock_node(conn, node.id + 100))
