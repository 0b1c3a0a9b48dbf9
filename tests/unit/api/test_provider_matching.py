"""Poolboy's provider choice, overrides, resourceRequiresClaim and the
template variables of overrides: "The ResourceClaim is matched to a
ResourceProvider"; "ResourceProvider spec.override is applied to each
resource template"; resourceRequiresClaim "delay[s] resource creation
until the ResourceHandle is bound by a ResourceClaim"."""
from tests.unit.api import test_claims

MEMBER = test_claims.MEMBER
PROJECT = test_claims.PROJECT


class ProviderMatchTestCase(test_claims.ClaimTestBase):

    nodes = 3

    def setUp(self):
        super().setUp()
        self.provider('small', match={'params': {'size': 'small'}},
                      match_ignore=['/params'])
        self.provider('gpu', match={'traits': ['CUSTOM_GPU']},
                      match_ignore=['/traits'])
        # No match: only chosen by name.
        self.provider('any', match_ignore=['/params'])

    def test_claim_without_provider_gets_the_one_that_matches(self):
        claim = self.ok(self.post('/v1/claims', {'name': 'c', 'resources': [
            {'template': {'params': {'size': 'small', 'role': 'web'}}},
            {'template': {'traits': ['CUSTOM_GPU']}},
            {'provider': 'any', 'template': {'params': {'size': 'small'}}},
        ]}), 201)
        self.assertEqual(['small', 'gpu', 'any'],
                         [r['provider'] for r in claim['resources']])
        self.assertEqual(['small', 'gpu', 'any'],
                         [h['provider'] for h in claim['handles']])
        self.assertEqual(1, self.bind())
        self.assertEqual('ready', self.ok(self.get('/v1/claims/c'))['state'])

    def test_none_or_several_match_is_a_400(self):
        self.assertError(400, self.post('/v1/claims', {'resources': [
            {'template': {'params': {'size': 'large'}}}]}),
            'resources/0 names no provider and its template fits the '
            'match of none')
        self.assertError(400, self.post('/v1/claims', {'resources': [
            {'provider': 'any'}, {}]}), 'resources/1 names no provider')
        self.assertError(400, self.post('/v1/claims', {'resources': [
            {'template': {'params': {'size': 'small'},
                          'traits': ['CUSTOM_GPU']}}]}),
            'resources/0: the template fits the match of several '
            'providers: gpu, small; name one of them.')
        self.assertEqual([], self.ok(self.get('/v1/claims'))['claims'])

    def test_match_is_a_template_and_checked(self):
        self.assertError(400, self.post('/v1/providers', {
            'name': 'bad', 'pool': 'lab', 'match': {'cpus': 4}}))
        self.assertError(400, self.post('/v1/providers', {
            'name': 'bad', 'pool': 'lab', 'override': {'cpus': 4}}))
        self.assertError(400, self.post('/v1/providers', {
            'name': 'bad', 'pool': 'lab', 'on_lost': 'panic'}))
        body = self.ok(self.get('/v1/providers/any'))
        self.assertEqual(({}, {}, False, 'replace', False),
                         (body['match'], body['override'],
                          body['resource_requires_claim'], body['on_lost'],
                          body['keep_params']))
        body = self.ok(self.patch_json('/v1/providers/any', [
            {'op': 'add', 'path': '/match',
             'value': {'resource_class': 'big'}}]))
        self.assertEqual({'resource_class': 'big'}, body['match'])


