"""pool_client.v1.handles: the handle commands and client calls."""
from oslotest import base as oslotest_base

from pool_client import client
from pool_client.v1 import handles
from tests.unit.client import base
from tests.unit.client import test_client

HANDLE = {
    'uuid': base.ALLOCATION_UUID, 'claim_uuid': 'c1', 'claim_name': 'web',
    'resource_index': 0, 'provider': 'small', 'state': 'ready',
    'allocation_uuid': base.ALLOCATION_UUID, 'node_uuid': base.NODE_UUID,
    'node_name': 'node-1', 'pool_status': 'InUse',
    'provision_state': 'available', 'last_error': None,
    'created_at': '2026-11-26T00:00:00+00:00', 'updated_at': None,
    'links': base.LINKS,
}


class TestClientHandles(oslotest_base.BaseTestCase):

    def test_paths(self):
        session = test_client.FakeSession(
            test_client.response(200, {'handles': [HANDLE]}),
            test_client.response(200, HANDLE))
        c = client.Client(session, test_client.ENDPOINT)
        self.assertEqual([HANDLE], c.handle_list(provider='small',
                                                 state='ready', limit=5))
        c.handle_get(base.ALLOCATION_UUID, fields=['state'])
        url = test_client.ENDPOINT + '/v1/handles'
        self.assertEqual(
            [('GET', url), ('GET', url + '/' + base.ALLOCATION_UUID)],
            [call[:2] for call in session.calls])
        self.assertEqual({'provider': 'small', 'state': 'ready',
                          'limit': 5}, session.calls[0][2]['params'])
        self.assertEqual({'fields': 'state'}, session.calls[1][2]['params'])


class TestListHandle(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = handles.ListHandle(self.app, None)
        self.client.handle_list.return_value = [
            HANDLE, dict(HANDLE, uuid='u2', resource_index=1,
                         state='lost', node_name=None)]

    def test_list(self):
        columns, data = self.cmd.take_action(self.check_parser(self.cmd, [],
                                                               []))
        self.client.handle_list.assert_called_once_with(limit=None,
                                                        marker=None)
        self.assertEqual(('UUID', 'Claim Name', 'Resource Index',
                          'Provider', 'State', 'Node Name'), columns)
        self.assertEqual([('ready', 'node-1'), ('lost', None)],
                         [(row[4], row[5]) for row in data])

    def test_filters(self):
        args = self.check_parser(
            self.cmd, ['--claim', 'web', '--provider', 'small', '--node',
                       'node-1', '--state', 'lost', '--limit', '10'],
            [('claim', 'web'), ('state', 'lost')])
        self.cmd.take_action(args)
        self.client.handle_list.assert_called_once_with(
            limit=10, marker=None, claim='web', provider='small',
            node='node-1', state='lost')

    def test_bad_state(self):
        self.assertParserFails(self.cmd, ['--state', 'happy'])


class TestShowHandle(base.TestCommand):

    def test_show_fields(self):
        self.client.handle_get.return_value = {'state': 'lost',
                                               'last_error': 'deleted'}
        cmd = handles.ShowHandle(self.app, None)
        args = self.check_parser(cmd, ['h1', '--fields', 'state',
                                       'last_error'], [])
        columns, data = cmd.take_action(args)
        self.client.handle_get.assert_called_once_with(
            'h1', fields=['state', 'last_error'])
        self.assertEqual(('last_error', 'state'), columns)
        self.assertEqual(('deleted', 'lost'), data)
