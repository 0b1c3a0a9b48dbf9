"""``openstack pool create|list|show|set|unset|status|delete``, ``pool
machines ...`` and ``pool node return``."""
import copy
from unittest import mock

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

    def test_create_with_meta(self):
        cmd = pools.CreatePool(self.app, None)
        self.client.pool_create.return_value = POOL
        cmd.take_action(self.check_parser(cmd, [
            'lab', '--meta', 'color=blue', '--meta', 'title=8'], []))
        # Values stay strings, as Meta's are.
        self.client.pool_create.assert_called_once_with(
            name='lab', meta={'color': 'blue', 'title': '8'})

    def test_create_with_a_lifespan(self):
        cmd = pools.CreatePool(self.app, None)
        self.client.pool_create.return_value = POOL
        args = self.check_parser(cmd, [
            'leases', '--lifespan-default', '4h', '--lifespan-maximum', '7d',
            '--lifespan-relative-maximum', '1d'], [])
        cmd.take_action(args)
        self.client.pool_create.assert_called_once_with(
            name='leases', lifespan={'default': '4h', 'maximum': '7d',
                                     'relative_maximum': '1d'})

    def test_create_action_options(self):
        cmd = pools.CreatePool(self.app, None)
        self.client.pool_create.return_value = POOL
        args = self.check_parser(cmd, [
            'web', '--parent-pool', 'all', '--documentation', 'Doc',
            '--allocate-actions', '{"add_profiles": ["base"]}',
            '--allocate-workflow', 'deploy',
            '--allocate-add-profile', 'web', '--allocate-add-profile', 'base',
            '--allocate-add-parameter', 'inventory/data/CPUS=8',
            '--allocate-add-parameter', 'role=web',
            '--release-remove-profile', 'web',
            '--release-remove-parameter', 'role',
            '--enter-workflow', 'discover', '--exit-add-profile', 'wipe',
        ], [('allocate_workflow', 'deploy'),
            ('allocate_add_profiles', ['web', 'base'])])
        cmd.take_action(args)
        self.client.pool_create.assert_called_once_with(
            name='web', documentation='Doc', parent_pool='all',
            enter_actions={'workflow': 'discover'},
            allocate_actions={
                'workflow': 'deploy', 'add_profiles': ['base', 'web'],
                'add_parameters': {'inventory/data/CPUS': 8,
                                   'role': 'web'}},
            release_actions={'remove_profiles': ['web'],
                             'remove_parameters': ['role']},
            exit_actions={'add_profiles': ['wipe']})

    def test_create_bad_parameter(self):
        cmd = pools.CreatePool(self.app, None)
        args = self.check_parser(cmd, [
            'web', '--enter-add-parameter', 'no-value'], [])
        self.assertRaises(exceptions.CommandError, cmd.take_action, args)
        self.client.pool_create.assert_not_called()

    def test_create_bad_actions_fail_to_parse(self):
        cmd = pools.CreatePool(self.app, None)
        self.assertParserFails(cmd, ['web', '--enter-actions', '[1]'])
        self.assertParserFails(cmd, [])

    def test_show_renders_action_sets_as_json(self):
        actions = {'workflow': 'deploy', 'add_profiles': ['web'],
                   'add_parameters': {'tier': 1, 'wiped': False,
                                      'role': 'web'}}
        self.client.pool_get.return_value = dict(POOL,
                                                 allocate_actions=actions)
        cmd = pools.ShowPool(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['web'], []))
        shown = data[columns.index('allocate_actions')]
        self.assertEqual('{"workflow": "deploy", "add_profiles": ["web"], '
                         '"add_parameters": {"tier": 1, "wiped": false, '
                         '"role": "web"}}', shown.human_readable())
        # -f json and yaml get the value: numbers stay numbers.
        self.assertEqual(actions, shown.machine_readable())
        self.assertIs(1, shown.machine_readable()['add_parameters']['tier'])

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


