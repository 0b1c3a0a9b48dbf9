"""pool_client.plugin: the OpenStackClient plugin hooks."""
import argparse
from unittest import mock

import fixtures
from keystoneauth1 import exceptions as ksa_exc
from osc_lib import exceptions
from oslotest import base

from pool_client import client
from pool_client import plugin


class FakeInstance:
    """What make_client reads of osc-lib's ClientManager."""

    def __init__(self, version='1.60', config=None, endpoint=None):
        self._api_version = {'pool': version}
        self.session = mock.sentinel.session
        self.region_name = 'RegionOne'
        self.interface = 'internal'
        self.config = config or {}
        self.get_endpoint_for_service_type = mock.Mock(
            return_value=endpoint)

    def get_configuration(self):
        return dict(self.config)


class TestMakeClient(base.BaseTestCase):

    def test_catalog_endpoint(self):
        instance = FakeInstance(endpoint='http://catalog:6385/v1')
        result = plugin.make_client(instance)
        self.assertIsInstance(result, client.Client)
        self.assertEqual('http://catalog:6385', result.endpoint)
        self.assertEqual('1.60', result.api_version)
        self.assertIs(mock.sentinel.session, result.session)
        instance.get_endpoint_for_service_type.assert_called_once_with(
            'baremetal', region_name='RegionOne', interface='internal')

    def test_pool_endpoint_wins(self):
        instance = FakeInstance(
            config={'pool_endpoint': 'http://explicit:1/'},
            endpoint='http://catalog:6385')
        self.assertEqual('http://explicit:1',
                         plugin.make_client(instance).endpoint)
        instance.get_endpoint_for_service_type.assert_not_called()

    def test_configuration_endpoint(self):
        instance = FakeInstance(config={'auth': {'endpoint': 'http://a:2'}})
        self.assertEqual('http://a:2', plugin.make_client(instance).endpoint)
        instance = FakeInstance(config={'endpoint': 'http://e:3'})
        self.assertEqual('http://e:3', plugin.make_client(instance).endpoint)

    def test_cli_options_config(self):
        instance = FakeInstance(endpoint=None)
        del instance.config
        instance.get_configuration = mock.Mock(side_effect=AttributeError)
        instance._cli_options = mock.Mock(
            config={'pool_endpoint': 'http://cli:4'})
        self.assertEqual('http://cli:4',
                         plugin.make_client(instance).endpoint)

    def test_endpoint_not_in_catalog(self):
        instance = FakeInstance()
        instance.get_endpoint_for_service_type.side_effect = (
            ksa_exc.EndpointNotFound())
        exc = self.assertRaises(exceptions.CommandError,
                                plugin.make_client, instance)
        self.assertIn('No endpoint of the pool API', str(exc))

    def test_no_endpoint(self):
        self.assertRaises(exceptions.CommandError, plugin.make_client,
                          FakeInstance())

    def test_major_version(self):
        instance = FakeInstance(version='1', endpoint='http://h')
        self.assertEqual(client.LATEST_VERSION,
                         plugin.make_client(instance).api_version)

    def test_older_version(self):
        instance = FakeInstance(version='1.52', endpoint='http://h')
        self.assertEqual('1.52', plugin.make_client(instance).api_version)

    def test_unknown_major_version(self):
        instance = FakeInstance(version='2.1', endpoint='http://h')
        self.assertRaises(exceptions.UnsupportedVersion, plugin.make_client,
                          instance)


