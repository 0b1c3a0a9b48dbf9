"""Workflow execution: the provisioners, and which conductor drives a node."""
import datetime
import time

import sqlalchemy as sa

from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor import pool_actions
from pool_conductor.db import pools as pools_db
from pool_conductor.db import workflows as workflows_db
from pool_conductor import exception
from pool_conductor import binding
from pool_conductor.provisioners import fake
from pool_conductor import rpc
from pool_conductor import service
from pool_conductor import workflows
from tests import base

STAGES = ['install', 'configure', 'complete']


class WorkflowTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(driver='fake', fake_stage_delay=0, group='provisioner')
        self.config(heartbeat_timeout=15, group='conductor')
        conductors_db.register_conductor(self.context, 'test-host')
        pools_db.create(self.context, models.Workflow,
                        {'name': 'deploy', 'stages': STAGES})
        pools_db.create(self.context, models.Workflow,
                        {'name': 'wipe', 'stages': ['erase', 'wiped']})

    def allocate(self, count=1, wait='complete', workflow='deploy',
                 params=None) -> list[str]:
        """Nodes allocated from the default pool into a workflow."""
        nodes = [self.create_node(params=params or {}) for _ in range(count)]
        pool_actions.allocate_machines(self.context, 'default',
                                       pool_actions.Request(
                                           count=count,
                                           actions={'workflow': workflow},
                                           wait_for_stage=wait))
        return [n.uuid for n in nodes]

    def node(self, uuid: str) -> models.Node:
        return nodes_db.get_node(self.context, uuid)

    def tick(self, host='test-host') -> None:
        workflows.check_workflows(self.context, host)

    def age_conductor(self, host, seconds=60):
        with db_api.writer(self.context) as session:
            session.execute(
                sa.update(models.Conductor)
                .where(models.Conductor.hostname == host)
                .values(updated_at=db_api.utcnow()
                        - datetime.timedelta(seconds=seconds)))

    def drive(self, uuid: str, host: str):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node)
                            .where(models.Node.uuid == uuid)
                            .values(pool_conductor_affinity=host))