class TestSetPool(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = pools.SetPool(self.app, None)
        self.pool = copy.deepcopy(POOL)
        self.pool['allocate_actions'] = {
            'workflow': 'deploy', 'add_profiles': ['base'],
            'add_parameters': {'role': 'web'}}
        self.client.pool_get.return_value = self.pool

    def test_set_fields(self):
        args = self.check_parser(self.cmd, [
            'web', '--description', 'New', '--documentation', 'Doc',
            '--parent-pool', 'all'], [('pool', 'web')])
        self.assertIsNone(self.cmd.take_action(args))
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/description', 'value': 'New'},
            {'op': 'add', 'path': '/documentation', 'value': 'Doc'},
            {'op': 'add', 'path': '/parent_pool', 'value': 'all'},
        ])

    def test_set_meta(self):
        args = self.check_parser(self.cmd, [
            'web', '--meta', 'color=blue', '--meta', 'owner/team=a=b'], [])
        self.cmd.take_action(args)
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/meta/color', 'value': 'blue'},
            {'op': 'add', 'path': '/meta/owner~1team', 'value': 'a=b'},
        ])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          self.check_parser(self.cmd, ['web', '--meta',
                                                       'color'], []))

    def test_set_lifespan_keys(self):
        args = self.check_parser(self.cmd, [
            'web', '--lifespan-default', '2h'], [])
        self.cmd.take_action(args)
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/lifespan/default', 'value': '2h'}])

    def test_set_actions(self):
        args = self.check_parser(self.cmd, [
            'web', '--allocate-workflow', 'redeploy',
            '--allocate-add-profile', 'gpu', '--allocate-add-profile', 'base',
            '--allocate-add-parameter', 'inventory/data/CPUS=8',
            '--release-remove-profile', 'gpu',
            '--release-remove-parameter', 'role'], [])
        self.cmd.take_action(args)
        # One read of the pool for all the transitions.
        self.client.pool_get.assert_called_once_with('web')
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/allocate_actions/workflow',
             'value': 'redeploy'},
            {'op': 'add', 'path': '/allocate_actions/add_profiles',
             'value': ['base', 'gpu']},
            {'op': 'add', 'path': '/allocate_actions/add_parameters',
             'value': {'role': 'web', 'inventory/data/CPUS': 8}},
            {'op': 'add', 'path': '/release_actions/remove_profiles',
             'value': ['gpu']},
            {'op': 'add', 'path': '/release_actions/remove_parameters',
             'value': ['role']},
        ])

    def test_set_what_is_there(self):
        args = self.check_parser(self.cmd, [
            'web', '--allocate-add-profile', 'base',
            '--allocate-workflow', 'deploy'], [])
        self.cmd.take_action(args)
        self.client.pool_update.assert_not_called()

    def test_set_whole_action_set(self):
        args = self.check_parser(self.cmd, [
            'web', '--exit-actions', '{"workflow": "wipe"}',
            '--exit-add-profile', 'p'], [])
        self.cmd.take_action(args)
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/exit_actions',
             'value': {'workflow': 'wipe', 'add_profiles': ['p']}},
        ])

    def test_set_nothing(self):
        self.cmd.take_action(self.check_parser(self.cmd, ['web'], []))
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_not_called()

    def test_set_error(self):
        self.client.pool_update.side_effect = exceptions.CommandError(
            'Workflow nope could not be found. (HTTP 404)')
        args = self.check_parser(self.cmd, [
            'web', '--enter-actions', '{"workflow": "nope"}'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('Workflow nope could not be found', str(exc))

    def test_bad_json_fails_to_parse(self):
        self.assertParserFails(self.cmd, ['web', '--enter-actions', '[]'])
        self.assertParserFails(self.cmd, [])


class TestUnsetPool(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = pools.UnsetPool(self.app, None)
        self.pool = copy.deepcopy(POOL)
        self.pool['allocate_actions'] = {
            'workflow': 'deploy', 'add_profiles': ['base', 'gpu'],
            'add_parameters': {'role': 'web', 'inventory/data/CPUS': 8}}
        self.pool['release_actions'] = {'remove_profiles': ['gpu'],
                                        'remove_parameters': ['role']}
        self.client.pool_get.return_value = self.pool

    def test_unset_meta(self):
        self.pool['meta'] = {'color': 'blue', 'icon': 'server'}
        self.cmd.take_action(self.check_parser(self.cmd, [
            'web', '--meta', 'color', '--meta', 'missing'], []))
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'remove', 'path': '/meta/color'}])

    def test_unset_fields_and_action_sets(self):
        args = self.check_parser(self.cmd, [
            'web', '--description', '--documentation', '--parent-pool',
            '--enter-actions', '--exit-actions'],
            [('description', True), ('enter_actions', True),
             ('allocate_actions', False)])
        self.cmd.take_action(args)
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'remove', 'path': '/description'},
            {'op': 'remove', 'path': '/documentation'},
            {'op': 'remove', 'path': '/parent_pool'},
            {'op': 'remove', 'path': '/enter_actions'},
            {'op': 'remove', 'path': '/exit_actions'},
        ])

    def test_unset_lifespan_keys_that_are_there(self):
        self.pool['lifespan'] = {'default': '4h', 'maximum': '7d'}
        args = self.check_parser(self.cmd, [
            'web', '--lifespan-default', '--lifespan-relative-maximum'], [])
        self.cmd.take_action(args)
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'remove', 'path': '/lifespan/default'}])

    def test_unset_parts(self):
        args = self.check_parser(self.cmd, [
            'web', '--allocate-workflow', '--allocate-add-profile', 'gpu',
            '--allocate-add-parameter', 'inventory/data/CPUS',
            '--release-remove-profile', 'gpu',
            '--release-remove-parameter', 'absent'],
            [('allocate_workflow', True),
             ('allocate_add_profiles', ['gpu'])])
        self.cmd.take_action(args)
        self.client.pool_get.assert_called_once_with('web')
        self.client.pool_update.assert_called_once_with('web', [
            {'op': 'remove', 'path': '/allocate_actions/workflow'},
            {'op': 'add', 'path': '/allocate_actions/add_profiles',
             'value': ['base']},
            {'op': 'add', 'path': '/allocate_actions/add_parameters',
             'value': {'role': 'web'}},
            # The last one goes, with its list.
            {'op': 'remove', 'path': '/release_actions/remove_profiles'},
        ])

    def test_unset_what_is_not_there(self):
        args = self.check_parser(self.cmd, [
            'web', '--enter-workflow', '--exit-add-profile', 'x'], [])
        self.cmd.take_action(args)
        self.client.pool_get.assert_called_once_with('web')
        self.client.pool_update.assert_not_called()

    def test_unset_nothing(self):
        self.cmd.take_action(self.check_parser(self.cmd, ['web'], []))
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_not_called()


