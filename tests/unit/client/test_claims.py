"""pool_client.v1.claims: the claim commands, and the client's wait."""
import copy
from unittest import mock

from osc_lib import exceptions
from oslotest import base as oslotest_base

from pool_client import client
from pool_client.v1 import claims
from tests.unit.client import base
from tests.unit.client import test_client

CLAIM_UUID = '7d1f0c2a-3b4e-4f5a-9c6d-1e2f3a4b5c6d'
CLAIM = {
    'uuid': CLAIM_UUID,
    'name': 'web',
    'owner': None,
    'state': 'pending',
    'last_error': None,
    'resources': [
        {'provider': 'lab-web',
         'template': {'resource_class': 'baremetal',
                      'params': {'hostname': 'web-0', 'power': 'on'}}},
        {'provider': 'lab-db', 'template': {'resource_class': 'baremetal'}},
    ],
    'allocations': [],
    'lifespan_end': '2026-11-24T06:00:00+00:00',
    'created_at': '2026-11-24T05:00:00+00:00',
    'updated_at': None,
    'links': base.LINKS,
}


def claim(**values):
    result = copy.deepcopy(CLAIM)
    result.update(values)
    return result


class TestClientClaims(oslotest_base.BaseTestCase):

    def setUp(self):
        super().setUp()
        patcher = mock.patch.object(client.time, 'sleep', autospec=True)
        self.sleep = patcher.start()
        self.addCleanup(patcher.stop)

    def client(self, *responses):
        self.session = test_client.FakeSession(*responses)
        return client.Client(self.session, test_client.ENDPOINT)

    def test_paths(self):
        c = self.client(
            test_client.response(201, CLAIM),
            test_client.response(200, {'claims': [CLAIM]}),
            test_client.response(200, CLAIM),
            test_client.response(200, CLAIM),
            test_client.response(204))
        c.claim_create(resources=[{'provider': 'lab-web'}])
        self.assertEqual([CLAIM], c.claim_list(state='bound', limit=5))
        c.claim_get('web', fields=['state', 'allocations'])
        c.claim_update('web', [{'op': 'remove', 'path': '/lifespan_end'}])
        c.claim_delete('web')
        url = test_client.ENDPOINT + '/v1/claims'
        self.assertEqual(
            [('POST', url), ('GET', url), ('GET', url + '/web'),
             ('PATCH', url + '/web'), ('DELETE', url + '/web')],
            [call[:2] for call in self.session.calls])
        self.assertEqual({'state': 'bound', 'limit': 5},
                         self.session.calls[1][2]['params'])
        self.assertEqual({'fields': 'state,allocations'},
                         self.session.calls[2][2]['params'])

    def test_wait_until_bound(self):
        c = self.client(test_client.ironic_error(404, 'Not found'),
                        test_client.response(200, claim()),
                        test_client.response(200, claim()),
                        test_client.response(200, claim(state='bound')))
        self.assertEqual('bound', c.claim_wait(CLAIM_UUID)['state'])
        self.assertEqual(4, len(self.session.calls))
        self.assertEqual(2, self.sleep.call_count)

    def test_wait_timeout(self):
        c = self.client(test_client.ironic_error(404, 'Not found'),
                        *[test_client.response(200, claim())] * 3)
        with mock.patch.object(client.time, 'monotonic',
                               side_effect=[100, 101, 106, 106]):
            exc = self.assertRaises(client.PoolClientError, c.claim_wait,
                                    CLAIM_UUID, timeout=5)
        self.assertEqual('Claim %s is still pending after 5 seconds'
                         % CLAIM_UUID, str(exc))
        self.assertEqual(3, len(self.session.calls))


