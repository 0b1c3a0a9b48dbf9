"""Hardware shared with an external manager: the claim while a node is in
use, and the reconciler, against the fake manager."""
import datetime
import os
import tempfile
import types

from pool_conductor import allocator
from pool_conductor.allocator import AllocationWorker
from pool_conductor.baremetal import provisioning
from pool_conductor import binding
from pool_conductor import conductors
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor.db import external as external_db
from pool_conductor.db import nodes as nodes_db
from pool_conductor import events
from pool_conductor import external
from pool_conductor.external_managers import base as ext_base
from pool_conductor.external_managers import fake
from pool_conductor import external_observations
from tests.unit.api import base


def recorded(context, **filters):
    events.sequence()
    return list(events_db.after(context, 0, filters, 10000))


class ExternalTestBase(base.APITestCase):

    def setUp(self):
        super().setUp()
        fd, self.world = tempfile.mkstemp(prefix='pool-fake-manager-')
        os.close(fd)
        self.addCleanup(os.unlink, self.world)
        self.config(free_confirmations=2, unknown_threshold=3,
                    gone_grace=0, group='external_manager')
        resp = self.post('/v1/external_managers', {
            'name': 'other', 'driver': 'fake',
            'parameters': {'path': self.world, 'password': 'hunter2'}})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)
        self.reconciler = external.Reconciler('test-host')
        conductors.register(self.context, 'test-host', start=True)

    def shared_node(self, ref, **values):
        fake.add(self.world, ref)
        return self.create_node(external_manager='other', external_ref=ref,
                                **values)

    def node(self, node):
        return nodes_db.get_node(self.context, node.uuid)

    def allocate(self, **values):
        values.setdefault('resource_class', 'baremetal')
        alloc = allocations_db.create_allocation(
            self.context, dict(values, state='allocating',
                               conductor_affinity='test-host'))
        outcome = self.worker.process(alloc.id)
        return outcome, allocations_db.get_allocation(self.context,
                                                      alloc.uuid)

    def round(self):
        done = self.reconciler.check(self.context, force=True)
        provisioning.continue_nodes(
            self.context, [i for r in done.values() for i in r.provided])
        return done.get('other')


