"""Driver interfaces, conductor groups, the conductor and
driver_internal_info of nodes, and maintenance by PATCH."""
from pool_conductor.baremetal import provisioning
from pool_conductor import conductors
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base


class InterfacesTestCase(base.APITestCase):

    def create(self, body=None, status=201, **kw):
        body = {'driver': 'fake-hardware', **(body or {})}
        resp = self.post('/v1/nodes', body, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def patch_node(self, ident, ops, status=200, **kw):
        resp = self.patch_json('/v1/nodes/%s' % ident, ops, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp


class TestInterfaceFields(InterfacesTestCase):

    def test_gophercloud_create_node(self):
        # gophercloud's acceptance CreateNode, as it sends it.
        body = self.create({
            'name': 'ACPTTEST', 'driver': 'ipmi', 'boot_interface': 'ipxe',
            'raid_interface': 'agent',
            'driver_info': {'ipmi_port': '6230', 'ipmi_password': 'admin'}})
        self.assertEqual('ipxe', body['boot_interface'])
        self.assertEqual('agent', body['raid_interface'])
        # The others are the defaults, recorded.
        self.assertEqual('fake', body['deploy_interface'])
        self.assertEqual('flat', body['network_interface'])
        self.assertEqual('noop', body['storage_interface'])
        node = nodes_db.get_node(self.context, body['uuid'])
        self.assertEqual('ipxe', node.boot_interface)
        self.assertEqual('fake', node.power_interface)

    def test_unknown_interface_names_the_enabled_ones(self):
        text = self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'deploy_interface': 'iscsi'}))
        self.assertIn('"iscsi" is not enabled for driver fake-hardware',
                      text)
        self.assertIn('fake, direct, ramdisk', text)

    def test_enabled_interfaces_are_configurable(self):
        self.config(enabled_boot_interfaces=['pxe', 'ipxe'],
                    default_boot_interface='ipxe')
        self.assertEqual('ipxe', self.create()['boot_interface'])
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'boot_interface': 'fake'}),
            'Enabled boot interfaces: pxe, ipxe')

    def test_default_not_enabled_is_a_400(self):
        self.config(default_raid_interface='agent',
                    enabled_raid_interfaces=['fake'])
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake-hardware'}), 'raid interface')

    def test_fields_appear_with_their_versions(self):
        uuid = self.create()['uuid']
        versions = {'1.19': set(), '1.20': {'network_interface'},
                    '1.31': {'network_interface', 'boot_interface'},
                    '1.33': {'storage_interface'},
                    '1.38': {'rescue_interface'},
                    '1.40': {'bios_interface'}}
        for version, expected in versions.items():
            body = self.get('/v1/nodes/%s' % uuid,
                            version=version).get_json()
            self.assertTrue(expected <= set(body), version)
        old = self.get('/v1/nodes/%s' % uuid, version='1.30').get_json()
        self.assertNotIn('boot_interface', old)
        self.assertNotIn('storage_interface',
                         self.get('/v1/nodes/%s' % uuid,
                                  version='1.32').get_json())
        # firmware_interface comes with 1.86, above what pool serves.
        self.assertNotIn('firmware_interface', self.get(
            '/v1/nodes/%s' % uuid).get_json())

    def test_create_with_an_interface_of_a_newer_version_is_406(self):
        self.assertError(406, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'boot_interface': 'fake'},
            version='1.30'))
        # null is no field, in any version.
        self.create({'boot_interface': None}, version='1.30')

    def test_fields_selector(self):
        uuid = self.create({'deploy_interface': 'direct'})['uuid']
        resp = self.get('/v1/nodes/%s?fields=deploy_interface' % uuid)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'deploy_interface', 'links'},
                         set(resp.get_json()))
        listed = self.get('/v1/nodes?fields=uuid,deploy_interface')
        self.assertEqual('direct',
                         listed.get_json()['nodes'][0]['deploy_interface'])

    def test_node_of_an_older_row_shows_the_defaults(self):
        uuid = self.create()['uuid']
        node = nodes_db.get_node(self.context, uuid)
        with self.db.engine.begin() as conn:
            conn.exec_driver_sql(
                'UPDATE nodes SET boot_interface = NULL WHERE id = %d'
                % node.id)
        self.config(enabled_boot_interfaces=['pxe'])
        self.assertEqual('pxe', self.get('/v1/nodes/%s' % uuid).get_json()[
            'boot_interface'])


