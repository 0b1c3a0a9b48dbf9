"""Version discovery, microversion negotiation and generic errors."""
from tests.unit.api import base

MIN = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX = 'X-OpenStack-Ironic-API-Maximum-Version'
VERSION = 'X-OpenStack-Ironic-API-Version'
OPENSTACK = 'OpenStack-API-Version'


class RootAPITestCase(base.APITestCase):

    def unversioned(self, method, path, headers=None, **kw):
        return self.client.open(path, method=method, headers=headers or {},
                                **kw)

    def assertRangeHeaders(self, resp):
        self.assertEqual('1.1', resp.headers[MIN])
        self.assertEqual(base.LATEST, resp.headers[MAX])

    def test_root(self):
        resp = self.unversioned('GET', '/')
        self.assertEqual(200, resp.status_code)
        body = resp.get_json()
        self.assertEqual('OpenStack Ironic API', body['name'])
        self.assertIn('description', body)
        version = body['default_version']
        self.assertEqual('v1', version['id'])
        self.assertEqual('1.1', version['min_version'])
        self.assertEqual(base.LATEST, version['version'])
        self.assertEqual('CURRENT', version['status'])
        self.assertEqual([{'href': 'http://localhost/v1/', 'rel': 'self'}],
                         version['links'])
        self.assertEqual([version], body['versions'])
        self.assertRangeHeaders(resp)

    def test_root_ignores_version_headers(self):
        for value in ('1.99', 'garbage', '1.0'):
            resp = self.unversioned('GET', '/', {VERSION: value})
            self.assertEqual(200, resp.status_code, value)
            self.assertNotIn(VERSION, resp.headers)

    def test_v1(self):
        resp = self.get('/v1')
        self.assertEqual(200, resp.status_code)
        body = resp.get_json()
        self.assertEqual('v1', body['id'])
        self.assertEqual(base.LATEST, body['version']['version'])
        self.assertEqual('1.1', body['version']['min_version'])
        self.assertEqual(
            [{'href': 'http://localhost/v1/nodes/', 'rel': 'self'},
             {'href': 'http://localhost/nodes/', 'rel': 'bookmark'}],
            body['nodes'])
        self.assertEqual(
            [{'href': 'http://localhost/v1/allocations/', 'rel': 'self'},
             {'href': 'http://localhost/allocations/', 'rel': 'bookmark'}],
            body['allocations'])
        self.assertEqual('application/json',
                         body['media_types'][0]['base'])
        self.assertEqual({'self', 'describedby'},
                         {link['rel'] for link in body['links']})
        self.assertEqual(200, self.get('/v1/').status_code)

    def test_v1_hides_allocations_below_1_52(self):
        body = self.get('/v1', version='1.51').get_json()
        self.assertIn('nodes', body)
        self.assertNotIn('allocations', body)

    def test_public_endpoint_in_links(self):
        self.config(public_endpoint='https://pool.example.com/', group='api')
        body = self.get('/v1').get_json()
        self.assertEqual('https://pool.example.com/v1/nodes/',
                         body['nodes'][0]['href'])

    def test_version_headers_on_every_response(self):
        self.create_node(name='node-1')
        for method, path in (('GET', '/v1'), ('GET', '/v1/nodes'),
                             ('GET', '/v1/nodes/node-1'),
                             ('GET', '/v1/nodes/missing'),
                             ('DELETE', '/v1/nodes/node-1'),
                             ('GET', '/v1/nowhere')):
            resp = self.request(method, path, version='1.55')
            self.assertRangeHeaders(resp)
            self.assertEqual('1.55', resp.headers[VERSION], path)
            self.assertEqual('baremetal 1.55', resp.headers[OPENSTACK])

    def test_request_id_header(self):
        resp = self.get('/v1')
        self.assertTrue(resp.headers['X-Openstack-Request-Id']
                        .startswith('req-'))

    def test_openstack_api_version_header(self):
        resp = self.unversioned('GET', '/v1/nodes',
                                {OPENSTACK: 'baremetal 1.60'})
        self.assertEqual(200, resp.status_code)
        self.assertEqual('1.60', resp.headers[VERSION])
        self.assertEqual('baremetal 1.60', resp.headers[OPENSTACK])

    def test_openstack_api_version_header_wins(self):
        resp = self.unversioned('GET', '/v1', {
            OPENSTACK: 'compute 2.1, baremetal 1.40', VERSION: '1.50'})
        self.assertEqual('1.40', resp.headers[VERSION])

    def test_latest(self):
        for headers in ({VERSION: 'latest'}, {OPENSTACK: 'baremetal latest'}):
            resp = self.unversioned('GET', '/v1', headers)
            self.assertEqual(200, resp.status_code)
            self.assertEqual(base.LATEST, resp.headers[VERSION])

    def test_no_header_is_1_1(self):
        self.create_node(name='node-1')
        resp = self.unversioned('GET', '/v1/nodes/node-1')
        self.assertEqual(200, resp.status_code)
        self.assertEqual('1.1', resp.headers[VERSION])
        body = resp.get_json()
        for field in ('allocation_uuid', 'resource_class', 'traits',
                      'owner', 'lessee', 'description'):
            self.assertNotIn(field, body)
        self.assertIn('instance_uuid', body)
        resp = self.unversioned('POST', '/v1/nodes',
                                json={'driver': 'fake-hardware'})
        self.assertEqual('available', resp.get_json()['provision_state'])

    def test_unsupported_versions_are_406(self):
        for value in (base.ABOVE, '1.0', '2.0', '1.999'):
            resp = self.get('/v1/nodes', version=value)
            self.assertError(406, resp, value)
            self.assertRangeHeaders(resp)
            self.assertNotIn(VERSION, resp.headers)

    def test_406_names_the_supported_range(self):
        resp = self.get('/v1', version=base.ABOVE)
        self.assertError(406, resp, '[1.1, %s]' % base.LATEST)

    def test_malformed_version_is_400(self):
        for value in ('1', 'one.two', '1.2.3', '01.5', '1.05', 'v1.5'):
            resp = self.get('/v1', version=value)
            self.assertError(400, resp, value)
            self.assertRangeHeaders(resp)

    def test_blank_version_is_400(self):
        for headers in ({VERSION: ''}, {VERSION: '  '}):
            resp = self.unversioned('GET', '/v1/pools', headers)
            self.assertError(400, resp, 'Invalid value for')
            self.assertRangeHeaders(resp)

    def test_unknown_path_is_404(self):
        for path in ('/v2', '/v1/nowhere', '/v1/nodes/x/nowhere'):
            resp = self.get(path)
            self.assertError(404, resp)
            self.assertEqual('application/json', resp.mimetype)

    def test_unknown_method_is_405(self):
        resp = self.request('PUT', '/v1/nodes', {})
        self.assertError(405, resp)
        self.assertIn('POST', resp.headers['Allow'])
        self.assertError(405, self.request('POST', '/v1/nodes/x', {}))
        self.assertError(405, self.request('PATCH', '/v1', []))