class AllocationPathTestCase(ExternalTestBase):

    def test_acquired_before_active_with_the_spec_recorded(self):
        node = self.shared_node('sh-1', properties={
            'external_spec': {'template': 'web'}})
        outcome, alloc = self.allocate()
        self.assertEqual(allocator.ALLOCATED, outcome)
        self.assertEqual('active', alloc.state)
        found = fake.resources(self.world)['sh-1']
        self.assertEqual(('pool', alloc.uuid, {'template': 'web'}),
                         (found['owner'], found['token'], found['spec']))
        node = self.node(node)
        self.assertEqual((alloc.uuid, 'ours'),
                         (node.external_claim, node.external_state))
        self.assertEqual({'template': 'web'},
                         node.instance_info['external_spec'])
        self.assertIn('pool.node.external.acquire.success', [
            e.event_type for e in recorded(self.context,
                                           object_uuid=node.uuid)])

    def test_a_node_taken_while_choosing_costs_a_retry(self):
        taken = self.shared_node('sh-1')
        free = self.shared_node('sh-2')
        fake.take(self.world, 'sh-1')
        # Whichever node the worker tries first, it ends on the free one.
        outcome, alloc = self.allocate(candidate_nodes=[taken.uuid,
                                                        free.uuid])
        self.assertEqual(allocator.ALLOCATED, outcome)
        self.assertEqual(free.uuid, alloc.node_uuid)
        outcome, alloc = self.allocate(candidate_nodes=[taken.uuid])
        self.assertEqual('error', alloc.state)
        taken = self.node(taken)
        self.assertEqual((True, 'external hold', 'manageable', 'theirs'),
                         (taken.maintenance, taken.fault,
                          taken.provision_state, taken.external_state))

    def test_named_taken_node_is_held_and_the_allocation_fails_cleanly(self):
        node = self.shared_node('sh-1', name='wanted')
        fake.take(self.world, 'sh-1')
        outcome, alloc = self.allocate(candidate_nodes=[node.uuid])
        self.assertEqual(allocator.FAILED, outcome)
        self.assertIn('taken by another user', alloc.last_error)
        self.assertEqual('external hold', self.node(node).fault)
        self.assertIn('pool.node.external.taken', [
            e.event_type for e in recorded(self.context,
                                           object_uuid=node.uuid)])

    def test_stale_claim_of_a_crash_is_released_before_acquiring(self):
        node = self.shared_node('sh-1')
        # A conductor acquired for another allocation, then died before
        # committing: the manager says pool's, the node records nothing.
        driver = fake.FakeExternalManager()
        driver.acquire({'path': self.world}, 'sh-1', 'dead-key', {})
        outcome, alloc = self.allocate()
        self.assertEqual(node.uuid, alloc.node_uuid)
        self.assertEqual(alloc.uuid,
                         fake.resources(self.world)['sh-1']['token'])

    def test_unknown_nodes_are_passed_over(self):
        node = self.shared_node('sh-1')
        fake.set_failing(self.world, True)
        for _ in range(3):
            self.round()
        self.assertEqual('unknown', self.node(node).external_state)
        outcome, alloc = self.allocate()
        self.assertEqual(allocator.FAILED, outcome)
        self.assertIn('unknown', alloc.last_error)
        self.config(unknown_blocks_allocation=False,
                    group='external_manager')
        fake.set_failing(self.world, False)
        outcome, alloc = self.allocate()
        self.assertEqual(allocator.ALLOCATED, outcome)

    def test_released_at_once_when_never_deployed(self):
        node = self.shared_node('sh-1')
        _, alloc = self.allocate()
        self.assertEqual(204, self.delete('/v1/allocations/%s'
                                          % alloc.uuid).status_code)
        self.assertEqual('none', fake.resources(self.world)['sh-1']['owner'])
        node = self.node(node)
        self.assertEqual((None, 'free'),
                         (node.external_claim, node.external_state))

    def test_released_after_cleaning_not_before(self):
        node = self.shared_node('sh-1')
        _, alloc = self.allocate()
        self.put('/v1/nodes/%s/states/provision' % node.uuid,
                 {'target': 'active'})
        self.finish_provisioning()
        self.assertEqual('active', self.node(node).provision_state)
        self.put('/v1/nodes/%s/states/provision' % node.uuid,
                 {'target': 'deleted'})
        # Deleting, then cleaning: the hardware stays pool's until the
        # node is clean.
        node_id = self.node(node).id
        binding.provision_step(self.context, node_id, provisioning.step)
        self.assertEqual('cleaning', self.node(node).provision_state)
        self.assertEqual('pool', fake.resources(self.world)['sh-1']['owner'])
        self.provision_casts = [(node_id, 'test-host')]
        self.finish_provisioning()
        node = self.node(node)
        self.assertEqual(('available', None),
                         (node.provision_state, node.external_claim))
        self.assertEqual('none', fake.resources(self.world)['sh-1']['owner'])