class TestPatchInterfaces(InterfacesTestCase):

    def setUp(self):
        super().setUp()
        self.uuid = self.create({'name': 'n1'})['uuid']

    def test_patch_interface(self):
        body = self.patch_node('n1', [{'op': 'replace',
                                       'path': '/deploy_interface',
                                       'value': 'ramdisk'}]).get_json()
        self.assertEqual('ramdisk', body['deploy_interface'])
        self.assertEqual('ramdisk', nodes_db.get_node(
            self.context, 'n1').deploy_interface)

    def test_patch_unknown_interface(self):
        self.assertError(400, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/power_interface',
             'value': 'ipmi'}]), 'Enabled power interfaces: fake')

    def test_remove_interface_gives_the_default(self):
        self.patch_node('n1', [{'op': 'replace', 'path': '/boot_interface',
                                'value': 'pxe'}])
        body = self.patch_node('n1', [{'op': 'remove',
                                       'path': '/boot_interface'}])
        self.assertEqual('fake', body.get_json()['boot_interface'])

    def test_interface_of_an_active_node_changes_in_maintenance_only(self):
        node = nodes_db.get_node(self.context, 'n1')
        with self.db.engine.begin() as conn:
            conn.exec_driver_sql(
                "UPDATE nodes SET provision_state = 'active' WHERE id = %d"
                % node.id)
        op = [{'op': 'replace', 'path': '/boot_interface', 'value': 'pxe'}]
        self.assertError(409, self.patch_json('/v1/nodes/n1', op),
                         'boot_interface updated unless')
        self.patch_node('n1', op + [{'op': 'replace', 'path':
                                     '/maintenance', 'value': True}])

    def test_reset_interfaces_on_driver_change(self):
        self.patch_node('n1', [{'op': 'replace', 'path': '/boot_interface',
                                'value': 'pxe'}])
        ops = [{'op': 'replace', 'path': '/driver', 'value': 'ipmi'}]
        body = self.patch_node('n1?reset_interfaces=true', ops).get_json()
        self.assertEqual('ipmi', body['driver'])
        self.assertEqual('fake', body['boot_interface'])

    def test_driver_change_keeps_interfaces_without_reset(self):
        self.patch_node('n1', [{'op': 'replace', 'path': '/boot_interface',
                                'value': 'pxe'}])
        body = self.patch_node('n1', [{'op': 'replace', 'path': '/driver',
                                       'value': 'ipmi'}]).get_json()
        self.assertEqual('pxe', body['boot_interface'])

    def test_reset_interfaces_needs_a_driver_change_and_1_45(self):
        ops = [{'op': 'replace', 'path': '/name', 'value': 'n2'}]
        self.assertError(400, self.patch_json(
            '/v1/nodes/n1?reset_interfaces=true', ops), 'driver')
        ops = [{'op': 'replace', 'path': '/driver', 'value': 'ipmi'}]
        self.assertError(406, self.patch_json(
            '/v1/nodes/n1?reset_interfaces=true', ops, version='1.44'))

    def test_patch_interface_below_its_version_is_406(self):
        self.assertError(406, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/rescue_interface',
             'value': 'no-rescue'}], version='1.37'))


class TestMaintenancePatch(InterfacesTestCase):

    def setUp(self):
        super().setUp()
        self.create({'name': 'n1'})

    def test_patch_maintenance_as_gophercloud_sends_it(self):
        # gophercloud's example sends the value as a string.
        body = self.patch_node('n1', [{'op': 'replace',
                                       'path': '/maintenance',
                                       'value': 'true'}]).get_json()
        self.assertIs(True, body['maintenance'])
        self.assertIs(True, nodes_db.get_node(self.context,
                                              'n1').maintenance)

    def test_leaving_maintenance_clears_the_reason(self):
        self.assertEqual(202, self.put('/v1/nodes/n1/maintenance',
                                       {'reason': 'disk'}).status_code)
        body = self.patch_node('n1', [{'op': 'replace',
                                       'path': '/maintenance',
                                       'value': False}]).get_json()
        self.assertIs(False, body['maintenance'])
        self.assertIsNone(body['maintenance_reason'])

    def test_bad_maintenance_value(self):
        self.assertError(400, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/maintenance', 'value': 'perhaps'}]),
            'maintenance')

    def test_driver_internal_info_is_read_only(self):
        self.assertError(400, self.patch_json('/v1/nodes/n1', [
            {'op': 'add', 'path': '/driver_internal_info/a', 'value': 1}]),
            'driver_internal_info')
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake', 'driver_internal_info': {}}))


