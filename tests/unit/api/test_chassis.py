"""The chassis API (/v1/chassis, /v1/chassis/<chassis>/nodes) and the
chassis_uuid of nodes."""
import uuid

from tests.unit.api import base


class ChassisTestCase(base.APITestCase):

    def create_chassis(self, status=201, **values):
        resp = self.post('/v1/chassis', values)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def test_create_show_list_update(self):
        made = self.create_chassis(description='rack 1', extra={'row': 'a'})
        self.assertEqual(('rack 1', {'row': 'a'}),
                         (made['description'], made['extra']))
        self.assertTrue(made['nodes'][0]['href'].endswith(
            '/v1/chassis/%s/nodes' % made['uuid']))
        url = '/v1/chassis/%s' % made['uuid']
        self.assertEqual(made, self.get(url).get_json())
        given = str(uuid.uuid4())
        self.create_chassis(uuid=given)
        self.assertError(409, self.post('/v1/chassis', {'uuid': given}),
                         'A chassis with UUID %s already exists.' % given)
        listed = self.get('/v1/chassis').get_json()['chassis']
        self.assertEqual([made['uuid'], given], [c['uuid'] for c in listed])
        self.assertEqual({'uuid', 'description', 'links'}, set(listed[0]))
        self.assertEqual(made, self.get('/v1/chassis/detail').get_json()
                         ['chassis'][0])
        resp = self.patch_json(url, [
            {'op': 'replace', 'path': '/description', 'value': 'rack 2'},
            {'op': 'remove', 'path': '/extra/row'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(('rack 2', {}), (resp.get_json()['description'],
                                          resp.get_json()['extra']))
        self.assertError(400, self.patch_json(url, [
            {'op': 'replace', 'path': '/uuid', 'value': given}]))
        self.assertError(400, self.post('/v1/chassis', {'name': 'x'}))
        self.assertError(400, self.post('/v1/chassis',
                                        {'description': 'd' * 256}))
        self.assertError(404, self.get('/v1/chassis/%s' % uuid.uuid4()))
        self.assertError(404, self.get('/v1/chassis/not-a-uuid'))

    def test_nodes_join_by_create_and_patch_and_are_listed(self):
        chassis = self.create_chassis()['uuid']
        first = self.post('/v1/nodes', {'driver': 'fake-hardware',
                                        'name': 'n1',
                                        'chassis_uuid': chassis})
        self.assertEqual(201, first.status_code, first.get_data())
        self.assertEqual(chassis, first.get_json()['chassis_uuid'])
        second = self.create_node(name='n2')
        self.create_node(name='n3')
        self.assertIsNone(self.get('/v1/nodes/n2').get_json()
                          ['chassis_uuid'])
        resp = self.patch_json('/v1/nodes/n2', [
            {'op': 'add', 'path': '/chassis_uuid', 'value': chassis}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(chassis, resp.get_json()['chassis_uuid'])
        for url in ('/v1/chassis/%s/nodes' % chassis,
                    '/v1/chassis/%s/nodes/detail' % chassis,
                    '/v1/nodes?chassis_uuid=%s' % chassis):
            self.assertEqual(['n1', 'n2'], [
                n['name'] for n in self.get(url).get_json()['nodes']], url)
        missing = str(uuid.uuid4())
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'chassis_uuid': missing}),
            'Chassis %s could not be found.' % missing)
        self.assertError(400, self.patch_json('/v1/nodes/n3', [
            {'op': 'add', 'path': '/chassis_uuid', 'value': missing}]),
            'Chassis %s could not be found.' % missing)
        self.assertError(400, self.patch_json('/v1/nodes/n3', [
            {'op': 'add', 'path': '/chassis_uuid', 'value': 'rack'}]))
        # Removal came with version 1.25.
        remove = [{'op': 'remove', 'path': '/chassis_uuid'}]
        self.assertError(406, self.patch_json('/v1/nodes/n2', remove,
                                              version='1.24'))
        resp = self.patch_json('/v1/nodes/%s' % second.uuid, remove)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIsNone(resp.get_json()['chassis_uuid'])

    def test_a_chassis_with_nodes_is_not_deleted(self):
        chassis = self.create_chassis()['uuid']
        self.post('/v1/nodes', {'driver': 'fake-hardware', 'name': 'n1',
                                'chassis_uuid': chassis})
        url = '/v1/chassis/%s' % chassis
        self.assertError(400, self.delete(url),
                         'Cannot complete the requested action because '
                         'chassis %s contains nodes.' % chassis)
        self.assertEqual(chassis, self.get(url).get_json()['uuid'])
        self.assertEqual(204, self.delete('/v1/nodes/n1').status_code)
        self.assertEqual(204, self.delete(url).status_code)
        self.assertError(404, self.get(url))