class TestFakeProvisioner(WorkflowTestCase):

    def test_building_node_goes_through_stages_to_in_use(self):
        uuid, = self.allocate()
        node = self.node(uuid)
        self.assertEqual(('Building', None, None),
                         (node.pool_status, node.stage,
                          node.pool_conductor_affinity))
        seen = []
        for _ in range(5):
            self.tick()
            node = self.node(uuid)
            seen.append((node.stage, node.pool_status,
                         node.pool_conductor_affinity))
        self.assertEqual([('install', 'Building', 'test-host'),
                          ('configure', 'Building', 'test-host'),
                          ('complete', 'InUse', None),
                          ('complete', 'InUse', None),
                          ('complete', 'InUse', None)], seen)
        self.assertIsNone(node.pool_wait_stage)
        self.assertTrue(node.pool_allocated)
        self.assertIsNotNone(node.allocation_id)

    def test_wait_stage_in_the_middle_of_the_workflow(self):
        uuid, = self.allocate(wait='configure')
        self.tick()
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('configure', 'InUse'),
                         (node.stage, node.pool_status))

    def test_destroying_node_becomes_free(self):
        uuid, = self.allocate(wait=None)
        self.assertEqual('InUse', self.node(uuid).pool_status)
        pool_actions.return_machines(self.context, 'default',
                                     pool_actions.Request(
                                         machine_list=[uuid],
                                         actions={'workflow': 'wipe'},
                                         wait_for_stage='wiped'))
        self.assertEqual('Destroying', self.node(uuid).pool_status)
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('erase', 'Destroying', True),
                         (node.stage, node.pool_status,
                          node.pool_allocated))
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('wiped', 'Free', False, None),
                         (node.stage, node.pool_status, node.pool_allocated,
                          node.pool_conductor_affinity))

    def test_stage_delay(self):
        self.config(fake_stage_delay=3600, group='provisioner')
        uuid, = self.allocate()
        self.tick()
        node = self.node(uuid)
        self.assertEqual((None, 'Building'), (node.stage, node.pool_status))
        # Read at call time: a shorter delay applies at once.
        self.config(fake_stage_delay=0, group='provisioner')
        self.tick()
        self.assertEqual('install', self.node(uuid).stage)

    def test_fail_at_stage_holds_with_error(self):
        uuid, = self.allocate(params={fake.FAIL_AT_STAGE: 'configure'})
        for _ in range(4):
            self.tick()
        node = self.node(uuid)
        self.assertEqual(('configure', 'HoldBuild', False, 'test-host'),
                         (node.stage, node.pool_status, node.runnable,
                          node.pool_conductor_affinity))
        self.assertIn('Stage configure of workflow deploy failed',
                      node.last_error)

    def test_not_runnable_holds_and_resumes_when_runnable(self):
        uuid, = self.allocate(params={fake.NOT_RUNNABLE_AT_STAGE:
                                      'install'})
        self.tick()
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('install', 'HoldBuild', False, None),
                         (node.stage, node.pool_status, node.runnable,
                          node.last_error))
        # A report of runnable, as a node PATCH makes it.
        binding.report(self.context, node, {'runnable': True})
        self.assertEqual('Building', self.node(uuid).pool_status)
        self.tick()
        self.assertEqual(('configure', 'Building'),
                         (self.node(uuid).stage,
                          self.node(uuid).pool_status))
        self.tick()
        self.assertEqual('InUse', self.node(uuid).pool_status)

    def test_fail_at_the_wait_stage_then_runnable_is_in_use(self):
        uuid, = self.allocate(params={fake.FAIL_AT_STAGE: 'complete'})
        for _ in range(3):
            self.tick()
        node = self.node(uuid)
        self.assertEqual(('complete', 'HoldBuild'),
                         (node.stage, node.pool_status))
        binding.report(self.context, node, {'runnable': True})
        node = self.node(uuid)
        self.assertEqual(('InUse', None),
                         (node.pool_status, node.pool_conductor_affinity))

    def test_workflow_without_the_wait_stage_is_held(self):
        uuid, = self.allocate(wait='nowhere')
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('HoldBuild', None), (node.pool_status, node.stage))
        self.assertEqual('Workflow deploy has no stage nowhere to wait for',
                         node.last_error)

    def test_node_without_workflow_is_held(self):
        uuid, = self.allocate(workflow=None)
        self.tick()
        node = self.node(uuid)
        self.assertEqual('HoldBuild', node.pool_status)
        self.assertEqual('The node has no workflow', node.last_error)

    def test_node_already_at_the_wait_stage_is_in_use(self):
        node = self.create_node(workflow='deploy', stage='complete')
        body = pool_actions.allocate_machines(
            self.context, 'default',
            pool_actions.Request(wait_for_stage='complete'))
        # Through at once: no conductor round is needed.
        self.assertEqual('InUse', body[0]['status'])
        node = self.node(node.uuid)
        self.assertEqual(('InUse', None, None),
                         (node.pool_status, node.pool_wait_stage,
                          node.pool_conductor_affinity))

    def test_provisioner_error_holds_the_node(self):
        uuid, = self.allocate()

        def broken(*args):
            raise RuntimeError('disk on fire')

        self.patch(fake.FakeProvisioner, 'advance', broken)
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('HoldBuild', False),
                         (node.pool_status, node.runnable))
        self.assertEqual('Unexpected error of the provisioner: disk on fire',
                         node.last_error)

    def test_the_node_is_locked_while_the_provisioner_works_on_it(self):
        uuid, = self.allocate()
        seen = []
        real = fake.FakeProvisioner.advance

        def advance(provisioner, context, node, host):
            seen.append(self.node(uuid).reservation)
            if len(seen) == 2:
                raise RuntimeError('disk on fire')
            return real(provisioner, context, node, host)

        self.patch(fake.FakeProvisioner, 'advance', advance)
        self.tick()
        self.assertEqual(['test-host'], seen)
        self.assertIsNone(self.node(uuid).reservation)
        # A node locked by another is left alone.
        self.assertTrue(nodes_db.reserve(self.context, self.node(uuid).id,
                                         'other-host'))
        self.tick()
        self.assertEqual(['test-host'], seen)
        nodes_db.unreserve(self.context, self.node(uuid).id, 'other-host')
        # Released after an error too.
        self.tick()
        self.assertEqual(['test-host', 'test-host'], seen)
        node = self.node(uuid)
        self.assertEqual((None, 'HoldBuild'),
                         (node.reservation, node.pool_status))

    def test_forced_return_of_a_building_node_is_not_driven_any_more(self):
        uuid, = self.allocate()
        self.tick()
        self.assertEqual('test-host', self.node(uuid).pool_conductor_affinity)
        pool_actions.return_machines(self.context, 'default',
                                     pool_actions.Request(
                                         machine_list=[uuid], force=True))
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('Free', None, 'install'),
                         (node.pool_status, node.pool_conductor_affinity,
                          node.stage))


class TestExternalProvisioner(WorkflowTestCase):

    def setUp(self):
        super().setUp()
        self.config(driver='external', group='provisioner')

    def test_nothing_moves_without_reports(self):
        uuid, = self.allocate()
        for _ in range(4):
            self.tick()
        node = self.node(uuid)
        self.assertEqual(('Building', None, True, 'test-host'),
                         (node.pool_status, node.stage, node.runnable,
                          node.pool_conductor_affinity))
        # A report moves it, and it is no conductor's any more.
        binding.report(self.context, node, {'stage': 'complete'})
        node = self.node(uuid)
        self.assertEqual(('InUse', None),
                         (node.pool_status, node.pool_conductor_affinity))

    def test_unknown_provisioner(self):
        self.config(driver='nope', group='provisioner')
        self.assertRaises(exception.ProvisionerNotFound,
                          workflows.advance_nodes, self.context, 'test-host')
        svc = service.ConductorService('test-host')
        self.assertRaises(exception.ProvisionerNotFound, svc.start)
        # The periodic task logs it and goes on.
        self.tick()


