"""metalsmith's Provisioner through a whole deployment against pool.

metalsmith reserves a node with the allocation API, provisions it with
an HTTP whole-disk image and a config drive, and undeploys it, as it
would against Ironic: against a pool-server process, and against a
pool-api and pool-conductor on PostgreSQL.
"""
import os

import fixtures
import metalsmith
from metalsmith import sources
import openstack
from openstack import config as os_config
import testtools

from tests.functional import cluster

TIMEOUT = 60
IMAGE = 'http://images.example.com/disk.qcow2'
CHECKSUM = 'a' * 64


class MetalsmithMixin:
    """The deployment story; a subclass starts the server in setUp and
    sets self.url."""

    def connect(self):
        for name in os.environ:
            if name.startswith('OS_'):
                self.useFixture(fixtures.EnvironmentVariable(name))
        region = os_config.OpenStackConfig(
            load_yaml_config=False, load_envvars=False).get_one(
            auth_type='none', region_name='',
            baremetal_endpoint_override=self.url)
        self.provisioner = metalsmith.Provisioner(cloud_region=region)
        self.addCleanup(self.provisioner.connection.close)
        self.baremetal = openstack.connect(
            auth_type='none', region_name='',
            baremetal_endpoint_override=self.url).baremetal

    def add_node(self, name, traits=()):
        node = self.baremetal.create_node(
            driver='fake-hardware', name=name, resource_class='compute',
            properties={'local_gb': 20}, provision_state='manageable')
        node = self.baremetal.set_node_provision_state(
            node, 'provide', wait=True, timeout=TIMEOUT)
        if traits:
            self.baremetal.set_node_traits(node, list(traits))
        return node

    def deploy_and_undeploy(self, traits=None):
        image = sources.HttpWholeDiskImage(IMAGE, checksum=CHECKSUM)
        node = self.provisioner.reserve_node('compute', traits=traits,
                                             hostname='host-1')
        self.assertEqual('available', node.provision_state)
        self.assertIsNotNone(node.allocation_id)

        instance = self.provisioner.provision_node(
            node, image, hostname='host-1', traits=traits)
        instance = self.provisioner.wait_for_provisioning(
            [instance.node.id], timeout=TIMEOUT)[0]
        self.assertEqual('active', instance.state.value)
        self.assertTrue(instance.is_deployed)
        self.assertTrue(instance.is_healthy)

        shown = self.provisioner.show_instance('host-1')
        self.assertEqual(node.id, shown.uuid)
        self.assertEqual('host-1', shown.hostname)
        self.assertEqual(node.allocation_id, shown.allocation.id)
        info = self.baremetal.get_node(node.id).instance_info
        self.assertEqual(IMAGE, info['image_source'])
        self.assertEqual(CHECKSUM, info['image_checksum'])
        self.assertEqual(19, info['root_gb'])
        self.assertEqual('host-1', info['display_name'])
        # The config drive metalsmith built (a dict), kept and masked whole
        # as in Ironic.
        self.assertEqual('******', info['configdrive'])
        if traits:
            self.assertEqual(traits, info['traits'])
        self.assertEqual([node.id],
                         [i.uuid for i in self.provisioner.list_instances()])

        node = self.provisioner.unprovision_node('host-1', wait=TIMEOUT)
        self.assertEqual('available', node.provision_state)
        node = self.baremetal.get_node(node.id)
        self.assertIsNone(node.allocation_id)
        self.assertIsNone(node.instance_id)
        self.assertEqual({}, node.instance_info)
        self.assertEqual([], self.provisioner.list_instances())
        self.assertEqual([], list(self.baremetal.allocations()))
        return node

    def test_lifecycle(self):
        node = self.add_node('node-1')
        self.assertEqual(node.id, self.deploy_and_undeploy().id)

    def test_lifecycle_with_traits(self):
        self.add_node('plain')
        node = self.add_node('gpu', traits=['CUSTOM_GPU'])
        self.assertEqual(node.id,
                         self.deploy_and_undeploy(traits=['CUSTOM_GPU']).id)


class PoolServerTestCase(MetalsmithMixin, testtools.TestCase):
    """Against the single pool-server process on SQLite."""

    def setUp(self):
        super().setUp()
        server = self.useFixture(cluster.PoolServer())
        self.addOnException(lambda _exc: self.addDetail(
            'pool-server-log', testtools.content.text_content(server.log())))
        self.url = server.url
        self.connect()


class PostgreSQLClusterTestCase(MetalsmithMixin, testtools.TestCase):
    """Against pool-api and a pool-conductor on PostgreSQL."""

    def setUp(self):
        super().setUp()
        database = self.useFixture(cluster.Database('postgresql'))
        pool = self.useFixture(cluster.Cluster(database.url, conductors=1))
        pool.wait_for_conductors(1)
        self.addOnException(lambda _exc: self.addDetail(
            'pool-logs', testtools.content.text_content(
                pool.log('api-0') + pool.log(pool.hosts[0]))))
        self.url = pool.url
        self.connect()
