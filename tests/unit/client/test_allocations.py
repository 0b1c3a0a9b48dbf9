"""The ``openstack pool allocation`` commands."""
from unittest import mock

from osc_lib import exceptions

from pool_client import client
from pool_client.v1 import allocations
from tests.unit.client import base


class TestCreateAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.CreateAllocation(self.app, None)
        self.client.allocation_create.return_value = self.allocation(
            state='allocating', node_uuid=None)
        self.client.allocation_wait.return_value = self.allocation()

    def test_create(self):
        args = self.check_parser(self.cmd, [
            '--resource-class', 'gold', '--trait', 'CUSTOM_A',
            '--trait', 'CUSTOM_B', '--candidate-node', 'n1',
            '--candidate-node', 'n2', '--name', 'alloc-1',
            '--uuid', base.ALLOCATION_UUID, '--extra', 'k=v',
            '--extra', 'n=1', '--owner', 'p1', '--pool', 'web',
            '--lifespan-end', '2026-12-01T12:00:00',
        ], [('resource_class', 'gold'), ('traits', ['CUSTOM_A', 'CUSTOM_B']),
            ('candidate_nodes', ['n1', 'n2']), ('name', 'alloc-1'),
            ('uuid', base.ALLOCATION_UUID), ('extra', ['k=v', 'n=1']),
            ('owner', 'p1'), ('wait_timeout', None), ('node', None),
            ('pool', 'web')])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_create.assert_called_once_with(
            resource_class='gold', traits=['CUSTOM_A', 'CUSTOM_B'],
            candidate_nodes=['n1', 'n2'], name='alloc-1',
            uuid=base.ALLOCATION_UUID, extra={'k': 'v', 'n': 1},
            owner='p1', pool='web', lifespan_end='2026-12-01T12:00:00')
        self.client.allocation_wait.assert_not_called()
        shown = self.machine(columns, data)
        self.assertEqual('allocating', shown['state'])
        self.assertNotIn('links', shown)
        self.assertEqual(['CUSTOM_GPU'], shown['traits'])

    def test_create_wait_forever(self):
        args = self.check_parser(self.cmd,
                                 ['--resource-class', 'gold', '--wait'],
                                 [('wait_timeout', 0)])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_wait.assert_called_once_with(
            base.ALLOCATION_UUID, timeout=0, progress=mock.ANY)
        shown = self.machine(columns, data)
        self.assertEqual('active', shown['state'])
        self.assertEqual(base.NODE_UUID, shown['node_uuid'])

    def test_create_wait_timeout(self):
        args = self.check_parser(self.cmd,
                                 ['--resource-class', 'gold', '--wait', '30'],
                                 [('wait_timeout', 30)])
        self.cmd.take_action(args)
        self.client.allocation_wait.assert_called_once_with(
            base.ALLOCATION_UUID, timeout=30, progress=mock.ANY)

    def test_create_window(self):
        args = self.check_parser(self.cmd, [
            '--resource-class', 'gold', '--start', '2030-01-01T09:00:00Z',
            '--end', '2030-01-01T17:00:00Z'],
            [('start_at', '2030-01-01T09:00:00Z'),
             ('end_at', '2030-01-01T17:00:00Z'), ('duration', None)])
        self.cmd.take_action(args)
        self.client.allocation_create.assert_called_once_with(
            resource_class='gold', start_at='2030-01-01T09:00:00Z',
            end_at='2030-01-01T17:00:00Z')

    def test_create_window_with_duration(self):
        args = self.check_parser(self.cmd, [
            '--resource-class', 'gold', '--start', '2030-01-01T09:00:00Z',
            '--duration', '8h'], [('duration', '8h')])
        self.cmd.take_action(args)
        self.client.allocation_create.assert_called_once_with(
            resource_class='gold', start_at='2030-01-01T09:00:00Z',
            duration='8h')

    def test_create_wait_error(self):
        self.client.allocation_wait.return_value = self.allocation(
            state='error', node_uuid=None,
            last_error='No available nodes found with resource class gold')
        args = self.check_parser(self.cmd,
                                 ['--resource-class', 'gold', '--wait'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Allocation %s failed: No available nodes found '
                         'with resource class gold' % base.ALLOCATION_UUID,
                         str(exc))

    def test_create_wait_times_out(self):
        self.client.allocation_wait.side_effect = client.PoolClientError(
            'Allocation x is still allocating after 1 seconds')
        args = self.check_parser(self.cmd,
                                 ['--resource-class', 'gold', '--wait', '1'],
                                 [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('still allocating', str(exc))

    def test_create_negative_wait(self):
        args = self.check_parser(
            self.cmd, ['--resource-class', 'gold', '--wait', '-1'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)
        self.client.allocation_create.assert_not_called()

    def test_create_backfill(self):
        args = self.check_parser(self.cmd, ['--node', 'node-1'],
                                 [('node', 'node-1')])
        self.cmd.take_action(args)
        self.client.allocation_create.assert_called_once_with(node='node-1')

    def test_create_needs_resource_class(self):
        args = self.check_parser(self.cmd, ['--name', 'a'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('--resource-class is required', str(exc))
        self.client.allocation_create.assert_not_called()

    def test_create_bad_wait(self):
        self.assertParserFails(self.cmd, ['--resource-class', 'gold',
                                          '--wait', 'soon'])


class TestListAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.ListAllocation(self.app, None)
        self.client.allocation_list.return_value = [
            self.allocation(),
            self.allocation(uuid='u2', name='alloc-0', state='error',
                            node_uuid=None)]

    def test_list(self):
        args = self.check_parser(self.cmd, [], [('long', False)])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_list.assert_called_once_with(limit=None,
                                                            marker=None)
        self.assertEqual(('UUID', 'Name', 'Resource Class', 'State',
                          'Node UUID'), columns)
        self.assertEqual(
            [(base.ALLOCATION_UUID, 'alloc-1', 'gold', 'active',
              base.NODE_UUID),
             ('u2', 'alloc-0', 'gold', 'error', None)], list(data))

    def test_list_filters(self):
        args = self.check_parser(self.cmd, [
            '--node', 'node-1', '--resource-class', 'gold', '--state',
            'active', '--owner', 'p1', '--limit', '10', '--marker', 'm',
        ], [('node', 'node-1'), ('resource_class', 'gold'),
            ('state', 'active'), ('owner', 'p1'), ('limit', 10),
            ('marker', 'm')])
        self.cmd.take_action(args)
        self.client.allocation_list.assert_called_once_with(
            limit=10, marker='m', node='node-1', resource_class='gold',
            state='active', owner='p1')

    def test_list_long(self):
        args = self.check_parser(self.cmd, ['--long'], [('long', True)])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_list.assert_called_once_with(limit=None,
                                                            marker=None)
        self.assertEqual(len(allocations.FIELDS), len(columns))
        self.assertIn('Last Error', columns)
        self.assertIn('Candidate Nodes', columns)
        row = list(data)[0]
        self.assertEqual({'k': 'v'},
                         row[columns.index('Extra')].machine_readable())

    def test_list_fields(self):
        args = self.check_parser(self.cmd, ['--fields', 'uuid', 'state'],
                                 [('fields', [['uuid', 'state']])])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_list.assert_called_once_with(
            limit=None, marker=None, fields=['uuid', 'state'])
        self.assertEqual(('UUID', 'State'), columns)

    def test_list_fields_and_long(self):
        self.assertParserFails(self.cmd, ['--long', '--fields', 'uuid'])

    def test_list_sort(self):
        args = self.check_parser(self.cmd, ['--sort', 'name'], [])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_list.assert_called_once_with(
            limit=None, marker=None, sort_key='name', sort_dir='asc')
        self.assertEqual(['alloc-0', 'alloc-1'], [row[1] for row in data])

    def test_list_sort_none_first(self):
        args = self.check_parser(self.cmd, ['--sort', 'node_uuid'], [])
        columns, data = self.cmd.take_action(args)
        self.assertEqual([None, base.NODE_UUID], [row[4] for row in data])

    def test_list_negative_limit(self):
        args = self.check_parser(self.cmd, ['--limit', '-2'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)


class TestShowAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.ShowAllocation(self.app, None)
        self.client.allocation_get.return_value = self.allocation()

    def test_show(self):
        args = self.check_parser(self.cmd, ['alloc-1'],
                                 [('allocation', 'alloc-1')])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_get.assert_called_once_with('alloc-1',
                                                           fields=None)
        self.assertEqual(tuple(sorted(k for k in base.ALLOCATION
                                      if k != 'links')), columns)
        shown = self.machine(columns, data)
        self.assertEqual(base.NODE_UUID, shown['node_uuid'])
        self.assertEqual({'k': 'v'}, shown['extra'])

    def test_show_fields(self):
        args = self.check_parser(self.cmd,
                                 ['alloc-1', '--fields', 'uuid', 'state'],
                                 [('fields', [['uuid', 'state']])])
        self.cmd.take_action(args)
        self.client.allocation_get.assert_called_once_with(
            'alloc-1', fields=['uuid', 'state'])

    def test_show_not_found(self):
        self.client.allocation_get.side_effect = client.PoolClientError(
            'Allocation nope could not be found.', 404)
        args = self.check_parser(self.cmd, ['nope'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Allocation nope could not be found. (HTTP 404)',
                         str(exc))


class TestSetAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.SetAllocation(self.app, None)

    def test_set(self):
        args = self.check_parser(
            self.cmd, ['alloc-1', '--name', 'new', '--extra', 'a=b',
                       '--extra', 'c={"d": 1}',
                       '--lifespan-end', '2026-12-01T12:00:00Z'],
            [('allocation', 'alloc-1'), ('name', 'new'),
             ('extra', ['a=b', 'c={"d": 1}'])])
        self.cmd.take_action(args)
        self.client.allocation_update.assert_called_once_with('alloc-1', [
            {'op': 'add', 'path': '/name', 'value': 'new'},
            {'op': 'add', 'path': '/lifespan_end',
             'value': '2026-12-01T12:00:00Z'},
            {'op': 'add', 'path': '/extra/a', 'value': 'b'},
            {'op': 'add', 'path': '/extra/c', 'value': {'d': 1}},
        ])

    def test_set_nothing(self):
        args = self.check_parser(self.cmd, ['alloc-1'], [])
        self.cmd.take_action(args)
        self.client.allocation_update.assert_not_called()


class TestUnsetAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.UnsetAllocation(self.app, None)

    def test_unset(self):
        args = self.check_parser(
            self.cmd, ['alloc-1', '--name', '--extra', 'a', '--extra', 'b',
                       '--lifespan-end'],
            [('name', True), ('extra', ['a', 'b'])])
        self.cmd.take_action(args)
        self.client.allocation_update.assert_called_once_with('alloc-1', [
            {'op': 'remove', 'path': '/name'},
            {'op': 'remove', 'path': '/lifespan_end'},
            {'op': 'remove', 'path': '/extra/a'},
            {'op': 'remove', 'path': '/extra/b'},
        ])

    def test_unset_nothing(self):
        args = self.check_parser(self.cmd, ['alloc-1'], [('name', False)])
        self.cmd.take_action(args)
        self.client.allocation_update.assert_not_called()


class TestDeleteAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.DeleteAllocation(self.app, None)

    def test_delete(self):
        args = self.check_parser(self.cmd, ['a1', 'a2'],
                                 [('allocations', ['a1', 'a2'])])
        self.cmd.take_action(args)
        self.assertEqual(
            [('a1',), ('a2',)],
            [c.args for c in self.client.allocation_delete.call_args_list])
        self.assertEqual('Deleted allocation a1\nDeleted allocation a2\n',
                         self.app.stdout.getvalue())

    def test_delete_failure(self):
        self.client.allocation_delete.side_effect = [
            None, client.PoolClientError('Allocation a2 could not be found.',
                                         404)]
        args = self.check_parser(self.cmd, ['a1', 'a2'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Failed to delete allocation a2: Allocation a2 '
                         'could not be found. (HTTP 404)', str(exc))

    def test_delete_needs_allocation(self):
        self.assertParserFails(self.cmd, [])


class TestPreviewAllocation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = allocations.PreviewAllocation(self.app, None)
        self.client.allocation_candidates.return_value = {
            'as_of': '2030-01-01T08:00:00+00:00',
            'candidates': [{'uuid': base.NODE_UUID, 'name': 'node-1'}],
            'total_matching': 1, 'would_pick': base.NODE_UUID,
            'rejected': {'allocated': 2, 'overlapping_window': 1,
                         'maintenance': 0},
            'fleet': 4,
            'window': {'start_at': '2030-01-01T09:00:00+00:00',
                       'end_at': '2030-01-01T17:00:00+00:00',
                       'busy_from': '2030-01-01T09:00:00+00:00',
                       'busy_until': '2030-01-01T17:30:00+00:00'}}

    def test_preview_a_window(self):
        args = self.check_parser(self.cmd, [
            '--resource-class', 'gold', '--start', '2030-01-01T09:00:00Z',
            '--duration', '8h', '--seed', '3'],
            [('start_at', '2030-01-01T09:00:00Z'), ('duration', '8h'),
             ('end_at', None)])
        columns, data = self.cmd.take_action(args)
        self.client.allocation_candidates.assert_called_once_with(
            resource_class='gold', seed=3, start_at='2030-01-01T09:00:00Z',
            duration='8h')
        shown = self.machine(columns, data)
        self.assertEqual(['node-1'], shown['candidates'])
        self.assertEqual('allocated=2, overlapping_window=1',
                         shown['rejected'])
        self.assertEqual('2030-01-01T17:30:00+00:00',
                         shown['window']['busy_until'])