class TestDriverInternalInfo(InterfacesTestCase):

    def test_shown_from_1_3_with_secrets_masked(self):
        uuid = self.create()['uuid']
        node = nodes_db.get_node(self.context, uuid)
        with self.db.engine.begin() as conn:
            conn.exec_driver_sql(
                'UPDATE nodes SET driver_internal_info = \'{"agent_url": '
                '"http://a", "password": "x"}\' WHERE id = %d' % node.id)
        body = self.get('/v1/nodes/%s' % uuid).get_json()
        self.assertEqual('http://a', body['driver_internal_info'][
            'agent_url'])
        self.assertEqual('******', body['driver_internal_info']['password'])
        self.assertNotIn('driver_internal_info', self.get(
            '/v1/nodes/%s' % uuid, version='1.2').get_json())


class TestConductorGroup(InterfacesTestCase):

    def test_field_filter_and_lower_case(self):
        self.create({'name': 'a', 'conductor_group': 'Rack-1'})
        self.create({'name': 'b'})
        self.assertEqual('rack-1', self.get('/v1/nodes/a').get_json()[
            'conductor_group'])
        found = self.get('/v1/nodes?conductor_group=RACK-1').get_json()
        self.assertEqual(['a'], [n['name'] for n in found['nodes']])
        found = self.get('/v1/nodes?conductor_group=').get_json()
        self.assertEqual(['b'], [n['name'] for n in found['nodes']])

    def test_versions(self):
        self.create({'name': 'a'})
        self.assertNotIn('conductor_group', self.get(
            '/v1/nodes/a', version='1.45').get_json())
        self.assertError(406, self.get('/v1/nodes?conductor_group=x',
                                       version='1.45'))
        self.assertError(406, self.post('/v1/nodes', {
            'driver': 'fake', 'conductor_group': 'x'}, version='1.45'))

    def test_invalid_group(self):
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'fake', 'conductor_group': 'a b'}), 'conductor_group')

    def test_patch_group(self):
        self.create({'name': 'a'})
        body = self.patch_node('a', [{'op': 'add', 'path':
                                      '/conductor_group',
                                      'value': 'G1'}]).get_json()
        self.assertEqual('g1', body['conductor_group'])
        body = self.patch_node('a', [{'op': 'remove', 'path':
                                      '/conductor_group'}]).get_json()
        self.assertEqual('', body['conductor_group'])

    def test_provisioning_goes_to_a_conductor_of_the_group(self):
        self.alive = ['c-plain', 'c-east', 'c-west']
        self.groups = {'c-east': 'east', 'c-west': 'west'}
        self.create({'name': 'a', 'conductor_group': 'east'})
        self.assertEqual(202, self.put('/v1/nodes/a/states/provision',
                                       {'target': 'manage'}).status_code)
        self.assertEqual(202, self.put('/v1/nodes/a/states/provision',
                                       {'target': 'provide'}).status_code)
        self.assertEqual(202, self.put('/v1/nodes/a/states/provision',
                                       {'target': 'active'}).status_code)
        self.assertEqual('c-east', self.provision_casts[-1][1])
        node = self.get('/v1/nodes/a').get_json()
        self.assertEqual('c-east', node['conductor'])

    def test_no_conductor_of_the_group_alive(self):
        self.create({'name': 'a', 'conductor_group': 'east'})
        for verb in ('manage', 'provide'):
            self.put('/v1/nodes/a/states/provision', {'target': verb})
        self.assertError(503, self.put('/v1/nodes/a/states/provision',
                                       {'target': 'active'}),
                         'conductor group "east"')
        self.assertIsNone(self.get('/v1/nodes/a').get_json()['conductor'])

    def test_periodic_check_moves_only_its_groups_nodes(self):
        self.create({'name': 'a', 'conductor_group': 'east'})
        for verb in ('manage', 'provide', 'active'):
            self.groups = {'test-host': 'east'}
            self.put('/v1/nodes/a/states/provision', {'target': verb})
        self.assertEqual('deploying', self.get('/v1/nodes/a').get_json()[
            'provision_state'])
        # A conductor of no group leaves it.
        provisioning.check(self.context, 'plain-host')
        self.assertEqual('deploying', self.get('/v1/nodes/a').get_json()[
            'provision_state'])
        self.config(conductor_group='EAST', group='conductor')
        provisioning.check(self.context, 'east-host')
        self.assertEqual('active', self.get('/v1/nodes/a').get_json()[
            'provision_state'])


