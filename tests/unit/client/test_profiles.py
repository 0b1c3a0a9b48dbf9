"""``openstack pool profile ...``."""
from osc_lib import exceptions

from pool_client.v1 import profiles
from tests.unit.client import base

PROFILE = {'name': 'web', 'description': 'Web servers',
           'params': {'role': 'web', 'inventory/data/CPUS': 8},
           'secret_params': [],
           'created_at': '2026-11-23T08:00:00+00:00', 'updated_at': None,
           'links': base.LINKS}


class TestCreateProfile(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = profiles.CreateProfile(self.app, None)
        self.client.profile_create.return_value = PROFILE

    def test_create(self):
        args = self.check_parser(self.cmd, [
            'web', '--description', 'Web servers', '--param', 'role=web',
            '--param', 'inventory/data/CPUS=8'],
            [('name', 'web'),
             ('params', ['role=web', 'inventory/data/CPUS=8'])])
        columns, data = self.cmd.take_action(args)
        self.client.profile_create.assert_called_once_with(
            name='web', description='Web servers',
            params={'role': 'web', 'inventory/data/CPUS': 8})
        self.assertEqual(('created_at', 'description', 'name', 'params',
                          'secret_params', 'updated_at'), columns)
        self.assertEqual(PROFILE['params'],
                         self.machine(columns, data)['params'])

    def test_create_with_secret_params(self):
        self.cmd.take_action(self.check_parser(self.cmd, [
            'web', '--param', 'root_pw=x', '--secret-param', 'root_pw'],
            [('secret_params', ['root_pw'])]))
        self.client.profile_create.assert_called_once_with(
            name='web', params={'root_pw': 'x'}, secret_params=['root_pw'])

    def test_create_name_only(self):
        self.cmd.take_action(self.check_parser(self.cmd, ['web'], []))
        self.client.profile_create.assert_called_once_with(name='web')

    def test_create_needs_name(self):
        self.assertParserFails(self.cmd, [])

    def test_create_bad_param(self):
        args = self.check_parser(self.cmd, ['web', '--param', 'role'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)
        self.client.profile_create.assert_not_called()

    def test_create_conflict(self):
        self.client.profile_create.side_effect = exceptions.CommandError(
            'Profile web already exists. (HTTP 409)')
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action,
                                self.check_parser(self.cmd, ['web'], []))
        self.assertIn('already exists', str(exc))


class TestListShowDeleteProfile(base.TestCommand):

    def test_list(self):
        self.client.profile_list.return_value = [PROFILE]
        cmd = profiles.ListProfile(self.app, None)
        columns, rows = cmd.take_action(self.check_parser(cmd, [], []))
        self.assertEqual(('Name', 'Description'), columns)
        self.assertEqual([('web', 'Web servers')], list(rows))

    def test_list_long(self):
        self.client.profile_list.return_value = [PROFILE]
        cmd = profiles.ListProfile(self.app, None)
        columns, rows = cmd.take_action(self.check_parser(
            cmd, ['--long'], [('long', True)]))
        self.assertEqual(('Name', 'Description', 'Params', 'Secret Params'),
                         columns)
        self.assertEqual(PROFILE['params'],
                         list(rows)[0][2].machine_readable())

    def test_show(self):
        self.client.profile_get.return_value = PROFILE
        cmd = profiles.ShowProfile(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['web'], []))
        self.client.profile_get.assert_called_once_with('web')
        self.assertEqual('Web servers',
                         self.machine(columns, data)['description'])
        self.assertNotIn('links', columns)

    def test_delete(self):
        cmd = profiles.DeleteProfile(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web', 'db'], []))
        self.assertEqual(2, self.client.profile_delete.call_count)
        self.assertIn('Deleted profile db', self.app.stdout.getvalue())

    def test_delete_in_use(self):
        self.client.profile_delete.side_effect = [
            exceptions.CommandError('Profile web is in use. (HTTP 409)'),
            None]
        cmd = profiles.DeleteProfile(self.app, None)
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                self.check_parser(cmd, ['web', 'db'], []))
        self.assertIn('Failed to delete profile web', str(exc))
        self.assertIn('Deleted profile db', self.app.stdout.getvalue())


class TestSetUnsetProfile(base.TestCommand):

    def test_set(self):
        cmd = profiles.SetProfile(self.app, None)
        self.assertIsNone(cmd.take_action(self.check_parser(cmd, [
            'web', '--description', 'd', '--param', 'inventory/data/CPUS=16',
            '--param', 'tags=["a"]'], [('profile', 'web')])))
        self.client.profile_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/description', 'value': 'd'},
            {'op': 'add', 'path': '/params/inventory~1data~1CPUS',
             'value': 16},
            {'op': 'add', 'path': '/params/tags', 'value': ['a']},
        ])

    def test_set_secret_params(self):
        cmd = profiles.SetProfile(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'web', '--secret-param', 'a', '--secret-param', 'b'],
            [('secret_params', ['a', 'b'])]))
        self.client.profile_update.assert_called_once_with('web', [
            {'op': 'replace', 'path': '/secret_params', 'value': ['a', 'b']},
        ])

    def test_set_nothing(self):
        cmd = profiles.SetProfile(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web'], []))
        self.client.profile_update.assert_not_called()

    def test_unset(self):
        cmd = profiles.UnsetProfile(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'web', '--description', '--param', 'inventory/data/CPUS'],
            [('description', True)]))
        self.client.profile_update.assert_called_once_with('web', [
            {'op': 'remove', 'path': '/description'},
            {'op': 'remove', 'path': '/params/inventory~1data~1CPUS'},
        ])

    def test_unset_nothing(self):
        cmd = profiles.UnsetProfile(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web'], []))
        self.client.profile_update.assert_not_called()

    def test_unset_error(self):
        self.client.profile_update.side_effect = exceptions.CommandError(
            'Cannot apply the patch: ... (HTTP 400)')
        cmd = profiles.UnsetProfile(self.app, None)
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                self.check_parser(cmd, ['web', '--param',
                                                        'nope'], []))
        self.assertIn('Cannot apply the patch', str(exc))
