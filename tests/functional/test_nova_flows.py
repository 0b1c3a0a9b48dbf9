"""Nova's ironic driver against a pool-server process: its flows that
touch port groups, VIFs and volume targets, replayed with the calls and
arguments of nova/virt/ironic/driver.py (openstacksdk's baremetal proxy,
as Nova uses it), in the order the compute manager makes them.

NovaDriver below is a transcript of the driver's methods of the same
names, its Nova-side work (placement, neutron, the config drive's
contents) left out.
"""
import base64
import gzip
import time
import types
import uuid

import openstack
from openstack import exceptions as sdk_exc

from tests.functional import test_client_compat

TIMEOUT = 60
# nova.virt.ironic.driver._NODE_FIELDS
NODE_FIELDS = ('uuid', 'power_state', 'target_power_state',
               'provision_state', 'target_provision_state', 'last_error',
               'maintenance', 'properties', 'instance_uuid', 'traits',
               'resource_class')
UNPROVISION_STATES = ('active', 'deploy failed', 'error', 'wait call-back',
                      'deploying', 'deploy hold', 'rescue', 'rescuing',
                      'rescue wait', 'rescue failed', 'unrescuing',
                      'unrescue failed')


class InstanceNotFound(Exception):
    pass


class NovaDriver:
    """The calls of Nova's IronicDriver, with its arguments."""

    def __init__(self, conn):
        self.ironic_connection = conn.baremetal

    def _get_node(self, node_id):
        return self.ironic_connection.get_node(node_id, fields=NODE_FIELDS)

    def _validate_instance_and_node(self, instance):
        nodes = list(self.ironic_connection.nodes(
            instance_id=instance.uuid, fields=NODE_FIELDS))
        if not nodes:
            raise InstanceNotFound(instance.uuid)
        assert len(nodes) == 1, nodes
        return nodes[0]

    def prepare_for_spawn(self, instance):
        node = self._get_node(instance.node)
        # _set_instance_id
        self.ironic_connection.update_node(node, retry_on_conflict=False,
                                           instance_id=instance.uuid)

    def prepare_networks_before_block_device_mapping(self, instance,
                                                     network_info):
        node = self._get_node(instance.node)
        self._plug_vifs(node, instance, network_info)

    def _plug_vifs(self, node, instance, network_info):
        for vif in network_info:
            try:
                self.ironic_connection.attach_vif_to_node(
                    node.id, str(vif['id']), retry_on_conflict=False)
            except sdk_exc.ConflictException:
                # Already attached.
                pass

    def _unplug_vifs(self, node, instance, network_info):
        if not network_info:
            return
        for vif in network_info:
            try:
                self.ironic_connection.detach_vif_from_node(
                    node.id, str(vif['id']))
            except sdk_exc.BadRequestException:
                pass

    def unplug_vifs(self, instance, network_info):
        node = self._get_node(instance.node)
        self._unplug_vifs(node, instance, network_info)

    def clean_networks_preparation(self, instance, network_info):
        self.unplug_vifs(instance, network_info)

    def _add_instance_info_to_node(self, node, instance):
        # patcher.GenericDriverFields.get_deploy_patch, for a flavor of
        # one vCPU, 1 GiB of memory and a 10 GiB root disk.
        patch = [{'path': '/instance_info/%s' % key, 'op': 'add',
                  'value': value} for key, value in (
            ('image_source', instance.image),
            ('root_gb', '10'), ('swap_mb', '0'),
            ('display_name', instance.display_name), ('vcpus', '1'),
            ('nova_host_id', 'compute-1'), ('memory_mb', '1024'),
            ('local_gb', str(node.properties.get('local_gb', 0))),
            ('project_id', instance.project_id),
            ('project_name', 'demo'), ('user_id', 'u1'),
            ('user_name', 'demo'), ('flavor_name', 'baremetal'),
            ('fixed_ips', "['10.0.0.5']"), ('floating_ips', '[]'))]
        self.ironic_connection.patch_node(node, patch)

    def _add_volume_target_info(self, instance, block_device_info):
        for bdm in block_device_info:
            self.ironic_connection.create_volume_target(
                node_id=instance.node,
                volume_type=bdm['driver_volume_type'],
                properties=bdm['data'],
                boot_index=bdm['boot_index'],
                volume_id=bdm['volume_id'])

    def _cleanup_volume_target_info(self, instance):
        for target in self.ironic_connection.volume_targets(
                details=True, node=instance.node):
            try:
                self.ironic_connection.delete_volume_target(
                    target.id, ignore_missing=False)
            except sdk_exc.ResourceNotFound:
                pass

    def _remove_instance_info_from_node(self, node):
        self.ironic_connection.update_node(node, instance_id=None,
                                           instance_info={})

    def _cleanup_deploy(self, node, instance, network_info=None):
        self._cleanup_volume_target_info(instance)
        self._unplug_vifs(node, instance, network_info)
        self._remove_instance_info_from_node(node)

    def failed_spawn_cleanup(self, instance):
        try:
            node = self._validate_instance_and_node(instance)
        except InstanceNotFound:
            return
        self._cleanup_deploy(node, instance)

    def _get_network_metadata(self, node, network_info):
        """The links of network_data.json Nova builds from the node's
        ports and port groups."""
        ports = list(self.ironic_connection.ports(node=node.id,
                                                  details=True))
        port_groups = list(self.ironic_connection.port_groups(
            node=node.id, details=True))
        vif_id_to_objects = {'ports': {}, 'portgroups': {}}
        for collection, name in ((ports, 'ports'),
                                 (port_groups, 'portgroups')):
            for p in collection:
                vif_id = (p.internal_info.get('tenant_vif_port_id')
                          or p.extra.get('vif_port_id'))
                if vif_id:
                    vif_id_to_objects[name][vif_id] = p
        links, additional_links = [], []
        for vif in network_info:
            link = {'vif_id': vif['id']}
            if vif['id'] in vif_id_to_objects['portgroups']:
                pg = vif_id_to_objects['portgroups'][vif['id']]
                pg_ports = [p for p in ports if p.port_group_id == pg.id]
                link.update({'type': 'bond', 'bond_mode': pg.mode,
                             'bond_links': []})
                if pg.address:
                    link.update({'ethernet_mac_address': pg.address})
                for prop in pg.properties:
                    key = prop if prop.startswith('bond') else (
                        'bond_%s' % prop)
                    link[key] = pg.properties[prop]
                for port in pg_ports:
                    additional_links.append({
                        'id': port.id, 'type': 'phy',
                        'ethernet_mac_address': port.address})
                    link['bond_links'].append(port.id)
            elif vif['id'] in vif_id_to_objects['ports']:
                p = vif_id_to_objects['ports'][vif['id']]
                link.update({'ethernet_mac_address': p.address,
                             'type': 'phy'})
            links.append(link)
        return links + additional_links

    def _wait_for_active(self, instance):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            node = self._validate_instance_and_node(instance)
            if node.provision_state == 'active':
                return node
            if node.target_provision_state in ('deleted', 'available'):
                raise InstanceNotFound(instance.uuid)
            if node.provision_state in (None, 'available', 'deploy failed'):
                raise AssertionError('deploy failed: %s' % node.last_error)
            time.sleep(0.2)
        raise AssertionError('the node did not become active')

    def spawn(self, instance, network_info, block_device_info=(),
              fail_before_deploy=False):
        """spawn() with a config drive; the network metadata it built is
        kept in self.network_metadata."""
        node_id = instance.node
        node = self._get_node(node_id)
        self._add_instance_info_to_node(node, instance)
        try:
            self._add_volume_target_info(instance, block_device_info)
        except Exception:
            self._cleanup_deploy(node, instance, network_info)
            raise
        validate_chk = self.ironic_connection.validate_node(
            node_id, required=None)
        assert (validate_chk['deploy'].result
                and validate_chk['power'].result
                and validate_chk['storage'].result), validate_chk
        self.network_metadata = self._get_network_metadata(node,
                                                           network_info)
        if fail_before_deploy:
            raise RuntimeError('Failed to build configdrive')
        configdrive_value = base64.b64encode(
            gzip.compress(b'config drive of %s' % instance.uuid.encode())
        ).decode()
        self.ironic_connection.set_node_provision_state(
            node_id, 'active', config_drive=configdrive_value)
        return self._wait_for_active(instance)

    def _unprovision(self, instance, node):
        self.ironic_connection.set_node_provision_state(node.id, 'deleted')
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                node = self._validate_instance_and_node(instance)
            except InstanceNotFound:
                return
            if node.provision_state in (None, 'cleaning', 'clean wait',
                                        'clean failed', 'available'):
                return
            time.sleep(0.2)
        raise AssertionError('the node was not unprovisioned')

    def destroy(self, instance, network_info):
        try:
            node = self._validate_instance_and_node(instance)
        except InstanceNotFound:
            return
        if node.provision_state in UNPROVISION_STATES:
            self._unprovision(instance, node)
        else:
            self._cleanup_deploy(node, instance, network_info)


