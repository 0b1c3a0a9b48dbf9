"""``openstack pool node param list|set|unset``."""
from osc_lib import exceptions

from pool_client.v1 import node_params
from tests.unit.client import base


class TestListNodeParam(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = node_params.ListNodeParam(self.app, None)
        self.client.node_params.return_value = {
            'role': 'web', 'inventory/data/CPUS': 8, 'tags': ['a']}

    def test_list(self):
        columns, rows = self.cmd.take_action(self.check_parser(
            self.cmd, ['node-1'], [('aggregate', False)]))
        self.client.node_params.assert_called_once_with('node-1',
                                                        aggregate=False)
        self.assertEqual(('Name', 'Value'), columns)
        rows = list(rows)
        self.assertEqual([('inventory/data/CPUS', 8), ('role', 'web')],
                         rows[:2])
        self.assertEqual(('tags', ['a']),
                         (rows[2][0], rows[2][1].machine_readable()))

    def test_list_aggregate(self):
        self.cmd.take_action(self.check_parser(
            self.cmd, ['node-1', '--aggregate'], [('aggregate', True)]))
        self.client.node_params.assert_called_once_with('node-1',
                                                        aggregate=True)

    def test_list_not_found(self):
        self.client.node_params.side_effect = exceptions.CommandError(
            'Node nope could not be found. (HTTP 404)')
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action,
                                self.check_parser(self.cmd, ['nope'], []))
        self.assertIn('could not be found', str(exc))


class TestSetUnsetNodeParam(base.TestCommand):

    def test_set(self):
        cmd = node_params.SetNodeParam(self.app, None)
        self.assertIsNone(cmd.take_action(self.check_parser(cmd, [
            'node-1', '--param', 'inventory/data/CPUS=8', '--param',
            'role=web'], [('params', ['inventory/data/CPUS=8',
                                      'role=web'])])))
        self.client.node_update_params.assert_called_once_with('node-1', [
            {'op': 'add', 'path': '/inventory~1data~1CPUS', 'value': 8},
            {'op': 'add', 'path': '/role', 'value': 'web'},
        ])

    def test_set_needs_param(self):
        cmd = node_params.SetNodeParam(self.app, None)
        self.assertParserFails(cmd, ['node-1'])
        self.assertParserFails(cmd, ['--param', 'a=1'])

    def test_unset(self):
        cmd = node_params.UnsetNodeParam(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'node-1', '--param', 'inventory/data/CPUS'], []))
        self.client.node_update_params.assert_called_once_with('node-1', [
            {'op': 'remove', 'path': '/inventory~1data~1CPUS'}])
        self.client.node_set_params.assert_not_called()

    def test_unset_all(self):
        cmd = node_params.UnsetNodeParam(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['node-1', '--all'],
                                          [('unset_all', True)]))
        self.client.node_set_params.assert_called_once_with('node-1', {})
        self.client.node_update_params.assert_not_called()

    def test_unset_needs_param_or_all(self):
        cmd = node_params.UnsetNodeParam(self.app, None)
        self.assertParserFails(cmd, ['node-1'])
        self.assertParserFails(cmd, ['node-1', '--all', '--param', 'a'])
