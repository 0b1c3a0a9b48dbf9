"""``openstack pool broker ...`` commands."""
from osc_lib import exceptions

from pool_client.v1 import brokers
from tests.unit.client import base

BROKER = {'name': 'cloud', 'description': None, 'driver': 'baremetal',
          'parameters': {'cloud': 'upstream', 'wait_timeout': 600,
                         'auth': {'password': '******'}},
          'created_at': '2026-11-23T08:00:00+00:00', 'updated_at': None,
          'links': base.LINKS}


class TestBrokerCommands(base.TestCommand):

    def test_create(self):
        self.client.broker_create.return_value = BROKER
        cmd = brokers.CreateBroker(self.app, None)
        args = self.check_parser(cmd, [
            'cloud', '--driver', 'baremetal', '--description', 'Upstream',
            '--parameters', '{"cloud": "old", "traits": ["CUSTOM_A"]}',
            '--parameter', 'cloud=upstream',
            '--parameter', 'wait_timeout=600'],
            [('name', 'cloud'), ('driver', 'baremetal')])
        columns, data = cmd.take_action(args)
        # --parameter wins over --parameters; values are JSON when they
        # parse.
        self.client.broker_create.assert_called_once_with(
            name='cloud', driver='baremetal', description='Upstream',
            parameters={'cloud': 'upstream', 'traits': ['CUSTOM_A'],
                        'wait_timeout': 600})
        shown = self.machine(columns, data)
        self.assertEqual(BROKER['parameters'], shown['parameters'])
        self.assertNotIn('links', columns)

    def test_create_parameters_alone(self):
        self.client.broker_create.return_value = BROKER
        cmd = brokers.CreateBroker(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'f', '--driver', 'fake', '--parameters', '{}'], []))
        self.client.broker_create.assert_called_once_with(
            name='f', driver='fake', parameters={})

    def test_create_needs_a_driver_and_good_json(self):
        cmd = brokers.CreateBroker(self.app, None)
        self.assertParserFails(cmd, ['f'])
        self.assertParserFails(cmd, ['f', '--driver', 'fake',
                                     '--parameters', '[1]'])
        args = self.check_parser(cmd, ['f', '--driver', 'fake',
                                       '--parameter', 'no-value'], [])
        self.assertRaises(exceptions.CommandError, cmd.take_action, args)
        self.client.broker_create.assert_not_called()

    def test_list(self):
        self.client.broker_list.return_value = [BROKER]
        cmd = brokers.ListBroker(self.app, None)
        columns, rows = cmd.take_action(self.check_parser(cmd, [], []))
        self.assertEqual(('Name', 'Driver', 'Description'), columns)
        self.assertEqual([('cloud', 'baremetal', None)], list(rows))
        columns, rows = cmd.take_action(self.check_parser(cmd, ['--long'],
                                                          []))
        self.assertEqual('Parameters', columns[-1])
        self.assertIn('"password": "******"', rows[0][-1].human_readable())

    def test_show(self):
        self.client.broker_get.return_value = BROKER
        cmd = brokers.ShowBroker(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['cloud'],
                                                          []))
        self.client.broker_get.assert_called_once_with('cloud')
        self.assertEqual('baremetal', self.machine(columns, data)['driver'])

    def test_set(self):
        cmd = brokers.SetBroker(self.app, None)
        args = self.check_parser(cmd, [
            'cloud', '--driver', 'exec', '--description', 'Script',
            '--parameters', '{"program": "lab-vms"}',
            '--parameter', 'timeout=60',
            '--parameter', 'env/PATH=/usr/bin'], [])
        self.assertIsNone(cmd.take_action(args))
        self.client.broker_update.assert_called_once_with('cloud', [
            {'op': 'add', 'path': '/driver', 'value': 'exec'},
            {'op': 'add', 'path': '/description', 'value': 'Script'},
            {'op': 'add', 'path': '/parameters',
             'value': {'program': 'lab-vms'}},
            {'op': 'add', 'path': '/parameters/timeout', 'value': 60},
            # A key is one key, slashes and all.
            {'op': 'add', 'path': '/parameters/env~1PATH',
             'value': '/usr/bin'},
        ])

    def test_set_nothing(self):
        cmd = brokers.SetBroker(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['cloud'], []))
        self.client.broker_update.assert_not_called()

    def test_set_error(self):
        self.client.broker_update.side_effect = exceptions.CommandError(
            'Unknown broker driver nope (HTTP 400)')
        cmd = brokers.SetBroker(self.app, None)
        exc = self.assertRaises(
            exceptions.CommandError, cmd.take_action,
            self.check_parser(cmd, ['cloud', '--driver', 'nope'], []))
        self.assertIn('Unknown broker driver nope', str(exc))

    def test_unset(self):
        cmd = brokers.UnsetBroker(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'cloud', '--description', '--parameter', 'wait_timeout',
            '--parameter', 'auth'], [('description', True)]))
        self.client.broker_update.assert_called_once_with('cloud', [
            {'op': 'remove', 'path': '/description'},
            {'op': 'remove', 'path': '/parameters/wait_timeout'},
            {'op': 'remove', 'path': '/parameters/auth'},
        ])

    def test_unset_nothing(self):
        cmd = brokers.UnsetBroker(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['cloud'], []))
        self.client.broker_update.assert_not_called()

    def test_delete_several_going_on_past_failures(self):
        self.client.broker_delete.side_effect = [
            exceptions.CommandError('Broker cloud is in use (HTTP 409)'),
            None]
        cmd = brokers.DeleteBroker(self.app, None)
        exc = self.assertRaises(
            exceptions.CommandError, cmd.take_action,
            self.check_parser(cmd, ['cloud', 'spare'], []))
        self.assertEqual(2, self.client.broker_delete.call_count)
        self.assertIn('Failed to delete broker cloud', str(exc))
        self.assertIn('Deleted broker spare', self.app.stdout.getvalue())
        self.assertParserFails(cmd, [])