class TestClaims(WorkflowTestCase):

    def test_one_of_two_conductors_claims_a_node(self):
        conductors_db.register_conductor(self.context, 'other-host')
        uuids = self.allocate(count=3)
        alive = ['other-host', 'test-host']
        claimed = workflows_db.take_nodes(self.context, 'test-host', alive,
                                           10)
        self.assertEqual(sorted((u, None) for u in uuids), sorted(claimed))
        self.assertEqual([], workflows_db.take_nodes(
            self.context, 'other-host', alive, 10))
        self.assertEqual(0, workflows.take_nodes(self.context,
                                                  'other-host'))
        # The other conductor does not move them.
        self.tick('other-host')
        self.assertEqual({None}, {self.node(u).stage for u in uuids})

    def test_claims_in_batches(self):
        self.patch(workflows, 'CLAIM_BATCH', 2)
        uuids = self.allocate(count=5)
        self.assertEqual(5, workflows.take_nodes(self.context, 'test-host'))
        self.assertEqual({'test-host'},
                         {self.node(u).pool_conductor_affinity
                          for u in uuids})

    def test_moving_a_node_is_a_compare_and_swap(self):
        conductors_db.register_conductor(self.context, 'other-host')
        uuid, = self.allocate()
        workflows.take_nodes(self.context, 'test-host')
        row, = workflows_db.list_driven_nodes(self.context, 'test-host')
        # Another conductor cannot move a node it does not drive.
        self.assertFalse(binding.report_driven(
            self.context, row, 'other-host', {'stage': 'install'}))
        self.assertTrue(binding.report_driven(
            self.context, row, 'test-host', {'stage': 'install'}))
        # The same move from the same reading again: the stage changed.
        self.assertFalse(binding.report_driven(
            self.context, row, 'test-host', {'stage': 'install'}))
        self.assertEqual('install', self.node(uuid).stage)

    def test_dead_conductors_nodes_are_taken_over(self):
        conductors_db.register_conductor(self.context, 'dead-host')
        self.age_conductor('dead-host')
        uuid, held = self.allocate(count=2)
        self.drive(uuid, 'dead-host')
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node)
                            .where(models.Node.uuid == held)
                            .values(pool_status='HoldBuild',
                                    pool_conductor_affinity='dead-host'))
        with self.assertLogs('pool_conductor.workflows', 'INFO') as logs:
            self.assertEqual(2, workflows.take_nodes(self.context,
                                                      'test-host'))
        self.assertIn('Took over node %s from dead conductor dead-host'
                      % uuid, '\n'.join(logs.output))
        self.assertEqual('test-host', self.node(held).pool_conductor_affinity)
        for _ in range(3):
            self.tick()
        self.assertEqual('InUse', self.node(uuid).pool_status)

    def test_live_conductors_nodes_are_not_taken(self):
        conductors_db.register_conductor(self.context, 'other-host')
        uuid, = self.allocate()
        self.drive(uuid, 'other-host')
        self.assertEqual(0, workflows.take_nodes(self.context, 'test-host'))
        self.tick()
        node = self.node(uuid)
        self.assertEqual(('other-host', None),
                         (node.pool_conductor_affinity, node.stage))

    def test_no_claims_while_own_heartbeat_is_stale(self):
        conductors_db.register_conductor(self.context, 'dead-host')
        self.age_conductor('dead-host')
        orphan, new = self.allocate(count=2)
        self.drive(orphan, 'dead-host')
        self.age_conductor('test-host')
        self.assertEqual(0, workflows.take_nodes(self.context, 'test-host'))
        self.tick()
        self.assertEqual(('dead-host', None),
                         (self.node(orphan).pool_conductor_affinity,
                          self.node(new).pool_conductor_affinity))


class TestConductorService(WorkflowTestCase):

    def setUp(self):
        super().setUp()
        self.config(check_workflows_interval=0.05,
                    check_allocations_interval=0, heartbeat_interval=1,
                    group='conductor')
        self.addCleanup(rpc.cleanup)

    def wait_for(self, predicate, timeout=15.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.05)
        return False

    def test_restart_resumes_own_nodes(self):
        self.config(fake_stage_delay=0.1, group='provisioner')
        uuid, = self.allocate()
        self.drive(uuid, 'test-host')
        svc = service.ConductorService('test-host')
        svc.start()
        self.addCleanup(svc.stop)
        self.assertTrue(self.wait_for(
            lambda: self.node(uuid).pool_status == 'InUse'))
        self.assertEqual('complete', self.node(uuid).stage)

    def test_disabled_check_drives_nothing(self):
        self.config(check_workflows_interval=0, group='conductor')
        uuid, = self.allocate()
        svc = service.ConductorService('test-host')
        svc.start()
        self.addCleanup(svc.stop)
        time.sleep(0.5)
        node = self.node(uuid)
        self.assertEqual(('Building', None),
                         (node.pool_status, node.pool_conductor_affinity))
