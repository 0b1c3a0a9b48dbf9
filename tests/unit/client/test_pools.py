"""``openstack pool create|list|show|delete`` and ``pool machines ...``."""
from osc_lib import exceptions

from pool_client.v1 import pools
from tests.unit.client import base

POOL = {'name': 'web', 'description': 'Web', 'documentation': None,
        'parent_pool': None, 'enter_actions': {}, 'allocate_actions': {},
        'release_actions': {}, 'exit_actions': {},
        'created_at': '2026-11-23T08:00:00+00:00', 'updated_at': None,
        'links': base.LINKS}
RESULT = {'status': 'InUse', 'allocated': True, 'name': 'node-1',
          'uuid': base.NODE_UUID}


class TestPoolCommands(base.TestCommand):

    def test_create(self):
        cmd = pools.CreatePool(self.app, None)
        self.client.pool_create.return_value = POOL
        args = self.check_parser(cmd, [
            'web', '--description', 'Web', '--allocate-actions',
            '{"add_profiles": ["web"]}'], [('name', 'web')])
        columns, data = cmd.take_action(args)
        self.client.pool_create.assert_called_once_with(
            name='web', description='Web',
            allocate_actions={'add_profiles': ['web']})
        self.assertEqual('web', self.machine(columns, data)['name'])

    def test_create_bad_actions_fail_to_parse(self):
        cmd = pools.CreatePool(self.app, None)
        self.assertParserFails(cmd, ['web', '--enter-actions', '[1]'])
        self.assertParserFails(cmd, [])

    def test_list_show_delete(self):
        self.client.pool_list.return_value = [POOL]
        cmd = pools.ListPool(self.app, None)
        columns, rows = cmd.take_action(self.check_parser(cmd, [], []))
        self.assertEqual([('web', 'Web', None)], list(rows))
        self.client.pool_get.return_value = POOL
        cmd = pools.ShowPool(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web'], []))
        self.client.pool_get.assert_called_once_with('web')
        cmd = pools.DeletePool(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web', 'db'], []))
        self.assertEqual(2, self.client.pool_delete.call_count)

    def test_delete_failure_is_reported(self):
        self.client.pool_delete.side_effect = exceptions.CommandError(
            'has members')
        cmd = pools.DeletePool(self.app, None)
        self.assertRaises(exceptions.CommandError, cmd.take_action,
                          self.check_parser(cmd, ['web'], []))


class TestMachinesCommands(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.client.pool_action.return_value = [RESULT]

    def test_add_needs_machines_or_all(self):
        cmd = pools.AddMachines(self.app, None)
        self.assertParserFails(cmd, ['web'])
        self.assertParserFails(cmd, ['web', '--all', '--machine', 'n1'])
        columns, rows = cmd.take_action(self.check_parser(
            cmd, ['web', '--machine', 'n1', '--machine', 'rack:r1'], []))
        self.client.pool_action.assert_called_once_with(
            'web', 'addMachines', machine_list=['n1', 'rack:r1'])
        self.assertEqual([('node-1', base.NODE_UUID, 'InUse', True)],
                         list(rows))

    def test_remove_all(self):
        cmd = pools.RemoveMachines(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web', '--all'], []))
        self.client.pool_action.assert_called_once_with(
            'web', 'removeMachines', all_machines=True)

    def test_allocate(self):
        cmd = pools.AllocateMachines(self.app, None)
        args = self.check_parser(cmd, [
            'web', '--count', '3', '--partial-success',
            '--filter', 'inventory/data/CPUS=Gte(4)',
            '--workflow', 'deploy', '--add-profile', 'p',
            '--remove-parameter', 'old', '--add-parameter', 'x=1',
            '--wait-for-stage', 'complete', '--wait', '60'], [])
        cmd.take_action(args)
        self.client.pool_action.assert_called_once_with(
            'web', 'allocateMachines', count=3, partial_success=True,
            filter={'inventory/data/CPUS': 'Gte(4)'},
            new_workflow='deploy', add_profiles=['p'],
            remove_parameters=['old'], add_parameters={'x': 1},
            wait_for_stage='complete', blocking=True, wait_timeout=60)

    def test_return_force_and_wait_without_timeout(self):
        cmd = pools.ReturnMachines(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'web', '--machine', 'n1', '--force', '--wait'], []))
        self.client.pool_action.assert_called_once_with(
            'web', 'returnMachines', machine_list=['n1'], force=True,
            blocking=True)
