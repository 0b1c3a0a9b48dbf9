"""The ports API (/v1/ports, /v1/nodes/<node>/ports) and VIFs."""
import uuid

from pool_conductor.db import ports as ports_db
from pool_conductor import exception
from tests.unit.api import base

MAC = '52:54:00:12:34:56'
OTHER_MAC = '52:54:00:12:34:57'


class PortTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def create_port(self, status=201, version=None, **values):
        values.setdefault('node_uuid', self.node.uuid)
        values.setdefault('address', MAC)
        resp = self.post('/v1/ports', values, version=version)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()


class TestPortCreate(PortTestCase):

    def test_create_normalizes_the_address_and_shows_all_fields(self):
        resp = self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': '52-54-00-AB-CD-EF',
            'pxe_enabled': 'false', 'physical_network': 'physnet1',
            'local_link_connection': {'switch_id': '0a:1b:2c:3d:4e:5f',
                                      'port_id': 'Ethernet3/1'},
            'extra': {'k': 'v'}, 'is_smartnic': True})
        self.assertEqual(201, resp.status_code, resp.get_data())
        port = resp.get_json()
        self.assertEqual('52:54:00:ab:cd:ef', port['address'])
        self.assertEqual(self.node.uuid, port['node_uuid'])
        self.assertFalse(port['pxe_enabled'])
        self.assertTrue(port['is_smartnic'])
        self.assertEqual('physnet1', port['physical_network'])
        self.assertEqual({}, port['internal_info'])
        self.assertEqual({'k': 'v'}, port['extra'])
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/ports/%s' % port['uuid']))
        self.assertEqual(port, self.get('/v1/ports/%s'
                                        % port['uuid']).get_json())

    def test_defaults(self):
        port = self.create_port()
        self.assertTrue(port['pxe_enabled'])
        self.assertFalse(port['is_smartnic'])
        self.assertEqual({}, port['local_link_connection'])
        self.assertIsNone(port['physical_network'])

    def test_given_uuid_is_kept(self):
        given = str(uuid.uuid4())
        self.assertEqual(given, self.create_port(uuid=given)['uuid'])
        resp = self.post('/v1/ports', {'node_uuid': self.node.uuid,
                                       'address': OTHER_MAC,
                                       'uuid': given})
        self.assertError(409, resp, 'A port with UUID %s already exists.'
                         % given)

    def test_duplicate_address_is_a_conflict_in_any_case(self):
        self.create_port()
        resp = self.post('/v1/ports', {'node_uuid': self.node.uuid,
                                       'address': MAC.upper()})
        self.assertError(409, resp, 'A port with MAC address %s already '
                         'exists.' % MAC)

    def test_invalid_address(self):
        for address in ('52:54:00:12:34', 'not-a-mac', '52:54:00:12:34:5g',
                        '525400123456'):
            resp = self.post('/v1/ports', {'node_uuid': self.node.uuid,
                                           'address': address})
            self.assertError(400, resp, 'Expected a MAC address but '
                             'received %s.' % address)

    def test_missing_fields_and_unknown_fields(self):
        self.assertError(400, self.post('/v1/ports', {'address': MAC}),
                         'node_uuid')
        self.assertError(400, self.post('/v1/ports',
                                        {'node_uuid': self.node.uuid}),
                         'address')
        self.assertError(400, self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MAC, 'name': 'p'}))

    def test_missing_node_is_a_bad_request(self):
        missing = str(uuid.uuid4())
        resp = self.post('/v1/ports', {'node_uuid': missing,
                                       'address': MAC})
        self.assertError(400, resp, 'Node %s could not be found.' % missing)
        self.assertError(400, self.post('/v1/ports', {
            'node_uuid': 'node-1', 'address': MAC}), 'not a valid UUID')

    def test_local_link_connection_needs_switch_and_port(self):
        resp = self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MAC,
            'local_link_connection': {'switch_info': 'sw1'}})
        self.assertError(400, resp)
        resp = self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MAC,
            'local_link_connection': {'switch_id': 'a', 'port_id': 'b',
                                      'other': 'c'}})
        self.assertError(400, resp)

    def test_invalid_boolean(self):
        resp = self.post('/v1/ports', {'node_uuid': self.node.uuid,
                                       'address': MAC,
                                       'pxe_enabled': 'maybe'})
        self.assertError(400, resp, 'pxe_enabled')

    def test_fields_of_newer_versions_are_refused_in_older_ones(self):
        for field, value, minor in (('pxe_enabled', False, 19),
                                    ('local_link_connection', {}, 19),
                                    ('physical_network', 'p', 34),
                                    ('is_smartnic', True, 53)):
            resp = self.post('/v1/ports', {'node_uuid': self.node.uuid,
                                           'address': MAC, field: value},
                             version='1.%d' % (minor - 1))
            self.assertError(406, resp, field)
            self.create_port(version='1.%d' % minor,
                             **{field: value})
            ports_db.delete_port(self.context,
                                 ports_db.list_ports(self.context, {})[0])

