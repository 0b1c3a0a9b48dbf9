"""auth_strategy = http_basic on a real pool-server process."""
import base64
import json
import urllib.error
import urllib.request

import fixtures
import openstack
import testtools

from tests.functional import cluster
from tests.unit.api import test_auth

VERSION = {'X-OpenStack-Ironic-API-Version': '1.60'}


class TestHTTPBasicServer(testtools.TestCase):

    def setUp(self):
        super().setUp()
        path = self.useFixture(fixtures.TempDir()).join('htpasswd')
        test_auth.write_htpasswd(path, {'admin': 'pa55word'})
        self.server = self.useFixture(cluster.PoolServer(
            'auth_strategy = http_basic\nhttp_basic_auth_user_file = %s'
            % path))
        self.addOnException(lambda _exc: self.addDetail(
            'pool-server-log',
            testtools.content.text_content(self.server.log())))

    def open(self, path: str, headers: dict | None = None,
             method: str = 'GET', body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.server.url + path, data=data, method=method,
            headers={**VERSION, 'Content-Type': 'application/json',
                     **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return resp.status, dict(resp.headers), resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    def test_unauthenticated_is_401_with_challenge(self):
        status, headers, body = self.open('/v1/nodes')
        self.assertEqual(401, status)
        self.assertEqual('Basic realm="Pool API"',
                         headers['WWW-Authenticate'])
        self.assertIn('faultstring', json.loads(body)['error_message'])

    def test_public_paths(self):
        for path in ('/', '/v1', '/v1/openapi.json', '/healthz'):
            self.assertEqual(200, self.open(path)[0], path)

    def test_credentials(self):
        good = 'Basic ' + base64.b64encode(b'admin:pa55word').decode()
        bad = 'Basic ' + base64.b64encode(b'admin:nope').decode()
        self.assertEqual(401, self.open('/v1/nodes',
                                        {'Authorization': bad})[0])
        status, _headers, body = self.open(
            '/v1/nodes', {'Authorization': good}, 'POST',
            {'driver': 'fake-hardware', 'name': 'n1'})
        self.assertEqual(201, status, body)

    def test_openstacksdk_with_http_basic(self):
        conn = openstack.connect(
            auth_type='http_basic', username='admin', password='pa55word',
            endpoint=self.server.url, baremetal_endpoint_override=(
                self.server.url), region_name='')
        node = conn.baremetal.create_node(driver='fake-hardware',
                                          name='sdk-node')
        self.assertEqual(['sdk-node'],
                         [n.name for n in conn.baremetal.nodes()])
        self.assertEqual(node.id, conn.baremetal.get_node('sdk-node').id)
