"""Hardware shared with an external manager, on two conductors over
PostgreSQL and MariaDB: holds within a round, frees through cleaning, the
race with the other user, a conductor killed between a remote acquire
and its commit, no double acquire, and an outage that changes no node.
The manager is the fake one, whose resources are a file every process
shares."""
import json
import os
import signal
import time

import fixtures
import testtools

from pool_conductor.external_managers import fake
from tests.functional import cluster

NODES = 4
SYNC = 1
# Two loaded cores, a takeover after heartbeat_timeout (5 s), and rounds.
WINDOW = 90


class ExternalClusterMixin(cluster.ClusterTestMixin):

    SECTIONS = {'external_manager': {'sync_interval': SYNC,
                                     'free_confirmations': 2,
                                     'unknown_threshold': 3,
                                     'gone_grace': 0}}

    def setUp(self):
        super().setUp()
        self.world = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'world.json')
        self.refs = ['sh-%d' % i for i in range(NODES)]
        fake.add(self.world, *self.refs)
        self.manager(path=self.world)
        self.uuids = self.enroll(NODES, 'shared')
        for uuid, ref in zip(self.uuids, self.refs, strict=True):
            self.request('PATCH', '/v1/nodes/%s' % uuid, [
                {'op': 'add', 'path': '/external_manager', 'value': 'lab'},
                {'op': 'add', 'path': '/external_ref', 'value': ref}])
        self.wait_for(lambda: all(n['external_state'] == 'free'
                                  for n in self.nodes()))

    def manager(self, **parameters):
        self.request('POST', '/v1/external_managers', {
            'name': 'lab', 'driver': 'fake', 'parameters': parameters},
            expected=201)

    def set_parameters(self, **parameters):
        self.request('PATCH', '/v1/external_managers/lab', [
            {'op': 'add', 'path': '/parameters', 'value': {
                'path': self.world, **parameters}}])

    def nodes(self):
        return self.request('GET', '/v1/nodes/detail')['nodes']

    def node(self, uuid):
        return self.request('GET', '/v1/nodes/%s' % uuid)

    def wait_for(self, check, timeout=WINDOW):
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                self.fail('timed out; nodes: %s; world: %s' % (
                    json.dumps(self.nodes())[:3000],
                    fake.resources(self.world)))
            time.sleep(0.2)

    def allocation(self, uuid):
        return self.request('GET', '/v1/allocations/%s' % uuid)

    def no_stale_claims(self):
        """Pool's claims there are exactly those of its nodes in use."""
        claimed = {n['external_ref']: n['external_claim']
                   for n in self.nodes() if n['external_claim']}
        ours = {ref: item['token'] for ref, item in
                fake.resources(self.world).items()
                if item['owner'] == 'pool'}
        return claimed == ours

    def test_taken_is_held_within_a_round_and_freed_through_cleaning(self):
        uuid, ref = self.uuids[0], self.refs[0]
        fake.take(self.world, ref)
        taken_at = time.monotonic()
        self.wait_for(lambda: self.node(uuid)['fault'] == 'external hold')
        # One round is SYNC seconds, plus a tick of the periodic task.
        self.assertLess(time.monotonic() - taken_at, 4 * SYNC + 5)
        node = self.node(uuid)
        self.assertEqual((True, 'manageable', 'theirs'),
                         (node['maintenance'], node['provision_state'],
                          node['external_state']))
        self.request('DELETE', '/v1/nodes/%s/maintenance' % uuid,
                     expected=409)
        fake.free(self.world, ref)
        self.wait_for(lambda: self.node(uuid)['provision_state']
                      == 'available')
        node = self.node(uuid)
        self.assertEqual((False, None), (node['maintenance'], node['fault']))
        history = self.request('GET', '/v1/nodes/%s/history?detail=true'
                               % uuid)
        story = [(e['event_type'], e.get('prev_state'), e.get('state'))
                 for e in history['history']]
        self.assertIn(('baremetal.node.provision_set.start', 'manageable',
                       'cleaning'), story)
        # Allocatable again.
        alloc = self.request('POST', '/v1/allocations', {
            'resource_class': 'shared', 'candidate_nodes': [uuid]},
            expected=201)
        self.wait_for(lambda: self.allocation(alloc['uuid'])['state']
                      == 'active')

    def test_race_ends_on_another_node_without_a_failed_deploy(self):
        # The reconciler looks no more: only the allocation sees it.
        self.request('PATCH', '/v1/external_managers/lab', [
            {'op': 'add', 'path': '/sync_interval', 'value': 3600}])
        time.sleep(2 * SYNC + 1)
        fake.take(self.world, self.refs[0])
        alloc = self.request('POST', '/v1/allocations', {
            'resource_class': 'shared', 'name': 'node-0'}, expected=201)
        self.wait_for(lambda: self.allocation(alloc['uuid'])['state']
                      != 'allocating')
        alloc = self.allocation(alloc['uuid'])
        self.assertEqual('active', alloc['state'], alloc)
        self.assertNotEqual(self.uuids[0], alloc['node_uuid'])
        held = self.node(self.uuids[0])
        self.assertEqual(('external hold', 'manageable'),
                         (held['fault'], held['provision_state']))
        self.request('PUT', '/v1/nodes/%s/states/provision'
                     % alloc['node_uuid'], {'target': 'active'},
                     expected=202)
        self.wait_for(lambda: self.node(alloc['node_uuid'])[
            'provision_state'] == 'active')
        self.assertNotIn('deploy failed', [n['provision_state']
                                           for n in self.nodes()])
        self.assertNotIn('clean failed', [n['provision_state']
                                          for n in self.nodes()])

    def test_sigkill_between_acquire_and_commit_leaves_no_stale_claim(self):
        self.set_parameters(acquire_delay=4)
        alloc = self.request('POST', '/v1/allocations', {
            'resource_class': 'shared'}, expected=201)
        self.wait_for(lambda: fake.acquired(self.world))
        with self.cluster.engine.connect() as conn:
            host = conn.exec_driver_sql(
                "SELECT conductor_affinity FROM allocations WHERE uuid = "
                "'%s'" % alloc['uuid']).scalar_one()
        self.cluster.signal(host, signal.SIGKILL)
        self.set_parameters()
        self.wait_for(lambda: self.allocation(alloc['uuid'])['state']
                      == 'active')
        self.wait_for(self.no_stale_claims)
        node = self.node(self.allocation(alloc['uuid'])['node_uuid'])
        self.assertEqual(alloc['uuid'], node['external_claim'])
        # Still so after more rounds.
        time.sleep(3 * SYNC + 1)
        self.assertTrue(self.no_stale_claims())

    def test_two_conductors_never_both_acquire(self):
        allocs = [self.request('POST', '/v1/allocations', {
            'resource_class': 'shared'}, expected=201)
            for _ in range(NODES)]
        self.wait_for(lambda: all(
            self.allocation(a['uuid'])['state'] == 'active'
            for a in allocs))
        nodes = {self.allocation(a['uuid'])['node_uuid'] for a in allocs}
        self.assertEqual(NODES, len(nodes))
        made = fake.acquired(self.world)
        # One claim per node, for one allocation each.
        by_ref: dict[str, set] = {}
        for ref, key in made:
            by_ref.setdefault(ref, set()).add(key)
        self.assertEqual({1}, {len(keys) for keys in by_ref.values()})
        self.assertTrue(self.no_stale_claims())
        with self.cluster.engine.connect() as conn:
            hosts = {row[0] for row in conn.exec_driver_sql(
                'SELECT DISTINCT conductor FROM events WHERE event_type = '
                "'pool.node.external.acquire.success'")}
        self.assertTrue(hosts)

    def test_outage_of_several_rounds_changes_no_node(self):
        fake.take(self.world, self.refs[0])
        self.wait_for(lambda: self.node(self.uuids[0])['fault']
                      == 'external hold')
        before = {n['uuid']: (n['maintenance'], n['fault'],
                              n['provision_state'], n['instance_uuid'])
                  for n in self.nodes()}
        fake.set_failing(self.world, True)
        fake.free(self.world, self.refs[0])
        fake.take(self.world, self.refs[1])
        self.wait_for(lambda: self.request(
            'GET', '/v1/external_managers/lab/status')['error_streak'] >= 5)
        after = {n['uuid']: (n['maintenance'], n['fault'],
                             n['provision_state'], n['instance_uuid'])
                 for n in self.nodes()}
        self.assertEqual(before, after)
        self.assertEqual({'unknown'}, {n['external_state']
                                       for n in self.nodes()})
        fake.set_failing(self.world, False)
        self.wait_for(lambda: self.node(self.uuids[1])['fault']
                      == 'external hold')


class PostgreSQLExternalTestCase(ExternalClusterMixin, testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLExternalTestCase(ExternalClusterMixin, testtools.TestCase):
    BACKEND = 'mysql'
