"""Secrets in API answers and error messages are masked."""
import json

from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from tests.unit.api import base

# Each secret below is a value no answer may show.
BROKER_PARAMETERS = {
    'resource_class': 'vm',
    'api_key': 'leak-api-key',
    'access_key': 'leak-access-key',
    'passwd': 'leak-passwd',
    'endpoint': 'https://pool:leak-url-pass@cloud.example/v1',
    'headers': {'Authorization': 'Bearer leak-bearer',
                'X-Trace': 'Bearer leak-other-bearer'},
    'credentials': {'user': 'leak-user', 'key': 'leak-cred-key'},
    'args': ['--region', 'east', '--password', 'leak-arg-pass'],
    'setup': 'login --passwd leak-inline-passwd',
}
MASKED_PARAMETERS = {
    'resource_class': 'vm',
    'api_key': '******',
    'access_key': '******',
    'passwd': '******',
    'endpoint': 'https://pool:******@cloud.example/v1',
    'headers': {'Authorization': '******', 'X-Trace': 'Bearer ******'},
    'credentials': '******',
    'args': ['--region', 'east', '--password', '******'],
    'setup': 'login --passwd ******',
}


class TestSecretsInAnswers(base.APITestCase):

    def assertNoSecret(self, response):
        self.assertNotIn(b'leak-', response.get_data())

    def test_broker_parameters(self):
        resp = self.post('/v1/brokers', {'name': 'cloud', 'driver': 'fake',
                                         'parameters': BROKER_PARAMETERS})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual(MASKED_PARAMETERS, resp.get_json()['parameters'])
        for path in ('/v1/brokers', '/v1/brokers/cloud'):
            self.assertNoSecret(self.get(path))
        resp = self.patch_json('/v1/brokers/cloud', [
            {'op': 'replace', 'path': '/parameters/resource_class',
             'value': 'big'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertNoSecret(resp)

    def test_node_driver_and_instance_info(self):
        resp = self.post('/v1/nodes', {
            'driver': 'fake-hardware',
            'driver_info': {'redfish_address': 'https://admin:leak-bmc@'
                                               'bmc.example',
                            'api_key': 'leak-node-key'},
            'instance_info': {'credentials': {'root': 'leak-root'},
                              'image_source': 'http://img.example/a.qcow2'}})
        self.assertEqual(201, resp.status_code, resp.get_data())
        body = self.get('/v1/nodes/%s' % resp.get_json()['uuid']).get_json()
        self.assertEqual({'redfish_address': 'https://admin:******@'
                                             'bmc.example',
                          'api_key': '******'}, body['driver_info'])
        self.assertEqual({'credentials': '******',
                          'image_source': 'http://img.example/a.qcow2'},
                         body['instance_info'])

    def test_profile_params(self):
        resp = self.post('/v1/profiles', {
            'name': 'lab', 'secret_params': ['root_pw'],
            'params': {'root_pw': 'leak-root', 'ntp': 'ntp.example',
                       'access_key': 'leak-access'}})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual({'root_pw': '******', 'ntp': 'ntp.example',
                          'access_key': '******'},
                         resp.get_json()['params'])
        for path in ('/v1/profiles', '/v1/profiles/lab'):
            self.assertNoSecret(self.get(path))
        resp = self.patch_json('/v1/profiles/lab', [
            {'op': 'replace', 'path': '/params/ntp', 'value': 'ntp2'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertNoSecret(resp)
        self.assertEqual('leak-root', pools_db.get(
            self.context, models.Profile, 'lab').params['root_pw'])
        node = self.create_node(profiles=['lab'])
        self.assertNoSecret(self.get('/v1/nodes/%s/params?aggregate=true'
                                     % node.uuid))


class TestSecretsInErrors(base.APITestCase):

    def message(self, response) -> str:
        self.assertEqual(400, response.status_code, response.get_data())
        return json.loads(response.get_json()['error_message'])[
            'faultstring']

    def test_schema_errors(self):
        for parameters, shown in (
                ('password=leak-pw', "'password=******'"),
                ('https://u:leak-pw@host/', "'https://u:******@host/'"),
                ({'token': 'leak-t', **{'k%d' % i: i for i in range(100)}},
                 '"token": "******"')):
            message = self.message(self.post('/v1/brokers', {
                'name': 'x', 'driver': 'fake', 'parameters': parameters}))
            self.assertNotIn('leak-', message)
            self.assertIn(shown, message)

    def test_a_refused_secret_is_not_quoted(self):
        node = self.create_node()
        message = self.message(self.put(
            '/v1/nodes/%s/states/provision' % node.uuid,
            {'target': 'manage', 'rescue_password': 'leak-' + 'x' * 300}))
        self.assertEqual('Invalid input for field/attribute rescue_password. '
                         'Value: "******". \'******\' is too long', message)

    def test_broker_parameter_errors(self):
        message = self.message(self.post('/v1/brokers', {
            'name': 'x', 'driver': 'fake',
            'parameters': {'delay': '--password leak-pw'}}))
        self.assertIn('delay must be a number', message)
        self.assertNotIn('leak-', message)
        message = self.message(self.post('/v1/brokers', {
            'name': 'x', 'driver': 'fake',
            'parameters': {'fail': 'leak-same', 'token': 'leak-same'}}))
        self.assertNotIn('leak-', message)
