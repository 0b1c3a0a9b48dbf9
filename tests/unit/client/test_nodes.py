"""The ``openstack pool node`` commands."""
from osc_lib import exceptions

from pool_client import client
from pool_client.v1 import nodes
from tests.unit.client import base


class TestCreateNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = nodes.CreateNode(self.app, None)
        self.client.node_create.return_value = self.node()

    def test_create(self):
        args = self.check_parser(self.cmd, [
            '--driver', 'fake-hardware', '--name', 'node-1',
            '--resource-class', 'gold', '--property', 'cpus=4',
            '--property', 'arch=x86_64', '--extra', 'rack=r1',
            '--owner', 'p1', '--lessee', 'p2', '--uuid', base.NODE_UUID,
            '--description', 'a node',
        ], [('driver', 'fake-hardware'), ('name', 'node-1'),
            ('resource_class', 'gold'),
            ('properties', ['cpus=4', 'arch=x86_64']),
            ('extra', ['rack=r1']), ('owner', 'p1'), ('lessee', 'p2'),
            ('uuid', base.NODE_UUID), ('description', 'a node')])
        columns, data = self.cmd.take_action(args)
        self.client.node_create.assert_called_once_with(
            driver='fake-hardware', name='node-1', resource_class='gold',
            properties={'cpus': 4, 'arch': 'x86_64'},
            extra={'rack': 'r1'}, owner='p1', lessee='p2',
            uuid=base.NODE_UUID, description='a node')
        self.assertNotIn('links', columns)
        self.assertEqual(sorted(columns), list(columns))
        shown = self.machine(columns, data)
        self.assertEqual(base.NODE_UUID, shown['uuid'])
        self.assertEqual({'cpus': 4}, shown['properties'])
        self.assertEqual(['CUSTOM_GPU'], shown['traits'])

    def test_create_driver_only(self):
        args = self.check_parser(self.cmd, ['--driver', 'fake-hardware'],
                                 [('driver', 'fake-hardware')])
        self.cmd.take_action(args)
        self.client.node_create.assert_called_once_with(
            driver='fake-hardware')

    def test_create_needs_driver(self):
        self.assertParserFails(self.cmd, ['--name', 'node-1'])

    def test_create_bad_property(self):
        args = self.check_parser(
            self.cmd, ['--driver', 'd', '--property', 'nope'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)
        self.client.node_create.assert_not_called()


class TestListNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = nodes.ListNode(self.app, None)
        self.client.node_list.return_value = [
            self.node(name='b'), self.node(name='a', uuid='u2')]

    def test_list(self):
        args = self.check_parser(self.cmd, [], [
            ('long', False), ('fields', []), ('maintenance', None),
            ('associated', None), ('limit', None)])
        columns, data = self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(limit=None,
                                                      marker=None)
        self.assertEqual(('UUID', 'Name', 'Instance UUID', 'Power State',
                          'Provisioning State', 'Maintenance'), columns)
        self.assertEqual(
            [(base.NODE_UUID, 'b', None, 'power off', 'available', False),
             ('u2', 'a', None, 'power off', 'available', False)],
            list(data))

    def test_list_filters(self):
        args = self.check_parser(self.cmd, [
            '--provision-state', 'available', '--resource-class', 'gold',
            '--maintenance', '--unassociated', '--owner', 'p1',
            '--limit', '5', '--marker', 'm1', '--driver', 'fake-hardware',
            '--lessee', 'p2',
        ], [('provision_state', 'available'), ('resource_class', 'gold'),
            ('maintenance', True), ('associated', False), ('owner', 'p1'),
            ('limit', 5), ('marker', 'm1')])
        self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(
            limit=5, marker='m1', provision_state='available',
            resource_class='gold', maintenance=True, associated=False,
            owner='p1', lessee='p2', driver='fake-hardware')

    def test_list_no_maintenance_associated(self):
        args = self.check_parser(
            self.cmd, ['--no-maintenance', '--associated'],
            [('maintenance', False), ('associated', True)])
        self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(
            limit=None, marker=None, maintenance=False, associated=True)

    def test_list_pool_membership_and_filters(self):
        args = self.check_parser(
            self.cmd, ['--pool', 'web', '--pool-status', 'InUse',
                       '--filter', 'inventory/data/CPUS=Gte(4)',
                       '--filter', 'inventory/data/CPUS=Lte(16)',
                       '--filter', 'stage=In(install, complete)'],
            [('pool', 'web'), ('pool_status', 'InUse')])
        self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(
            limit=None, marker=None, match={
                'pool': ['web'], 'pool_status': ['InUse'],
                'inventory/data/CPUS': ['Gte(4)', 'Lte(16)'],
                'stage': ['In(install, complete)']})

    def test_list_bad_filters(self):
        for text, error in (('CPUS', 'Expected --filter KEY=EXPRESSION'),
                            ('=Gte(4)', 'Expected --filter KEY=EXPRESSION'),
                            ('limit=3', 'cannot set the list parameter')):
            args = self.check_parser(self.cmd, ['--filter', text], [])
            exc = self.assertRaises(exceptions.CommandError,
                                    self.cmd.take_action, args)
            self.assertIn(error, str(exc))

    def test_list_pool_fields(self):
        self.client.node_list.return_value = [self.node(
            pool='web', pool_status='InUse', pool_allocated=True)]
        args = self.check_parser(
            self.cmd, ['--fields', 'name', 'pool', 'pool_status',
                       'pool_allocated'], [])
        columns, data = self.cmd.take_action(args)
        self.assertEqual(('Name', 'Pool', 'Pool Status', 'Pool Allocated'),
                         columns)
        self.assertEqual([('node-1', 'web', 'InUse', True)], list(data))

    def test_list_long_has_pool_columns(self):
        args = self.check_parser(self.cmd, ['--long'], [])
        columns, _data = self.cmd.take_action(args)
        for column in ('Pool', 'Pool Status', 'Pool Allocated', 'Workflow',
                       'Stage', 'Runnable', 'Params', 'Profiles'):
            self.assertIn(column, columns)

    def test_list_maintenance_exclusive(self):
        self.assertParserFails(self.cmd,
                               ['--maintenance', '--no-maintenance'])
        self.assertParserFails(self.cmd, ['--associated', '--unassociated'])

    def test_list_long(self):
        args = self.check_parser(self.cmd, ['--long'], [('long', True)])
        columns, data = self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(
            limit=None, marker=None, detail=True)
        self.assertEqual(len(nodes.FIELDS), len(columns))
        self.assertIn('Resource Class', columns)
        row = list(data)[0]
        traits = row[columns.index('Traits')]
        self.assertEqual(['CUSTOM_GPU'], traits.machine_readable())
        self.assertEqual('CUSTOM_GPU', traits.human_readable())

    def test_list_fields(self):
        args = self.check_parser(
            self.cmd, ['--fields', 'uuid', 'name', '--fields', 'traits'],
            [('fields', [['uuid', 'name'], ['traits']])])
        columns, data = self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(
            limit=None, marker=None, fields=['uuid', 'name', 'traits'])
        self.assertEqual(('UUID', 'Name', 'Traits'), columns)

    def test_list_fields_and_long(self):
        self.assertParserFails(self.cmd, ['--long', '--fields', 'uuid'])

    def test_list_unknown_field(self):
        self.assertParserFails(self.cmd, ['--fields', 'nope'])

    def test_list_sort(self):
        args = self.check_parser(self.cmd, ['--sort', 'name:desc'],
                                 [('sort', 'name:desc')])
        columns, data = self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(
            limit=None, marker=None, sort_key='name', sort_dir='desc')
        self.assertEqual(['b', 'a'], [row[1] for row in data])

    def test_list_sort_client_side(self):
        args = self.check_parser(self.cmd, ['--sort', 'links,name'], [])
        columns, data = self.cmd.take_action(args)
        self.client.node_list.assert_called_once_with(limit=None,
                                                      marker=None)
        self.assertEqual(['a', 'b'], [row[1] for row in data])

    def test_list_bad_sort(self):
        args = self.check_parser(self.cmd, ['--sort', 'name:up'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)

    def test_list_negative_limit(self):
        args = self.check_parser(self.cmd, ['--limit', '-1'],
                                 [('limit', -1)])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)
        self.client.node_list.assert_not_called()


class TestShowNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = nodes.ShowNode(self.app, None)
        self.client.node_get.return_value = self.node()

    def test_show(self):
        args = self.check_parser(self.cmd, ['node-1'], [('node', 'node-1')])
        columns, data = self.cmd.take_action(args)
        self.client.node_get.assert_called_once_with('node-1', fields=None)
        expected = sorted(k for k in base.NODE if k != 'links')
        self.assertEqual(tuple(expected), columns)
        self.assertEqual('node-1', self.machine(columns, data)['name'])

    def test_show_fields(self):
        self.client.node_get.return_value = {'uuid': base.NODE_UUID,
                                             'name': 'node-1',
                                             'links': base.LINKS}
        args = self.check_parser(self.cmd,
                                 ['node-1', '--fields', 'uuid', 'name'],
                                 [('fields', [['uuid', 'name']])])
        columns, data = self.cmd.take_action(args)
        self.client.node_get.assert_called_once_with(
            'node-1', fields=['uuid', 'name'])
        self.assertEqual(('name', 'uuid'), columns)
        self.assertEqual(('node-1', base.NODE_UUID), data)

    def test_show_needs_node(self):
        self.assertParserFails(self.cmd, [])

    def test_show_error(self):
        self.client.node_get.side_effect = client.PoolClientError(
            'Node nope could not be found.', 404)
        args = self.check_parser(self.cmd, ['nope'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('could not be found', str(exc))


class TestSetNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = nodes.SetNode(self.app, None)

    def test_set_everything(self):
        args = self.check_parser(self.cmd, [
            'node-1', '--name', 'new', '--resource-class', 'silver',
            '--driver', 'other', '--property', 'cpus=8', '--extra', 'a=b',
            '--instance-uuid', base.ALLOCATION_UUID, '--owner', 'p1',
            '--lessee', 'p2', '--description', 'd',
        ], [('node', 'node-1'), ('name', 'new'),
            ('properties', ['cpus=8']), ('extra', ['a=b']),
            ('instance_uuid', base.ALLOCATION_UUID)])
        self.assertIsNone(self.cmd.take_action(args))
        self.client.node_update.assert_called_once_with('node-1', [
            {'op': 'add', 'path': '/name', 'value': 'new'},
            {'op': 'add', 'path': '/resource_class', 'value': 'silver'},
            {'op': 'add', 'path': '/driver', 'value': 'other'},
            {'op': 'add', 'path': '/instance_uuid',
             'value': base.ALLOCATION_UUID},
            {'op': 'add', 'path': '/owner', 'value': 'p1'},
            {'op': 'add', 'path': '/lessee', 'value': 'p2'},
            {'op': 'add', 'path': '/description', 'value': 'd'},
            {'op': 'add', 'path': '/properties/cpus', 'value': 8},
            {'op': 'add', 'path': '/extra/a', 'value': 'b'},
        ])

    def test_set_nothing(self):
        args = self.check_parser(self.cmd, ['node-1'], [])
        self.cmd.take_action(args)
        self.client.node_update.assert_not_called()


class TestUnsetNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = nodes.UnsetNode(self.app, None)

    def test_unset_everything(self):
        args = self.check_parser(self.cmd, [
            'node-1', '--name', '--resource-class', '--instance-uuid',
            '--owner', '--lessee', '--description', '--property', 'cpus',
            '--property', 'arch', '--extra', 'a',
        ], [('name', True), ('instance_uuid', True),
            ('properties', ['cpus', 'arch']), ('extra', ['a'])])
        self.cmd.take_action(args)
        self.client.node_update.assert_called_once_with('node-1', [
            {'op': 'remove', 'path': '/name'},
            {'op': 'remove', 'path': '/resource_class'},
            {'op': 'remove', 'path': '/instance_uuid'},
            {'op': 'remove', 'path': '/owner'},
            {'op': 'remove', 'path': '/lessee'},
            {'op': 'remove', 'path': '/description'},
            {'op': 'remove', 'path': '/properties/cpus'},
            {'op': 'remove', 'path': '/properties/arch'},
            {'op': 'remove', 'path': '/extra/a'},
        ])

    def test_unset_nothing(self):
        args = self.check_parser(self.cmd, ['node-1'], [('name', False)])
        self.cmd.take_action(args)
        self.client.node_update.assert_not_called()


class TestDeleteNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = nodes.DeleteNode(self.app, None)

    def test_delete(self):
        args = self.check_parser(self.cmd, ['n1', 'n2'],
                                 [('nodes', ['n1', 'n2'])])
        self.cmd.take_action(args)
        self.assertEqual([(('n1',),), (('n2',),)],
                         [(c.args,) for c in
                          self.client.node_delete.call_args_list])
        self.assertEqual('Deleted node n1\nDeleted node n2\n',
                         self.app.stdout.getvalue())

    def test_delete_failure(self):
        self.client.node_delete.side_effect = [
            client.PoolClientError('Node n1 could not be found.', 404),
            None]
        args = self.check_parser(self.cmd, ['n1', 'n2'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('Failed to delete node n1: Node n1 could not be '
                      'found. (HTTP 404)', str(exc))
        self.assertEqual(2, self.client.node_delete.call_count)
        self.assertEqual('Deleted node n2\n', self.app.stdout.getvalue())

    def test_delete_needs_node(self):
        self.assertParserFails(self.cmd, [])


class TestProvisionState(base.TestCommand):

    def test_manage(self):
        cmd = nodes.ManageNode(self.app, None)
        args = self.check_parser(cmd, ['node-1'], [('node', 'node-1')])
        self.assertIsNone(cmd.take_action(args))
        self.client.node_set_provision_state.assert_called_once_with(
            'node-1', 'manage')

    def test_provide(self):
        cmd = nodes.ProvideNode(self.app, None)
        args = self.check_parser(cmd, ['node-1'], [('node', 'node-1')])
        cmd.take_action(args)
        self.client.node_set_provision_state.assert_called_once_with(
            'node-1', 'provide')

    def test_needs_node(self):
        self.assertParserFails(nodes.ManageNode(self.app, None), [])


class TestMaintenance(base.TestCommand):

    def test_set(self):
        cmd = nodes.MaintenanceSetNode(self.app, None)
        args = self.check_parser(cmd, ['node-1', '--reason', 'broken'],
                                 [('node', 'node-1'), ('reason', 'broken')])
        cmd.take_action(args)
        self.client.node_set_maintenance.assert_called_once_with(
            'node-1', reason='broken')

    def test_set_no_reason(self):
        cmd = nodes.MaintenanceSetNode(self.app, None)
        args = self.check_parser(cmd, ['node-1'], [('reason', None)])
        cmd.take_action(args)
        self.client.node_set_maintenance.assert_called_once_with(
            'node-1', reason=None)

    def test_unset(self):
        cmd = nodes.MaintenanceUnsetNode(self.app, None)
        args = self.check_parser(cmd, ['node-1'], [('node', 'node-1')])
        cmd.take_action(args)
        self.client.node_unset_maintenance.assert_called_once_with('node-1')


class TestTraits(base.TestCommand):

    def test_list(self):
        self.client.node_traits.return_value = ['CUSTOM_A', 'CUSTOM_B']
        cmd = nodes.ListTraitsNode(self.app, None)
        args = self.check_parser(cmd, ['node-1'], [('node', 'node-1')])
        columns, data = cmd.take_action(args)
        self.assertEqual(('Traits',), columns)
        self.assertEqual([('CUSTOM_A',), ('CUSTOM_B',)], data)

    def test_add(self):
        cmd = nodes.AddTraitNode(self.app, None)
        args = self.check_parser(cmd, ['node-1', 'CUSTOM_A', 'CUSTOM_B'],
                                 [('traits', ['CUSTOM_A', 'CUSTOM_B'])])
        cmd.take_action(args)
        self.assertEqual(
            [('node-1', 'CUSTOM_A'), ('node-1', 'CUSTOM_B')],
            [c.args for c in self.client.node_add_trait.call_args_list])

    def test_remove(self):
        cmd = nodes.RemoveTraitNode(self.app, None)
        args = self.check_parser(cmd, ['node-1', 'CUSTOM_A'],
                                 [('traits', ['CUSTOM_A']),
                                  ('remove_all', False)])
        cmd.take_action(args)
        self.client.node_remove_trait.assert_called_once_with(
            'node-1', 'CUSTOM_A')

    def test_remove_all(self):
        cmd = nodes.RemoveTraitNode(self.app, None)
        args = self.check_parser(cmd, ['node-1', '--all'],
                                 [('remove_all', True)])
        cmd.take_action(args)
        self.client.node_remove_trait.assert_called_once_with('node-1')

    def test_remove_needs_traits_or_all(self):
        cmd = nodes.RemoveTraitNode(self.app, None)
        self.assertParserFails(cmd, ['node-1'])
        self.assertParserFails(cmd, ['node-1', 'CUSTOM_A', '--all'])