class TestCreateClaim(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = claims.CreateClaim(self.app, None)
        self.client.claim_create.return_value = claim()

    def test_create(self):
        args = self.check_parser(self.cmd, [
            'web', '--resource', 'lab-web',
            '--resource', 'lab-web={"params": {"power": "off"}}',
            '--lifespan-end', '2026-11-24T08:00:00Z'],
            [('name', 'web'), ('wait_timeout', None)])
        columns, data = self.cmd.take_action(args)
        self.client.claim_create.assert_called_once_with(
            name='web', lifespan_end='2026-11-24T08:00:00Z',
            resources=[{'provider': 'lab-web'},
                       {'provider': 'lab-web',
                        'template': {'params': {'power': 'off'}}}])
        self.client.claim_wait.assert_not_called()
        shown = dict(zip(columns, data, strict=True))
        self.assertNotIn('links', shown)
        # Resources render as JSON in tables.
        self.assertEqual(
            '[{"provider": "lab-web", "template": {"resource_class": '
            '"baremetal", "params": {"hostname": "web-0", "power": "on"}}}, '
            '{"provider": "lab-db", "template": {"resource_class": '
            '"baremetal"}}]', shown['resources'].human_readable())

    def test_create_without_name(self):
        args = self.check_parser(self.cmd, ['--resource', 'p',
                                            '--uuid', CLAIM_UUID],
                                 [('name', None)])
        self.cmd.take_action(args)
        self.client.claim_create.assert_called_once_with(
            uuid=CLAIM_UUID, resources=[{'provider': 'p'}])

    def test_create_needs_resource(self):
        self.assertParserFails(self.cmd, ['web'])

    def test_create_bad_template(self):
        for text in ('p=[1]', 'p={bad', '={}'):
            args = self.check_parser(self.cmd, ['--resource', text], [])
            self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                              args)
        self.client.claim_create.assert_not_called()

    def test_create_wait(self):
        self.client.claim_wait.return_value = claim(
            state='bound', allocations=[base.ALLOCATION_UUID])
        args = self.check_parser(self.cmd, ['web', '--resource', 'p',
                                            '--wait'],
                                 [('wait_timeout', 0)])
        columns, data = self.cmd.take_action(args)
        self.client.claim_wait.assert_called_once_with(
            CLAIM_UUID, timeout=0, progress=mock.ANY)
        shown = self.machine(columns, data)
        self.assertEqual('bound', shown['state'])
        self.assertEqual([base.ALLOCATION_UUID], shown['allocations'])

    def test_create_wait_timeout_value(self):
        self.client.claim_wait.return_value = claim(state='ready')
        args = self.check_parser(self.cmd, ['--resource', 'p', '--wait',
                                            '30'], [('wait_timeout', 30)])
        self.cmd.take_action(args)
        self.client.claim_wait.assert_called_once_with(
            CLAIM_UUID, timeout=30, progress=mock.ANY)

    def test_create_wait_error(self):
        self.client.claim_wait.return_value = claim(
            state='error', last_error='No Free machine of pool lab '
                                      '(provider lab-web) matches resource '
                                      '1: resource class baremetal.')
        args = self.check_parser(self.cmd, ['web', '--resource', 'p',
                                            '--wait', '10'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Claim %s failed: No Free machine of pool lab '
                         '(provider lab-web) matches resource 1: resource '
                         'class baremetal.' % CLAIM_UUID, str(exc))

    def test_create_wait_expired(self):
        self.client.claim_wait.return_value = claim(state='expired')
        args = self.check_parser(self.cmd, ['--resource', 'p', '--wait'],
                                 [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Claim %s is expired, not bound' % CLAIM_UUID,
                         str(exc))

    def test_create_negative_wait(self):
        args = self.check_parser(self.cmd, ['--resource', 'p', '--wait',
                                            '-1'], [])
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          args)
        self.client.claim_create.assert_not_called()


class TestListClaim(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = claims.ListClaim(self.app, None)
        self.client.claim_list.return_value = [
            claim(), claim(uuid='u2', name='db', state='bound')]

    def test_list(self):
        columns, data = self.cmd.take_action(self.check_parser(self.cmd, [],
                                                               []))
        self.client.claim_list.assert_called_once_with(limit=None,
                                                       marker=None)
        self.assertEqual(('UUID', 'Name', 'State', 'Owner', 'Lifespan End'),
                         columns)
        self.assertEqual(['web', 'db'], [row[1] for row in data])

    def test_list_state_and_sort(self):
        args = self.check_parser(self.cmd, ['--state', 'bound', '--owner',
                                            'p1', '--sort', 'name:desc',
                                            '--limit', '10'],
                                 [('state', 'bound')])
        columns, data = self.cmd.take_action(args)
        self.client.claim_list.assert_called_once_with(
            limit=10, marker=None, state='bound', owner='p1',
            sort_key='name', sort_dir='desc')
        self.assertEqual(['web', 'db'], [row[1] for row in data])

    def test_list_unknown_state(self):
        self.assertParserFails(self.cmd, ['--state', 'active'])

    def test_list_long(self):
        columns, data = self.cmd.take_action(
            self.check_parser(self.cmd, ['--long'], []))
        self.assertEqual(len(claims.FIELDS), len(columns))
        row = list(data)[0]
        self.assertEqual(CLAIM['resources'],
                         row[columns.index('Resources')].machine_readable())

    def test_list_fields(self):
        args = self.check_parser(self.cmd, ['--fields', 'name', 'state'],
                                 [('fields', [['name', 'state']])])
        columns, data = self.cmd.take_action(args)
        self.client.claim_list.assert_called_once_with(
            limit=None, marker=None, fields=['name', 'state'])
        self.assertEqual(('Name', 'State'), columns)

    def test_list_fields_and_long(self):
        self.assertParserFails(self.cmd, ['--long', '--fields', 'uuid'])


class TestShowClaim(base.TestCommand):

    def test_show_fields(self):
        self.client.claim_get.return_value = {'state': 'error',
                                              'last_error': 'no machine'}
        cmd = claims.ShowClaim(self.app, None)
        args = self.check_parser(cmd, ['web', '--fields', 'state',
                                       'last_error'], [])
        columns, data = cmd.take_action(args)
        self.client.claim_get.assert_called_once_with(
            'web', fields=['state', 'last_error'])
        self.assertEqual(('last_error', 'state'), columns)
        self.assertEqual(('no machine', 'error'), data)

    def test_show_not_found(self):
        self.client.claim_get.side_effect = client.PoolClientError(
            'Claim nope could not be found.', 404)
        cmd = claims.ShowClaim(self.app, None)
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                self.check_parser(cmd, ['nope'], []))
        self.assertEqual('Claim nope could not be found. (HTTP 404)',
                         str(exc))


class TestSetClaim(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = claims.SetClaim(self.app, None)
        self.client.claim_get.return_value = {'resources':
                                              CLAIM['resources']}

    def test_set_lifespan_end(self):
        args = self.check_parser(self.cmd, ['web', '--lifespan-end',
                                            '2026-11-24T09:00:00Z'], [])
        self.cmd.take_action(args)
        self.client.claim_get.assert_not_called()
        self.client.claim_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/lifespan_end',
             'value': '2026-11-24T09:00:00Z'}])

    def test_set_resource_params(self):
        args = self.check_parser(self.cmd, [
            'web', '--resource-param', '0:power=off',
            '--resource-param', '0:a/b={"x": 1}',
            '--resource-param', '1:power=on',
            '--resource-param', '1:count=2'], [])
        self.cmd.take_action(args)
        self.client.claim_get.assert_called_once_with('web',
                                                      fields=['resources'])
        # A template without params gets them whole; a slash in a key is
        # part of the key.
        self.client.claim_update.assert_called_once_with('web', [
            {'op': 'add', 'path': '/resources/0/template/params/power',
             'value': 'off'},
            {'op': 'add', 'path': '/resources/0/template/params/a~1b',
             'value': {'x': 1}},
            {'op': 'add', 'path': '/resources/1/template/params',
             'value': {'power': 'on', 'count': 2}},
        ])

    def test_set_resource_param_no_such_index(self):
        args = self.check_parser(self.cmd, ['web', '--resource-param',
                                            '2:power=off'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertEqual('Claim web has 2 resource(s): there is no '
                         'resource 2', str(exc))
        self.client.claim_update.assert_not_called()

    def test_set_resource_param_malformed(self):
        for text in ('power=off', 'x:power=off', '0:power', '0:'):
            args = self.check_parser(self.cmd, ['web', '--resource-param',
                                                text], [])
            self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                              args)
        self.client.claim_update.assert_not_called()

    def test_set_refused(self):
        self.client.claim_update.side_effect = client.PoolClientError(
            'resources/0/template/params/hostname: the update_filters of '
            'provider lab-web do not allow the operation replace on this '
            'path.', 400)
        args = self.check_parser(self.cmd, ['web', '--resource-param',
                                            '0:hostname=db'], [])
        exc = self.assertRaises(exceptions.CommandError,
                                self.cmd.take_action, args)
        self.assertIn('do not allow the operation replace', str(exc))

    def test_set_nothing(self):
        self.cmd.take_action(self.check_parser(self.cmd, ['web'], []))
        self.client.claim_update.assert_not_called()


class TestUnsetClaim(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = claims.UnsetClaim(self.app, None)
        self.client.claim_get.return_value = {'resources':
                                              CLAIM['resources']}

    def test_unset(self):
        args = self.check_parser(self.cmd, [
            'web', '--lifespan-end', '--resource-param', '0:power',
            '--resource-param', '1:power'], [])
        self.cmd.take_action(args)
        # Resource 1 has no params: nothing to remove there.
        self.client.claim_update.assert_called_once_with('web', [
            {'op': 'remove', 'path': '/lifespan_end'},
            {'op': 'remove', 'path': '/resources/0/template/params/power'},
        ])

    def test_unset_param_not_there(self):
        args = self.check_parser(self.cmd, ['web', '--resource-param',
                                            '0:nope'], [])
        self.cmd.take_action(args)
        self.client.claim_update.assert_not_called()


class TestDeleteClaim(base.TestCommand):

    def test_delete(self):
        cmd = claims.DeleteClaim(self.app, None)
        self.client.claim_delete.side_effect = [
            None, client.PoolClientError('Node n is locked by host c.', 409)]
        args = self.check_parser(cmd, ['web', 'db'],
                                 [('claims', ['web', 'db'])])
        exc = self.assertRaises(exceptions.CommandError, cmd.take_action,
                                args)
        self.assertEqual('Failed to delete claim db: Node n is locked by '
                         'host c. (HTTP 409)', str(exc))
        self.assertEqual('Deleted claim web\n', self.app.stdout.getvalue())

    def test_delete_needs_claim(self):
        self.assertParserFails(claims.DeleteClaim(self.app, None), [])
