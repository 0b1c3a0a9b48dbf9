"""The node traits API: /v1/nodes/<node>/traits."""
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base


class TraitsAPITestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')
        self.url = '/v1/nodes/node-1/traits'

    def traits(self):
        resp = self.get(self.url)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()['traits']

    def test_empty(self):
        self.assertEqual({'traits': []}, self.get(self.url).get_json())

    def test_list_is_sorted(self):
        self.create_node(name='node-2', traits=['CUSTOM_B', 'CUSTOM_A',
                                                'HW_CPU_X86_AVX2'])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_AVX2'],
                         self.get('/v1/nodes/node-2/traits')
                         .get_json()['traits'])

    def test_replace_all(self):
        resp = self.put(self.url, {'traits': ['CUSTOM_B', 'CUSTOM_A']})
        self.assertEqual(204, resp.status_code, resp.get_data())
        self.assertEqual(b'', resp.get_data())
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/nodes/%s/traits' % self.node.uuid))
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], self.traits())
        self.put(self.url, {'traits': ['HW_CPU_X86_AVX2', 'CUSTOM_A',
                                       'CUSTOM_A']})
        self.assertEqual(['CUSTOM_A', 'HW_CPU_X86_AVX2'], self.traits())
        self.put(self.url, {'traits': []})
        self.assertEqual([], self.traits())

    def test_traits_show_on_the_node(self):
        self.put(self.url, {'traits': ['CUSTOM_A']})
        self.assertEqual(['CUSTOM_A'],
                         self.get('/v1/nodes/node-1').get_json()['traits'])

    def test_add_one(self):
        resp = self.put(self.url + '/CUSTOM_GPU')
        self.assertEqual(204, resp.status_code, resp.get_data())
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/nodes/%s/traits/CUSTOM_GPU' % self.node.uuid))
        self.assertEqual(204, self.put(self.url + '/CUSTOM_GPU').status_code)
        self.assertEqual(204, self.put(self.url + '/HW_CPU_X86_AVX2')
                         .status_code)
        self.assertEqual(['CUSTOM_GPU', 'HW_CPU_X86_AVX2'], self.traits())

    def test_add_one_with_a_body_is_400(self):
        self.assertError(400, self.put(self.url + '/CUSTOM_GPU',
                                       {'traits': ['CUSTOM_A']}),
                         'with no body')

    def test_remove_one(self):
        self.put(self.url, {'traits': ['CUSTOM_A', 'CUSTOM_B']})
        resp = self.delete(self.url + '/CUSTOM_A')
        self.assertEqual(204, resp.status_code, resp.get_data())
        self.assertEqual(['CUSTOM_B'], self.traits())

    def test_remove_missing_is_404(self):
        self.assertError(404, self.delete(self.url + '/CUSTOM_NOPE'),
                         'CUSTOM_NOPE')

    def test_remove_all(self):
        self.put(self.url, {'traits': ['CUSTOM_A', 'CUSTOM_B']})
        resp = self.delete(self.url)
        self.assertEqual(204, resp.status_code, resp.get_data())
        self.assertEqual([], self.traits())

    def test_by_uuid(self):
        url = '/v1/nodes/%s/traits' % self.node.uuid
        self.assertEqual(204, self.put(url + '/CUSTOM_A').status_code)
        self.assertEqual({'traits': ['CUSTOM_A']},
                         self.get(url).get_json())

    def test_invalid_traits_are_400(self):
        for trait in ('custom_lower', 'NOT_A_TRAIT', 'CUSTOM_', 'CUSTOM_a',
                      'CUSTOM_' + 'A' * 249, 'CUSTOM_A-B'):
            self.assertError(400, self.put(self.url, {'traits': [trait]}),
                             trait)
            self.assertError(400, self.put(self.url + '/' + trait), trait)
        self.assertEqual([], self.traits())

    def test_long_valid_custom_trait(self):
        trait = 'CUSTOM_' + 'A' * 248
        self.assertEqual(204, self.put(self.url + '/' + trait).status_code)
        self.assertEqual([trait], self.traits())

    def test_at_most_50_traits(self):
        traits = ['CUSTOM_T%d' % i for i in range(50)]
        self.assertEqual(204, self.put(self.url, {'traits': traits})
                         .status_code)
        self.assertError(400, self.put(self.url, {
            'traits': traits + ['CUSTOM_MORE']}))
        self.assertError(400, self.put(self.url + '/CUSTOM_MORE'),
                         'at most 50')
        self.assertEqual(204, self.put(self.url + '/CUSTOM_T0').status_code)

    def test_invalid_bodies_are_400(self):
        for body in ({}, {'traits': 'CUSTOM_A'}, {'traits': [1]},
                     {'traits': [], 'extra': 1}, ['CUSTOM_A']):
            self.assertError(400, self.put(self.url, body))
        self.assertError(400, self.request('PUT', self.url, raw='nope'))
        self.assertError(400, self.request('PUT', self.url))

    def test_unknown_node_is_404(self):
        url = '/v1/nodes/missing/traits'
        self.assertError(404, self.get(url))
        self.assertError(404, self.put(url, {'traits': []}))
        self.assertError(404, self.put(url + '/CUSTOM_A'))
        self.assertError(404, self.delete(url))
        self.assertError(404, self.delete(url + '/CUSTOM_A'))

    def test_not_found_below_1_37(self):
        self.put(self.url, {'traits': ['CUSTOM_A']})
        for method, path, body in (('GET', self.url, None),
                                   ('PUT', self.url, {'traits': []}),
                                   ('DELETE', self.url, None),
                                   ('PUT', self.url + '/CUSTOM_B', None),
                                   ('DELETE', self.url + '/CUSTOM_A', None)):
            self.assertError(404, self.request(method, path, body,
                                               version='1.36'),
                             'requires API version 1.37 or later')
        self.assertEqual(['CUSTOM_A'], self.traits())

    def test_locked_node_is_409(self):
        nodes_db.update_node(self.context, self.node,
                             {'reservation': 'other-host'})
        self.assertError(409, self.put(self.url + '/CUSTOM_A'), 'locked')
