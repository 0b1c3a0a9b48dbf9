"""The volume API: /v1/volume, connectors and targets, and their forms
under /v1/nodes/<node>."""
import uuid

from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base

IQN = 'iqn.2017-07.org.openstack:01:d9a51732c3f'


class VolumeTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def connector(self, status=201, **values):
        values.setdefault('node_uuid', self.node.uuid)
        values.setdefault('type', 'iqn')
        values.setdefault('connector_id', IQN)
        resp = self.post('/v1/volume/connectors', values)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def target(self, status=201, **values):
        values.setdefault('node_uuid', self.node.uuid)
        values.setdefault('volume_type', 'iscsi')
        values.setdefault('volume_id', str(uuid.uuid4()))
        values.setdefault('boot_index', 0)
        resp = self.post('/v1/volume/targets', values)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def power(self, state):
        nodes_db.update_node(self.context, nodes_db.get_node(
            self.context, self.node.uuid), {'power_state': state})


class TestVolumeRoot(VolumeTestCase):

    def test_links(self):
        body = self.get('/v1/volume').get_json()
        self.assertTrue(body['connectors'][0]['href'].endswith(
            '/v1/volume/connectors'))
        self.assertTrue(body['targets'][1]['href'].endswith(
            '/volume/targets'))
        body = self.get('/v1/nodes/node-1/volume').get_json()
        self.assertTrue(body['targets'][0]['href'].endswith(
            '/v1/nodes/node-1/volume/targets'))
        for path in ('/v1/volume', '/v1/volume/connectors',
                     '/v1/volume/targets', '/v1/nodes/node-1/volume'):
            self.assertError(404, self.get(path, version='1.31'))
        self.assertError(404, self.get('/v1/nodes/nope/volume'))


