"""The unmodified Ironic clients against a pool-server process.

openstacksdk's baremetal proxy and python-ironicclient (through the
``openstack`` command) talk to pool as they would to Ironic, with no
authentication and the endpoint given directly.
"""
import json
import os
import subprocess
import sys

import fixtures
import openstack
from openstack import exceptions as sdk_exc
import testtools

from tests.functional import cluster

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
TIMEOUT = 60


def _strip_os_variables(env: dict) -> dict:
    return {k: v for k, v in env.items() if not k.startswith('OS_')}


def _normalize(row: dict) -> dict:
    """A row of a list by its field names: older ironicclients label the
    columns ("Provisioning State"), newer ones name the fields."""
    names = {'provisioning_state': 'provision_state'}
    result = {}
    for key, value in row.items():
        key = key.lower().replace(' ', '_')
        result[names.get(key, key)] = value
    return result


class ClientTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # Nothing from the environment may send the clients elsewhere.
        for name in os.environ:
            if name.startswith('OS_'):
                self.useFixture(fixtures.EnvironmentVariable(name))
        self.server = self.useFixture(cluster.PoolServer())
        self.addOnException(self._attach_log)

    def _attach_log(self, _exc_info):
        self.addDetail('pool-server-log',
                       testtools.content.text_content(self.server.log()))