class TestConductorField(InterfacesTestCase):

    def test_field_and_filter(self):
        self.alive = ['c1', 'c2', 'c3']
        made = [self.create({'name': 'n%d' % i})['uuid'] for i in range(12)]
        shown = {n['uuid']: n['conductor'] for n in self.get(
            '/v1/nodes/detail').get_json()['nodes']}
        alive = [(h, '') for h in self.alive]
        self.assertEqual({u: conductors.serving(alive, u, '')
                          for u in made}, shown)
        self.assertGreater(len(set(shown.values())), 1)
        for host in self.alive:
            found = self.get('/v1/nodes?conductor=%s' % host).get_json()
            self.assertEqual(sorted(u for u in made if shown[u] == host),
                             sorted(n['uuid'] for n in found['nodes']))

    def test_locked_node_shows_its_holder(self):
        uuid = self.create()['uuid']
        nodes_db.reserve(self.context, nodes_db.get_node(
            self.context, uuid).id, 'holder')
        self.assertEqual('holder', self.get('/v1/nodes/%s' % uuid).get_json()[
            'conductor'])
        self.assertError(400, self.patch_json('/v1/nodes/%s' % uuid, [
            {'op': 'replace', 'path': '/conductor', 'value': 'x'}]),
            'conductor')

    def test_versions(self):
        uuid = self.create()['uuid']
        self.assertNotIn('conductor', self.get('/v1/nodes/%s' % uuid,
                                               version='1.48').get_json())
        self.assertError(406, self.get('/v1/nodes?conductor=x',
                                       version='1.48'))


class TestNoopNetworkVifs(InterfacesTestCase):

    def test_openstacksdk_vif_test(self):
        # openstacksdk's TestBareMetalVif: a node with the noop network
        # interface and no port; attach, list and detach succeed.
        uuid = self.create({'network_interface': 'noop'},
                           version='1.28')['uuid']
        vif = '200712fc-fdfb-47da-89a6-2d19f76c7618'
        url = '/v1/nodes/%s/vifs' % uuid
        self.assertEqual(204, self.post(url, {'id': vif},
                                        version='1.28').status_code)
        self.assertEqual({'vifs': []}, self.get(url,
                                                version='1.28').get_json())
        self.assertEqual(204, self.delete('%s/%s' % (url, vif),
                                          version='1.28').status_code)

    def test_flat_needs_a_free_port(self):
        uuid = self.create()['uuid']
        self.assertError(400, self.post('/v1/nodes/%s/vifs' % uuid,
                                        {'id': 'vif-1'}),
                         'not enough free physical ports')


class TestRetired(InterfacesTestCase):

    def setUp(self):
        super().setUp()
        self.create({'name': 'n1'})

    def provision(self, verb, status=202):
        resp = self.put('/v1/nodes/n1/states/provision', {'target': verb})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def test_fields_and_filter_from_1_61(self):
        body = self.get('/v1/nodes/n1').get_json()
        self.assertIs(False, body['retired'])
        self.assertIsNone(body['retired_reason'])
        self.assertNotIn('retired', self.get('/v1/nodes/n1',
                                             version='1.60').get_json())
        self.assertError(406, self.get('/v1/nodes?retired=true',
                                       version='1.60'))
        self.assertError(406, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/retired', 'value': True}],
            version='1.60'))
        self.create({'name': 'old', 'retired': True,
                     'retired_reason': 'EOL'})
        found = self.get('/v1/nodes?retired=true').get_json()['nodes']
        self.assertEqual(['old'], [n['name'] for n in found])

    def test_reason_needs_retired_and_goes_with_it(self):
        self.assertError(400, self.patch_json('/v1/nodes/n1', [
            {'op': 'add', 'path': '/retired_reason', 'value': 'old'}]),
            'retired_reason field can only be set when retired is True')
        body = self.patch_node('n1', [
            {'op': 'replace', 'path': '/retired', 'value': 'true'},
            {'op': 'add', 'path': '/retired_reason', 'value': 'old'}
        ]).get_json()
        self.assertEqual((True, 'old'), (body['retired'],
                                         body['retired_reason']))
        body = self.patch_node('n1', [
            {'op': 'replace', 'path': '/retired', 'value': False}
        ]).get_json()
        self.assertEqual((False, None), (body['retired'],
                                         body['retired_reason']))

    def test_available_node_cannot_retire_and_retired_not_provided(self):
        self.provision('manage')
        self.patch_node('n1', [{'op': 'replace', 'path': '/retired',
                                'value': True}])
        self.assertError(400, self.put('/v1/nodes/n1/states/provision', {
            'target': 'provide'}), 'because it is retired')
        self.patch_node('n1', [{'op': 'replace', 'path': '/retired',
                                'value': False}])
        self.provision('provide')
        self.assertError(409, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/retired', 'value': True}]),
            "can not have 'retired' set in provision state 'available'")

    def test_undeployed_retired_node_becomes_manageable(self):
        for verb in ('manage', 'provide', 'active'):
            self.provision(verb)
        self.finish_provisioning()
        self.patch_node('n1', [{'op': 'replace', 'path': '/retired',
                                'value': True}])
        self.provision('deleted')
        self.finish_provisioning()
        self.assertEqual('manageable', self.get('/v1/nodes/n1').get_json()[
            'provision_state'])


