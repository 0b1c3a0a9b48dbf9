"""The external managers API, and the node fields of hardware shared with
one (fault, external_manager, external_ref, ...)."""
from pool_conductor.db import api as db_api
from pool_conductor.db import external as external_db
from pool_conductor import events
from pool_conductor.db import events as events_db
from tests.unit.api import base


class ExternalManagerAPITestCase(base.APITestCase):

    def create(self, name='other', **values):
        values.setdefault('driver', 'fake')
        values.setdefault('parameters', {'path': '/tmp/none',
                                         'password': 'hunter2'})
        return self.post('/v1/external_managers', {'name': name, **values})

    def test_create_show_list_update_delete_with_events(self):
        resp = self.create(description='the lab')
        self.assertEqual(201, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertEqual(('other', 'fake', True, None, '******'),
                         (body['name'], body['driver'], body['enabled'],
                          body['sync_interval'],
                          body['parameters']['password']))
        self.assertEqual(['other'], [m['name'] for m in self.get(
            '/v1/external_managers').get_json()['external_managers']])
        resp = self.patch_json('/v1/external_managers/other', [
            {'op': 'replace', 'path': '/sync_interval', 'value': 30},
            {'op': 'replace', 'path': '/enabled', 'value': False}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual((30, False), (resp.get_json()['sync_interval'],
                                       resp.get_json()['enabled']))
        self.assertEqual(204, self.delete(
            '/v1/external_managers/other').status_code)
        self.assertEqual(404, self.get(
            '/v1/external_managers/other').status_code)
        events.sequence()
        found = events_db.after(self.context, 0,
                                {'object_type': 'external_manager'}, 100)
        self.assertEqual(
            ['pool.external_manager.create.end',
             'pool.external_manager.update.end',
             'pool.external_manager.delete.end'],
            [e.event_type for e in found])
        self.assertNotIn('hunter2', str([e.payload for e in found]))

    def test_bad_input_is_400(self):
        self.assertError(400, self.create(driver='nonexistent'))
        self.assertError(400, self.create(parameters={}))
        self.assertError(400, self.create(sync_interval=0))
        self.assertError(400, self.create(unknown=1))

    def test_in_use_is_409(self):
        self.create()
        node = self.create_node(external_manager='other', external_ref='r')
        self.assertError(409, self.delete('/v1/external_managers/other'))
        self.assertEqual(node.uuid, self.get('/v1/nodes/%s' % node.uuid)
                         .get_json()['uuid'])


class NodeExternalFieldsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.post('/v1/external_managers', {
            'name': 'other', 'driver': 'fake',
            'parameters': {'path': '/tmp/none'}})

    def test_fault_shown_from_1_42_and_filtered(self):
        held = self.create_node(maintenance=True, fault='external hold')
        self.create_node()
        self.assertNotIn('fault', self.get('/v1/nodes/%s' % held.uuid,
                                           version='1.41').get_json())
        self.assertEqual('external hold', self.get(
            '/v1/nodes/%s' % held.uuid, version='1.42').get_json()['fault'])
        found = self.get('/v1/nodes?fault=external%20hold').get_json()
        self.assertEqual([held.uuid], [n['uuid'] for n in found['nodes']])
        self.assertEqual(406, self.get('/v1/nodes?fault=x',
                                       version='1.41').status_code)

    def test_fault_and_observed_state_are_not_patchable(self):
        node = self.create_node()
        for field in ('fault', 'external_state', 'external_claim'):
            self.assertError(400, self.patch_json('/v1/nodes/%s' % node.uuid,
                                                  [{'op': 'add',
                                                    'path': '/' + field,
                                                    'value': 'x'}]))

    def test_manager_and_ref_on_create_and_patch(self):
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware',
                                       'external_manager': 'other',
                                       'external_ref': 'sh-1'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        uuid = resp.get_json()['uuid']
        self.assertEqual(('other', 'sh-1', None), tuple(
            resp.get_json()[k] for k in ('external_manager', 'external_ref',
                                         'external_state')))
        resp = self.patch_json('/v1/nodes/%s' % uuid, [
            {'op': 'replace', 'path': '/external_ref', 'value': 'sh-2'}])
        self.assertEqual('sh-2', resp.get_json()['external_ref'])
        self.assertError(404, self.patch_json('/v1/nodes/%s' % uuid, [
            {'op': 'replace', 'path': '/external_manager',
             'value': 'missing'}]))
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'external_manager': 'other'}))
        # One ref per manager.
        self.assertError(409, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'external_manager': 'other',
            'external_ref': 'sh-2'}))

    def test_manager_fixed_while_in_use(self):
        node = self.create_node(external_manager='other', external_ref='a',
                                provision_state='active')
        self.assertError(409, self.patch_json('/v1/nodes/%s' % node.uuid, [
            {'op': 'replace', 'path': '/external_ref', 'value': 'b'}]))

    def test_clearing_an_external_hold_is_409_an_operators_is_not(self):
        held = self.create_node(maintenance=True, fault='external hold')
        self.assertError(409, self.delete('/v1/nodes/%s/maintenance'
                                          % held.uuid))
        mine = self.create_node(maintenance=True)
        self.assertEqual(202, self.delete('/v1/nodes/%s/maintenance'
                                          % mine.uuid).status_code)

    def test_provide_of_a_shared_node_passes_through_cleaning(self):
        node = self.create_node(external_manager='other', external_ref='a',
                                provision_state='manageable')
        plain = self.create_node(provision_state='manageable')
        for n in (node, plain):
            self.put('/v1/nodes/%s/states/provision' % n.uuid,
                     {'target': 'provide'})
        self.assertEqual(('cleaning', 'available'), tuple(
            self.get('/v1/nodes/%s' % node.uuid).get_json()[k]
            for k in ('provision_state', 'target_provision_state')))
        self.assertEqual('available', self.get(
            '/v1/nodes/%s' % plain.uuid).get_json()['provision_state'])
        self.finish_provisioning()
        self.assertEqual('available', self.get(
            '/v1/nodes/%s' % node.uuid).get_json()['provision_state'])

    def test_status_counts_states(self):
        self.create_node(external_manager='other', external_ref='a',
                         external_state='theirs')
        self.create_node(external_manager='other', external_ref='b')
        with db_api.writer_connection(self.context) as conn:
            self.assertTrue(external_db.take_manager(conn, 'other', None,
                                                     'test-host'))
        body = self.get('/v1/external_managers/other/status').get_json()
        self.assertEqual(({'free': 0, 'ours': 0, 'theirs': 1, 'gone': 0,
                           'unknown': 1}, 'test-host'),
                         (body['states'], body['conductor']))
