"""oslo.middleware in front of the API: body size, request ids, health,
proxy headers."""
import io
import json

from pool_api import app as pool_app
from tests.unit.api import base


class TestBodySizeLimit(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.config(max_request_body_size=1024, group='oslo_middleware')

    def test_declared_body_over_the_limit_is_413(self):
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware',
                                       'extra': {'x': 'y' * 2000}})
        self.assertIn('1024', self.assertError(413, resp))

    def test_body_without_length_over_the_limit_is_413(self):
        body = json.dumps({'driver': 'fake-hardware',
                           'extra': {'x': 'y' * 2000}}).encode()
        resp = self.client.open(
            '/v1/nodes', method='POST',
            input_stream=io.BytesIO(body),
            headers={'X-OpenStack-Ironic-API-Version': base.LATEST,
                     'Content-Type': 'application/json',
                     'Transfer-Encoding': 'chunked'})
        self.assertError(413, resp)

    def test_body_under_the_limit(self):
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware'})
        self.assertEqual(201, resp.status_code, resp.get_data())

    def test_malformed_content_length_is_400(self):
        statuses = []
        limit = pool_app._BodySizeLimit(lambda env, start: [b'app'])
        body = limit({'CONTENT_LENGTH': 'x'},
                     lambda status, headers: statuses.append(status))
        self.assertEqual(['400 Bad Request'], statuses)
        self.assertIn(b'Content-Length', b''.join(body))


class TestRequestId(base.APITestCase):

    def test_every_response_has_a_new_request_id(self):
        first = self.get('/v1/nodes').headers['X-Openstack-Request-Id']
        second = self.get('/v1/nodes/nope').headers['X-Openstack-Request-Id']
        self.assertTrue(first.startswith('req-'))
        self.assertNotEqual(first, second)

    def test_only_a_well_formed_client_id_is_kept_as_global(self):
        seen = []

        def inner(environ, start_response):
            seen.append((environ['openstack.request_id'],
                         environ.get('openstack.global_request_id')))
            start_response('200 OK', [])
            return [b'']

        sent = 'req-11111111-2222-3333-4444-555555555555'
        middleware = pool_app._RequestId(inner)
        for header, kept in ((sent, sent), (sent + '\n', None),
                             ('req-1', None), ('', None)):
            headers = []
            middleware({'HTTP_X_OPENSTACK_REQUEST_ID': header},
                       lambda status, h, exc_info=None, into=headers:
                       into.extend(h))
            own, global_id = seen[-1]
            self.assertEqual(kept, global_id)
            self.assertNotEqual(sent, own)
            self.assertEqual([('x-openstack-request-id', own)], headers)

    def test_an_id_header_of_the_application_is_not_repeated(self):
        def inner(environ, start_response):
            start_response('200 OK', [('X-OpenStack-Request-Id', 'mine')])
            return [b'']

        headers = []
        pool_app._RequestId(inner)(
            {}, lambda status, h, exc_info=None: headers.extend(h))
        self.assertEqual([('X-OpenStack-Request-Id', 'mine')], headers)


class TestHealthcheck(base.APITestCase):

    def test_healthz(self):
        resp = self.client.get('/healthz')
        self.assertEqual(200, resp.status_code)
        self.assertEqual('text/plain', resp.mimetype)
        self.assertNotIn('error_message', resp.get_data(as_text=True))


class TestProxyHeaders(base.APITestCase):

    def node_link(self, headers):
        self.enroll(name='n1')
        return self.get('/v1/nodes/n1', headers=headers).get_json()[
            'links'][0]['href']

    def test_forwarded_proto_used_when_enabled(self):
        self.config(enable_proxy_headers_parsing=True,
                    group='oslo_middleware')
        link = self.node_link({'X-Forwarded-Proto': 'https',
                               'X-Forwarded-Host': 'pool.example.com'})
        self.assertTrue(link.startswith('https://pool.example.com/v1/'),
                        link)

    def test_forwarded_proto_ignored_by_default(self):
        link = self.node_link({'X-Forwarded-Proto': 'https'})
        self.assertTrue(link.startswith('http://'), link)
