"""pool_client.v1.providers: the provider commands."""
import copy

from osc_lib import exceptions
from oslotest import base as oslotest_base

from pool_client import client
from pool_client.v1 import providers
from tests.unit.client import base
from tests.unit.client import test_client

PROVIDER = {
    'name': 'lab-web',
    'description': None,
    'pool': 'lab',
    'defaults': {'resource_class': 'baremetal',
                 'params': {'power': 'on'}},
    'template': {'enable': True},
    'validation': {'type': 'object'},
    'match_ignore': ['/params/hostname'],
    'update_filters': [{'path_match': '/params/power',
                        'allowed_ops': ['replace']}],
    'lifespan': {'default': '1h', 'maximum': '1d'},
    'links': base.LINKS,
}


def provider(**values):
    result = copy.deepcopy(PROVIDER)
    result.update(values)
    return result


class TestClientProviders(oslotest_base.BaseTestCase):

    def client(self, *responses):
        self.session = test_client.FakeSession(*responses)
        return client.Client(self.session, test_client.ENDPOINT)

    def test_paths(self):
        c = self.client(
            test_client.response(201, PROVIDER),
            test_client.response(200, {'providers': [PROVIDER]}),
            test_client.response(200, PROVIDER),
            test_client.response(200, PROVIDER),
            test_client.response(204))
        c.provider_create(name='lab-web', pool='lab')
        self.assertEqual([PROVIDER], c.provider_list())
        c.provider_get('lab web')
        c.provider_update('lab-web', [{'op': 'remove',
                                       'path': '/defaults'}])
        c.provider_delete('lab-web')
        self.assertEqual(
            [('POST', test_client.ENDPOINT + '/v1/providers'),
             ('GET', test_client.ENDPOINT + '/v1/providers'),
             ('GET', test_client.ENDPOINT + '/v1/providers/lab%20web'),
             ('PATCH', test_client.ENDPOINT + '/v1/providers/lab-web'),
             ('DELETE', test_client.ENDPOINT + '/v1/providers/lab-web')],
            [call[:2] for call in self.session.calls])
        self.assertEqual({'name': 'lab-web', 'pool': 'lab'},
                         self.session.calls[0][2]['json'])


class TestUpdateFilter(base.TestCommand):

    def test_forms(self):
        self.assertEqual({'path_match': '/params/power'},
                         providers.update_filter('/params/power'))
        self.assertEqual({'path_match': '/params/.*',
                          'allowed_ops': ['add', 'replace']},
                         providers.update_filter('/params/.*:add,replace'))
        # A colon of the pattern is not taken for operations.
        self.assertEqual({'path_match': '/params/(?:a|b)'},
                         providers.update_filter('/params/(?:a|b)'))
        self.assertEqual({'path_match': '/x', 'allowed_ops': ['remove']},
                         providers.update_filter(
                             '{"path_match": "/x", "allowed_ops": '
                             '["remove"]}'))

    def test_bad_json(self):
        cmd = providers.CreateProvider(self.app, None)
        self.assertParserFails(cmd, ['p', '--pool', 'lab',
                                     '--update-filter', '{"x": 1}'])
        self.assertParserFails(cmd, ['p', '--pool', 'lab',
                                     '--update-filter', '{bad'])


