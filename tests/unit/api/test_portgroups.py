"""The port groups API (/v1/portgroups, /v1/nodes/<node>/portgroups,
/v1/portgroups/<portgroup>/ports), ports in port groups, and VIFs on port
groups."""
import uuid

from pool_conductor.baremetal import chassis as chassis_core
from pool_conductor.baremetal import volumes
from pool_conductor.db import chassis as chassis_db
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor.db import ports as ports_db
from pool_conductor.db import volumes as volumes_db
from pool_conductor import exception
from tests.unit.api import base

MACS = ['52:54:00:12:34:%02x' % i for i in range(16)]
PG_MAC = '52:54:00:aa:bb:cc'


class PortgroupTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1', provision_state='enroll')
        self.macs = iter(MACS)

    def create_portgroup(self, status=201, version=None, **values):
        values.setdefault('node_uuid', self.node.uuid)
        resp = self.post('/v1/portgroups', values, version=version)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def create_port(self, status=201, **values):
        values.setdefault('node_uuid', self.node.uuid)
        values.setdefault('address', next(self.macs))
        resp = self.post('/v1/ports', values)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def set_state(self, node, **values):
        nodes_db.update_node(self.context, nodes_db.get_node(
            self.context, node.uuid), values)


class TestPortgroupCreate(PortgroupTestCase):

    def test_create_shows_every_field(self):
        resp = self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'address': '52-54-00-AA-BB-CC',
            'name': 'bond0', 'mode': '802.3ad',
            'properties': {'miimon': '100'}, 'extra': {'k': 'v'},
            'standalone_ports_supported': 'false'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        pg = resp.get_json()
        self.assertEqual(PG_MAC, pg['address'])
        self.assertEqual(('bond0', '802.3ad', {'miimon': '100'}, {'k': 'v'}),
                         (pg['name'], pg['mode'], pg['properties'],
                          pg['extra']))
        self.assertFalse(pg['standalone_ports_supported'])
        self.assertEqual({}, pg['internal_info'])
        self.assertEqual(self.node.uuid, pg['node_uuid'])
        self.assertTrue(pg['ports'][0]['href'].endswith(
            '/v1/portgroups/%s/ports' % pg['uuid']))
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/portgroups/%s' % pg['uuid']))
        self.assertEqual(pg, self.get('/v1/portgroups/bond0').get_json())
        self.assertEqual(pg, self.get('/v1/portgroups/%s'
                                      % pg['uuid']).get_json())

    def test_defaults(self):
        pg = self.create_portgroup()
        self.assertEqual('active-backup', pg['mode'])
        self.assertTrue(pg['standalone_ports_supported'])
        self.assertIsNone(pg['address'])
        self.assertIsNone(pg['name'])
        self.config(default_portgroup_mode='balance-rr')
        self.assertEqual('balance-rr', self.create_portgroup()['mode'])

    def test_conflicts(self):
        given = str(uuid.uuid4())
        self.create_portgroup(uuid=given, name='bond0', address=PG_MAC)
        self.assertError(409, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'uuid': given}),
            'A portgroup with UUID %s already exists.' % given)
        self.assertError(409, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'name': 'bond0'}),
            'A portgroup with name bond0 already exists.')
        self.assertError(409, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'address': PG_MAC.upper()}),
            'A portgroup with MAC address %s already exists.' % PG_MAC)

    def test_bad_input(self):
        missing = str(uuid.uuid4())
        self.assertError(400, self.post('/v1/portgroups',
                                        {'node_uuid': missing}),
                         'Node %s could not be found.' % missing)
        self.assertError(400, self.post('/v1/portgroups', {}), 'node_uuid')
        self.assertError(400, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'address': 'nope'}),
            'Expected a MAC address but received nope.')
        self.assertError(400, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'name': 'a b'}),
            "Cannot create portgroup with invalid name 'a b'")
        self.assertError(400, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'unknown': 1}))
        self.assertError(400, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid,
            'standalone_ports_supported': 'maybe'}),
            'standalone_ports_supported')

    def test_versions(self):
        self.assertError(404, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid}, version='1.22'))
        self.assertError(404, self.get('/v1/portgroups', version='1.22'))
        self.assertError(406, self.post('/v1/portgroups', {
            'node_uuid': self.node.uuid, 'mode': '802.3ad'},
            version='1.25'))
        pg = self.create_portgroup(version='1.23', name='old')
        self.assertNotIn('mode', pg)
        self.assertNotIn('properties', pg)
        # Made with the default mode all the same.
        self.assertEqual('active-backup', self.get(
            '/v1/portgroups/old').get_json()['mode'])
        self.assertError(404, self.get('/v1/nodes/node-1/portgroups',
                                       version='1.23'))
        self.assertError(404, self.get('/v1/portgroups/old/ports',
                                       version='1.23'))