class ReconcilerTestCase(ExternalTestBase):

    def test_one_observation_per_manager_per_round(self):
        for i in range(5):
            self.shared_node('sh-%d' % i)
        self.config(observe_batch_size=2, group='external_manager')
        done = self.round()
        self.assertEqual((5, 3), (done.observed, done.calls))
        self.assertEqual(3, fake.calls(self.world)['observe'])

    def test_taken_while_available_is_held_then_freed_through_cleaning(self):
        node = self.shared_node('sh-1')
        self.round()
        self.assertEqual('free', self.node(node).external_state)
        fake.take(self.world, 'sh-1')
        self.round()
        held = self.node(node)
        self.assertEqual((True, 'external hold', 'manageable', 'theirs'),
                         (held.maintenance, held.fault,
                          held.provision_state, held.external_state))
        # The hold is the reconciler's to clear.
        self.assertEqual(409, self.delete('/v1/nodes/%s/maintenance'
                                          % node.uuid).status_code)
        fake.free(self.world, 'sh-1')
        self.round()
        self.assertEqual('external hold', self.node(node).fault)
        self.round()
        freed = self.node(node)
        self.assertEqual((False, None, 'available'),
                         (freed.maintenance, freed.fault,
                          freed.provision_state))
        story = [(e.event_type, e.prev_state, e.state)
                 for e in recorded(self.context, object_uuid=node.uuid)]
        self.assertIn(('pool.node.external.taken', 'free', 'theirs'), story)
        self.assertIn(('pool.node.external.freed', 'free', 'free'), story)
        # Through cleaning, which is not skipped.
        self.assertIn(('baremetal.node.provision_set.start', 'manageable',
                       'cleaning'), story)
        self.assertIn(('baremetal.node.provision_set.end', 'cleaning',
                       'available'), story)

    def test_flapping_is_not_freed(self):
        node = self.shared_node('sh-1')
        fake.take(self.world, 'sh-1')
        self.round()
        for _ in range(3):
            fake.free(self.world, 'sh-1')
            self.round()
            fake.take(self.world, 'sh-1')
            self.round()
        self.assertEqual('external hold', self.node(node).fault)

    def test_operator_maintenance_is_never_touched(self):
        node = self.shared_node('sh-1')
        self.put('/v1/nodes/%s/maintenance' % node.uuid,
                 {'reason': 'fan'})
        fake.take(self.world, 'sh-1')
        self.round()
        fake.free(self.world, 'sh-1')
        for _ in range(3):
            self.round()
        node = self.node(node)
        self.assertEqual((True, 'fan', None, 'available'),
                         (node.maintenance, node.maintenance_reason,
                          node.fault, node.provision_state))

    def test_taken_under_an_active_allocation_is_a_conflict(self):
        node = self.shared_node('sh-1')
        _, alloc = self.allocate()
        self.put('/v1/nodes/%s/states/provision' % node.uuid,
                 {'target': 'active'})
        self.finish_provisioning()
        fake.take(self.world, 'sh-1')
        self.round()
        node = self.node(node)
        self.assertEqual(('external conflict', 'active', alloc.uuid),
                         (node.fault, node.provision_state,
                          node.instance_uuid))
        self.assertEqual('active', allocations_db.get_allocation(
            self.context, alloc.uuid).state)
        self.assertEqual('error', recorded(
            self.context, object_uuid=node.uuid,
            event_type='pool.node.external.conflict')[0].level)

    def test_taken_while_cleaning_is_held(self):
        node = self.shared_node('sh-1')
        fake.take(self.world, 'sh-1')
        self.round()
        fake.free(self.world, 'sh-1')
        self.round()
        self.reconciler.check(self.context, force=True)  # freed: cleaning
        self.assertEqual('cleaning', self.node(node).provision_state)
        fake.take(self.world, 'sh-1')
        self.round()
        node = self.node(node)
        self.assertEqual(('manageable', 'external hold'),
                         (node.provision_state, node.fault))

    def test_gone_is_held_after_grace(self):
        self.config(gone_grace=3600, group='external_manager')
        node = self.shared_node('sh-1')
        fake.remove(self.world, 'sh-1')
        self.round()
        self.assertEqual(('gone', None), (self.node(node).external_state,
                                          self.node(node).fault))
        self.config(gone_grace=0, group='external_manager')
        self.round()
        self.assertEqual('external gone', self.node(node).fault)

    def test_outage_changes_no_node_then_unknown(self):
        held = self.shared_node('sh-1')
        free = self.shared_node('sh-2')
        fake.take(self.world, 'sh-1')
        self.round()
        before = {n.uuid: (n.maintenance, n.fault, n.provision_state)
                  for n in (self.node(held), self.node(free))}
        fake.set_failing(self.world, True)
        fake.free(self.world, 'sh-1')
        for _ in range(5):
            done = self.round()
            self.assertIsNotNone(done.error)
        after = {n.uuid: (n.maintenance, n.fault, n.provision_state)
                 for n in (self.node(held), self.node(free))}
        self.assertEqual(before, after)
        self.assertEqual('unknown', self.node(free).external_state)
        status = self.get('/v1/external_managers/other/status').get_json()
        self.assertEqual((5, 2), (status['error_streak'],
                                  status['states']['unknown']))

    def test_stale_claim_on_an_available_node_is_released(self):
        self.shared_node('sh-1')
        driver = fake.FakeExternalManager()
        driver.acquire({'path': self.world}, 'sh-1', 'crashed', {})
        done = self.round()
        self.assertEqual(1, done.released)
        self.assertEqual('none', fake.resources(self.world)['sh-1']['owner'])

    def test_release_never_frees_a_claim_not_ours(self):
        driver = fake.FakeExternalManager()
        fake.add(self.world, 'sh-1')
        fake.take(self.world, 'sh-1', 'theirs-token')
        driver.release({'path': self.world}, 'sh-1', 'theirs-token-not')
        self.assertEqual('other', fake.resources(self.world)['sh-1']['owner'])

    def test_a_dead_conductors_manager_is_taken_over(self):
        self.shared_node('sh-1')
        self.round()
        with db_api.writer_connection(self.context) as conn:
            external_db.take_manager(conn, 'other', 'test-host', 'dead')
        done = self.reconciler.check(self.context)
        self.assertEqual(['other'], list(done))
        self.assertTrue(recorded(self.context,
                                 event_type='pool.conductor.takeover'))


    def test_a_takeover_runs_that_manager_only(self):
        self.post('/v1/external_managers', {
            'name': 'second', 'driver': 'fake',
            'parameters': {'path': self.world}})
        self.assertEqual({'other', 'second'}, set(self.reconciler.check(
            self.context)))
        # Within sync_interval nothing is due.
        self.assertEqual({}, self.reconciler.check(self.context))
        with db_api.writer_connection(self.context) as conn:
            external_db.take_manager(conn, 'other', 'test-host', 'dead')
        self.assertEqual(['other'], list(self.reconciler.check(
            self.context)))


