"""``openstack pool external manager ...`` commands, and the node
options of hardware shared with one."""
from pool_client.v1 import external_managers
from pool_client.v1 import nodes
from tests.unit.client import base

MANAGER = {'name': 'lab', 'description': None, 'driver': 'ironic',
           'parameters': {'endpoint': 'http://lab:6385',
                          'auth': {'password': '******'}},
           'enabled': True, 'sync_interval': None,
           'conductor_affinity': 'c1', 'last_sync_at': None,
           'last_error': None, 'error_streak': 0,
           'created_at': '2026-11-26T08:00:00+00:00', 'updated_at': None,
           'links': base.LINKS}


class TestExternalManagerCommands(base.TestCommand):

    def test_create(self):
        self.client.external_manager_create.return_value = MANAGER
        cmd = external_managers.CreateExternalManager(self.app, None)
        args = self.check_parser(cmd, [
            'lab', '--driver', 'ironic', '--sync-interval', '30',
            '--disable', '--parameter', 'endpoint=http://lab:6385'],
            [('name', 'lab'), ('driver', 'ironic')])
        columns, data = cmd.take_action(args)
        self.client.external_manager_create.assert_called_once_with(
            name='lab', driver='ironic', sync_interval=30, enabled=False,
            parameters={'endpoint': 'http://lab:6385'})
        self.assertEqual('******', self.machine(
            columns, data)['parameters']['auth']['password'])

    def test_set_unset_delete_status(self):
        cmd = external_managers.SetExternalManager(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'lab', '--enable', '--parameter', 'claim_prefix=p-'], []))
        self.client.external_manager_update.assert_called_once_with(
            'lab', [{'op': 'add', 'path': '/enabled', 'value': True},
                    {'op': 'add', 'path': '/parameters/claim_prefix',
                     'value': 'p-'}])
        cmd = external_managers.UnsetExternalManager(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['lab', '--sync-interval'],
                                          []))
        self.client.external_manager_update.assert_called_with(
            'lab', [{'op': 'remove', 'path': '/sync_interval'}])
        cmd = external_managers.DeleteExternalManager(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['lab', 'other'], []))
        self.assertEqual(2, self.client.external_manager_delete.call_count)
        self.client.external_manager_status.return_value = {
            'name': 'lab', 'states': {'free': 2, 'theirs': 1},
            'last_error': None}
        cmd = external_managers.ShowExternalManagerStatus(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['lab'], []))
        shown = dict(zip(columns, data, strict=True))
        self.assertEqual((2, 1), (shown['free'], shown['theirs']))

    def test_node_options(self):
        self.client.node_create.return_value = {'uuid': 'u'}
        cmd = nodes.CreateNode(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            '--driver', 'fake-hardware', '--external-manager', 'lab',
            '--external-ref', 'sh-1'], []))
        kwargs = self.client.node_create.call_args.kwargs
        self.assertEqual(('lab', 'sh-1'), (kwargs['external_manager'],
                                           kwargs['external_ref']))
        cmd = nodes.UnsetNode(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['n', '--external-manager',
                                                '--external-ref'], []))
        self.assertEqual(
            [{'op': 'remove', 'path': '/external_manager'},
             {'op': 'remove', 'path': '/external_ref'}],
            self.client.node_update.call_args.args[1])