class TestPoolStatus(base.TestCommand):

    def test_status(self):
        self.client.pool_status.return_value = {
            'name': 'web', 'total': 3,
            'statuses': {'Joining': 0, 'Free': 2, 'InUse': 1}}
        cmd = pools.ShowPoolStatus(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['web'], []))
        self.client.pool_status.assert_called_once_with('web')
        # The server's order of the statuses: the lifecycle's.
        self.assertEqual(('name', 'total', 'Joining', 'Free', 'InUse'),
                         columns)
        self.assertEqual(('web', 3, 0, 2, 1), data)

    def test_status_needs_pool(self):
        self.assertParserFails(pools.ShowPoolStatus(self.app, None), [])


AUTOFILL = {'use_autofill': True, 'min_free': 2, 'max_free': 4,
            'acquire_pool': None, 'return_pool': None,
            'create_parameters': {'flavor': 'small', 'disk/size': 40},
            'max_unready': None, 'delete_unhealthy': False}


class TestPoolAutofill(base.TestCommand):
    """The broker, autofill and lifespan.unclaimed options of create, set
    and unset, and how show and status render them."""

    def setUp(self):
        super().setUp()
        self.pool = dict(copy.deepcopy(POOL), broker='cloud',
                         autofill=copy.deepcopy(AUTOFILL), last_error=None,
                         lifespan={'unclaimed': '1d'})
        self.client.pool_get.return_value = self.pool
        self.client.pool_create.return_value = self.pool

    def test_create(self):
        cmd = pools.CreatePool(self.app, None)
        args = self.check_parser(cmd, [
            'fill', '--broker', 'cloud', '--autofill', '--min-free', '2',
            '--max-free', '4', '--acquire-pool', 'spare',
            '--return-pool', 'spare', '--create-parameter', 'flavor=small',
            '--create-parameter', 'disk/size=40', '--max-unready', '1',
            '--delete-unhealthy', '--lifespan-unclaimed', '1d'],
            [('use_autofill', True), ('min_free', 2)])
        columns, data = cmd.take_action(args)
        self.client.pool_create.assert_called_once_with(
            name='fill', broker='cloud', lifespan={'unclaimed': '1d'},
            autofill={'use_autofill': True, 'min_free': 2, 'max_free': 4,
                      'acquire_pool': 'spare', 'return_pool': 'spare',
                      'create_parameters': {'flavor': 'small',
                                            'disk/size': 40},
                      'max_unready': 1, 'delete_unhealthy': True})
        self.assertEqual(AUTOFILL, self.machine(columns, data)['autofill'])

    def test_create_without_autofill_sends_none(self):
        cmd = pools.CreatePool(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['plain'], []))
        self.client.pool_create.assert_called_once_with(name='plain')

    def test_create_no_autofill_and_keep_unhealthy(self):
        cmd = pools.CreatePool(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'fill', '--no-autofill', '--keep-unhealthy', '--min-free', '0'],
            []))
        self.client.pool_create.assert_called_once_with(
            name='fill', autofill={'use_autofill': False, 'min_free': 0,
                                   'delete_unhealthy': False})

    def test_bad_counts_and_contradictions_fail_to_parse(self):
        cmd = pools.CreatePool(self.app, None)
        for args in (['--min-free', '-1'], ['--max-free', 'many'],
                     ['--max-unready', '1.5'],
                     ['--autofill', '--no-autofill'],
                     ['--delete-unhealthy', '--keep-unhealthy']):
            self.assertParserFails(cmd, ['fill', *args])
        self.assertParserFails(pools.SetPool(self.app, None),
                               ['fill', '--min-free', '-1'])

    def test_bad_create_parameter(self):
        cmd = pools.CreatePool(self.app, None)
        args = self.check_parser(cmd, [
            'fill', '--create-parameter', 'no-value'], [])
        self.assertRaises(exceptions.CommandError, cmd.take_action, args)
        self.client.pool_create.assert_not_called()

    def test_set(self):
        cmd = pools.SetPool(self.app, None)
        args = self.check_parser(cmd, [
            'fill', '--broker', 'other', '--no-autofill', '--min-free', '3',
            '--max-free', '5', '--acquire-pool', 'spare', '--return-pool',
            'spare', '--create-parameter', 'disk/size=80',
            '--max-unready', '2', '--keep-unhealthy',
            '--autofill-horizon', '7200',
            '--lifespan-unclaimed', '12h'], [])
        cmd.take_action(args)
        # One operation per key: a concurrent change of another stays.
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('fill', [
            {'op': 'add', 'path': '/broker', 'value': 'other'},
            {'op': 'add', 'path': '/lifespan/unclaimed', 'value': '12h'},
            {'op': 'add', 'path': '/autofill/use_autofill', 'value': False},
            {'op': 'add', 'path': '/autofill/min_free', 'value': 3},
            {'op': 'add', 'path': '/autofill/max_free', 'value': 5},
            {'op': 'add', 'path': '/autofill/acquire_pool', 'value': 'spare'},
            {'op': 'add', 'path': '/autofill/return_pool', 'value': 'spare'},
            # The slash is part of the parameter's name.
            {'op': 'add', 'path': '/autofill/create_parameters/disk~1size',
             'value': 80},
            {'op': 'add', 'path': '/autofill/max_unready', 'value': 2},
            {'op': 'add', 'path': '/autofill/delete_unhealthy',
             'value': False},
            {'op': 'add', 'path': '/autofill/horizon', 'value': 7200},
        ])

    def test_set_autofill_on(self):
        cmd = pools.SetPool(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'fill', '--autofill', '--delete-unhealthy'], []))
        self.client.pool_update.assert_called_once_with('fill', [
            {'op': 'add', 'path': '/autofill/use_autofill', 'value': True},
            {'op': 'add', 'path': '/autofill/delete_unhealthy',
             'value': True},
        ])

    def test_unset(self):
        cmd = pools.UnsetPool(self.app, None)
        args = self.check_parser(cmd, [
            'fill', '--broker', '--max-free', '--acquire-pool',
            '--return-pool', '--max-unready', '--autofill-horizon',
            '--lifespan-unclaimed',
            '--create-parameter', 'disk/size',
            '--create-parameter', 'absent'],
            [('broker', True), ('create_parameters', ['disk/size',
                                                      'absent'])])
        cmd.take_action(args)
        self.client.pool_get.assert_called_once_with('fill')
        self.client.pool_update.assert_called_once_with('fill', [
            {'op': 'remove', 'path': '/broker'},
            {'op': 'remove', 'path': '/autofill/max_free'},
            {'op': 'remove', 'path': '/autofill/acquire_pool'},
            {'op': 'remove', 'path': '/autofill/return_pool'},
            {'op': 'remove', 'path': '/autofill/max_unready'},
            {'op': 'remove', 'path': '/autofill/horizon'},
            {'op': 'remove', 'path': '/lifespan/unclaimed'},
            # A parameter that is not there is not sent: no 400.
            {'op': 'remove',
             'path': '/autofill/create_parameters/disk~1size'},
        ])

    def test_unset_whole_autofill(self):
        cmd = pools.UnsetPool(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'fill', '--autofill', '--max-free', '--create-parameter',
            'flavor'], [('autofill', True)]))
        # The whole of it goes; its keys with it.
        self.client.pool_get.assert_not_called()
        self.client.pool_update.assert_called_once_with('fill', [
            {'op': 'remove', 'path': '/autofill'}])

    def test_unset_create_parameter_not_there(self):
        cmd = pools.UnsetPool(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'fill', '--create-parameter', 'absent'], []))
        self.client.pool_update.assert_not_called()

    def test_show_renders_autofill_as_json(self):
        cmd = pools.ShowPool(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['fill'], []))
        shown = data[columns.index('autofill')]
        self.assertEqual(
            '{"use_autofill": true, "min_free": 2, "max_free": 4, '
            '"acquire_pool": null, "return_pool": null, '
            '"create_parameters": {"flavor": "small", "disk/size": 40}, '
            '"max_unready": null, "delete_unhealthy": false}',
            shown.human_readable())
        self.assertEqual(AUTOFILL, shown.machine_readable())
        self.assertEqual('cloud', data[columns.index('broker')])

    def test_status_shows_creating_once_and_unhealthy(self):
        self.client.pool_status.return_value = {
            'name': 'fill', 'total': 4,
            'statuses': {'Creating': 3, 'Free': 1}, 'creating': 3,
            'unhealthy': 1}
        cmd = pools.ShowPoolStatus(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['fill'], []))
        # The server's "creating" is the Creating status: one column.
        self.assertEqual(('name', 'total', 'Creating', 'Free', 'unhealthy'),
                         columns)
        self.assertEqual(('fill', 4, 3, 1, 1), data)


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
            '--wait-for-stage', 'complete', '--blocking', '60',
            '--lifespan-end', '2026-12-01T00:00:00'], [])
        cmd.take_action(args)
        self.client.pool_action.assert_called_once_with(
            'web', 'allocateMachines', count=3, partial_success=True,
            lifespan_end='2026-12-01T00:00:00',
            filter={'inventory/data/CPUS': 'Gte(4)'},
            new_workflow='deploy', add_profiles=['p'],
            remove_parameters=['old'], add_parameters={'x': 1},
            wait_for_stage='complete', blocking=True, wait_timeout=60)
        self.client.nodes_wait.assert_not_called()

    def test_allocate_named_or_all_machines(self):
        cmd = pools.AllocateMachines(self.app, None)
        cmd.take_action(self.check_parser(cmd, ['web'], []))
        cmd.take_action(self.check_parser(
            cmd, ['web', '--machine', 'n1', '--machine', 'n2'], []))
        cmd.take_action(self.check_parser(cmd, ['web', '--all'], []))
        self.assertEqual([
            (('web', 'allocateMachines'), {}),
            (('web', 'allocateMachines'), {'machine_list': ['n1', 'n2']}),
            (('web', 'allocateMachines'), {'all_machines': True}),
        ], [(c.args, c.kwargs)
            for c in self.client.pool_action.call_args_list])
        self.assertParserFails(cmd, ['web', '--all', '--machine', 'n1'])

    def test_wait_polls_on_the_client(self):
        building = dict(RESULT, status='Building')
        self.client.pool_action.return_value = [building]
        self.client.nodes_wait.return_value = [RESULT]
        cmd = pools.AllocateMachines(self.app, None)
        for wait, timeout in ((['--wait'], 0), (['--wait', '30'], 30)):
            self.client.nodes_wait.reset_mock()
            columns, rows = cmd.take_action(self.check_parser(
                cmd, ['web', '--wait-for-stage', 'complete', *wait], []))
            self.client.nodes_wait.assert_called_once_with(
                [building], timeout=timeout, progress=mock.ANY)
            self.assertEqual([('node-1', base.NODE_UUID, 'InUse', True)],
                             list(rows))
        # The server was not asked to block.
        for call in self.client.pool_action.call_args_list:
            self.assertNotIn('blocking', call.kwargs)

    def test_timeout_is_sent_without_blocking(self):
        self.client.pool_action.return_value = [RESULT]
        cmd = pools.AllocateMachines(self.app, None)
        cmd.take_action(self.check_parser(
            cmd, ['web', '--wait-for-stage', 'complete', '--timeout', '600'],
            [('stage_timeout', 600)]))
        self.client.pool_action.assert_called_once_with(
            'web', 'allocateMachines', wait_for_stage='complete',
            wait_timeout=600)
        self.assertRaises(exceptions.CommandError, cmd.take_action,
                          self.check_parser(cmd, ['web', '--timeout', '5'],
                                            []))

    def test_wait_and_blocking_need_a_stage_and_exclude_each_other(self):
        cmd = pools.ReturnMachines(self.app, None)
        for option in (['--wait'], ['--blocking'], ['--blocking', '5']):
            exc = self.assertRaises(
                exceptions.CommandError, cmd.take_action, self.check_parser(
                    cmd, ['web', '--all', *option], []))
            self.assertIn('needs --wait-for-stage', str(exc))
        exc = self.assertRaises(
            exceptions.CommandError, cmd.take_action, self.check_parser(
                cmd, ['web', '--all', '--wait-for-stage', 'x', '--wait',
                      '-1'], []))
        self.assertIn('non-negative --wait', str(exc))
        self.assertParserFails(cmd, ['web', '--all', '--wait',
                                     '--blocking'])
        self.client.pool_action.assert_not_called()

    def test_return_force_and_blocking_without_timeout(self):
        cmd = pools.ReturnMachines(self.app, None)
        cmd.take_action(self.check_parser(cmd, [
            'web', '--machine', 'n1', '--force', '--wait-for-stage', 'wiped',
            '--blocking'], []))
        self.client.pool_action.assert_called_once_with(
            'web', 'returnMachines', machine_list=['n1'], force=True,
            wait_for_stage='wiped', blocking=True)


