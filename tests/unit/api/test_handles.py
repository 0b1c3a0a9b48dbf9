"""Handles (Poolboy's ResourceHandles): what a claim holds for each
resource, shown in the claim and listed at /v1/handles under the policy
of claims."""
from pool_conductor import claims
from tests.unit.api import test_claims

ADMIN = test_claims.ADMIN
MEMBER = test_claims.MEMBER
OTHER_MEMBER = test_claims.OTHER_MEMBER
READER = test_claims.READER
PROJECT = test_claims.PROJECT


class HandleTestCase(test_claims.ClaimTestBase):

    nodes = 4

    def setUp(self):
        super().setUp()
        self.provider('small')
        self.provider('gpu')
        self.ok(self.put('/v1/nodes/node-3/traits/CUSTOM_GPU'), 204)

    def test_claim_shows_a_handle_for_each_resource(self):
        """The claim status carries, per resource, the handle it is bound
        to and the resource's state."""
        claim = self.ok(self.post('/v1/claims', {'name': 'web', 'resources': [
            {'provider': 'small', 'template': {}},
            {'provider': 'gpu', 'template': {'traits': ['CUSTOM_GPU']}}]}),
            201)
        self.assertEqual(
            [(0, 'small', 'unbound', None), (1, 'gpu', 'unbound', None)],
            [(h['resource_index'], h['provider'], h['state'], h['node_uuid'])
             for h in claim['handles']])
        self.assertEqual(1, claims.bind_pending(self.context, 'test-host'))
        claim = self.ok(self.get('/v1/claims/web'))
        handles = claim['handles']
        self.assertEqual([0, 1], [h['resource_index'] for h in handles])
        self.assertEqual(['small', 'gpu'], [h['provider'] for h in handles])
        self.assertEqual(['ready', 'ready'], [h['state'] for h in handles])
        self.assertEqual(claim['allocations'],
                         [h['allocation_uuid'] for h in handles])
        self.assertEqual('node-3', handles[1]['node_name'])
        for handle in handles:
            alloc = self.ok(self.get('/v1/allocations/%s'
                                     % handle['allocation_uuid']))
            self.assertEqual(alloc['node_uuid'], handle['node_uuid'])
            self.assertEqual(('InUse', 'available'),
                             (handle['pool_status'],
                              handle['provision_state']))
            # The same handle, on its own.
            shown = self.ok(self.get('/v1/handles/%s' % handle['uuid']))
            self.assertEqual(('web', claim['uuid']),
                             (shown['claim_name'], shown['claim_uuid']))
            self.assertEqual(handle, {k: v for k, v in shown.items()
                                      if k in handle})

    def test_building_until_in_use(self):
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/allocate_actions',
             'value': {'workflow': 'deploy', 'wait_for_stage': 'install'}}]))
        self.ok(self.claim({}, name='slow'), 201)
        self.bind()
        handle = self.ok(self.get('/v1/claims/slow'))['handles'][0]
        self.assertEqual(('building', 'Building'),
                         (handle['state'], handle['pool_status']))
        self.assertEqual([handle['uuid']], [h['uuid'] for h in self.ok(
            self.get('/v1/handles?state=building'))['handles']])
        self.assertEqual([], self.ok(self.get('/v1/handles?state=ready'))[
            'handles'])

    def test_list_filters(self):
        self.ok(self.claim({}, {}, name='one'), 201)
        self.ok(self.post('/v1/claims', {'name': 'two', 'resources': [
            {'provider': 'gpu', 'template': {'traits': ['CUSTOM_GPU']}}]}),
            201)
        self.assertEqual(2, self.bind())
        every = self.ok(self.get('/v1/handles'))['handles']
        self.assertEqual(['one', 'one', 'two'],
                         [h['claim_name'] for h in every])
        self.assertEqual(['two'], [h['claim_name'] for h in self.ok(
            self.get('/v1/handles?provider=gpu'))['handles']])
        self.assertEqual(['one', 'one'], [h['claim_name'] for h in self.ok(
            self.get('/v1/handles?provider=small'))['handles']])
        self.assertEqual(['two'], [h['claim_name'] for h in self.ok(
            self.get('/v1/handles?node=node-3'))['handles']])
        self.assertEqual(2, len(self.ok(self.get(
            '/v1/handles?claim=one'))['handles']))
        self.assertEqual([], self.ok(self.get(
            '/v1/handles?provider=nope'))['handles'])
        page = self.ok(self.get('/v1/handles?limit=2&fields=uuid,state'))
        self.assertEqual([{'uuid': every[0]['uuid'], 'state': 'ready'},
                          {'uuid': every[1]['uuid'], 'state': 'ready'}],
                         [{k: h[k] for k in ('uuid', 'state')}
                          for h in page['handles']])
        self.assertIn('marker=%s' % every[1]['uuid'], page['next'])
        self.assertEqual([every[2]['uuid']], [h['uuid'] for h in self.ok(
            self.get('/v1/handles?marker=%s' % every[1]['uuid']))[
            'handles']])
        self.assertError(400, self.get('/v1/handles?state=happy'))
        self.assertError(400, self.get('/v1/handles?fields=nope'))
        self.assertError(400, self.get('/v1/handles?colour=red'))
        self.assertError(404, self.get(
            '/v1/handles?marker=00000000-0000-4000-8000-000000000000'))
        self.assertError(404, self.get(
            '/v1/handles/00000000-0000-4000-8000-000000000000'))

    def test_policy_of_claims(self):
        for i in range(self.nodes):
            self.ok(self.patch_json('/v1/nodes/node-%d' % i, [
                {'op': 'add', 'path': '/owner', 'value': PROJECT}]))
        self.ok(self.claim({}, name='mine', headers=MEMBER), 201)
        self.ok(self.claim({}, name='admins'), 201)
        self.assertEqual(2, self.bind())
        mine = self.ok(self.get('/v1/claims/mine'))['handles'][0]
        theirs = self.ok(self.get('/v1/claims/admins'))['handles'][0]
        self.assertEqual([mine['uuid']], [h['uuid'] for h in self.ok(
            self.get('/v1/handles', headers=READER))['handles']])
        self.ok(self.get('/v1/handles/%s' % mine['uuid'], headers=READER))
        self.assertEqual([], self.ok(self.get(
            '/v1/handles', headers=OTHER_MEMBER))['handles'])
        self.assertError(404, self.get('/v1/handles/%s' % mine['uuid'],
                                       headers=OTHER_MEMBER))
        self.assertError(404, self.get('/v1/handles/%s' % theirs['uuid'],
                                       headers=MEMBER))
        self.assertError(403, self.get('/v1/handles?owner=someone',
                                       headers=MEMBER))
        self.assertEqual(2, len(self.ok(self.get('/v1/handles'))[
            'handles']))
