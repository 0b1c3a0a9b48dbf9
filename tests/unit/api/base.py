"""API tests: the Flask app in-process on a SQLite database."""
import json
import threading

from pool_api import app as pool_app
from pool_api import microversion
from pool_conductor.baremetal import provisioning
from pool_conductor.db import nodes as nodes_db
from pool_conductor import rpcapi
from tests import base

LATEST = microversion.to_string(microversion.MAX_VERSION)
# The first version pool does not serve.
ABOVE = microversion.to_string((1, microversion.MAX_VERSION[1] + 1))


class APITestCase(base.TestCase):
    """Drives create_app() through Flask's test client.

    Casts to conductors are recorded in ``self.casts`` instead of being
    sent; a test runs them with a real worker when it needs them done.
    Every request is made with version ``self.version`` unless the call
    passes its own headers.
    """

    version = LATEST

    def setUp(self):
        super().setUp()
        self.app = pool_app.create_app()
        self.client = self.app.test_client()
        self.casts = []
        self.alive = ['test-host']
        # The conductor group of each conductor of self.alive, '' if
        # absent.
        self.groups = {}
        self.patch(rpcapi.ConductorAPI, 'alive_with_groups',
                   lambda _self, _ctx: [(host, self.groups.get(host, ''))
                                        for host in self.alive])
        self.real_create_allocation = rpcapi.ConductorAPI.create_allocation
        self.patch(rpcapi.ConductorAPI, 'create_allocation',
                   lambda _self, _ctx, alloc_id, host:
                   self.casts.append((alloc_id, host)))
        self.provision_casts = []
        self.patch(rpcapi.ConductorAPI, 'continue_provisioning',
                   lambda _self, _ctx, node_id, host:
                   self.provision_casts.append((node_id, host)))

    def finish_provisioning(self):
        """Have a conductor move on the nodes cast to it in a provision
        state in progress (deploying to active, deleting to available)."""
        casts, self.provision_casts = self.provision_casts, []
        provisioning.continue_nodes(self.context, [n for n, _h in casts])

    def lock_for_a_moment(self, ident: str, seconds: float = 0.3) -> None:
        """Lock a node as conductor "other" moving it on would, for
        seconds; a change of it meanwhile waits for the lock when
        [conductor] node_locked_retry_* allow."""
        node = nodes_db.get_node(self.context, ident)
        self.assertTrue(nodes_db.reserve(self.context, node.id, 'other'))
        unlock = threading.Timer(seconds, nodes_db.unreserve,
                                 (self.context, node.id, 'other'))
        unlock.start()
        self.addCleanup(unlock.cancel)

    def request(self, method, path, body=None, version=None, headers=None,
                raw=None):
        hdrs = {'X-OpenStack-Ironic-API-Version': version or self.version}
        hdrs.update(headers or {})
        kwargs = {'headers': hdrs}
        if raw is not None:
            kwargs['data'] = raw
            kwargs['content_type'] = 'application/json'
        elif body is not None:
            kwargs['json'] = body
        return self.client.open(path, method=method, **kwargs)

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body, **kw):
        return self.request('POST', path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request('PUT', path, body, **kw)

    def patch_json(self, path, ops, **kw):
        return self.request('PATCH', path, ops, **kw)

    def delete(self, path, **kw):
        return self.request('DELETE', path, **kw)

    def assertError(self, status, response, contains=None):
        """Check an error response is in Ironic's shape; return its text."""
        self.assertEqual(status, response.status_code, response.get_data())
        self.assertTrue(response.get_data().endswith(b'\n'),
                        response.get_data())
        fault = json.loads(response.get_json()['error_message'])
        self.assertEqual('Client' if status < 500 else 'Server',
                         fault['faultcode'])
        self.assertIsNone(fault['debuginfo'])
        if contains is not None:
            self.assertIn(contains, fault['faultstring'])
        return fault['faultstring']

    def enroll(self, **values):
        """Create a node through the API and make it available."""
        values.setdefault('driver', 'fake-hardware')
        values.setdefault('resource_class', 'baremetal')
        resp = self.post('/v1/nodes', values)
        self.assertEqual(201, resp.status_code, resp.get_data())
        uuid = resp.get_json()['uuid']
        for verb in ('manage', 'provide'):
            resp = self.put('/v1/nodes/%s/states/provision' % uuid,
                            {'target': verb})
            self.assertEqual(202, resp.status_code, resp.get_data())
        return self.get('/v1/nodes/%s' % uuid).get_json()