class SDKTestCase(ClientTestCase):
    """openstacksdk's baremetal proxy."""

    def setUp(self):
        super().setUp()
        self.conn = openstack.connect(
            auth_type='none', region_name='',
            baremetal_endpoint_override=self.server.url)
        self.addCleanup(self.conn.close)
        self.baremetal = self.conn.baremetal

    def create_available_node(self, name, resource_class):
        # With provision_state='available' the sdk would create the node
        # with version 1.10, which knows no resource_class.
        node = self.baremetal.create_node(
            driver='fake-hardware', name=name,
            resource_class=resource_class, provision_state='manageable')
        self.assertEqual('manageable', node.provision_state)
        node = self.baremetal.set_node_provision_state(
            node, 'provide', wait=True, timeout=TIMEOUT)
        self.assertEqual('available', node.provision_state)
        return node

    def test_allocation_lifecycle(self):
        node = self.create_available_node('node-1', 'sdk-class')
        self.assertEqual('sdk-class', node.resource_class)
        self.baremetal.set_node_traits(node, ['CUSTOM_GPU', 'CUSTOM_SSD'])
        node = self.baremetal.get_node('node-1')
        self.assertEqual(['CUSTOM_GPU', 'CUSTOM_SSD'], sorted(node.traits))
        self.assertIsNone(node.allocation_id)

        alloc = self.baremetal.create_allocation(
            name='alloc-1', resource_class='sdk-class',
            traits=['CUSTOM_GPU'], extra={'purpose': 'test'})
        self.assertIn(alloc.state, ('allocating', 'active'))
        alloc = self.baremetal.wait_for_allocation(alloc, timeout=TIMEOUT)
        self.assertEqual('active', alloc.state)
        self.assertEqual(node.id, alloc.node_id)
        self.assertIsNone(alloc.last_error)
        self.assertEqual(['CUSTOM_GPU'], alloc.traits)

        self.assertEqual([alloc.id],
                         [a.id for a in self.baremetal.allocations()])
        by_name = self.baremetal.get_allocation('alloc-1')
        self.assertEqual(alloc.id, by_name.id)
        self.assertEqual({'purpose': 'test'}, by_name.extra)

        node = self.baremetal.get_node(node.id)
        self.assertEqual(alloc.id, node.allocation_id)
        self.assertEqual(alloc.id, node.instance_id)

        updated = self.baremetal.update_allocation(
            alloc, extra={'purpose': 'updated'})
        self.assertEqual({'purpose': 'updated'}, updated.extra)
        self.assertEqual({'purpose': 'updated'},
                         self.baremetal.get_allocation(alloc.id).extra)

        self.baremetal.delete_allocation(alloc)
        self.assertEqual([], list(self.baremetal.allocations()))
        node = self.baremetal.get_node(node.id)
        self.assertIsNone(node.allocation_id)
        self.assertIsNone(node.instance_id)
        self.assertEqual('available', node.provision_state)

    def test_enroll_and_manage(self):
        node = self.baremetal.create_node(driver='fake-hardware',
                                          name='node-2',
                                          resource_class='sdk-class')
        self.assertEqual('enroll', node.provision_state)
        node = self.baremetal.set_node_provision_state(
            node, 'manage', wait=True, timeout=TIMEOUT)
        self.assertEqual('manageable', node.provision_state)
        self.assertEqual('power off', node.power_state)
        self.assertRaises(sdk_exc.BadRequestException,
                          self.baremetal.set_node_provision_state, node,
                          'manage')
        nodes = list(self.baremetal.nodes(details=True,
                                          resource_class='sdk-class'))
        self.assertEqual(['node-2'], [n.name for n in nodes])

    def test_rebuild_rescue_console_nmi_raid(self):
        node = self.create_available_node('node-3', 'sdk-class')
        node = self.baremetal.set_node_provision_state(
            node, 'active', config_drive='H4sIAAAA', wait=True,
            timeout=TIMEOUT)
        self.assertEqual('active', node.provision_state)
        node = self.baremetal.set_node_provision_state(
            node, 'rebuild', config_drive='H4sIAAAB', wait=True,
            timeout=TIMEOUT)
        self.assertEqual('active', node.provision_state)
        node = self.baremetal.set_node_provision_state(
            node, 'rescue', rescue_password='secret', wait=True,
            timeout=TIMEOUT)
        self.assertEqual('rescue', node.provision_state)
        # openstacksdk knows no state to wait for after unrescue.
        self.baremetal.set_node_provision_state(node, 'unrescue')
        node = self.baremetal.wait_for_nodes_provision_state(
            [node], 'active', timeout=TIMEOUT)[0]
        self.assertEqual('active', node.provision_state)

        self.baremetal.enable_node_console(node)
        console = self.baremetal.get_node_console(node)
        self.assertTrue(console['console_enabled'])
        self.assertEqual('socat', console['console_info']['type'])
        self.baremetal.disable_node_console(node)
        self.assertFalse(
            self.baremetal.get_node_console(node)['console_enabled'])

        self.baremetal.set_node_power_state(node, 'power on')
        self.baremetal.inject_nmi_to_node(node)

        # openstacksdk has no call for it: the request it would make.
        raid = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}
        resp = self.baremetal.put(
            '/nodes/%s/states/raid' % node.id, json=raid,
            microversion='1.12')
        self.assertEqual(204, resp.status_code, resp.text)
        self.assertEqual(raid, self.baremetal.get_node(
            node).target_raid_config)

    def test_deploy_templates(self):
        template = self.baremetal.create_deploy_template(
            name='CUSTOM_RAID1', steps=[{
                'interface': 'bios', 'step': 'factory_reset', 'args': {},
                'priority': 150}])
        self.assertEqual('CUSTOM_RAID1', template.name)
        template = self.baremetal.update_deploy_template(
            template, extra={'a': 'b'})
        self.assertEqual({'a': 'b'}, template.extra)
        self.assertEqual(
            ['CUSTOM_RAID1'],
            [t.name for t in self.baremetal.deploy_templates(details=True)])
        self.baremetal.delete_deploy_template(template)
        self.assertEqual([], list(self.baremetal.deploy_templates()))

    def test_allocation_for_unknown_resource_class_fails(self):
        self.create_available_node('node-1', 'sdk-class')
        alloc = self.baremetal.create_allocation(resource_class='unknown')
        exc = self.assertRaises(sdk_exc.ResourceFailure,
                                self.baremetal.wait_for_allocation, alloc,
                                timeout=TIMEOUT)
        alloc = self.baremetal.get_allocation(alloc.id)
        self.assertEqual('error', alloc.state)
        self.assertTrue(alloc.last_error)
        self.assertIn(alloc.last_error, str(exc))
        self.assertIsNone(alloc.node_id)

    def test_missing_allocation(self):
        self.assertRaises(sdk_exc.NotFoundException,
                          self.baremetal.get_allocation, 'missing')