class NovaFlowsTestCase(test_client_compat.ClientTestCase):

    def setUp(self):
        super().setUp()
        self.conn = openstack.connect(
            auth_type='none', region_name='',
            baremetal_endpoint_override=self.server.url)
        self.addCleanup(self.conn.close)
        self.baremetal = self.conn.baremetal
        self.driver = NovaDriver(self.conn)
        # A node with a bond of two ports and a port of its own, as an
        # operator enrolls it.
        node = self.baremetal.create_node(
            driver='fake-hardware', name='bm-1', resource_class='baremetal',
            properties={'local_gb': 40}, provision_state='manageable')
        self.node = node
        self.bond = self.baremetal.create_port_group(
            node_id=node.id, name='bond0', mode='802.3ad',
            address='52:54:00:00:10:00', properties={'miimon': '100'})
        self.members = [self.baremetal.create_port(
            node_id=node.id, address='52:54:00:00:10:0%d' % i,
            port_group_id=self.bond.id) for i in (1, 2)]
        self.lone = self.baremetal.create_port(
            node_id=node.id, address='52:54:00:00:10:09')
        self.baremetal.set_node_provision_state(
            node, 'provide', wait=True, timeout=TIMEOUT)
        self.instance = types.SimpleNamespace(
            uuid=str(uuid.uuid4()), node=node.id, image=str(uuid.uuid4()),
            display_name='vm-1', project_id='p1')
        self.network_info = [{'id': str(uuid.uuid4())} for _ in range(2)]

    def vifs(self):
        return list(self.baremetal.list_node_vifs(self.node))

    def test_spawn_with_a_config_drive_binds_the_bond_first(self):
        self.driver.prepare_for_spawn(self.instance)
        self.driver.prepare_networks_before_block_device_mapping(
            self.instance, self.network_info)
        node = self.driver.spawn(self.instance, self.network_info)
        self.assertEqual('active', node.provision_state)
        first, second = [vif['id'] for vif in self.network_info]
        # The first VIF went to the bond, the second to the lone port, so
        # network_data.json has a bond of the two member ports.
        links = self.driver.network_metadata
        self.assertEqual(
            {'vif_id': first, 'type': 'bond', 'bond_mode': '802.3ad',
             'ethernet_mac_address': '52:54:00:00:10:00',
             'bond_miimon': '100',
             'bond_links': [p.id for p in self.members]}, links[0])
        self.assertEqual({'vif_id': second, 'type': 'phy',
                          'ethernet_mac_address': '52:54:00:00:10:09'},
                         links[1])
        self.assertEqual(sorted(p.id for p in self.members),
                         sorted(link['id'] for link in links[2:]))
        shown = self.baremetal.get_node(self.node.id)
        self.assertEqual(self.instance.uuid, shown.instance_id)
        self.assertEqual(self.instance.image,
                         shown.instance_info['image_source'])
        self.assertEqual('vm-1', shown.instance_info['display_name'])
        self.assertEqual(sorted([first, second]), sorted(self.vifs()))

        self.driver.destroy(self.instance, self.network_info)
        self.assertRaises(InstanceNotFound,
                          self.driver._validate_instance_and_node,
                          self.instance)
        node = self.baremetal.wait_for_nodes_provision_state(
            [self.node.id], 'available', timeout=TIMEOUT)[0]
        self.assertIsNone(node.instance_id)

    def test_cleanup_after_a_failed_spawn(self):
        self.driver.prepare_for_spawn(self.instance)
        self.driver.prepare_networks_before_block_device_mapping(
            self.instance, self.network_info)
        volume = str(uuid.uuid4())
        self.assertRaises(RuntimeError, self.driver.spawn, self.instance,
                          self.network_info, block_device_info=[{
                              'driver_volume_type': 'iscsi',
                              'data': {'target_iqn': 'iqn.2010-10.org:vol',
                                       'target_lun': 0},
                              'boot_index': 0, 'volume_id': volume}],
                          fail_before_deploy=True)
        targets = list(self.baremetal.volume_targets(node=self.node.id))
        self.assertEqual([volume], [t.volume_id for t in targets])
        # The compute manager's cleanup of a failed build.
        self.driver.failed_spawn_cleanup(self.instance)
        self.driver.clean_networks_preparation(self.instance,
                                               self.network_info)
        self.assertEqual([], list(self.baremetal.volume_targets(
            node=self.node.id)))
        self.assertEqual([], self.vifs())
        node = self.baremetal.get_node(self.node.id)
        self.assertIsNone(node.instance_id)
        self.assertEqual({}, node.instance_info)
        self.assertEqual('available', node.provision_state)
        # Nothing is left bound: the node can be spawned on again.
        self.driver.prepare_for_spawn(self.instance)
        self.driver.prepare_networks_before_block_device_mapping(
            self.instance, self.network_info)
        self.assertEqual('active', self.driver.spawn(
            self.instance, self.network_info).provision_state)

    def test_destroy_of_a_node_that_never_deployed(self):
        self.driver.prepare_for_spawn(self.instance)
        self.driver.prepare_networks_before_block_device_mapping(
            self.instance, self.network_info)
        self.driver.destroy(self.instance, self.network_info)
        self.assertEqual([], self.vifs())
        node = self.baremetal.get_node(self.node.id)
        self.assertIsNone(node.instance_id)
        self.assertEqual('available', node.provision_state)