class DecideTestCase(base.APITestCase):
    """decide() alone: what each observation changes."""

    NOW = datetime.datetime(2026, 11, 26)

    def node(self, **values):
        fields = {'uuid': 'u', 'name': None, 'external_manager': 'm',
                  'external_claim': None, 'external_state': 'free',
                  'external_state_since': self.NOW,
                  'external_free_streak': 0, 'maintenance': False,
                  'fault': None, 'provision_state': 'available',
                  'instance_uuid': None, 'allocation_id': None}
        fields.update(values)
        return types.SimpleNamespace(**fields)

    def decide(self, node, owner, token=None):
        return external_observations.decide(
            node, ext_base.Observation(owner, token), self.NOW, 2, 60)

    def test_nothing_changes_nothing(self):
        self.assertIsNone(self.decide(self.node(), 'none'))
        self.assertIsNone(self.decide(self.node(
            external_claim='t', external_state='ours',
            instance_uuid='i', provision_state='active'), 'pool', 't'))

    def test_free_streak_counts(self):
        held = self.node(maintenance=True, fault='external hold',
                         provision_state='manageable',
                         external_state='theirs')
        first = self.decide(held, 'none')
        self.assertEqual(1, first.values['external_free_streak'])
        self.assertFalse(first.provide)
        second = self.decide(self.node(**{**vars(held),
                                          'external_free_streak': 1}),
                             'none')
        self.assertTrue(second.provide)
        self.assertEqual('cleaning', second.values['provision_state'])

    def test_lost_claim_under_use_is_a_conflict(self):
        decision = self.decide(self.node(
            external_claim='t', external_state='ours', instance_uuid='i',
            provision_state='active'), 'none')
        self.assertEqual(('claim_lost', 'external conflict'),
                         (decision.action, decision.values['fault']))


class MetricsTestCase(ExternalTestBase):

    def test_nodes_counted_by_manager_and_external_state(self):
        self.shared_node('sh-1')
        self.shared_node('sh-2')
        self.shared_node('sh-3')
        fake.take(self.world, 'sh-1')
        self.round()
        self.shared_node('sh-4')
        text = self.get('/metrics').get_data(as_text=True)
        found = sorted(line for line in text.splitlines()
                       if line.startswith('pool_external_nodes{'))
        self.assertEqual([
            'pool_external_nodes{manager="other",state="free"} 2.0',
            'pool_external_nodes{manager="other",state="theirs"} 1.0',
            'pool_external_nodes{manager="other",state="unknown"} 1.0'],
            found)


class OtherGrantingPathsTestCase(ExternalTestBase):
    """Pool actions and claims give nodes without acquiring their
    hardware: they pass over shared nodes."""

    def test_allocate_machines_passes_over_shared_nodes(self):
        self.shared_node('sh-1')
        plain = self.create_node()
        resp = self.post('/v1/pools/default/allocateMachines', {
            'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual([plain.uuid], [m['uuid'] for m in resp.get_json()])
        self.assertEqual('none', fake.resources(self.world)['sh-1']['owner'])

    def test_allocate_machines_refuses_a_named_shared_node(self):
        self.shared_node('sh-1', name='shared')
        self.assertError(400, self.post(
            '/v1/pools/default/allocateMachines',
            {'machine_list': ['shared']}), 'external manager')
        self.assertEqual('none', fake.resources(self.world)['sh-1']['owner'])