class TestProtectedAndAutomatedClean(InterfacesTestCase):

    def setUp(self):
        super().setUp()
        self.create({'name': 'n1'})

    def provision(self, verb, status=202):
        resp = self.put('/v1/nodes/n1/states/provision', {'target': verb})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def deploy(self):
        for verb in ('manage', 'provide', 'active'):
            self.provision(verb)
        self.finish_provisioning()

    def test_only_an_active_node_is_protected(self):
        self.assertError(409, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/protected', 'value': True}]),
            "can only be made protected")
        self.deploy()
        body = self.patch_node('n1', [
            {'op': 'replace', 'path': '/protected', 'value': True},
            {'op': 'add', 'path': '/protected_reason', 'value': 'prod'}
        ]).get_json()
        self.assertEqual((True, 'prod'), (body['protected'],
                                          body['protected_reason']))

    def test_protected_node_is_not_undeployed_nor_deleted(self):
        self.deploy()
        self.patch_node('n1', [{'op': 'replace', 'path': '/protected',
                                'value': True}])
        self.assertError(403, self.put('/v1/nodes/n1/states/provision', {
            'target': 'deleted'}), 'is protected')
        self.patch_node('n1', [{'op': 'replace', 'path': '/maintenance',
                                'value': True}])
        self.assertError(403, self.delete('/v1/nodes/n1'), 'is protected')
        body = self.patch_node('n1', [{'op': 'replace', 'path':
                                       '/protected', 'value': False}])
        self.assertIsNone(body.get_json()['protected_reason'])
        self.assertEqual(204, self.delete('/v1/nodes/n1').status_code)

    def test_reason_needs_protected(self):
        self.assertError(400, self.patch_json('/v1/nodes/n1', [
            {'op': 'add', 'path': '/protected_reason', 'value': 'x'}]),
            'protected_reason field can only be set')

    def test_versions(self):
        body = self.get('/v1/nodes/n1', version='1.46').get_json()
        self.assertNotIn('automated_clean', body)
        body = self.get('/v1/nodes/n1', version='1.47').get_json()
        self.assertIsNone(body['automated_clean'])
        self.assertNotIn('protected', body)
        self.assertIs(False, self.get('/v1/nodes/n1', version='1.48')
                      .get_json()['protected'])
        self.assertError(406, self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/protected', 'value': True}],
            version='1.47'))

    def test_automated_clean(self):
        body = self.create({'name': 'n2', 'automated_clean': 'true'})
        self.assertIs(True, body['automated_clean'])
        body = self.patch_node('n2', [{'op': 'replace', 'path':
                                       '/automated_clean',
                                       'value': False}]).get_json()
        self.assertIs(False, body['automated_clean'])
        body = self.patch_node('n2', [{'op': 'remove', 'path':
                                       '/automated_clean'}]).get_json()
        self.assertIsNone(body['automated_clean'])
        self.assertError(406, self.post('/v1/nodes', {
            'driver': 'fake', 'automated_clean': True}, version='1.46'))
