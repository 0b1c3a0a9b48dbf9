"""The drivers API: /v1/drivers, a driver and its properties."""
from tests.unit.api import base


class TestDrivers(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.alive = ['c1', 'c2']

    def test_list(self):
        resp = self.get('/v1/drivers')
        self.assertEqual(200, resp.status_code, resp.get_data())
        (driver,) = resp.get_json()['drivers']
        self.assertEqual({'name', 'hosts', 'type', 'links', 'properties'},
                         set(driver))
        self.assertEqual('fake-hardware', driver['name'])
        self.assertEqual(['c1', 'c2'], driver['hosts'])
        self.assertEqual('dynamic', driver['type'])
        self.assertTrue(driver['properties'][0]['href'].endswith(
            '/v1/drivers/fake-hardware/properties'))

    def test_list_before_1_30_has_no_type(self):
        (driver,) = self.get('/v1/drivers', version='1.29').get_json()[
            'drivers']
        self.assertEqual({'name', 'hosts', 'links', 'properties'},
                         set(driver))
        (driver,) = self.get('/v1/drivers', version='1.13').get_json()[
            'drivers']
        self.assertNotIn('properties', driver)
        for query in ('detail=true', 'type=dynamic'):
            self.assertError(406, self.get('/v1/drivers?' + query,
                                           version='1.29'))

    def test_detail_and_enabled_hardware_types(self):
        self.config(enabled_hardware_types=['fake-hardware', 'ipmi'])
        found = self.get('/v1/drivers?detail=true').get_json()['drivers']
        self.assertEqual(['fake-hardware', 'ipmi'], [d['name'] for d in found])
        driver = found[0]
        self.assertEqual('fake', driver['default_boot_interface'])
        self.assertEqual(['fake', 'ipxe', 'pxe'],
                         driver['enabled_boot_interfaces'])
        self.assertEqual(['flat', 'noop'],
                         driver['enabled_network_interfaces'])
        self.assertEqual('noop', driver['default_storage_interface'])
        self.assertIn('default_bios_interface', driver)
        # Firmware came with 1.86.
        self.assertNotIn('default_firmware_interface', driver)

    def test_interface_fields_by_version(self):
        driver = self.get('/v1/drivers/fake-hardware',
                          version='1.32').get_json()
        self.assertIn('default_boot_interface', driver)
        self.assertNotIn('default_storage_interface', driver)
        driver = self.get('/v1/drivers/fake-hardware',
                          version='1.37').get_json()
        self.assertIn('enabled_storage_interfaces', driver)
        self.assertNotIn('enabled_rescue_interfaces', driver)
        self.assertNotIn('enabled_bios_interfaces', driver)

    def test_type_filter(self):
        self.assertEqual([], self.get('/v1/drivers?type=classic').get_json()[
            'drivers'])
        self.assertEqual(1, len(self.get('/v1/drivers?type=dynamic')
                                .get_json()['drivers']))
        self.assertError(400, self.get('/v1/drivers?type=other'))

    def test_detail_with_fields_and_fields_version(self):
        self.assertError(406, self.get('/v1/drivers?fields=name'))
        self.assertError(400, self.get('/v1/drivers?fields=name&detail=1'),
                         'detail')

    def test_no_conductor_alive(self):
        self.alive = []
        self.assertEqual([], self.get('/v1/drivers').get_json()['drivers'])
        self.assertError(404, self.get('/v1/drivers/fake-hardware'))

    def test_show_and_unknown(self):
        driver = self.get('/v1/drivers/fake-hardware').get_json()
        self.assertEqual('fake-hardware', driver['name'])
        self.assertEqual(['fake', 'no-raid', 'agent'],
                         driver['enabled_raid_interfaces'])
        self.assertError(404, self.get('/v1/drivers/ipmi'),
                         'ipmi')

    def test_properties(self):
        resp = self.get('/v1/drivers/fake-hardware/properties')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIn('deploy_kernel', resp.get_json())
        self.assertError(404, self.get('/v1/drivers/nope/properties'))

    def test_conductors_list_the_enabled_drivers_and_their_group(self):
        from pool_conductor.db import conductors as conductors_db
        conductors_db.register_conductor(self.context, 'c1', 'rack-a')
        self.config(enabled_hardware_types=['fake-hardware', 'ipmi'])
        body = self.get('/v1/conductors/c1').get_json()
        self.assertEqual(['fake-hardware', 'ipmi'], body['drivers'])
        self.assertEqual('rack-a', body['conductor_group'])

    def test_v1_links_drivers(self):
        body = self.get('/v1').get_json()
        self.assertTrue(body['drivers'][0]['href'].endswith('/v1/drivers/'))
