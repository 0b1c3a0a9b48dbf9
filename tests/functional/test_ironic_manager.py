"""The ironic external manager against a second pool-server process: real
HTTP, real openstacksdk. Pool here runs in-process on SQLite; the other
system that owns the hardware is the second pool-server."""
import json
import urllib.request

from pool_conductor import allocations
from pool_conductor.allocator import AllocationWorker
from pool_conductor.baremetal import provisioning
from pool_conductor import conductors
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor import exception
from pool_conductor import external
from pool_conductor.external_managers import base as ext_base
from pool_conductor.external_managers import ironic
from tests import base
from tests.functional import cluster

UPSTREAM_NODES = 3


class IronicManagerTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(free_confirmations=2, gone_grace=0,
                    group='external_manager')
        self.upstream = self.useFixture(cluster.PoolServer())
        self.refs = []
        for i in range(UPSTREAM_NODES):
            node = self.call('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'resource_class': 'up',
                'name': 'up-%d' % i})
            for path, body in [('power', {'target': 'power off'}),
                               ('provision', {'target': 'manage'}),
                               ('provision', {'target': 'provide'})]:
                self.call('PUT', '/v1/nodes/%s/states/%s'
                          % (node['uuid'], path), body)
            self.refs.append(node['uuid'])
        self.params = {'endpoint': self.upstream.url, 'wait_timeout': 30}
        self.driver = ironic.IronicExternalManager()
        pools_db.create(self.context, models.ExternalManager, {
            'name': 'lab', 'driver': 'ironic', 'parameters': self.params})
        conductors.register(self.context, 'test-host', start=True)

    def call(self, method, path, body=None):
        req = urllib.request.Request(
            self.upstream.url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={'Content-Type': 'application/json',
                     'X-OpenStack-Ironic-API-Version': '1.60'})
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return json.loads(raw) if raw else None

    def take_upstream(self, ref, name='theirs'):
        """The other system's user takes a node there."""
        self.call('POST', '/v1/allocations', {
            'name': name, 'resource_class': 'up', 'candidate_nodes': [ref]})

    def free_upstream(self, name='theirs'):
        self.call('DELETE', '/v1/allocations/%s' % name)

    def test_observe_acquire_release(self):
        free, theirs, ours = self.refs
        self.take_upstream(theirs)
        token = self.driver.acquire(self.params, ours, 'key-1',
                                    {'template': 'web'})
        # Idempotent on the key.
        self.assertEqual(token, self.driver.acquire(self.params, ours,
                                                    'key-1', {}))
        seen = self.driver.observe(self.params, [free, theirs, ours,
                                                 'up-0', 'missing'])
        self.assertEqual(
            [ext_base.NONE, ext_base.OTHER, ext_base.POOL, ext_base.NONE,
             ext_base.ABSENT],
            [seen[r].owner for r in (free, theirs, ours, 'up-0',
                                     'missing')])
        self.assertEqual(token, seen[ours].token)
        alloc = self.call('GET', '/v1/allocations/%s' % token)
        self.assertEqual(('pool-key-1', {'pool_spec': {'template': 'web'}}),
                         (alloc['name'], alloc['extra']))
        self.assertRaises(exception.ExternalTaken, self.driver.acquire,
                          self.params, theirs, 'key-2', {})
        # Their allocation is not pool's to release, whatever token.
        theirs_alloc = self.call('GET', '/v1/allocations/theirs')['uuid']
        self.driver.release(self.params, theirs, theirs_alloc)
        self.driver.release(self.params, ours, token)
        self.driver.release(self.params, ours, token)
        seen = self.driver.observe(self.params, [theirs, ours])
        self.assertEqual((ext_base.OTHER, ext_base.NONE),
                         (seen[theirs].owner, seen[ours].owner))

    def test_unreachable_is_an_error(self):
        self.assertRaises(exception.ExternalManagerError,
                          self.driver.observe,
                          {'endpoint': 'http://127.0.0.1:%d'
                           % cluster.free_port()}, self.refs)

    def test_allocation_race_and_reconciler_end_to_end(self):
        nodes = [nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'resource_class': 'baremetal',
            'provision_state': 'available', 'power_state': 'power off',
            'external_manager': 'lab', 'external_ref': ref,
            'name': 'here-%d' % i})
            for i, ref in enumerate(self.refs)]
        reconciler = external.Reconciler('test-host')
        reconciler.check(self.context, force=True)
        # The other user takes the node pool chooses first (the one
        # named as the allocation) while pool chooses it.
        self.take_upstream(self.refs[0])
        worker = AllocationWorker('test-host', 1)
        self.addCleanup(worker.stop)
        alloc = allocations_db.create_allocation(self.context, {
            'resource_class': 'baremetal', 'state': 'allocating',
            'conductor_affinity': 'test-host', 'name': 'here-0'})
        worker.process(alloc.id)
        alloc = allocations_db.get_allocation(self.context, alloc.uuid)
        self.assertEqual('active', alloc.state)
        self.assertIn(alloc.node_uuid, (nodes[1].uuid, nodes[2].uuid))
        got = nodes_db.get_node(self.context, alloc.node_uuid)
        upstream = self.call('GET', '/v1/allocations/pool-%s'
                             % alloc.uuid)
        self.assertEqual(got.external_ref, upstream['node_uuid'])
        self.assertEqual(upstream['uuid'], got.external_claim)
        first = nodes_db.get_node(self.context, nodes[0].uuid)
        self.assertEqual(('external hold', 'manageable'),
                         (first.fault, first.provision_state))
        # Freed there: cleaned and available again after two rounds.
        self.free_upstream()
        for _ in range(2):
            done = reconciler.check(self.context, force=True)
            provisioning.continue_nodes(self.context, done['lab'].provided)
        self.assertEqual(1, done['lab'].calls)
        first = nodes_db.get_node(self.context, nodes[0].uuid)
        self.assertEqual((False, None, 'available'),
                         (first.maintenance, first.fault,
                          first.provision_state))
        # Deleting pool's allocation of a node never deployed ends the
        # claim there at once.
        allocations.destroy(self.context, alloc.uuid)
        self.assertEqual([], self.call('GET', '/v1/allocations')[
            'allocations'])