class TestPortRead(PortTestCase):

    def test_fields_by_version(self):
        port = self.create_port()
        old = self.get('/v1/ports/%s' % port['uuid'],
                       version='1.17').get_json()
        for field in ('internal_info', 'pxe_enabled',
                      'local_link_connection', 'physical_network',
                      'is_smartnic'):
            self.assertNotIn(field, old)
        self.assertIn('extra', old)
        mid = self.get('/v1/ports/%s' % port['uuid'],
                       version='1.34').get_json()
        self.assertIn('physical_network', mid)
        self.assertNotIn('is_smartnic', mid)
        self.assertNotIn('name', self.get('/v1/ports/%s'
                                          % port['uuid']).get_json())

    def test_fields_parameter(self):
        port = self.create_port()
        body = self.get('/v1/ports/%s?fields=address,node_uuid'
                        % port['uuid']).get_json()
        self.assertEqual({'address', 'node_uuid', 'links'}, set(body))
        self.assertError(400, self.get('/v1/ports/%s?fields=internal_info'
                                       % port['uuid'], version='1.17'))

    def test_missing_port(self):
        missing = str(uuid.uuid4())
        self.assertError(404, self.get('/v1/ports/%s' % missing),
                         'Port %s could not be found.' % missing)
        self.assertError(404, self.get('/v1/ports/not-a-uuid'))

    def test_list_and_detail(self):
        port = self.create_port()
        short = self.get('/v1/ports').get_json()['ports']
        self.assertEqual([{'uuid', 'address', 'links'}],
                         [set(p) for p in short])
        detail = self.get('/v1/ports/detail').get_json()['ports']
        self.assertEqual(port, detail[0])
        self.assertEqual(detail, self.get('/v1/ports?detail=true')
                         .get_json()['ports'])
        self.assertError(406, self.get('/v1/ports?detail=true',
                                       version='1.42'))
        self.assertError(400, self.get('/v1/ports?detail=true'
                                       '&fields=uuid'))

    def test_filters(self):
        other = self.create_node(name='node-2')
        mine = self.create_port()
        theirs = self.create_port(node_uuid=other.uuid, address=OTHER_MAC)

        def listed(query, **kw):
            resp = self.get('/v1/ports' + query, **kw)
            self.assertEqual(200, resp.status_code, resp.get_data())
            return [p['uuid'] for p in resp.get_json()['ports']]

        self.assertEqual([mine['uuid']], listed('?node=node-1'))
        self.assertEqual([theirs['uuid']],
                         listed('?node_uuid=%s' % other.uuid))
        self.assertEqual([theirs['uuid']],
                         listed('?address=%s' % OTHER_MAC.upper()))
        self.assertEqual([mine['uuid']], listed('?node=%s' % self.node.uuid))
        resp = self.get('/v1/nodes/node-2/ports/detail')
        self.assertEqual([theirs], resp.get_json()['ports'])
        self.assertEqual([mine['uuid']], [
            p['uuid'] for p in self.get('/v1/nodes/%s/ports'
                                        % self.node.uuid)
            .get_json()['ports']])
        self.assertError(406, self.get('/v1/ports?node=node-1',
                                       version='1.4'))
        self.assertError(404, self.get('/v1/ports?node=nope'),
                         'Node nope could not be found.')
        self.assertError(404, self.get('/v1/nodes/nope/ports'))
        self.assertError(400, self.get('/v1/ports?address=nope'))
        self.assertError(400, self.get('/v1/ports?node=node-1&node_uuid=%s'
                                       % other.uuid))

    def test_pages_and_sorting(self):
        made = [self.create_port(address='52:54:00:00:00:%02x' % i)
                for i in range(5)]
        resp = self.get('/v1/ports?limit=2&sort_key=address&sort_dir=desc')
        body = resp.get_json()
        expected = sorted((p['address'] for p in made), reverse=True)
        self.assertEqual(expected[:2], [p['address'] for p in body['ports']])
        self.assertIn('marker=', body['next'])
        nxt = body['next'].split('localhost', 1)[1]
        self.assertEqual(expected[2:4], [
            p['address'] for p in self.get(nxt).get_json()['ports']])
        self.assertError(400, self.get('/v1/ports?sort_key=extra'))