class TestPortgroupList(PortgroupTestCase):

    def test_list_detail_fields_filters_and_pages(self):
        other = self.create_node(name='node-2')
        first = self.create_portgroup(name='pg-a', address=PG_MAC)
        second = self.create_portgroup(name='pg-b')
        third = self.create_portgroup(name='pg-c', node_uuid=other.uuid)
        listed = self.get('/v1/portgroups').get_json()['portgroups']
        self.assertEqual([first['uuid'], second['uuid'], third['uuid']],
                         [p['uuid'] for p in listed])
        self.assertEqual({'uuid', 'address', 'name', 'links'},
                         set(listed[0]))
        detail = self.get('/v1/portgroups/detail').get_json()['portgroups']
        self.assertEqual(first, detail[0])
        self.assertEqual(
            [first['uuid'], second['uuid']],
            [p['uuid'] for p in self.get('/v1/portgroups?node=node-1')
             .get_json()['portgroups']])
        self.assertEqual(
            [second['uuid'], first['uuid']],
            [p['uuid'] for p in self.get(
                '/v1/nodes/node-1/portgroups?sort_dir=desc')
             .get_json()['portgroups']])
        self.assertEqual(
            [first['uuid']],
            [p['uuid'] for p in self.get(
                '/v1/portgroups?address=52:54:00:AA:BB:CC')
             .get_json()['portgroups']])
        self.assertEqual(
            [{'name': 'pg-c', 'mode': 'active-backup',
              'links': third['links']}],
            self.get('/v1/portgroups?fields=name,mode&node=node-2')
            .get_json()['portgroups'])
        page = self.get('/v1/portgroups?limit=2').get_json()
        self.assertIn('marker=%s' % second['uuid'], page['next'])
        rest = self.get('/v1/portgroups?limit=2&marker=%s'
                        % second['uuid']).get_json()
        self.assertEqual([third['uuid']],
                         [p['uuid'] for p in rest['portgroups']])
        self.assertEqual([first, detail[1]], self.get(
            '/v1/nodes/node-1/portgroups/detail').get_json()['portgroups'])

    def test_bad_queries(self):
        self.create_portgroup()
        self.assertError(400, self.get('/v1/portgroups?sort_key=extra'))
        self.assertError(400, self.get('/v1/portgroups?fields=bogus'))
        self.assertError(400, self.get(
            '/v1/portgroups?node=node-1&address=%s' % PG_MAC))
        self.assertError(404, self.get('/v1/portgroups?node=missing'))
        self.assertError(404, self.get('/v1/portgroups/missing'))
        self.assertError(404, self.get('/v1/portgroups?marker=%s'
                                       % uuid.uuid4()))


