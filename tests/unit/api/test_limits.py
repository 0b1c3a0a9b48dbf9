"""Input limits: bounded bodies, maps, lists, filters and identifiers."""
from tests.unit.api import base


class TestLimits(base.APITestCase):

    def test_map_with_too_many_keys(self):
        extra = {'k%d' % i: i for i in range(257)}
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'extra': extra}))
        self.assertError(400, self.post('/v1/allocations', {
            'resource_class': 'rc', 'extra': extra}))

    def test_map_key_too_long(self):
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'properties': {'k' * 256: 1}}))

    def test_map_at_the_limits(self):
        extra = {'k%d' % i: i for i in range(255)}
        extra['k' * 255] = 1
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware',
                                       'extra': extra})
        self.assertEqual(201, resp.status_code, resp.get_data())

    def test_too_many_candidate_nodes(self):
        self.assertError(400, self.post('/v1/allocations', {
            'resource_class': 'rc',
            'candidate_nodes': ['n%d' % i for i in range(1001)]}))

    def test_too_many_traits(self):
        self.assertError(400, self.post('/v1/allocations', {
            'resource_class': 'rc',
            'traits': ['CUSTOM_%d' % i for i in range(51)]}))

    def test_allocation_filters_too_long(self):
        for name in ('node', 'owner', 'resource_class'):
            self.assertError(400, self.get('/v1/allocations?%s=%s'
                                           % (name, 'x' * 256)),
                             'at most')

    def test_path_identifier_too_long(self):
        for path in ('/v1/nodes/%s', '/v1/allocations/%s',
                     '/v1/nodes/%s/traits', '/v1/conductors/%s'):
            self.assertError(400, self.get(path % ('x' * 256)),
                             'at most 255')

    def test_limit_capped_by_max_limit(self):
        self.config(max_limit=2, group='api')
        for name in ('a', 'b', 'c'):
            self.enroll(name=name)
        body = self.get('/v1/nodes?limit=100').get_json()
        self.assertEqual(2, len(body['nodes']))
        self.assertIn('next', body)