class TestOptions(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        for name in ('OS_POOL_API_VERSION', 'OS_POOL_ENDPOINT'):
            self.useFixture(fixtures.EnvironmentVariable(name))

    def parse(self, argv):
        parser = plugin.build_option_parser(argparse.ArgumentParser())
        return parser.parse_args(argv)

    def test_defaults(self):
        args = self.parse([])
        self.assertEqual('1.60', args.os_pool_api_version)
        self.assertIsNone(args.os_pool_endpoint)

    def test_environment(self):
        self.useFixture(fixtures.EnvironmentVariable('OS_POOL_API_VERSION',
                                                     '1.58'))
        self.useFixture(fixtures.EnvironmentVariable('OS_POOL_ENDPOINT',
                                                     'http://env:1'))
        args = self.parse([])
        self.assertEqual('1.58', args.os_pool_api_version)
        self.assertEqual('http://env:1', args.os_pool_endpoint)

    def test_options(self):
        args = self.parse(['--os-pool-api-version', '1.52',
                           '--os-pool-endpoint', 'http://opt:2'])
        self.assertEqual('1.52', args.os_pool_api_version)
        self.assertEqual('http://opt:2', args.os_pool_endpoint)

    def test_check_api_version(self):
        for version in ('1', '1.0', '1.60', '1.99', 'latest'):
            self.assertTrue(plugin.check_api_version(version))
        for version in ('2', '1.', '1.01', 'x', '2.1'):
            self.assertRaises(exceptions.CommandError,
                              plugin.check_api_version, version)

    def test_plugin_attributes(self):
        self.assertEqual('pool', plugin.API_NAME)
        self.assertEqual('os_pool_api_version', plugin.API_VERSION_OPTION)
        self.assertEqual({'1': 'pool_client.client.Client'},
                         plugin.API_VERSIONS)


class TestEntryPoints(base.BaseTestCase):
    """setup.cfg registers the plugin and every command (pip install -e .
    refreshes them)."""

    def entry_points(self, group):
        from importlib import metadata
        return {ep.name: ep for ep in metadata.entry_points(group=group)}

    def test_plugin(self):
        extensions = self.entry_points('openstack.cli.extension')
        self.assertIn('pool', extensions)
        self.assertIs(plugin, extensions['pool'].load())

    def registered_commands(self) -> dict:
        """{name: "module:Class"} of the commands setup.cfg registers, read
        from the source tree: an installed copy may be older."""
        import configparser
        import os
        parser = configparser.ConfigParser()
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))))
        parser.read(os.path.join(root, 'setup.cfg'))
        text = parser.get('entry_points', 'openstack.pool.v1')
        return dict((part.strip() for part in line.split('=', 1))
                    for line in text.splitlines() if line.strip())

    def test_commands(self):
        import importlib

        from cliff import command
        commands = self.registered_commands()
        for name in ('pool_node_create', 'pool_node_list', 'pool_node_show',
                     'pool_node_set', 'pool_node_unset', 'pool_node_delete',
                     'pool_node_manage', 'pool_node_provide',
                     'pool_node_maintenance_set',
                     'pool_node_maintenance_unset',
                     'pool_node_maintenance_window_create',
                     'pool_node_maintenance_window_list',
                     'pool_node_maintenance_window_show',
                     'pool_node_maintenance_window_delete',
                     'pool_node_slot_list', 'pool_allocation_create',
                     'pool_allocation_list', 'pool_allocation_show',
                     'pool_allocation_set', 'pool_allocation_unset',
                     'pool_allocation_delete', 'pool_create', 'pool_list',
                     'pool_show', 'pool_set', 'pool_unset', 'pool_status',
                     'pool_delete', 'pool_machines_add',
                     'pool_machines_remove', 'pool_machines_allocate',
                     'pool_machines_return', 'pool_node_return',
                     'pool_export', 'pool_import',
                     'pool_node_param_list', 'pool_node_param_set',
                     'pool_node_param_unset', 'pool_profile_create',
                     'pool_profile_list', 'pool_profile_show',
                     'pool_profile_set', 'pool_profile_unset',
                     'pool_profile_delete', 'pool_workflow_create',
                     'pool_workflow_list', 'pool_workflow_show',
                     'pool_workflow_set', 'pool_workflow_delete',
                     'pool_port_create', 'pool_port_list', 'pool_port_show',
                     'pool_port_set', 'pool_port_unset', 'pool_port_delete',
                     'pool_broker_create', 'pool_broker_list',
                     'pool_broker_show', 'pool_broker_set',
                     'pool_broker_unset', 'pool_broker_delete',
                     'pool_handle_list', 'pool_handle_show',
                     'pool_reservation_create', 'pool_reservation_list',
                     'pool_reservation_show', 'pool_reservation_delete',
                     *('pool_%s_%s' % (noun, verb)
                       for noun in ('provider', 'claim')
                       for verb in ('create', 'list', 'show', 'set',
                                    'unset', 'delete'))):
            self.assertIn(name, commands)
        for name, target in commands.items():
            module, _, attr = target.partition(':')
            cls = getattr(importlib.import_module(module), attr)
            self.assertTrue(issubclass(cls, command.Command), name)

class TestPureClient(base.BaseTestCase):

    def test_no_server_imports(self):
        """pool_client installs and runs without the server's packages."""
        import subprocess
        import sys
        code = ('import sys\n'
                'import pool_client.plugin, pool_client.v1.nodes, '
                'pool_client.v1.allocations, pool_client.v1.pools, '
                'pool_client.v1.profiles, pool_client.v1.workflows, '
                'pool_client.v1.node_params, pool_client.v1.brokers, '
                'pool_client.v1.providers, pool_client.v1.claims\n'
                'print(sorted(m for m in sys.modules '
                'if m.split(".")[0] in ("pool_api", "pool_conductor")))\n')
        out = subprocess.run([sys.executable, '-c', code], check=True,
                             capture_output=True, text=True).stdout
        self.assertEqual('[]', out.strip())
