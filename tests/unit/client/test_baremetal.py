"""``openstack baremetal allocation create`` with pool's windows."""
from unittest import mock

from cliff import commandmanager
from ironicclient.osc.v1 import baremetal_allocation
from osc_lib import exceptions

from pool_client.v1 import baremetal
from tests.unit.client import base

START = '2030-01-01T09:00:00Z'


class TestCreateBaremetalAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = baremetal.CreateBaremetalAllocation(self.app, None)
        self.app.client_manager.baremetal = mock.Mock()
        self.client.allocation_create.return_value = self.allocation(
            state='scheduled', start_at='2030-01-01T09:00:00+00:00',
            lifespan_end='2030-01-01T17:00:00+00:00',
            busy_from='2030-01-01T09:00:00+00:00',
            busy_until='2030-01-01T17:30:00+00:00')

    def test_it_is_ironicclients_command(self):
        self.assertTrue(issubclass(
            baremetal.CreateBaremetalAllocation,
            baremetal_allocation.CreateBaremetalAllocation))

    def test_a_window_goes_to_the_pool_api(self):
        args = self.check_parser(self.cmd, [
            '--resource-class', 'gold', '--trait', 'CUSTOM_A',
            '--name', 'lab', '--extra', 'k=v', '--start', START,
            '--duration', '8h'],
            [('start_at', START), ('duration', '8h'), ('end_at', None)])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_create.assert_called_once_with(
            resource_class='gold', traits=['CUSTOM_A'], name='lab',
            extra={'k': 'v'}, start_at=START, duration='8h')
        self.app.client_manager.baremetal.allocation.create.assert_not_called()
        shown = dict(zip(columns, data, strict=True))
        self.assertEqual('scheduled', shown['state'])
        self.assertEqual(base.NODE_UUID, shown['node_uuid'])
        self.assertEqual('2030-01-01T17:30:00+00:00', shown['busy_until'])
        self.assertNotIn('links', shown)

    def test_end_and_wait(self):
        self.client.allocation_wait.return_value = self.allocation(
            state='error', last_error='No node')
        args = self.check_parser(self.cmd, [
            '--resource-class', 'gold', '--start', START,
            '--end', '2030-01-01T17:00:00Z', '--wait', '5'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('No node', str(exc))
        self.client.allocation_create.assert_called_once_with(
            resource_class='gold', start_at=START,
            end_at='2030-01-01T17:00:00Z')
        self.client.allocation_wait.assert_called_once_with(
            base.ALLOCATION_UUID, timeout=5)

    def test_without_a_window_it_is_ironics(self):
        ironic = self.app.client_manager.baremetal
        ironic.allocation.create.return_value = mock.Mock(
            uuid=base.ALLOCATION_UUID, state='allocating')
        args = self.check_parser(self.cmd, ['--resource-class', 'gold'], [])
        columns, data = self.cmd.take_action(args)
        ironic.allocation.create.assert_called_once_with(
            resource_class='gold')
        self.client.allocation_create.assert_not_called()
        self.assertNotIn('busy_until', columns)

    def test_needs_resource_class(self):
        args = self.check_parser(self.cmd, ['--start', START,
                                            '--duration', '1h'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)
        self.client.allocation_create.assert_not_called()


class TestRegistration(base.TestCommand):
    """OpenStackClient loads the plugins' groups, then
    openstack.extension: pool's command is the one it runs."""

    def test_the_command_is_pools(self):
        manager = commandmanager.CommandManager('openstack.cli')
        manager.add_command_group('openstack.baremetal.v1')
        manager.add_command_group('openstack.extension')
        found, name, rest = manager.find_command(
            ['baremetal', 'allocation', 'create', '--start', START])
        self.assertIs(baremetal.CreateBaremetalAllocation, found)
        self.assertEqual(['--start', START], rest)