class TestPortgroupUpdateDelete(PortgroupTestCase):

    def test_patch_fields(self):
        pg = self.create_portgroup(name='bond0')
        url = '/v1/portgroups/bond0'
        resp = self.patch_json(url, [
            {'op': 'replace', 'path': '/name', 'value': 'bond1'},
            {'op': 'add', 'path': '/address', 'value': PG_MAC},
            {'op': 'replace', 'path': '/mode', 'value': '802.3ad'},
            {'op': 'add', 'path': '/properties/miimon', 'value': 100},
            {'op': 'add', 'path': '/extra/a', 'value': 1}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        shown = self.get('/v1/portgroups/%s' % pg['uuid']).get_json()
        self.assertEqual(('bond1', PG_MAC, '802.3ad', {'miimon': 100},
                          {'a': 1}),
                         (shown['name'], shown['address'], shown['mode'],
                          shown['properties'], shown['extra']))
        url = '/v1/portgroups/bond1'
        self.assertError(400, self.patch_json(url, [
            {'op': 'remove', 'path': '/mode'}]),
            "'mode' is a mandatory attribute and can not be removed")
        self.assertError(400, self.patch_json(url, [
            {'op': 'replace', 'path': '/name', 'value': 'a b'}]),
            "Cannot change name to invalid name 'a b'")
        self.assertError(400, self.patch_json(url, [
            {'op': 'replace', 'path': '/internal_info', 'value': {}}]))
        self.assertError(406, self.patch_json(url, [
            {'op': 'replace', 'path': '/mode', 'value': 'x'}],
            version='1.25'))
        resp = self.patch_json(url, [{'op': 'remove', 'path': '/address'}])
        self.assertIsNone(resp.get_json()['address'])

    def test_standalone_off_refused_with_pxe_or_vif_members(self):
        pg = self.create_portgroup(name='bond0')
        port = self.create_port(portgroup_uuid=pg['uuid'])
        off = [{'op': 'replace', 'path': '/standalone_ports_supported',
                'value': False}]
        self.assertError(409, self.patch_json('/v1/portgroups/bond0', off),
                         "contains port with 'pxe_enabled' is set to True")
        self.assertEqual(200, self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'replace', 'path': '/pxe_enabled', 'value': False}])
            .status_code)
        resp = self.patch_json('/v1/portgroups/bond0', off)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertFalse(resp.get_json()['standalone_ports_supported'])
        # Now its ports may not become PXE-enabled.
        self.assertError(409, self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'replace', 'path': '/pxe_enabled', 'value': True}]),
            "doesn't support standalone ports")

    def test_move_to_another_node(self):
        other = self.create_node(name='node-2', provision_state='available')
        pg = self.create_portgroup(name='bond0')
        move = [{'op': 'replace', 'path': '/node_uuid', 'value': other.uuid}]
        self.assertError(409, self.patch_json('/v1/portgroups/bond0', move),
                         'can not be associated to node %s' % other.uuid)
        self.set_state(other, provision_state='manageable')
        port = self.create_port(portgroup_uuid=pg['uuid'])
        self.assertError(400, self.patch_json('/v1/portgroups/bond0', move),
                         'contains ports')
        self.assertEqual(204, self.delete('/v1/ports/%s'
                                          % port['uuid']).status_code)
        resp = self.patch_json('/v1/portgroups/bond0', move)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(other.uuid, resp.get_json()['node_uuid'])

    def test_delete_only_when_empty(self):
        pg = self.create_portgroup(name='bond0')
        port = self.create_port(portgroup_uuid=pg['uuid'])
        self.assertError(400, self.delete('/v1/portgroups/bond0'),
                         'Cannot complete the requested action because '
                         'portgroup %s contains ports.' % pg['uuid'])
        self.assertEqual(200, self.patch_json('/v1/ports/%s' % port['uuid'], [
            {'op': 'remove', 'path': '/portgroup_uuid'}]).status_code)
        self.assertEqual(204, self.delete('/v1/portgroups/bond0')
                         .status_code)
        self.assertError(404, self.get('/v1/portgroups/%s' % pg['uuid']))

    def test_deleting_a_node_deletes_its_portgroups(self):
        pg = self.create_portgroup(name='bond0', address=PG_MAC)
        self.create_port(portgroup_uuid=pg['uuid'])
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertEqual([], self.get('/v1/portgroups').get_json()
                         ['portgroups'])
        node = self.create_node(name='node-3')
        self.create_portgroup(node_uuid=node.uuid, name='bond0',
                              address=PG_MAC)