class TestCreateProvider(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = providers.CreateProvider(self.app, None)
        self.client.provider_create.return_value = provider()

    def test_create_all(self):
        args = self.check_parser(self.cmd, [
            'lab-web', '--pool', 'lab', '--description', 'web machines',
            '--defaults', '{"resource_class": "baremetal", '
                          '"params": {"power": "on"}}',
            '--template-enable',
            '--validation', '{"type": "object"}',
            '--match-ignore', '/params/hostname',
            '--match-ignore', '/params/power',
            '--update-filter', '/params/power:replace',
            '--update-filter', '/params/tag',
            '--lifespan-default', '1h', '--lifespan-maximum', '1d',
            '--lifespan-relative-maximum', '8h'],
            [('name', 'lab-web'), ('template_enable', True)])
        columns, data = self.cmd.take_action(args)
        self.client.provider_create.assert_called_once_with(
            name='lab-web', pool='lab', description='web machines',
            defaults={'resource_class': 'baremetal',
                      'params': {'power': 'on'}},
            template={'enable': True},
            validation={'type': 'object'},
            match_ignore=['/params/hostname', '/params/power'],
            update_filters=[{'path_match': '/params/power',
                             'allowed_ops': ['replace']},
                            {'path_match': '/params/tag'}],
            lifespan={'default': '1h', 'maximum': '1d',
                      'relative_maximum': '8h'})
        self.assertNotIn('links', columns)
        # Maps render as JSON in tables.
        shown = dict(zip(columns, data, strict=True))
        self.assertEqual('{"resource_class": "baremetal", '
                         '"params": {"power": "on"}}',
                         shown['defaults'].human_readable())
        self.assertEqual('[{"path_match": "/params/power", '
                         '"allowed_ops": ["replace"]}]',
                         shown['update_filters'].human_readable())

    def test_create_minimal(self):
        args = self.check_parser(self.cmd, ['p', '--pool', 'lab',
                                            '--template-disable'], [])
        self.cmd.take_action(args)
        self.client.provider_create.assert_called_once_with(
            name='p', pool='lab', template={'enable': False})

    def test_create_needs_pool(self):
        self.assertParserFails(self.cmd, ['p'])

    def test_create_bad_defaults(self):
        self.assertParserFails(self.cmd, ['p', '--pool', 'lab',
                                          '--defaults', '[1]'])

    def test_create_enable_and_disable(self):
        self.assertParserFails(self.cmd, ['p', '--pool', 'lab',
                                          '--template-enable',
                                          '--template-disable'])

    def test_create_error(self):
        self.client.provider_create.side_effect = client.PoolClientError(
            'Pool nope could not be found.', 404)
        args = self.check_parser(self.cmd, ['p', '--pool', 'nope'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Pool nope could not be found. (HTTP 404)',
                         str(exc))


class TestListShowDeleteProvider(base.TestCommand):

    def test_list(self):
        self.client.provider_list.return_value = [provider()]
        cmd = providers.ListProvider(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, [], []))
        self.assertEqual(('Name', 'Pool', 'Description'), columns)
        self.assertEqual([('lab-web', 'lab', None)], list(data))

    def test_list_long(self):
        self.client.provider_list.return_value = [provider()]
        cmd = providers.ListProvider(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['--long'],
                                                          []))
        self.assertEqual(len(providers.FIELDS), len(columns))
        row = dict(zip(columns, list(data)[0], strict=True))
        self.assertEqual('/params/hostname',
                         row['Match Ignore'].human_readable())
        self.assertEqual('{"enable": true}',
                         row['Template'].human_readable())

    def test_show(self):
        self.client.provider_get.return_value = provider()
        cmd = providers.ShowProvider(self.app, None)
        columns, data = cmd.take_action(self.check_parser(cmd, ['lab-web'],
                                                          []))
        self.client.provider_get.assert_called_once_with('lab-web')
        shown = self.machine(columns, data)
        self.assertEqual({'type': 'object'}, shown['validation'])
        self.assertEqual('lab', shown['pool'])

    def test_delete(self):
        cmd = providers.DeleteProvider(self.app, None)
        self.client.provider_delete.side_effect = [
            None, client.PoolClientError('Provider b is used by claim c.',
                                         409)]
        args = self.check_parser(cmd, ['a', 'b'], [])
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                args)
        self.assertEqual('Failed to delete provider b: Provider b is used '
                         'by claim c. (HTTP 409)', str(exc))
        self.assertEqual('Deleted provider a\n', self.app.stdout.getvalue())


