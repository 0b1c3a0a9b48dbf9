"""``openstack pool workflow ...``."""
from osc_lib import exceptions

from pool_client.v1 import workflows
from tests.unit.client import base

WORKFLOW = {'name': 'deploy', 'description': 'Deploy',
            'stages': ['discover', 'install', 'complete'],
            'created_at': '2026-11-23T08:00:00+00:00', 'updated_at': None,
            'links': base.LINKS}


class TestWorkflowCommands(base.TestCommand):

    def test_create(self):
        self.client.workflow_create.return_value = WORKFLOW
        cmd = workflows.CreateWorkflow(self.app, None)
        args = self.check_parser(cmd, [
            'deploy', '--description', 'Deploy', '--stage', 'discover',
            '--stage', 'install', '--stage', 'complete'],
            [('stages', ['discover', 'install', 'complete'])])
        columns, data = cmd.take_action(args)
        self.client.workflow_create.assert_called_once_with(
            name='deploy', description='Deploy',
            stages=['discover', 'install', 'complete'])
        self.assertEqual(['discover', 'install', 'complete'],
                         self.machine(columns, data)['stages'])

    def test_create_name_only(self):
        self.client.workflow_create.return_value = WORKFLOW
        cmd = workflows.CreateWorkflow(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['deploy'], []))
        self.client.workflow_create.assert_called_once_with(name='deploy')
        self.assertParserFails(cmd, [])

    def test_list(self):
        self.client.workflow_list.return_value = [WORKFLOW]
        cmd = workflows.ListWorkflow(self.app, None)
        columns, rows = cmd.take_action(self.check_parser(cmd, [], []))
        self.assertEqual(('Name', 'Description', 'Stages'), columns)
        rows = list(rows)
        self.assertEqual(('deploy', 'Deploy'), rows[0][:2])
        self.assertEqual(WORKFLOW['stages'], rows[0][2].machine_readable())
        # In the workflow's order, not sorted.
        self.assertEqual('discover, install, complete',
                         rows[0][2].human_readable())

    def test_show(self):
        self.client.workflow_get.return_value = WORKFLOW
        cmd = workflows.ShowWorkflow(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['deploy'],
                                                          []))
        self.client.workflow_get.assert_called_once_with('deploy')
        self.assertEqual('deploy', self.machine(columns, data)['name'])
        stages = data[columns.index('stages')]
        self.assertEqual('discover, install, complete',
                         stages.human_readable())

    def test_show_not_found(self):
        self.client.workflow_get.side_effect = exceptions.CommandError(
            'Workflow nope could not be found. (HTTP 404)')
        cmd = workflows.ShowWorkflow(self.app, None)
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                self.check_parser(cmd, ['nope'], []))
        self.assertIn('could not be found', str(exc))

    def test_set(self):
        cmd = workflows.SetWorkflow(self.app, None)
        self.assertIsNone(cmd.take_action(self.check_parser(cmd, [
            'deploy', '--description', 'New', '--stage', 'install',
            '--stage', 'done'], [('workflow', 'deploy')])))
        self.client.workflow_update.assert_called_once_with('deploy', [
            {'op': 'add', 'path': '/description', 'value': 'New'},
            {'op': 'add', 'path': '/stages', 'value': ['install', 'done']},
        ])

    def test_set_no_stage(self):
        cmd = workflows.SetWorkflow(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['deploy', '--no-stage'],
                                          [('stages', [])]))
        self.client.workflow_update.assert_called_once_with('deploy', [
            {'op': 'add', 'path': '/stages', 'value': []}])
        self.assertParserFails(cmd, ['deploy', '--no-stage', '--stage', 'a'])

    def test_set_nothing(self):
        cmd = workflows.SetWorkflow(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['deploy'], []))
        self.client.workflow_update.assert_not_called()

    def test_unset(self):
        cmd = workflows.UnsetWorkflow(self.app, None)
        cmd.take_action(self.check_parser(
            cmd, ['deploy', '--description', '--stages'],
            [('description', True), ('stages', True)]))
        self.client.workflow_update.assert_called_once_with('deploy', [
            {'op': 'remove', 'path': '/description'},
            {'op': 'remove', 'path': '/stages'}])

    def test_unset_nothing(self):
        cmd = workflows.UnsetWorkflow(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['deploy'], []))
        self.client.workflow_update.assert_not_called()

    def test_delete(self):
        self.client.workflow_delete.side_effect = [
            None, exceptions.CommandError('in use (HTTP 409)')]
        cmd = workflows.DeleteWorkflow(self.app, None)
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                self.check_parser(cmd, ['a', 'b'], []))
        self.assertEqual('Failed to delete workflow b: in use (HTTP 409)',
                         str(exc))
        self.assertIn('Deleted workflow a', self.app.stdout.getvalue())