class TestPortsInPortgroups(PortgroupTestCase):

    def test_port_created_in_a_portgroup_and_listed_by_it(self):
        pg = self.create_portgroup(name='bond0')
        port = self.create_port(portgroup_uuid='bond0')
        self.create_port()
        self.assertEqual(pg['uuid'], port['portgroup_uuid'])
        self.assertNotIn('portgroup_uuid', self.get(
            '/v1/ports/%s' % port['uuid'], version='1.23').get_json())
        for url in ('/v1/portgroups/bond0/ports',
                    '/v1/portgroups/%s/ports/detail' % pg['uuid'],
                    '/v1/ports?portgroup=bond0'):
            found = self.get(url).get_json()['ports']
            self.assertEqual([port['uuid']], [p['uuid'] for p in found],
                             url)
        self.assertError(406, self.get('/v1/ports?portgroup=bond0',
                                       version='1.23'))
        self.assertError(400, self.get('/v1/ports?portgroup=bond0&'
                                       'node=node-1'))
        self.assertError(404, self.get('/v1/portgroups/nope/ports'))

    def test_port_needs_a_portgroup_of_its_node(self):
        other = self.create_node(name='node-2')
        theirs = self.create_portgroup(node_uuid=other.uuid)
        self.assertError(400, self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MACS[0],
            'portgroup_uuid': theirs['uuid']}),
            'Port can not be added to a portgroup belonging to a '
            'different node.')
        missing = str(uuid.uuid4())
        self.assertError(400, self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MACS[0],
            'portgroup_uuid': missing}),
            'Portgroup %s could not be found.' % missing)
        self.assertError(406, self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MACS[0],
            'portgroup_uuid': theirs['uuid']}, version='1.23'))

    def test_pxe_port_refused_by_portgroup_without_standalone_ports(self):
        pg = self.create_portgroup(standalone_ports_supported=False)
        self.assertError(409, self.post('/v1/ports', {
            'node_uuid': self.node.uuid, 'address': MACS[0],
            'portgroup_uuid': pg['uuid']}),
            "'pxe_enabled' was set to True")
        self.create_port(portgroup_uuid=pg['uuid'], pxe_enabled=False)

    def test_joining_a_portgroup_needs_enroll_manageable_or_maintenance(self):
        pg = self.create_portgroup()
        port = self.create_port()
        join = [{'op': 'add', 'path': '/portgroup_uuid',
                 'value': pg['uuid']}]
        self.set_state(self.node, provision_state='available')
        url = '/v1/ports/%s' % port['uuid']
        self.assertError(409, self.patch_json(url, join),
                         'can not have its port group updated unless node')
        self.assertIsNone(self.get(url).get_json()['portgroup_uuid'])
        self.set_state(self.node, maintenance=True)
        resp = self.patch_json(url, join)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(pg['uuid'], resp.get_json()['portgroup_uuid'])