class CLITestCase(ClientTestCase):
    """python-ironicclient through the openstack command."""

    def setUp(self):
        super().setUp()
        self.env = _strip_os_variables(os.environ)
        self.env.update(OS_AUTH_TYPE='none', OS_ENDPOINT=self.server.url,
                        # A fresh cache of stevedore's entry points.
                        XDG_CACHE_HOME=self.useFixture(
                            fixtures.TempDir()).path)

    def run_cli(self, *args, check=True):
        result = subprocess.run(
            [OPENSTACK, 'baremetal', *args], env=self.env,
            capture_output=True, text=True, timeout=120)
        if check:
            self.assertEqual(0, result.returncode,
                             'openstack baremetal %s: %s%s'
                             % (' '.join(args), result.stdout,
                                result.stderr))
        return result

    def run_json(self, *args):
        return json.loads(self.run_cli(*args, '-f', 'json').stdout)

    def run_list(self, *args):
        return [_normalize(row) for row in self.run_json(*args)]

    def test_nodes_and_allocations(self):
        node = self.run_json('node', 'create', '--driver', 'fake-hardware',
                             '--resource-class', 'cli-class', '--name',
                             'node-1')
        self.assertEqual('node-1', node['name'])
        self.assertEqual('cli-class', node['resource_class'])
        self.assertEqual('enroll', node['provision_state'])
        self.run_cli('node', 'manage', 'node-1', '--wait', str(TIMEOUT))
        self.run_cli('node', 'provide', 'node-1', '--wait', str(TIMEOUT))
        # A verb from the wrong state is a 400, as in Ironic: the client
        # fails at once instead of retrying it as a conflict.
        result = self.run_cli('node', 'provide', 'node-1', check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('can not be performed', result.stderr)
        self.assertIn('HTTP 400', result.stderr)
        self.assertNotIn('Attempt', result.stderr)
        nodes = self.run_list('node', 'list')
        self.assertEqual(1, len(nodes))
        self.assertEqual(node['uuid'], nodes[0]['uuid'])
        self.assertEqual('node-1', nodes[0]['name'])
        self.assertEqual('available', nodes[0]['provision_state'])
        self.assertEqual('power off', nodes[0]['power_state'])
        self.assertFalse(nodes[0]['maintenance'])
        self.assertIsNone(nodes[0]['instance_uuid'])

        alloc = self.run_json('allocation', 'create', '--resource-class',
                              'cli-class', '--name', 'alloc-1', '--wait',
                              str(TIMEOUT))
        self.assertEqual('active', alloc['state'])
        self.assertEqual(node['uuid'], alloc['node_uuid'])
        self.assertEqual('alloc-1', alloc['name'])
        self.assertIsNone(alloc['last_error'])

        allocs = self.run_list('allocation', 'list')
        self.assertEqual([alloc['uuid']], [a['uuid'] for a in allocs])
        self.assertEqual('active', allocs[0]['state'])
        self.assertEqual(node['uuid'], allocs[0]['node_uuid'])

        nodes = self.run_list('node', 'list')
        self.assertEqual(alloc['uuid'], nodes[0]['instance_uuid'])
        shown = self.run_json('node', 'show', 'node-1')
        self.assertEqual(alloc['uuid'], shown['allocation_uuid'])

        self.run_cli('allocation', 'set', 'alloc-1', '--extra', 'key=value')
        shown = self.run_json('allocation', 'show', 'alloc-1')
        self.assertEqual({'key': 'value'}, shown['extra'])

        self.run_cli('allocation', 'delete', 'alloc-1')
        self.assertEqual([], self.run_list('allocation', 'list'))
        shown = self.run_json('node', 'show', 'node-1')
        self.assertIsNone(shown['allocation_uuid'])
        self.assertIsNone(shown['instance_uuid'])

    def test_allocation_failure(self):
        alloc = self.run_json('allocation', 'create', '--resource-class',
                              'unknown')
        result = self.run_cli('allocation', 'create', '--resource-class',
                              'unknown', '--wait', str(TIMEOUT),
                              check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('No available nodes', result.stderr)
        allocs = self.run_list('allocation', 'list', '--state', 'error')
        self.assertIn(alloc['uuid'], [a['uuid'] for a in allocs])
        self.assertEqual(2, len(allocs))

    def test_ports_and_vifs(self):
        node = self.run_json('node', 'create', '--driver', 'fake-hardware',
                             '--name', 'node-p')
        port = self.run_json(
            'port', 'create', '52:54:00:AB:CD:01', '--node', node['uuid'],
            '--local-link-connection', 'switch_id=0a:1b:2c:3d:4e:5f',
            '--local-link-connection', 'port_id=Ethernet1/1',
            '--physical-network', 'physnet1')
        self.assertEqual('52:54:00:ab:cd:01', port['address'])
        self.assertEqual({'switch_id': '0a:1b:2c:3d:4e:5f',
                          'port_id': 'Ethernet1/1'},
                         port['local_link_connection'])
        self.run_cli('port', 'set', port['uuid'], '--extra', 'rack=r1',
                     '--pxe-disabled')
        shown = self.run_json('port', 'show', port['uuid'])
        self.assertEqual({'rack': 'r1'}, shown['extra'])
        self.assertFalse(shown['pxe_enabled'])
        listed = self.run_list('port', 'list', '--node', 'node-p')
        self.assertEqual([port['uuid']], [p['uuid'] for p in listed])
        result = self.run_cli('port', 'create', '52:54:00:ab:cd:01',
                              '--node', node['uuid'], check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('A port with MAC address 52:54:00:ab:cd:01 already '
                      'exists', result.stderr)

        self.run_cli('node', 'vif', 'attach', 'node-p', 'vif-1')
        self.assertEqual([{'id': 'vif-1'}],
                         self.run_json('node', 'vif', 'list', 'node-p'))
        self.assertEqual('vif-1', self.run_json(
            'port', 'show', port['uuid'])['internal_info'][
                'tenant_vif_port_id'])
        self.run_cli('node', 'vif', 'detach', 'node-p', 'vif-1')
        self.run_cli('port', 'delete', port['uuid'])
        self.assertEqual([], self.run_list('port', 'list'))

    def test_port_groups(self):
        node = self.run_json('node', 'create', '--driver', 'fake-hardware',
                             '--name', 'node-g')
        group = self.run_json(
            'port', 'group', 'create', '--node', node['uuid'], '--name',
            'bond0', '--address', '52:54:00:AB:CD:10', '--mode', '802.3ad',
            '--property', 'miimon=100')
        # The client sends a property's value as JSON when it is.
        self.assertEqual(('bond0', '52:54:00:ab:cd:10', '802.3ad',
                          {'miimon': 100}),
                         (group['name'], group['address'], group['mode'],
                          group['properties']))
        listed = self.run_list('port', 'group', 'list', '--node', 'node-g')
        self.assertEqual([group['uuid']], [g['uuid'] for g in listed])
        port = self.run_json('port', 'create', '52:54:00:ab:cd:11',
                             '--node', node['uuid'], '--port-group',
                             'bond0')
        self.assertEqual(group['uuid'], port['portgroup_uuid'])
        self.assertEqual([port['uuid']], [p['uuid'] for p in self.run_list(
            'port', 'list', '--port-group', 'bond0')])
        self.run_cli('node', 'vif', 'attach', 'node-g', 'vif-1')
        self.assertEqual('vif-1', self.run_json(
            'port', 'group', 'show', 'bond0')['internal_info'][
                'tenant_vif_port_id'])
        self.run_cli('node', 'vif', 'detach', 'node-g', 'vif-1')
        result = self.run_cli('port', 'group', 'delete', 'bond0',
                              check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('contains ports', result.stderr)
        self.run_cli('port', 'delete', port['uuid'])
        self.run_cli('port', 'group', 'delete', 'bond0')
        self.assertEqual([], self.run_list('port', 'group', 'list'))

    def test_missing_allocation(self):
        result = self.run_cli('allocation', 'show', 'missing', check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('Allocation missing could not be found',
                      result.stderr)