class TestConnectors(VolumeTestCase):

    def test_create_show_list(self):
        made = self.connector(extra={'a': 1})
        self.assertEqual(('iqn', IQN, self.node.uuid, {'a': 1}),
                         (made['type'], made['connector_id'],
                          made['node_uuid'], made['extra']))
        url = '/v1/volume/connectors/%s' % made['uuid']
        self.assertEqual(made, self.get(url).get_json())
        wwpn = self.connector(type='wwpn', connector_id='50:01:43:80:12:34')
        listed = self.get('/v1/volume/connectors').get_json()['connectors']
        self.assertEqual([made['uuid'], wwpn['uuid']],
                         [c['uuid'] for c in listed])
        self.assertEqual({'uuid', 'node_uuid', 'type', 'connector_id',
                          'links'}, set(listed[0]))
        detail = self.get('/v1/volume/connectors?detail=true').get_json()
        self.assertEqual(made, detail['connectors'][0])
        for path in ('/v1/volume/connectors?node=node-1',
                     '/v1/nodes/node-1/volume/connectors'):
            self.assertEqual(2, len(self.get(path).get_json()
                                    ['connectors']), path)
        other = self.create_node(name='node-2')
        self.assertEqual([], self.get('/v1/nodes/%s/volume/connectors'
                                      % other.uuid).get_json()
                         ['connectors'])
        self.assertEqual([{'type': 'wwpn', 'links': wwpn['links']}],
                         self.get('/v1/volume/connectors?fields=type&'
                                  'sort_key=type&sort_dir=desc&limit=1')
                         .get_json()['connectors'])
        self.assertError(400, self.get('/v1/volume/connectors?detail=true&'
                                       'fields=type'))
        self.assertError(400, self.get('/v1/volume/connectors?'
                                       'sort_key=extra'))

    def test_type_and_connector_id_are_unique_and_types_checked(self):
        self.connector()
        other = self.create_node(name='node-2')
        self.assertError(409, self.post('/v1/volume/connectors', {
            'node_uuid': other.uuid, 'type': 'iqn', 'connector_id': IQN}),
            'A volume connector with type iqn and connector ID %s already '
            'exists.' % IQN)
        self.connector(type='ip', connector_id=IQN)
        self.assertError(400, self.post('/v1/volume/connectors', {
            'node_uuid': self.node.uuid, 'type': 'nvme',
            'connector_id': 'x'}), 'Invalid volume connector type "nvme"')
        for kind in ('mac', 'wwnn', 'port', 'portgroup'):
            self.connector(type=kind, connector_id='id-%s' % kind)
        missing = str(uuid.uuid4())
        self.assertError(400, self.post('/v1/volume/connectors', {
            'node_uuid': missing, 'type': 'iqn', 'connector_id': 'y'}),
            'Node %s could not be found.' % missing)
        self.assertError(400, self.post('/v1/volume/connectors', {
            'node_uuid': self.node.uuid, 'type': 'iqn'}), 'connector_id')

    def test_changes_only_while_powered_off(self):
        made = self.connector()
        url = '/v1/volume/connectors/%s' % made['uuid']
        change = [{'op': 'replace', 'path': '/connector_id', 'value': 'x'}]
        self.power('power on')
        self.assertError(400, self.patch_json(url, change),
                         'The requested action "volume connector update" '
                         'can not be performed on node "%s" while it is in '
                         'state "power on".' % self.node.uuid)
        self.assertError(400, self.delete(url),
                         'volume connector deletion')
        self.power('power off')
        resp = self.patch_json(url, change)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('x', resp.get_json()['connector_id'])
        self.assertError(400, self.patch_json(url, [
            {'op': 'replace', 'path': '/type', 'value': 'bogus'}]))
        self.assertError(400, self.patch_json(url, [
            {'op': 'remove', 'path': '/type'}]), 'Mandatory field')
        self.assertEqual(204, self.delete(url).status_code)
        self.assertError(404, self.get(url))

    def test_move_to_another_node(self):
        other = self.create_node(name='node-2')
        made = self.connector()
        resp = self.patch_json('/v1/volume/connectors/%s' % made['uuid'], [
            {'op': 'replace', 'path': '/node_uuid', 'value': other.uuid}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(other.uuid, resp.get_json()['node_uuid'])


class TestTargets(VolumeTestCase):

    def test_create_show_list_and_boot_index_unique_per_node(self):
        volume = str(uuid.uuid4())
        made = self.target(volume_id=volume,
                           properties={'target_iqn': IQN,
                                       'auth_password': 'secret'})
        self.assertEqual(('iscsi', 0, volume),
                         (made['volume_type'], made['boot_index'],
                          made['volume_id']))
        self.assertEqual({'target_iqn': IQN, 'auth_password': '******'},
                         made['properties'])
        self.assertError(409, self.post('/v1/volume/targets', {
            'node_uuid': self.node.uuid, 'volume_type': 'iscsi',
            'volume_id': str(uuid.uuid4()), 'boot_index': 0}),
            "A volume target with boot index '0' for the same node "
            "already exists.")
        other = self.create_node(name='node-2')
        self.target(node_uuid=other.uuid)
        second = self.target(boot_index=1)
        self.assertEqual(
            [made['uuid'], second['uuid']],
            [t['uuid'] for t in self.get('/v1/nodes/node-1/volume/targets')
             .get_json()['targets']])
        self.assertEqual(3, len(self.get('/v1/volume/targets').get_json()
                                ['targets']))
        self.assertError(400, self.post('/v1/volume/targets', {
            'node_uuid': self.node.uuid, 'volume_type': 'iscsi',
            'volume_id': 'v', 'boot_index': 'first'}))
        self.assertError(400, self.post('/v1/volume/targets', {
            'node_uuid': self.node.uuid, 'volume_type': 'iscsi',
            'volume_id': 'v', 'boot_index': -1}))

    def test_update_delete_and_node_deletion(self):
        made = self.target(properties={'lun': 1})
        url = '/v1/volume/targets/%s' % made['uuid']
        resp = self.patch_json(url, [
            {'op': 'add', 'path': '/properties/lun', 'value': 2},
            {'op': 'replace', 'path': '/boot_index', 'value': 3}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(({'lun': 2}, 3), (resp.get_json()['properties'],
                                           resp.get_json()['boot_index']))
        self.power('power on')
        self.assertError(400, self.delete(url), 'volume target deletion')
        self.power('power off')
        self.target(boot_index=0)
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertEqual([], self.get('/v1/volume/targets').get_json()
                         ['targets'])
