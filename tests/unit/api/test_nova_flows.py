"""Nova's ironic driver (nova/virt/ironic/driver.py) against pool: its
rebuild, rescue and unrescue, power, console and crash dump (inject NMI)
flows, replayed as the HTTP requests openstacksdk makes for its calls,
with their arguments, and the states the driver polls for.

openstacksdk sends each request with the version it negotiated (the
highest both sides know: pool's maximum), after checking that version
is at least the one a feature needs (1.38 for rescue, 1.29 for NMI).
"""
import uuid

from pool_api import microversion
from tests.unit.api import base

NEGOTIATED = '%d.%d' % microversion.MAX_VERSION
# What the driver reads of a node (driver._NODE_FIELDS).
NODE_FIELDS = ('uuid', 'power_state', 'target_power_state',
               'provision_state', 'target_provision_state', 'last_error',
               'maintenance', 'properties', 'instance_uuid', 'traits',
               'resource_class')
# A config drive as the driver builds it: a gzipped, base64 ISO.
CONFIGDRIVE = 'H4sICDnlJmoC/2NvbmZpZ2RyaXZlAAMAAAAAAAAAAAA='


class NovaDriverTestCase(base.APITestCase):

    version = NEGOTIATED

    def setUp(self):
        super().setUp()
        self.node = self.enroll(name='bm-0', properties={'local_gb': 100})
        self.instance = str(uuid.uuid4())
        self.spawn()

    # The driver's reads ---------------------------------------------------

    def validate_instance_and_node(self) -> dict:
        """driver._validate_instance_and_node: nodes(instance_id=...,
        fields=_NODE_FIELDS), exactly one."""
        resp = self.get('/v1/nodes?instance_uuid=%s&fields=%s'
                        % (self.instance, ','.join(NODE_FIELDS)))
        self.assertEqual(200, resp.status_code, resp.get_data())
        nodes = resp.get_json()['nodes']
        self.assertEqual(1, len(nodes))
        return nodes[0]

    def get_node(self) -> dict:
        """driver._get_node: get_node(node_id, fields=_NODE_FIELDS)."""
        resp = self.get('/v1/nodes/%s?fields=%s' % (self.node['uuid'],
                                                    ','.join(NODE_FIELDS)))
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()

    def poll(self, done_state: str, failed_state: str) -> dict:
        """A FixedIntervalLoopingCall on _validate_instance_and_node: the
        conductor moves the node on between two polls."""
        for _ in range(5):
            node = self.validate_instance_and_node()
            if node['provision_state'] == done_state:
                return node
            self.assertNotEqual(failed_state, node['provision_state'],
                                node['last_error'])
            self.finish_provisioning()
        self.fail('The node never reached %s' % done_state)

    def wait_for_power_state(self) -> dict:
        """driver._wait_for_power_state: until target_power_state is
        NOSTATE (null)."""
        node = self.validate_instance_and_node()
        self.assertIsNone(node['target_power_state'])
        return node

    # The driver's writes --------------------------------------------------

    def deploy_patch(self, preserve_ephemeral=None) -> list:
        """patcher.GenericDriverFields.get_deploy_patch for a flavor with
        a required trait."""
        patch = [{'path': '/instance_info/%s' % key, 'op': 'add',
                  'value': value} for key, value in (
            ('image_source', str(uuid.uuid4())), ('root_gb', '10'),
            ('swap_mb', '0'), ('display_name', 'vm-1'), ('vcpus', '2'),
            ('nova_host_id', 'compute-1'), ('memory_mb', '2048'),
            ('local_gb', '100'), ('project_id', 'p1'),
            ('project_name', 'demo'), ('user_id', 'u1'),
            ('user_name', 'alice'), ('flavor_name', 'bm.small'),
            ('fixed_ips', '[]'), ('floating_ips', '[]'))]
        if preserve_ephemeral is not None:
            patch.append({'path': '/instance_info/preserve_ephemeral',
                          'op': 'add', 'value': str(preserve_ephemeral)})
        patch.append({'path': '/instance_info/traits', 'op': 'add',
                      'value': ['CUSTOM_GOLD']})
        return patch

    def patch_node(self, patch):
        resp = self.patch_json('/v1/nodes/%s' % self.node['uuid'], patch)
        self.assertEqual(200, resp.status_code, resp.get_data())

    def provision(self, target: str, **body):
        resp = self.put('/v1/nodes/%s/states/provision' % self.node['uuid'],
                        {'target': target, **body})
        self.assertEqual(202, resp.status_code, resp.get_data())

    def power(self, target: str, status: int = 202):
        resp = self.put('/v1/nodes/%s/states/power' % self.node['uuid'],
                        {'target': target})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def spawn(self):
        """prepare_for_spawn's _set_instance_id, the deploy patch, and
        the deployment with a config drive, polled until active."""
        self.put('/v1/nodes/bm-0/traits/CUSTOM_GOLD')
        self.patch_node([{'op': 'add', 'path': '/instance_uuid',
                          'value': self.instance}])
        self.patch_node(self.deploy_patch())
        self.provision('active', configdrive=CONFIGDRIVE)
        self.poll('active', 'deploy failed')

    # Flows ----------------------------------------------------------------

    def test_rebuild(self):
        """driver.rebuild: _get_node, the deploy patch with
        preserve_ephemeral, set_node_provision_state(node, 'rebuild',
        config_drive=...), then _wait_for_active."""
        self.get_node()
        self.patch_node(self.deploy_patch(preserve_ephemeral=False))
        self.provision('rebuild', configdrive=CONFIGDRIVE)
        node = self.validate_instance_and_node()
        # _wait_for_active keeps polling: the target is active, not
        # deleted or available.
        self.assertEqual(('deploying', 'active'),
                         (node['provision_state'],
                          node['target_provision_state']))
        node = self.poll('active', 'deploy failed')
        self.assertEqual(self.instance, node['instance_uuid'])
        info = self.get('/v1/nodes/bm-0').get_json()['instance_info']
        self.assertEqual('False', info['preserve_ephemeral'])

    def test_rebuild_failure_is_seen_by_wait_for_active(self):
        self.put('/v1/nodes/bm-0/params',
                 {'fake/fail-state': 'deploying'})
        self.provision('rebuild', configdrive=CONFIGDRIVE)
        self.finish_provisioning()
        node = self.validate_instance_and_node()
        self.assertEqual('deploy failed', node['provision_state'])
        self.assertTrue(node['last_error'])

    def test_rescue_and_unrescue(self):
        """driver.rescue: set_node_provision_state(node, 'rescue',
        rescue_password=...), polled until rescue (rescue failed is a
        failure); driver.unrescue: 'unrescue', polled until active."""
        self.provision('rescue', rescue_password='s3cret-pass')
        node = self.poll('rescue', 'rescue failed')
        self.assertEqual(self.instance, node['instance_uuid'])
        self.provision('unrescue')
        node = self.poll('active', 'unrescue failed')
        self.assertIsNone(node['target_provision_state'])

    def test_rescue_failure_carries_the_last_error(self):
        self.put('/v1/nodes/bm-0/params', {'fake/fail-state': 'rescuing'})
        self.provision('rescue', rescue_password='p')
        self.finish_provisioning()
        node = self.validate_instance_and_node()
        self.assertEqual('rescue failed', node['provision_state'])
        self.assertIn('rescuing', node['last_error'])

    def test_destroy_of_a_rescued_instance(self):
        """driver.destroy unprovisions a node in rescue (not in
        _UNPROVISION_STATES, but a known state): set_node_provision_state
        (node, 'deleted'), then the instance is gone from the node."""
        self.provision('rescue', rescue_password='p')
        self.poll('rescue', 'rescue failed')
        self.provision('deleted')
        self.finish_provisioning()
        resp = self.get('/v1/nodes?instance_uuid=%s&fields=%s'
                        % (self.instance, ','.join(NODE_FIELDS)))
        self.assertEqual([], resp.get_json()['nodes'])
        self.assertEqual('available', self.get('/v1/nodes/bm-0').get_json()
                         ['provision_state'])

    def test_power_off_on_and_reboot(self):
        """driver.power_off (hard, and soft with a timeout), power_on,
        reboot (soft, then hard), each followed by
        _wait_for_power_state."""
        self.power('power off')
        self.assertEqual('power off',
                         self.wait_for_power_state()['power_state'])
        self.power('power on')
        self.assertEqual('power on',
                         self.wait_for_power_state()['power_state'])
        self.power('soft power off')
        self.assertEqual('power off',
                         self.wait_for_power_state()['power_state'])
        self.power('power on')
        self.power('soft rebooting')
        self.assertEqual('power on',
                         self.wait_for_power_state()['power_state'])
        self.power('rebooting')
        self.assertEqual('power on',
                         self.wait_for_power_state()['power_state'])

    def test_serial_console(self):
        """driver.get_serial_console: get_node_console; a console that
        is enabled is reset (disable, wait, enable, wait) to take it
        over; its console_info is a socat URL with a host and a port."""
        url = '/v1/nodes/%s/states/console' % self.node['uuid']
        console = self.get(url).get_json()
        self.assertFalse(console['console_enabled'])
        # _enable_console(True), then _wait_state(True).
        self.assertEqual(202, self.put(url, {'enabled': True}).status_code)
        console = self.get(url).get_json()
        self.assertTrue(console['console_enabled'])
        # The reset of an enabled console.
        self.assertEqual(202, self.put(url, {'enabled': False}).status_code)
        self.assertFalse(self.get(url).get_json()['console_enabled'])
        self.assertEqual(202, self.put(url, {'enabled': True}).status_code)
        console = self.get(url).get_json()
        self.assertTrue(console['console_enabled'])
        info = console['console_info']
        self.assertEqual('socat', info['type'])
        scheme, rest = info['url'].split('://')
        host, port = rest.rsplit(':', 1)
        self.assertEqual(('tcp', '127.0.0.1'), (scheme, host))
        self.assertTrue(port.isdigit())

    def test_trigger_crash_dump(self):
        """driver.trigger_crash_dump: _validate_instance_and_node, then
        inject_nmi_to_node (PUT management/inject_nmi with {})."""
        self.power('power on')
        node = self.validate_instance_and_node()
        resp = self.put('/v1/nodes/%s/management/inject_nmi' % node['uuid'],
                        {})
        self.assertEqual(204, resp.status_code, resp.get_data())
        # A node powered off takes none, and the driver sees the error.
        self.power('power off')
        resp = self.put('/v1/nodes/%s/management/inject_nmi' % node['uuid'],
                        {})
        self.assertError(400, resp, 'not powered on')