class TestPortUpdate(PortTestCase):

    def test_patch_fields(self):
        port = self.create_port(extra={'a': 1})
        resp = self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'replace', 'path': '/address', 'value': OTHER_MAC.upper()},
            {'op': 'add', 'path': '/extra/b', 'value': 2},
            {'op': 'replace', 'path': '/pxe_enabled', 'value': False},
            {'op': 'add', 'path': '/physical_network', 'value': 'net'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertEqual(OTHER_MAC, body['address'])
        self.assertEqual({'a': 1, 'b': 2}, body['extra'])
        self.assertFalse(body['pxe_enabled'])
        self.assertEqual('net', body['physical_network'])
        self.assertIsNotNone(body['updated_at'])
        resp = self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'remove', 'path': '/physical_network'},
            {'op': 'remove', 'path': '/extra'}])
        self.assertIsNone(resp.get_json()['physical_network'])
        self.assertEqual({}, resp.get_json()['extra'])

    def test_read_only_and_mandatory_fields(self):
        port = self.create_port()
        url = '/v1/ports/%s' % port['uuid']
        self.assertError(400, self.patch_json(url, [
            {'op': 'add', 'path': '/internal_info/x', 'value': 1}]),
            'internal_info')
        self.assertError(400, self.patch_json(url, [
            {'op': 'replace', 'path': '/uuid',
             'value': str(uuid.uuid4())}]))
        self.assertError(400, self.patch_json(url, [
            {'op': 'remove', 'path': '/address'}]),
            'Mandatory field missing: address')
        self.assertError(400, self.patch_json(url, [
            {'op': 'replace', 'path': '/address', 'value': 'bad'}]),
            'Expected a MAC address')
        self.assertError(406, self.patch_json(url, [
            {'op': 'replace', 'path': '/is_smartnic', 'value': True}],
            version='1.52'))

    def test_duplicate_address(self):
        self.create_port()
        port = self.create_port(address=OTHER_MAC)
        resp = self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'replace', 'path': '/address', 'value': MAC}])
        self.assertError(409, resp, 'A port with MAC address %s already '
                         'exists.' % MAC)

    def test_move_to_another_node(self):
        other = self.create_node(name='node-2')
        port = self.create_port()
        resp = self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'replace', 'path': '/node_uuid', 'value': other.uuid}])
        self.assertEqual(other.uuid, resp.get_json()['node_uuid'])
        missing = str(uuid.uuid4())
        resp = self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'replace', 'path': '/node_uuid', 'value': missing}])
        self.assertError(400, resp, 'Node %s could not be found.' % missing)

    def test_address_of_a_deployed_node_changes_only_in_maintenance(self):
        port = self.create_port()
        from pool_conductor.db import nodes as nodes_db
        node = nodes_db.update_node(self.context, self.node,
                                    {'provision_state': 'active'})
        url = '/v1/ports/%s' % port['uuid']
        change = [{'op': 'replace', 'path': '/address', 'value': OTHER_MAC}]
        self.assertError(409, self.patch_json(url, change),
                         'is active or has instance UUID assigned')
        # Other fields change.
        resp = self.patch_json(url, [{'op': 'add', 'path': '/extra/a',
                                      'value': 1}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        nodes_db.update_node(self.context, node, {'maintenance': True})
        resp = self.patch_json(url, change)
        self.assertEqual(OTHER_MAC, resp.get_json()['address'])

    def test_stale_update_is_refused(self):
        port = ports_db.get_port(self.context, self.create_port()['uuid'])
        ports_db.update_port(self.context, port, {'extra': {'a': 1}})
        self.assertRaises(exception.ConcurrentUpdate, ports_db.update_port,
                          self.context, port, {'extra': {'b': 1}})
        self.assertRaises(exception.ConcurrentUpdate, ports_db.delete_port,
                          self.context, port)
        self.assertEqual({'a': 1}, ports_db.get_port(
            self.context, port.uuid).extra)


class TestPortDelete(PortTestCase):

    def test_delete(self):
        port = self.create_port()
        self.assertEqual(204, self.delete('/v1/ports/%s'
                                          % port['uuid']).status_code)
        self.assertError(404, self.get('/v1/ports/%s' % port['uuid']))
        # The address is free again.
        self.create_port()

    def test_deleting_a_node_deletes_its_ports(self):
        other = self.create_node(name='node-2')
        self.create_port()
        kept = self.create_port(node_uuid=other.uuid, address=OTHER_MAC)
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertEqual([kept['uuid']], [
            p['uuid'] for p in self.get('/v1/ports').get_json()['ports']])
        # Its MAC can be enrolled again.
        node = self.create_node(name='node-3')
        self.create_port(node_uuid=node.uuid)

    def test_port_with_a_vif_is_deleted_only_in_maintenance(self):
        port = self.create_port()
        self.assertEqual(204, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-1'}).status_code)
        url = '/v1/ports/%s' % port['uuid']
        self.assertError(409, self.delete(url),
                         'bound to VIF vif-1 for tenant use')
        self.assertEqual(202, self.put('/v1/nodes/node-1/maintenance',
                                       {'reason': 'r'}).status_code)
        self.assertEqual(204, self.delete(url).status_code)


class TestNodeLock(PortTestCase):
    """As in Ironic: what is created for a node does not wait for its lock
    (a shared lock); a change or deletion of a port, port group, VIF or
    volume waits for a conductor that holds the node's lock, then is
    made, or is a 409 when the node stays locked."""

    def lock(self):
        from pool_conductor.db import nodes as nodes_db
        self.assertTrue(nodes_db.reserve(self.context, self.node.id, 'h1'))

    def test_a_locked_node_takes_ports_port_groups_and_volumes(self):
        self.lock()
        self.create_port()
        for path, body in (
                ('/v1/portgroups', {'address': OTHER_MAC}),
                ('/v1/volume/connectors', {'type': 'iqn',
                                           'connector_id': 'iqn.x'}),
                ('/v1/volume/targets', {'volume_type': 'iscsi',
                                        'volume_id': str(uuid.uuid4()),
                                        'boot_index': 0})):
            resp = self.post(path, {'node_uuid': self.node.uuid, **body})
            self.assertEqual(201, resp.status_code, resp.get_data())

    def made(self, path: str, body: dict) -> str:
        resp = self.post(path, {'node_uuid': self.node.uuid, **body})
        self.assertEqual(201, resp.status_code, resp.get_data())
        return '%s/%s' % (path, resp.get_json()['uuid'])

    def changes(self) -> list:
        """(method, path, body, status) of every change that waits."""
        port = '/v1/ports/' + self.create_port()['uuid']
        group = self.made('/v1/portgroups', {'address': OTHER_MAC})
        connector = self.made('/v1/volume/connectors', {
            'type': 'iqn', 'connector_id': 'iqn.x'})
        target = self.made('/v1/volume/targets', {
            'volume_type': 'iscsi', 'volume_id': str(uuid.uuid4()),
            'boot_index': 0})
        extra = [{'op': 'add', 'path': '/extra/a', 'value': 1}]
        return [('PATCH', port, extra, 200),
                ('POST', '/v1/nodes/node-1/vifs', {'id': 'vif-1'}, 204),
                ('DELETE', '/v1/nodes/node-1/vifs/vif-1', None, 204),
                ('PATCH', group, extra, 200),
                ('DELETE', group, None, 204),
                ('PATCH', connector, extra, 200),
                ('DELETE', connector, None, 204),
                ('PATCH', target, extra, 200),
                ('DELETE', target, None, 204),
                ('DELETE', port, None, 204)]

    def send(self, method, path, body):
        if method == 'PATCH':
            return self.patch_json(path, body)
        return self.request(method, path, body)

    def test_changes_wait_for_the_lock_then_are_made(self):
        self.config(node_locked_retry_attempts=50,
                    node_locked_retry_interval=0.05, group='conductor')
        for method, path, body, status in self.changes():
            self.lock_for_a_moment('node-1')
            resp = self.send(method, path, body)
            self.assertEqual(status, resp.status_code,
                             (method, path, resp.get_data()))

    def test_a_node_that_stays_locked_is_a_409(self):
        self.config(node_locked_retry_attempts=1,
                    node_locked_retry_interval=0.01, group='conductor')
        changes = self.changes()
        self.lock()
        for method, path, body, _status in changes:
            self.assertError(409, self.send(method, path, body),
                             'locked by host h1')


class TestVifs(PortTestCase):

    def vifs(self, node='node-1'):
        resp = self.get('/v1/nodes/%s/vifs' % node)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return [v['id'] for v in resp.get_json()['vifs']]

    def test_attach_records_on_a_free_port_and_detach_removes(self):
        first = self.create_port(pxe_enabled=False)
        second = self.create_port(address=OTHER_MAC)
        self.assertEqual([], self.vifs())
        self.assertEqual(204, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-1'}).status_code)
        # A PXE-enabled port is taken first, as in Ironic.
        shown = self.get('/v1/ports/%s' % second['uuid']).get_json()
        self.assertEqual({'tenant_vif_port_id': 'vif-1'},
                         shown['internal_info'])
        self.assertEqual(204, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-2'}).status_code)
        shown = self.get('/v1/ports/%s' % first['uuid']).get_json()
        self.assertEqual('vif-2',
                         shown['internal_info']['tenant_vif_port_id'])
        self.assertEqual(['vif-2', 'vif-1'], self.vifs())
        self.assertEqual(204, self.delete('/v1/nodes/node-1/vifs/vif-1')
                         .status_code)
        self.assertEqual(['vif-2'], self.vifs())
        self.assertEqual({}, self.get('/v1/ports/%s' % second['uuid'])
                         .get_json()['internal_info'])

    def test_no_free_port(self):
        self.assertError(400, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-1'}),
                         'Unable to attach VIF vif-1, not enough free '
                         'physical ports.')
        self.create_port()
        self.post('/v1/nodes/node-1/vifs', {'id': 'vif-1'})
        self.assertError(400, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-2'}))

    def test_attached_twice_is_a_conflict(self):
        port = self.create_port()
        self.create_port(address=OTHER_MAC)
        self.post('/v1/nodes/node-1/vifs', {'id': 'vif-1'})
        self.assertError(409, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-1'}),
                         'already attached to Ironic Port %s'
                         % port['uuid'])

    def test_detach_unknown(self):
        self.assertError(404, self.delete('/v1/nodes/node-1/vifs/vif-9'),
                         'Unable to detach VIF vif-9 from node %s'
                         % self.node.uuid)

    def test_versions_and_bodies(self):
        self.create_port()
        self.assertError(404, self.get('/v1/nodes/node-1/vifs',
                                       version='1.27'))
        self.assertError(404, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'v'}, version='1.27'))
        self.assertError(400, self.post('/v1/nodes/node-1/vifs', {}))
        self.assertError(400, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 7}))
        self.assertError(404, self.get('/v1/nodes/nope/vifs'))
