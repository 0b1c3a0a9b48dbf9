"""Indicators of nodes, as Ironic's fake-hardware answers them."""
from tests.unit.api import base


class TestIndicators(base.APITestCase):

    def setUp(self):
        super().setUp()
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware',
                                       'name': 'n1'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.url = '/v1/nodes/n1/management/indicators'

    def test_list(self):
        resp = self.get(self.url)
        self.assertEqual(200, resp.status_code, resp.get_data())
        found = {i['name']: i for i in resp.get_json()['indicators']}
        self.assertEqual({'led-0@chassis', 'led@system'}, set(found))
        self.assertIs(True, found['led-0@chassis']['readonly'])
        self.assertEqual(['BLINKING', 'OFF', 'ON'],
                         found['led@system']['states'])
        self.assertEqual('system', found['led@system']['component'])
        self.assertTrue(found['led@system']['links'][0]['href'].endswith(
            '/management/indicators/led@system'))

    def test_state(self):
        resp = self.get(self.url + '/led@system')
        self.assertEqual({'state': 'ON'}, resp.get_json())

    def test_unknown_and_malformed(self):
        self.assertError(400, self.get(self.url + '/led@disk'),
                         'Invalid component disk')
        self.assertError(400, self.get(self.url + '/fan@system'),
                         'Invalid indicator fan')
        self.assertError(400, self.get(self.url + '/led'),
                         'Malformed indicator name')

    def test_setting_is_not_supported_by_the_fake_interface(self):
        self.assertError(400, self.put(self.url + '/led@system',
                                       {'state': 'OFF'}),
                         'does not support set_indicator_state')
        self.assertError(400, self.put(self.url + '/led@system', {}))

    def test_unknown_node(self):
        self.assertError(404, self.get('/v1/nodes/nope/management/'
                                       'indicators'))