class OverrideTestCase(test_claims.ClaimTestBase):

    nodes = 2

    def test_override_applied_over_the_claimed_values(self):
        self.provider('small', defaults={'params': {'tier': 'gold'}},
                      override={'params': {'tier': 'bronze',
                                           'managed': 'yes'},
                                'profiles': ['web']},
                      match_ignore=['/params'])
        claim = self.ok(self.claim({'params': {'tier': 'platinum',
                                               'app': 'shop'}}, name='o'),
                        201)
        # The claim keeps what was asked; the machine gets the override.
        self.assertEqual({'tier': 'platinum', 'app': 'shop'},
                         claim['resources'][0]['template']['params'])
        self.assertEqual(1, self.bind())
        node = self.node(self.ok(self.get('/v1/claims/o'))['handles'][0][
            'node_uuid'])
        self.assertEqual({'tier': 'bronze', 'managed': 'yes', 'app': 'shop'},
                         node['params'])
        self.assertEqual(['web'], node['profiles'])

    def test_override_template_variables(self):
        """resource_claim, resource_handle, resource_index,
        resource_provider, resource_template, requester_identity,
        requester_user, timestamp and timedelta."""
        self.provider('small', template={'enable': True}, override={
            'params': {
                'claim': '{{ resource_claim.name }}',
                'handle': '{{ resource_handle.uuid }}',
                'machine': '{{ resource_handle.node.name }}',
                'index': '{{ resource_index }}',
                'provider': '{{ resource_provider.name }}',
                'asked': '{{ resource_template.params.app }}',
                'project': '{{ requester_identity.project_id }}',
                'user': '{{ requester_user }}',
                'until': '{{ timestamp("2026-01-01T00:00:00Z")'
                         '.add("1h") }}',
                'seconds': '{{ timedelta("10m").total_seconds }}'}},
            match_ignore=['/params'])
        for i in range(self.nodes):
            self.ok(self.patch_json('/v1/nodes/node-%d' % i, [
                {'op': 'add', 'path': '/owner', 'value': PROJECT}]))
        headers = dict(MEMBER, **{'X-User-Id': 'u-1', 'X-User-Name': 'ann'})
        self.ok(self.claim({'params': {'app': 'web'}},
                           {'params': {'app': 'shop'}}, name='v',
                           headers=headers), 201)
        self.assertEqual(1, self.bind(), self.ok(self.get('/v1/claims/v'))[
            'last_error'])
        handles = self.ok(self.get('/v1/claims/v'))['handles']
        params = self.node(handles[1]['node_uuid'])['params']
        self.assertEqual({
            'claim': 'v', 'handle': handles[1]['uuid'],
            'machine': handles[1]['node_name'], 'index': '1',
            'provider': 'small', 'asked': 'shop', 'project': PROJECT,
            'user': 'ann', 'until': '2026-01-01T01:00:00Z',
            'seconds': '600', 'app': 'shop'}, params)

    def test_failing_override_is_the_claims_error(self):
        self.provider('small', template={'enable': True}, override={
            'params': {'x': '{{ resource_handle.nothing.here }}'}})
        self.ok(self.claim({}, name='f'), 201)
        self.assertEqual(0, self.bind())
        claim = self.ok(self.get('/v1/claims/f'))
        self.assertEqual('error', claim['state'])
        self.assertIn('Provider small override (resources/0)',
                      claim['last_error'])
        self.assertEqual([], claim['allocations'])

    def test_override_checked_at_creation(self):
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'template': {'enable': True},
            'override': {'params': {'a': '{{ unclosed'}}}),
            'Provider p override: the template at /params/a')


class ResourceRequiresClaimTestCase(test_claims.ClaimTestBase):

    nodes = 2

    def test_needs_a_broker(self):
        self.assertError(400, self.post('/v1/providers', {
            'name': 'fresh', 'pool': 'lab',
            'resource_requires_claim': True}),
            'resource_requires_claim needs a pool with a broker')

    def test_machine_made_for_the_claim_not_taken_from_free_ones(self):
        self.ok(self.post('/v1/brokers', {'name': 'cloud', 'driver': 'fake',
                                          'parameters': {}}), 201)
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'replace', 'path': '/broker', 'value': 'cloud'}]))
        self.provider('fresh', resource_requires_claim=True,
                      match_ignore=['/params'])
        self.ok(self.claim({'params': {'role': 'db'}}, provider='fresh',
                           name='r'), 201)
        # Two Free machines match, and neither is taken: one is made.
        self.assertEqual(0, self.bind())
        self.assertEqual('pending', self.ok(self.get('/v1/claims/r'))[
            'state'])
        self.assertEqual(1, self.bind())
        handle = self.ok(self.get('/v1/claims/r'))['handles'][0]
        self.assertNotIn(handle['node_name'], ('node-0', 'node-1'))
        self.assertEqual('ready', handle['state'])
        self.assertEqual(['Free', 'Free'], [self.node('node-%d' % i)[
            'pool_status'] for i in range(2)])
