"""pool-server runs workflows with its in-process conductor."""
import json
import urllib.error
import urllib.request

import testtools

from tests.functional import cluster

HEADERS = {'X-OpenStack-Ironic-API-Version': cluster.API_VERSION,
           'Content-Type': 'application/json'}


class TestServerWorkflows(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(cluster.PoolServer(
            '[provisioner]\ndriver = fake\nfake_stage_delay = 0.2\n'
            '[conductor]\ncheck_workflows_interval = 0.1'))
        self.addOnException(lambda _exc: self.addDetail(
            'pool-server-log',
            testtools.content.text_content(self.server.log())))

    def request(self, method: str, path: str, body=None,
                expected: int = 200):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server.url + path, data=data,
                                     method=method, headers=HEADERS)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        self.assertEqual(expected, status, raw)
        return json.loads(raw) if raw else None

    def test_blocking_allocation_runs_the_workflow(self):
        for i in range(2):
            node = self.request('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'name': 'node-%d' % i}, 201)
            for verb in ('manage', 'provide'):
                self.request('PUT', '/v1/nodes/%s/states/provision'
                             % node['uuid'], {'target': verb}, 202)
        self.request('POST', '/v1/workflows', {
            'name': 'deploy', 'stages': ['install', 'configure',
                                         'complete']}, 201)
        body = self.request('POST', '/v1/pools/default/allocateMachines', {
            'count': 2, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete', 'blocking': True,
            'wait_timeout': 30})
        self.assertEqual([('InUse', True)] * 2,
                         [(r['status'], r['allocated']) for r in body])
        node = self.request('GET', '/v1/nodes/node-0')
        self.assertEqual(('complete', 'InUse'),
                         (node['stage'], node['pool_status']))