class TestVifsOnPortgroups(PortgroupTestCase):

    def attach(self, vif, status=204):
        resp = self.post('/v1/nodes/node-1/vifs', {'id': vif})
        self.assertEqual(status, resp.status_code, resp.get_data())

    def vif_on(self, kind, ident):
        return self.get('/v1/%s/%s' % (kind, ident)).get_json()[
            'internal_info'].get('tenant_vif_port_id')

    def test_a_vif_goes_to_a_portgroup_before_a_free_port(self):
        lone = self.create_port()
        empty = self.create_portgroup(name='empty')
        pg = self.create_portgroup(name='bond0')
        members = [self.create_port(portgroup_uuid='bond0')
                   for _ in range(2)]
        self.attach('vif-1')
        self.assertEqual('vif-1', self.vif_on('portgroups', 'bond0'))
        self.attach('vif-2')
        self.assertEqual('vif-2', self.vif_on('ports', lone['uuid']))
        # An empty group and the members of a group with a VIF are not
        # free.
        self.assertError(400, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-3'}),
                         'not enough free physical ports')
        self.assertIsNone(self.vif_on('portgroups', 'empty'))
        self.assertEqual([None, None], [self.vif_on('ports', m['uuid'])
                                        for m in members])
        self.assertEqual({'vif-1', 'vif-2'}, {
            v['id'] for v in self.get('/v1/nodes/node-1/vifs')
            .get_json()['vifs']})
        self.assertError(409, self.post('/v1/nodes/node-1/vifs',
                                        {'id': 'vif-1'}),
                         'already attached to Ironic Portgroup %s'
                         % pg['uuid'])
        self.assertEqual(204, self.delete('/v1/nodes/node-1/vifs/vif-1')
                         .status_code)
        self.assertIsNone(self.vif_on('portgroups', 'bond0'))
        self.attach('vif-3')
        self.assertEqual('vif-3', self.vif_on('portgroups', 'bond0'))
        self.assertEqual(empty['uuid'], self.get(
            '/v1/portgroups/empty').get_json()['uuid'])

    def test_a_vif_on_a_member_port_leaves_the_others_free(self):
        self.create_portgroup(name='bond0')
        members = [self.create_port(portgroup_uuid='bond0')
                   for _ in range(2)]
        # A VIF recorded on a member port (as a port may have joined with
        # its VIF) makes the group unusable as a whole, not its other
        # ports.
        first = ports_db.get_port(self.context, members[0]['uuid'])
        ports_db.update_port(self.context, first, {
            'internal_info': {'tenant_vif_port_id': 'vif-a'}})
        self.attach('vif-b')
        self.assertIsNone(self.vif_on('portgroups', 'bond0'))
        self.assertEqual('vif-b', self.vif_on('ports', members[1]['uuid']))

    def test_portgroup_with_a_vif_is_not_deleted_while_it_has_ports(self):
        self.create_portgroup(name='bond0')
        self.create_port(portgroup_uuid='bond0')
        self.attach('vif-1')
        self.assertError(400, self.delete('/v1/portgroups/bond0'))
        self.assertEqual(['vif-1'], [v['id'] for v in self.get(
            '/v1/nodes/node-1/vifs').get_json()['vifs']])


class TestStaleWrites(PortgroupTestCase):
    """Port groups, volume connectors and targets, and chassis are
    changed and deleted as they were read: not after another change."""

    def check(self, row, read, update, delete):
        update(row, {'extra': {'a': 1}})
        self.assertRaises(exception.ConcurrentUpdate, update, row,
                          {'extra': {'b': 1}})
        self.assertRaises(exception.ConcurrentUpdate, delete, row)
        self.assertEqual({'a': 1}, read().extra)

    def test_stale_updates_and_deletes_are_refused(self):
        pg = portgroups_db.get_portgroup(
            self.context, self.create_portgroup(name='bond0')['uuid'])
        self.check(pg, lambda: portgroups_db.get_portgroup(
            self.context, pg.uuid),
            lambda row, v: portgroups_db.update_portgroup(
                self.context, row, v),
            lambda row: portgroups_db.delete_portgroup(self.context, row))
        chassis = chassis_core.create(self.context, {})
        self.check(chassis, lambda: chassis_db.get_chassis(
            self.context, chassis.uuid),
            lambda row, v: chassis_db.update_chassis(self.context, row, v),
            lambda row: chassis_db.delete_chassis(self.context, row))
        target = volumes.create(self.context, volumes.TARGET, self.node, {
            'volume_type': 'iscsi', 'volume_id': 'v', 'boot_index': 0,
            'properties': {}})
        self.check(target, lambda: volumes_db.get(
            self.context, volumes.TARGET.model, target.uuid),
            lambda row, v: volumes_db.update(self.context, row, v),
            lambda row: volumes_db.delete(self.context, row))
