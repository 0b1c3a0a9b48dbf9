"""The ``openstack pool node maintenance window`` and ``openstack pool
node slot list`` commands, and the client calls they make."""
from oslotest import base as oslo_base

from pool_client import client
from pool_client.v1 import maintenance_windows
from tests.unit.client import base
from tests.unit.client import test_client

WINDOW_UUID = '7d1e4c2a-9b3f-4e8a-b6c5-2f1a0e9d8c7b'
WINDOW = {'uuid': WINDOW_UUID, 'node_uuid': base.NODE_UUID,
          'start_at': '2030-01-01T09:00:00+00:00',
          'end_at': '2030-01-01T12:00:00+00:00', 'reason': 'new disks',
          'state': 'scheduled', 'created_at': '2029-12-01T09:00:00+00:00'}


class TestCreateMaintenanceWindow(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = maintenance_windows.CreateMaintenanceWindow(self.app,
                                                                None)
        self.client.node_maintenance_window_create.return_value = WINDOW

    def test_create(self):
        args = self.check_parser(self.cmd, [
            'node-1', '--start', '2030-01-01T09:00:00Z',
            '--end', '2030-01-01T12:00:00Z', '--reason', 'new disks'],
            [('node', 'node-1'), ('start', '2030-01-01T09:00:00Z')])
        columns, data = self.cmd.take_action(args)
        self.client.node_maintenance_window_create.assert_called_once_with(
            'node-1', '2030-01-01T09:00:00Z', '2030-01-01T12:00:00Z',
            'new disks')
        shown = dict(zip(columns, data, strict=True))
        self.assertEqual(('scheduled', WINDOW_UUID),
                         (shown['state'], shown['uuid']))

    def test_times_and_reason_are_required(self):
        for argv in (['node-1', '--end', 'x', '--reason', 'r'],
                     ['node-1', '--start', 'x', '--reason', 'r'],
                     ['node-1', '--start', 'x', '--end', 'y']):
            self.assertRaises(base.ParserError, self.check_parser, self.cmd,
                              argv, [])


class TestListMaintenanceWindow(base.TestCommand):

    def test_list(self):
        cmd = maintenance_windows.ListMaintenanceWindow(self.app, None)
        self.client.node_maintenance_window_list.return_value = [WINDOW]
        args = self.check_parser(cmd, ['node-1'], [('node', 'node-1')])
        columns, rows = cmd.take_action(args)
        self.client.node_maintenance_window_list.assert_called_once_with(
            'node-1')
        self.assertEqual(('UUID', 'Start At', 'End At', 'State', 'Reason'),
                         columns)
        self.assertEqual([(WINDOW_UUID, '2030-01-01T09:00:00+00:00',
                           '2030-01-01T12:00:00+00:00', 'scheduled',
                           'new disks')], rows)


class TestShowAndDeleteMaintenanceWindow(base.TestCommand):

    def test_show(self):
        cmd = maintenance_windows.ShowMaintenanceWindow(self.app, None)
        self.client.node_maintenance_window_show.return_value = WINDOW
        args = self.check_parser(cmd, ['node-1', WINDOW_UUID], [])
        columns, data = cmd.take_action(args)
        self.client.node_maintenance_window_show.assert_called_once_with(
            'node-1', WINDOW_UUID)
        self.assertEqual('new disks',
                         dict(zip(columns, data, strict=True))['reason'])

    def test_delete_each(self):
        cmd = maintenance_windows.DeleteMaintenanceWindow(self.app, None)
        args = self.check_parser(cmd, ['node-1', 'w1', 'w2'],
                                 [('windows', ['w1', 'w2'])])
        cmd.take_action(args)
        self.assertEqual(
            [(('node-1', 'w1'),), (('node-1', 'w2'),)],
            [(c.args,) for c in
             self.client.node_maintenance_window_delete.call_args_list])
        self.assertIn('Deleted maintenance window w2',
                      self.app.stdout.getvalue())


class TestListSlot(base.TestCommand):

    def test_list(self):
        cmd = maintenance_windows.ListSlot(self.app, None)
        self.client.node_slot_list.return_value = [
            {'purpose': 'workload', 'busy_from': 'a', 'busy_until': 'b',
             'allocation_uuid': base.ALLOCATION_UUID,
             'maintenance_window_uuid': None, 'reason': None,
             'state': None},
            {'purpose': 'maintenance', 'busy_from': 'c', 'busy_until': 'd',
             'allocation_uuid': None, 'maintenance_window_uuid': WINDOW_UUID,
             'reason': 'new disks', 'state': 'scheduled'}]
        args = self.check_parser(cmd, ['node-1'], [('node', 'node-1')])
        columns, rows = cmd.take_action(args)
        self.client.node_slot_list.assert_called_once_with('node-1')
        self.assertEqual(('Purpose', 'Maintenance Window UUID'),
                         (columns[0], columns[4]))
        self.assertEqual(['workload', 'maintenance'], [r[0] for r in rows])
        self.assertEqual(WINDOW_UUID, rows[1][4])


class TestClientCalls(oslo_base.BaseTestCase):

    def client(self, *responses):
        self.session = test_client.FakeSession(*responses)
        return client.Client(self.session, test_client.ENDPOINT + '/v1/')

    def call(self, index=0):
        method, url, kwargs = self.session.calls[index]
        return (method, url[len(test_client.ENDPOINT):], kwargs.get('json'))

    def test_calls(self):
        c = self.client(test_client.response(201, WINDOW),
                        test_client.response(
                            200, {'maintenance_windows': [WINDOW]}),
                        test_client.response(200, WINDOW),
                        test_client.response(204),
                        test_client.response(200, {'slots': []}))
        self.assertEqual(WINDOW, c.node_maintenance_window_create(
            'node 1', '2030-01-01T09:00:00Z', '2030-01-01T12:00:00Z', 'r'))
        self.assertEqual([WINDOW], c.node_maintenance_window_list('n1'))
        self.assertEqual(WINDOW, c.node_maintenance_window_show('n1', 'w1'))
        c.node_maintenance_window_delete('n1', 'w1')
        self.assertEqual([], c.node_slot_list('n1'))
        self.assertEqual(
            [('POST', '/v1/nodes/node%201/maintenance_windows',
              {'start_at': '2030-01-01T09:00:00Z',
               'end_at': '2030-01-01T12:00:00Z', 'reason': 'r'}),
             ('GET', '/v1/nodes/n1/maintenance_windows', None),
             ('GET', '/v1/nodes/n1/maintenance_windows/w1', None),
             ('DELETE', '/v1/nodes/n1/maintenance_windows/w1', None),
             ('GET', '/v1/nodes/n1/slots', None)],
            [self.call(i) for i in range(5)])
