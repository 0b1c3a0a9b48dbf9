"""The brokers API: /v1/brokers."""
import json

import fixtures

from pool_api import app as pool_app
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from tests.unit.api import base


class TestBrokers(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.config(program=['lab-vms:/bin/true', 'other:/bin/false'],
                    group='exec_broker')

    def create(self, body, status=201):
        resp = self.post('/v1/brokers', body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def test_create_show_list_update_delete(self):
        body = self.create({'name': 'cloud', 'driver': 'fake',
                            'description': 'VMs',
                            'parameters': {'resource_class': 'vm'}})
        self.assertEqual({'resource_class': 'vm'}, body['parameters'])
        self.assertTrue(body['links'][0]['href'].endswith('/v1/brokers/cloud'))
        self.assertEqual('fake', self.get('/v1/brokers/cloud').get_json()
                         ['driver'])
        self.assertEqual(['cloud'], [b['name'] for b in self.get(
            '/v1/brokers').get_json()['brokers']])
        resp = self.patch_json('/v1/brokers/cloud', [
            {'op': 'add', 'path': '/parameters/delay', 'value': 0.1}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'resource_class': 'vm', 'delay': 0.1},
                         self.get('/v1/brokers/cloud').get_json()
                         ['parameters'])
        self.assertEqual(204, self.delete('/v1/brokers/cloud').status_code)
        self.assertError(404, self.get('/v1/brokers/cloud'),
                         'Broker cloud could not be found')

    def test_bad_input_is_400(self):
        for body in ({}, {'name': 'x'}, {'driver': 'fake'},
                     {'name': 'a b', 'driver': 'fake'},
                     {'name': 'x', 'driver': 'fake', 'parameters': []},
                     {'name': 'x', 'driver': 'fake', 'colour': 'red'}):
            self.assertError(400, self.post('/v1/brokers', body))
        self.assertError(400, self.post('/v1/brokers', {
            'name': 'x', 'driver': 'nope'}), 'No broker driver is named nope')
        self.assertError(400, self.post('/v1/brokers', {
            'name': 'x', 'driver': 'fake', 'parameters': {'fail': 5}}),
            'fail must be a number from 0 to 1')
        self.assertError(400, self.post('/v1/brokers', {
            'name': 'x', 'driver': 'exec'}), 'needs the parameter program')
        self.create({'name': 'x', 'driver': 'exec',
                     'parameters': {'program': 'lab-vms'}})
        self.assertError(400, self.patch_json('/v1/brokers/x', [
            {'op': 'remove', 'path': '/parameters/program'}]),
            'needs the parameter program')
        self.assertError(400, self.patch_json('/v1/brokers/x', [
            {'op': 'replace', 'path': '/driver', 'value': 'nope'}]))
        self.assertError(400, self.patch_json('/v1/brokers/x', [
            {'op': 'replace', 'path': '/name', 'value': 'y'}]))
        self.assertError(404, self.patch_json('/v1/brokers/y', [
            {'op': 'replace', 'path': '/description', 'value': 'y'}]))

    def test_exec_runs_only_configured_programs(self):
        command = {'command': ['/bin/sh', '-c', 'touch /tmp/owned']}
        message = ('The exec broker no longer takes the parameter command: '
                   'the operator configures the programs it may run '
                   '([exec_broker] program). Name one in the parameter '
                   'program instead, such as {"program": "lab-vms"}; the '
                   'configured programs are lab-vms, other.')
        self.assertError(400, self.post('/v1/brokers', {
            'name': 'x', 'driver': 'exec', 'parameters': command}), message)
        self.create({'name': 'x', 'driver': 'exec',
                     'parameters': {'program': 'other'}})
        self.assertError(400, self.patch_json('/v1/brokers/x', [
            {'op': 'add', 'path': '/parameters/command',
             'value': command['command']}]), message)
        self.assertError(400, self.patch_json('/v1/brokers/x', [
            {'op': 'replace', 'path': '/parameters/program',
             'value': '/bin/sh'}]),
            'not "/bin/sh"; the configured programs are lab-vms, other.')
        self.assertEqual({'program': 'other'},
                         self.get('/v1/brokers/x').get_json()['parameters'])
        self.config(program=[], group='exec_broker')
        self.assertError(400, self.post('/v1/brokers', {
            'name': 'y', 'driver': 'exec',
            'parameters': {'program': 'other'}}),
            'no program is configured')

    def test_a_broker_of_a_command_moves_to_a_program(self):
        pools_db.create(self.context, models.Broker, {
            'name': 'old', 'driver': 'exec',
            'parameters': {'command': ['/bin/true'], 'timeout': 60}})
        self.assertError(400, self.patch_json('/v1/brokers/old', [
            {'op': 'remove', 'path': '/parameters/command'}]),
            'needs the parameter program')
        resp = self.patch_json('/v1/brokers/old', [
            {'op': 'remove', 'path': '/parameters/command'},
            {'op': 'add', 'path': '/parameters/program', 'value': 'lab-vms'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'program': 'lab-vms', 'timeout': 60},
                         resp.get_json()['parameters'])

    def test_duplicate_is_409(self):
        self.create({'name': 'cloud', 'driver': 'fake'})
        self.assertError(409, self.post('/v1/brokers', {
            'name': 'cloud', 'driver': 'fake'}), 'already exists')

    def test_in_use_is_409(self):
        self.create({'name': 'cloud', 'driver': 'fake'})
        node = nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'broker': 'cloud',
            'broker_ref': 'r1'})
        self.assertError(409, self.delete('/v1/brokers/cloud'),
                         'node %s was made by it' % node.uuid)
        pools_db.create(self.context, models.Pool,
                        {'name': 'vms', 'broker': 'cloud'})
        self.assertError(409, self.delete('/v1/brokers/cloud'),
                         'pool vms uses it')

    def test_secrets_are_masked(self):
        params = {'program': 'lab-vms', 'api_password': 'hunter2',
                  'token': 's3cret', 'region': 'east'}
        body = self.create({'name': 'cloud', 'driver': 'exec',
                            'parameters': params})
        masked = {**params, 'api_password': '******', 'token': '******'}
        self.assertEqual(masked, body['parameters'])
        self.assertEqual(masked, self.get('/v1/brokers/cloud').get_json()
                         ['parameters'])
        # A change of another key keeps the secrets as they were.
        resp = self.patch_json('/v1/brokers/cloud', [
            {'op': 'replace', 'path': '/parameters/region', 'value': 'w'}])
        self.assertEqual('******', resp.get_json()['parameters']['token'])
        stored = pools_db.get(self.context, models.Broker, 'cloud')
        self.assertEqual('hunter2', stored.parameters['api_password'])
        self.assertEqual('w', stored.parameters['region'])

    def test_nested_secrets_are_masked(self):
        body = self.create({'name': 'up', 'driver': 'baremetal',
                            'parameters': {'resource_class': 'up',
                                           'auth': {'username': 'pool',
                                                    'password': 'hunter2'}}})
        self.assertEqual({'username': 'pool', 'password': '******'},
                         body['parameters']['auth'])

    def test_secrets_shown_when_the_policy_allows(self):
        path = self.useFixture(fixtures.TempDir()).join('policy.yaml')
        with open(path, 'w') as f:
            json.dump({'pool:broker:show_secrets': 'role:admin'}, f)
        self.config(policy_file=path, group='oslo_policy')
        self.app = pool_app.create_app()
        self.client = self.app.test_client()
        body = self.create({'name': 'cloud', 'driver': 'fake',
                            'parameters': {'password': 'hunter2'}})
        self.assertEqual({'password': 'hunter2'}, body['parameters'])
