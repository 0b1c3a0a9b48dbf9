"""The baremetal broker against a second pool-server process: real HTTP,
real openstacksdk."""
import json
import urllib.request

import sqlalchemy as sa

from pool_conductor import autofill
from pool_conductor import brokers
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import exception
from tests import base
from tests.functional import cluster

UPSTREAM_NODES = 3


class BaremetalBrokerTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(broker_retry_interval=0, group='conductor')
        self.upstream = self.useFixture(cluster.PoolServer())
        for i in range(UPSTREAM_NODES):
            node = self.call('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'resource_class': 'up',
                'name': 'up-%d' % i, 'properties': {'cpus': 4}})
            self.call('PUT', '/v1/nodes/%s/traits' % node['uuid'],
                      {'traits': ['CUSTOM_UP']})
            for path, body in [('power', {'target': 'power off'}),
                               ('provision', {'target': 'manage'}),
                               ('provision', {'target': 'provide'})]:
                self.call('PUT', '/v1/nodes/%s/states/%s'
                          % (node['uuid'], path), body)
        conductors_db.register_conductor(self.context, 'c1')
        self.params = {'endpoint': self.upstream.url, 'resource_class': 'up',
                       'wait_timeout': 60, 'name_prefix': 'here-'}
        pools_db.create(self.context, models.Broker, {
            'name': 'upstream', 'driver': 'baremetal',
            'parameters': self.params})
        self.filler = autofill.AutoFiller('c1')

    def call(self, method, path, body=None):
        req = urllib.request.Request(
            self.upstream.url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={'Content-Type': 'application/json',
                     'X-OpenStack-Ironic-API-Version': '1.60'})
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return json.loads(raw) if raw else None

    def upstream_allocations(self):
        return self.call('GET', '/v1/allocations')['allocations']

    def members(self):
        with db_api.reader(self.context) as session:
            return list(session.scalars(sa.select(models.Node).where(
                models.Node.pool == 'web').order_by(models.Node.id)))

    def test_fill_and_drain_through_upstream_allocations(self):
        pools_db.create(self.context, models.Pool, {
            'name': 'web', 'broker': 'upstream',
            'autofill': {'use_autofill': True, 'min_free': 2}})
        done = self.filler.check(self.context)['web']
        self.assertEqual(2, done.created)
        nodes = self.members()
        allocs = {a['uuid']: a for a in self.upstream_allocations()}
        self.assertEqual({'active'}, {a['state'] for a in allocs.values()})
        self.assertEqual(set(allocs), {n.broker_ref for n in nodes})
        for node in nodes:
            alloc = allocs[node.broker_ref]
            self.assertEqual('pool-' + node.broker_token, alloc['name'])
            self.assertEqual(alloc['node_uuid'],
                             node.driver_info['upstream_node'])
            self.assertTrue(node.name.startswith('here-up-'))
            self.assertEqual(('up', {'cpus': 4}, ['CUSTOM_UP'], 'Free'),
                             (node.resource_class, node.properties,
                              [t.trait for t in node.traits],
                              node.pool_status))
        # The same token finds the allocation it made: no second machine.
        driver = brokers.get_driver('baremetal')
        again = driver.create(nodes[0].broker_token, self.params)
        self.assertEqual(nodes[0].broker_ref, again['ref'])
        self.assertEqual(2, len(self.upstream_allocations()))
        # Drained: the upstream allocations are deleted.
        pools_db.update(self.context, models.Pool, 'web', {
            'autofill': {'use_autofill': True, 'max_free': 0}})
        done = self.filler.check(self.context)['web']
        self.assertEqual(2, done.destroyed)
        self.assertEqual([], self.members())
        self.assertEqual([], self.upstream_allocations())

    def test_upstream_without_machines(self):
        pools_db.create(self.context, models.Pool, {
            'name': 'web', 'broker': 'upstream',
            'autofill': {'use_autofill': True,
                         'min_free': UPSTREAM_NODES + 1}})
        done = self.filler.check(self.context)['web']
        self.assertEqual((UPSTREAM_NODES, 1),
                         (done.created, done.failed))
        failed = [n for n in self.members() if n.pool_status == 'Creating']
        self.assertEqual(1, len(failed))
        self.assertIn('Broker upstream failed: allocation pool-%s failed'
                      % failed[0].broker_token, failed[0].last_error)
        # The failed allocation is gone upstream, so a retry asks anew.
        self.assertEqual(UPSTREAM_NODES, len(self.upstream_allocations()))

    def test_parameters_are_checked(self):
        driver = brokers.get_driver('baremetal')
        for bad in ({}, {'resource_class': 'up'},
                    {'endpoint': 'http://x', 'cloud': 'c',
                     'resource_class': 'up'},
                    {'endpoint': 'http://x'},
                    {'endpoint': 'http://x', 'resource_class': 'up',
                     'traits': 'CUSTOM_A'},
                    {'auth': 'secret', 'resource_class': 'up'}):
            self.assertRaises(exception.InvalidParameterValue,
                              driver.validate, bad)
