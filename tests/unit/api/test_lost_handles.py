"""Poolboy's lost handles: a claim's machine deleted (in maintenance, as
Ironic deletes a node with an instance), failed or taken by an external
manager is lost to its claim, which records it and, per its provider's
on_lost, gets another machine or goes to error, with events."""
from pool_conductor import claim_release
from pool_conductor.db import events as events_db
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import test_claims


class LostHandleTestCase(test_claims.ClaimTestBase):

    nodes = 3

    def bound(self, **provider):
        self.provider(defaults={'params': {'role': 'web'}},
                      match_ignore=['/params'], **provider)
        self.ok(self.claim({}, {}, name='c'), 201)
        self.assertEqual(1, self.bind())
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('ready', claim['state'])
        return claim

    def delete_node(self, uuid):
        # Ironic deletes a node with an instance only in maintenance.
        self.assertError(409, self.delete('/v1/nodes/%s' % uuid),
                         'associated with instance')
        self.ok(self.put('/v1/nodes/%s/maintenance' % uuid), 202)
        self.ok(self.delete('/v1/nodes/%s' % uuid), 204)
        self.assertError(404, self.get('/v1/nodes/%s' % uuid))

    def claim_events(self):
        return [(e.event_type, e.prev_state, e.state)
                for e in events_db.history(self.context, 'claim',
                                           object_name='c')]

    def test_deleted_machine_replaced(self):
        claim = self.bound()
        lost = claim['handles'][0]
        self.delete_node(lost['node_uuid'])
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('pending', claim['state'])
        self.assertEqual(
            [(0, 'lost', lost['uuid'], None), (0, 'unbound', None, None),
             (1, 'ready', claim['handles'][2]['uuid'],
              claim['handles'][2]['node_uuid'])],
            [(h['resource_index'], h['state'], h['uuid'], h['node_uuid'])
             for h in claim['handles']])
        self.assertIn('Node %s was deleted' % lost['node_uuid'],
                      claim['handles'][0]['last_error'])
        self.assertEqual([claim['handles'][2]['uuid']],
                         claim['allocations'])
        self.assertIn(('pool.claim.handle.lost', 'bound', 'pending'),
                      self.claim_events())
        # The next round binds the third machine to resource 0.
        self.assertEqual(1, self.bind())
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('ready', claim['state'])
        self.assertEqual(['lost', 'ready', 'ready'],
                         [h['state'] for h in claim['handles']])
        self.assertEqual('node-2', claim['handles'][1]['node_name'])
        self.assertEqual('web', self.node('node-2')['params']['role'])
        self.assertEqual([lost['uuid']], [h['uuid'] for h in self.ok(
            self.get('/v1/handles?state=lost'))['handles']])
        # Its end takes the lost handle with it.
        self.ok(self.delete('/v1/claims/c'), 204)
        self.assertEqual([], self.ok(self.get('/v1/handles'))['handles'])

    def test_no_replacement_left_is_the_claims_error(self):
        claim = self.bound()
        self.delete_node(claim['handles'][0]['node_uuid'])
        self.ok(self.delete('/v1/nodes/node-2'), 204)
        self.bind()
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('error', claim['state'])
        self.assertIn('No Free machine', claim['last_error'])
        # It keeps the machine it still holds.
        self.assertEqual(1, len(claim['allocations']))

    def test_on_lost_error(self):
        claim = self.bound(on_lost='error')
        lost = claim['handles'][1]
        self.delete_node(lost['node_uuid'])
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('error', claim['state'])
        self.assertIn('Resource 1 lost its machine %s' % lost['node_uuid'],
                      claim['last_error'])
        self.assertEqual(0, self.bind())
        self.assertEqual(['ready', 'lost', 'unbound'],
                         [h['state'] for h in self.ok(self.get(
                             '/v1/claims/c'))['handles']])
        self.assertIn(('pool.claim.handle.lost', 'bound', 'error'),
                      self.claim_events())

    def test_failed_deployment_loses_the_machine(self):
        claim = self.bound()
        failed = claim['handles'][0]
        uuid = failed['node_uuid']
        self.ok(self.put('/v1/nodes/%s/params' % uuid,
                         {'fake/fail-state': 'deploying'}), 200)
        self.ok(self.put('/v1/nodes/%s/states/provision' % uuid,
                         {'target': 'active'}), 202)
        self.finish_provisioning()
        self.assertEqual('deploy failed', self.node(uuid)['provision_state'])
        # The conductor's round finds it lost, once.
        self.assertEqual(1, claim_release.lose_failed(self.context))
        self.assertEqual(0, claim_release.lose_failed(self.context))
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('pending', claim['state'])
        self.assertEqual(('lost', None), (claim['handles'][0]['state'],
                                          claim['handles'][0]['node_uuid']))
        self.assertIn('its provision state failed',
                      claim['handles'][0]['last_error'])
        self.assertIn(('pool.claim.handle.lost', 'bound', 'pending'),
                      self.claim_events())
        # Another machine takes its place; the failed one is no claim's.
        self.assertEqual(1, self.bind())
        claim = self.ok(self.get('/v1/claims/c'))
        self.assertEqual('ready', claim['state'])
        self.assertNotIn(uuid, [h['node_uuid'] for h in claim['handles']])
        self.assertIsNone(self.node(uuid)['instance_uuid'])

    def test_taken_by_an_external_manager(self):
        """The core function an external manager's detection calls."""
        claim = self.bound()
        node = nodes_db.get_node(self.context,
                                 claim['handles'][1]['node_uuid'])
        self.assertTrue(claim_release.machine_lost(
            self.context, node.id, 'Taken by the external manager.'))
        node = self.node(node.uuid)
        # Released from the claim, without what the claim set.
        self.assertEqual((None, 'Free'), (node['instance_uuid'],
                                          node['pool_status']))
        self.assertNotIn('role', node['params'])
        handle = self.ok(self.get('/v1/handles/%s'
                                  % claim['handles'][1]['uuid']))
        self.assertEqual(('lost', None), (handle['state'],
                                          handle['node_uuid']))
        self.assertIn('Taken by the external manager.',
                      handle['last_error'])
        # Once: it is no claim's machine any more.
        self.assertFalse(claim_release.machine_lost(
            self.context, nodes_db.get_node(self.context, node['uuid']).id,
            'again'))
        alloc = self.ok(self.get('/v1/allocations/%s' % handle['uuid']))
        self.assertEqual(('error', None), (alloc['state'],
                                           alloc['node_uuid']))
