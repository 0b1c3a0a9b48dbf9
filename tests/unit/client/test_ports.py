"""The ``openstack pool port`` commands."""
from osc_lib import exceptions

from pool_client import client
from pool_client.v1 import ports
from tests.unit.client import base

PORT_UUID = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'
PORT = {
    'uuid': PORT_UUID,
    'address': '52:54:00:12:34:56',
    'node_uuid': base.NODE_UUID,
    'pxe_enabled': True,
    'local_link_connection': {'switch_id': 'sw', 'port_id': 'p1'},
    'physical_network': None,
    'extra': {},
    'internal_info': {},
    'is_smartnic': False,
    'links': base.LINKS,
}


class TestCreatePort(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = ports.CreatePort(self.app, None)
        self.client.port_create.return_value = dict(PORT)

    def test_create(self):
        args = self.check_parser(self.cmd, [
            '52:54:00:12:34:56', '--node', base.NODE_UUID,
            '--local-link-connection', 'switch_id=sw',
            '--local-link-connection', 'port_id=p1',
            '--physical-network', 'physnet', '--extra', 'k=v',
            '--pxe-disabled', '--is-smartnic', 'true',
        ], [('node_uuid', base.NODE_UUID), ('pxe_enabled', False)])
        columns, data = self.cmd.take_action(args)
        self.client.port_create.assert_called_once_with(
            address='52:54:00:12:34:56', node_uuid=base.NODE_UUID,
            physical_network='physnet', pxe_enabled=False,
            is_smartnic=True, extra={'k': 'v'},
            local_link_connection={'switch_id': 'sw', 'port_id': 'p1'})
        shown = self.machine(columns, data)
        self.assertEqual(PORT_UUID, shown['uuid'])
        self.assertNotIn('links', shown)

    def test_create_minimal(self):
        args = self.check_parser(self.cmd, [
            '52:54:00:12:34:56', '--node', base.NODE_UUID],
            [('pxe_enabled', None)])
        self.cmd.take_action(args)
        self.client.port_create.assert_called_once_with(
            address='52:54:00:12:34:56', node_uuid=base.NODE_UUID)

    def test_create_with_a_node_name(self):
        self.client.node_get.return_value = {'uuid': base.NODE_UUID}
        args = self.check_parser(self.cmd, ['52:54:00:12:34:56', '--node',
                                            'node-3'], [])
        self.cmd.take_action(args)
        self.client.node_get.assert_called_once_with('node-3',
                                                     fields=['uuid'])
        self.client.port_create.assert_called_once_with(
            address='52:54:00:12:34:56', node_uuid=base.NODE_UUID)

    def test_create_needs_node_and_address(self):
        self.assertParserFails(self.cmd, ['52:54:00:12:34:56'])
        self.assertParserFails(self.cmd, ['--node', base.NODE_UUID])
        self.assertParserFails(self.cmd, [
            '52:54:00:12:34:56', '--node', 'n', '--pxe-enabled',
            '--pxe-disabled'])

    def test_create_bad_smartnic(self):
        args = self.check_parser(self.cmd, [
            'a', '--node', 'n', '--is-smartnic', 'maybe'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)


class TestListPort(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = ports.ListPort(self.app, None)
        self.client.port_list.return_value = [dict(PORT)]

    def test_list(self):
        args = self.check_parser(self.cmd, [], [('long', False)])
        columns, data = self.cmd.take_action(args)
        self.client.port_list.assert_called_once_with(limit=None,
                                                      marker=None)
        self.assertEqual(('UUID', 'Address'), columns)
        self.assertEqual([(PORT_UUID, '52:54:00:12:34:56')], list(data))

    def test_list_filters_and_long(self):
        args = self.check_parser(self.cmd, [
            '--node', 'node-1', '--address', 'AA:BB:CC:DD:EE:FF', '--long',
            '--limit', '5', '--sort', 'address:desc'], [])
        columns, data = self.cmd.take_action(args)
        self.client.port_list.assert_called_once_with(
            limit=5, marker=None, node='node-1',
            address='AA:BB:CC:DD:EE:FF', detail=True,
            sort_key='address', sort_dir='desc')
        self.assertIn('Node UUID', columns)

    def test_list_fields(self):
        args = self.check_parser(self.cmd, ['--fields', 'uuid',
                                            'node_uuid'], [])
        columns, _data = self.cmd.take_action(args)
        self.client.port_list.assert_called_once_with(
            limit=None, marker=None, fields=['uuid', 'node_uuid'])
        self.assertParserFails(self.cmd, ['--fields', 'uuid', '--long'])
        self.assertParserFails(self.cmd, ['--fields', 'nope'])


class TestShowSetUnsetDeletePort(base.TestCommand):

    def test_show(self):
        cmd = ports.ShowPort(self.app, None)
        self.client.port_get.return_value = dict(PORT)
        args = self.check_parser(cmd, [PORT_UUID, '--fields', 'address'],
                                 [('port', PORT_UUID)])
        columns, data = cmd.take_action(args)
        self.client.port_get.assert_called_once_with(PORT_UUID,
                                                     fields=['address'])
        self.assertEqual('52:54:00:12:34:56',
                         self.machine(columns, data)['address'])

    def test_set(self):
        cmd = ports.SetPort(self.app, None)
        self.client.node_get.return_value = {'uuid': base.NODE_UUID}
        args = self.check_parser(cmd, [
            PORT_UUID, '--address', '52:54:00:00:00:01', '--node', 'n2',
            '--extra', 'a=1', '--pxe-enabled',
            '--local-link-connection', 'switch_id=s2'], [])
        cmd.take_action(args)
        self.client.port_update.assert_called_once_with(PORT_UUID, [
            {'op': 'add', 'path': '/address', 'value': '52:54:00:00:00:01'},
            {'op': 'add', 'path': '/node_uuid', 'value': base.NODE_UUID},
            {'op': 'add', 'path': '/pxe_enabled', 'value': True},
            {'op': 'add', 'path': '/extra/a', 'value': 1},
            {'op': 'add', 'path': '/local_link_connection/switch_id',
             'value': 's2'}])

    def test_set_nothing(self):
        cmd = ports.SetPort(self.app, None)
        cmd.take_action(self.check_parser(cmd, [PORT_UUID], []))
        self.client.port_update.assert_not_called()

    def test_unset(self):
        cmd = ports.UnsetPort(self.app, None)
        args = self.check_parser(cmd, [PORT_UUID, '--extra', 'a',
                                       '--physical-network'], [])
        cmd.take_action(args)
        self.client.port_update.assert_called_once_with(PORT_UUID, [
            {'op': 'remove', 'path': '/physical_network'},
            {'op': 'remove', 'path': '/extra/a'}])

    def test_delete(self):
        cmd = ports.DeletePort(self.app, None)
        self.client.port_delete.side_effect = [
            None, client.PoolClientError('Port p2 could not be found.',
                                         404)]
        args = self.check_parser(cmd, ['p1', 'p2'], [])
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                args)
        self.assertEqual('Failed to delete port p2: Port p2 could not be '
                         'found. (HTTP 404)', str(exc))
        self.assertEqual('Deleted port p1\n', self.app.stdout.getvalue())
