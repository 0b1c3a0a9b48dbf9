"""The redfish_composition external manager against the Redfish double
(tests/redfish_double.py) over HTTP, and the double's documents as
openstack/sushy's models parse them."""
import threading

import requests
from sushy.resources.compositionservice import constants as sushy_consts
from sushy.resources.compositionservice import resourceblock
from werkzeug import serving

from pool_conductor import exception
from pool_conductor.external_managers import base as ext_base
from pool_conductor.external_managers import redfish_composition
from tests import base
from tests import redfish_double

BLOCKS = redfish_double.BLOCKS


class _Response:
    """A Flask test response as sushy's connector answers."""

    def __init__(self, response):
        self._response = response
        self.content = response.data
        self.headers = dict(response.headers)
        self.status_code = response.status_code

    def json(self):
        return self._response.get_json()


class _Connector:
    def __init__(self, client):
        self.client = client

    def get(self, path='', **kwargs):
        return _Response(self.client.get(path))


class _QuietHandler(serving.WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


class RedfishCompositionTestCase(base.TestCase):

    expand = True

    def setUp(self):
        super().setUp()
        self.app = redfish_double.make_app(['b1', 'b2', 'b3'],
                                           expand=self.expand)
        self.server = serving.make_server(
            '127.0.0.1', 0, self.app, threaded=True,
            request_handler=_QuietHandler)
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(self.server.shutdown)
        self.url = 'http://127.0.0.1:%d' % self.server.server_port
        self.params = {'endpoint': self.url, 'timeout': 10}
        self.driver = redfish_composition.RedfishCompositionManager()

    def control(self, what, **body):
        requests.post(self.url + '/control/' + what, json=body,
                      timeout=10).raise_for_status()

    def requests_served(self):
        return self.app.config['STATE']['requests']

    def test_observe_acquire_release(self):
        self.control('compose', block='b2', name='someone')
        self.control('reserve', block='b3', reserved=True)
        token = self.driver.acquire(self.params, 'b1', 'key-1',
                                    {'Description': 'web'})
        self.assertTrue(token.startswith('/redfish/v1/Systems/'))
        self.assertEqual(token, self.driver.acquire(self.params, 'b1',
                                                    'key-1', {}))
        before = self.requests_served()
        seen = self.driver.observe(self.params, ['b1', 'b2', 'b3', 'b4'])
        self.assertEqual(
            [(ext_base.POOL, token), (ext_base.OTHER, None),
             (ext_base.OTHER, None), (ext_base.ABSENT, None)],
            [(seen[r].owner, seen[r].token) for r in ('b1', 'b2', 'b3',
                                                      'b4')])
        served = self.requests_served() - before
        if self.expand:
            # The root, the blocks and the systems, whatever their number.
            self.assertEqual(3, served)
        self.assertRaises(exception.ExternalTaken, self.driver.acquire,
                          self.params, 'b2', 'key-2', {})
        theirs = [uri for uri, s in
                  self.app.config['STATE']['systems'].items()
                  if s['name'] == 'someone'][0]
        # A composition not pool's is not released, whatever the token.
        self.driver.release(self.params, 'b2', theirs)
        self.driver.release(self.params, 'b1', token)
        self.driver.release(self.params, 'b1', token)
        seen = self.driver.observe(self.params, ['b1', 'b2'])
        self.assertEqual((ext_base.NONE, ext_base.OTHER),
                         (seen['b1'].owner, seen['b2'].owner))

    def test_refused_composition_is_taken(self):
        # Composed by someone between pool's look and its request.
        self.control('compose', block='b1', name='quick')
        self.assertRaises(exception.ExternalTaken, self.driver.acquire,
                          self.params, 'b1', 'key', {})

    def test_unreachable_is_an_error(self):
        self.server.shutdown()
        self.server.server_close()
        self.assertRaises(exception.ExternalManagerError,
                          self.driver.observe, self.params, ['b1'])

    def test_documents_parse_as_sushy_models(self):
        self.control('compose', block='b2', name='someone')
        connector = _Connector(self.app.test_client())
        free = resourceblock.ResourceBlock(connector, BLOCKS + '/b1')
        composed = resourceblock.ResourceBlock(connector, BLOCKS + '/b2')
        self.assertEqual(
            ('b1', 'Block b1', sushy_consts.CompositionState.UNUSED,
             False),
            (free.identity, free.name,
             free.composition_status.composition_state,
             free.composition_status.reserved_state))
        self.assertEqual(sushy_consts.CompositionState.COMPOSED,
                         composed.composition_status.composition_state)
        self.assertEqual(1, composed.composition_status
                         .number_of_compositions)
        collection = resourceblock.ResourceBlockCollection(connector,
                                                           BLOCKS)
        self.assertEqual(tuple(BLOCKS + '/' + b for b in ('b1', 'b2',
                                                          'b3')),
                         collection.members_identities)


class RedfishWithoutExpandTestCase(RedfishCompositionTestCase):
    """A service without $expand: one request per member."""

    expand = False