class TestReturnNode(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = pools.ReturnNode(self.app, None)
        self.client.node_return.return_value = 'Success'

    def test_return(self):
        columns, rows = self.cmd.take_action(self.check_parser(
            self.cmd, ['node-1'], [('node', 'node-1')]))
        self.client.node_return.assert_called_once_with('node-1')
        self.client.pool_action.assert_not_called()
        self.assertEqual(('Result',), columns)
        self.assertEqual([('Success',)], list(rows))

    def test_return_with_actions_and_wait(self):
        cmd = self.cmd
        cmd.take_action(self.check_parser(cmd, [
            'node-1', '--workflow', 'wipe', '--add-profile', 'clean',
            '--remove-profile', 'web', '--add-parameter', 'wiped=false',
            '--remove-parameter', 'role', '--wait-for-stage', 'wiped',
            '--blocking', '30'], []))
        self.client.node_return.assert_called_once_with(
            'node-1', new_workflow='wipe', add_profiles=['clean'],
            remove_profiles=['web'], add_parameters={'wiped': False},
            remove_parameters=['role'], wait_for_stage='wiped',
            blocking=True, wait_timeout=30)

    def test_return_and_wait_on_the_client(self):
        self.client.node_get.return_value = {
            'uuid': base.NODE_UUID, 'name': 'node-1',
            'pool_status': 'Destroying', 'pool_allocated': True}
        self.client.nodes_wait.return_value = [dict(
            RESULT, status='Free', allocated=False)]
        columns, rows = self.cmd.take_action(self.check_parser(
            self.cmd, ['node-1', '--wait-for-stage', 'wiped', '--wait',
                       '30'], []))
        self.client.nodes_wait.assert_called_once_with(
            [{'uuid': base.NODE_UUID, 'name': 'node-1',
              'status': 'Destroying', 'allocated': True}], timeout=30,
            progress=mock.ANY)
        self.assertEqual([('node-1', base.NODE_UUID, 'Free', False)],
                         list(rows))

    def test_return_force(self):
        self.cmd.take_action(self.check_parser(
            self.cmd, ['node-1', '--force'], []))
        self.client.node_return.assert_called_once_with('node-1', force=True)

    def test_return_takes_no_machines(self):
        self.assertParserFails(self.cmd, [])
        self.assertParserFails(self.cmd, ['node-1', '--all'])
        self.assertParserFails(self.cmd, ['node-1', '--machine', 'n2'])

    def test_return_error(self):
        self.client.node_return.side_effect = exceptions.CommandError(
            'Cannot return nodes: only InUse nodes of pool web can be '
            'returned: node-1 (Free in pool web) (HTTP 409)')
        exc = self.assertRaises(
            exceptions.CommandError, self.cmd.take_action,
            self.check_parser(self.cmd, ['node-1'], []))
        self.assertIn('only InUse nodes', str(exc))