class TestSetProvider(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = providers.SetProvider(self.app, None)

    def test_set_poolboy_fields(self):
        args = self.check_parser(self.cmd, [
            'lab-web', '--match', '{"resource_class": "gold"}',
            '--override', '{"params": {"managed": "yes"}}',
            '--on-lost', 'error', '--no-resource-requires-claim',
            '--keep-params'], [('on_lost', 'error'), ('keep_params', True)])
        self.cmd.take_action(args)
        self.client.provider_update.assert_called_once_with('lab-web', [
            {'op': 'add', 'path': '/match',
             'value': {'resource_class': 'gold'}},
            {'op': 'add', 'path': '/override',
             'value': {'params': {'managed': 'yes'}}},
            {'op': 'add', 'path': '/on_lost', 'value': 'error'},
            {'op': 'add', 'path': '/resource_requires_claim',
             'value': False},
            {'op': 'add', 'path': '/keep_params', 'value': True}])

    def test_refused_poolboy_options(self):
        self.assertParserFails(self.cmd, ['lab-web', '--on-lost', 'panic'])
        self.assertParserFails(self.cmd, ['lab-web', '--keep-params',
                                          '--no-keep-params'])

    def test_set(self):
        args = self.check_parser(self.cmd, [
            'lab-web', '--pool', 'lab2', '--description', 'd',
            '--defaults', '{"resource_class": "gold"}',
            '--template-disable', '--validation', '{"type": "object"}',
            '--match-ignore', '/params/x',
            '--update-filter', '/params/y:add,remove',
            '--lifespan-maximum', '2d'], [])
        self.cmd.take_action(args)
        self.client.provider_update.assert_called_once_with('lab-web', [
            {'op': 'add', 'path': '/pool', 'value': 'lab2'},
            {'op': 'add', 'path': '/description', 'value': 'd'},
            {'op': 'add', 'path': '/defaults',
             'value': {'resource_class': 'gold'}},
            {'op': 'add', 'path': '/validation',
             'value': {'type': 'object'}},
            {'op': 'add', 'path': '/template/enable', 'value': False},
            {'op': 'add', 'path': '/match_ignore/-', 'value': '/params/x'},
            {'op': 'add', 'path': '/update_filters/-',
             'value': {'path_match': '/params/y',
                       'allowed_ops': ['add', 'remove']}},
            {'op': 'add', 'path': '/lifespan/maximum', 'value': '2d'},
        ])

    def test_set_nothing(self):
        self.cmd.take_action(self.check_parser(self.cmd, ['lab-web'], []))
        self.client.provider_update.assert_not_called()


class TestUnsetProvider(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = providers.UnsetProvider(self.app, None)
        self.client.provider_get.return_value = provider(
            match_ignore=['/params/hostname', '/params/power'],
            update_filters=[{'path_match': '/params/power'},
                            {'path_match': '/params/tag'}])

    def test_unset_fields(self):
        args = self.check_parser(self.cmd, [
            'lab-web', '--description', '--defaults', '--template',
            '--validation', '--all-match-ignore', '--all-update-filters'],
            [])
        self.cmd.take_action(args)
        self.client.provider_get.assert_not_called()
        self.client.provider_update.assert_called_once_with('lab-web', [
            {'op': 'remove', 'path': '/description'},
            {'op': 'remove', 'path': '/defaults'},
            {'op': 'remove', 'path': '/template'},
            {'op': 'remove', 'path': '/validation'},
            {'op': 'remove', 'path': '/match_ignore'},
            {'op': 'remove', 'path': '/update_filters'},
        ])

    def test_unset_items(self):
        args = self.check_parser(self.cmd, [
            'lab-web', '--match-ignore', '/params/power',
            '--update-filter', '/params/tag', '--lifespan-default',
            '--lifespan-relative-maximum'], [])
        self.cmd.take_action(args)
        self.client.provider_get.assert_called_once_with('lab-web')
        # relative_maximum is not set: nothing to remove there.
        self.client.provider_update.assert_called_once_with('lab-web', [
            {'op': 'remove', 'path': '/lifespan/default'},
            {'op': 'add', 'path': '/match_ignore',
             'value': ['/params/hostname']},
            {'op': 'add', 'path': '/update_filters',
             'value': [{'path_match': '/params/power'}]},
        ])

    def test_unset_items_not_there(self):
        args = self.check_parser(self.cmd, [
            'lab-web', '--match-ignore', '/params/nope'], [])
        self.cmd.take_action(args)
        self.client.provider_update.assert_not_called()

    def test_unset_nothing(self):
        self.cmd.take_action(self.check_parser(self.cmd, ['lab-web'], []))
        self.client.provider_update.assert_not_called()
        self.client.provider_get.assert_not_called()
