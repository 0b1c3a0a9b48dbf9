"""pool_client.client: requests, error decoding, pagination, waits."""
import json

import fixtures
from keystoneauth1 import exceptions as ksa_exc
from oslotest import base
import requests

from pool_client import client

ENDPOINT = 'http://pool.example:6385'


def response(status, body=None, text=None, reason=None):
    resp = requests.Response()
    resp.status_code = status
    resp.reason = reason
    if body is not None:
        resp._content = json.dumps(body).encode()
        resp.headers['Content-Type'] = 'application/json'
    else:
        resp._content = (text or '').encode()
    return resp


def ironic_error(status, message):
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': message, 'debuginfo': None}
    return response(status, {'error_message': json.dumps(fault)})


class FakeSession:
    """A keystoneauth session that answers from a list of responses."""

    def __init__(self, *responses):
        self.responses = list(responses)
        self.calls = []

    def request(self, url, method, **kwargs):
        self.calls.append((method, url, kwargs))
        result = self.responses.pop(0)
        if isinstance(result, Exception):
            raise result
        return result


class TestErrorMessage(base.BaseTestCase):

    def test_ironic_error(self):
        resp = ironic_error(404, 'Allocation nope could not be found.')
        self.assertEqual('Allocation nope could not be found.',
                         client.error_message(resp))

    def test_error_message_not_json(self):
        resp = response(400, {'error_message': 'plain message'})
        self.assertEqual('plain message', client.error_message(resp))

    def test_error_message_dict(self):
        resp = response(400, {'error_message': {'faultstring': 'inner'}})
        self.assertEqual('inner', client.error_message(resp))

    def test_other_json(self):
        resp = response(409, {'message': 'conflict'})
        self.assertEqual('conflict', client.error_message(resp))

    def test_text_body(self):
        resp = response(502, text='Bad gateway from the proxy\n')
        self.assertEqual('Bad gateway from the proxy',
                         client.error_message(resp))

    def test_empty_body(self):
        resp = response(503, reason='Service Unavailable')
        self.assertEqual('Service Unavailable', client.error_message(resp))


class TestRequest(base.BaseTestCase):

    def client(self, *responses, **kwargs):
        self.session = FakeSession(*responses)
        return client.Client(self.session, ENDPOINT, **kwargs)

    def test_trim_endpoint(self):
        for endpoint in (ENDPOINT, ENDPOINT + '/', ENDPOINT + '/v1',
                         ENDPOINT + '/v1/'):
            self.assertEqual(ENDPOINT, client.trim_endpoint(endpoint))
        self.assertEqual('http://h/baremetal',
                         client.trim_endpoint('http://h/baremetal/v1/'))

    def test_get(self):
        c = self.client(response(200, {'uuid': 'u'}), api_version='1.52')
        self.assertEqual({'uuid': 'u'}, c.get('/v1/nodes/n1'))
        method, url, kwargs = self.session.calls[0]
        self.assertEqual(('GET', ENDPOINT + '/v1/nodes/n1'), (method, url))
        self.assertEqual('1.52',
                         kwargs['headers']['X-OpenStack-Ironic-API-Version'])
        self.assertEqual('application/json', kwargs['headers']['Accept'])
        self.assertIs(False, kwargs['raise_exc'])
        self.assertNotIn('json', kwargs)
        self.assertNotIn('params', kwargs)

    def test_default_version(self):
        c = self.client(response(204))
        self.assertIsNone(c.delete('/v1/nodes/n1'))
        headers = self.session.calls[0][2]['headers']
        self.assertEqual('1.60', headers['X-OpenStack-Ironic-API-Version'])

    def test_post_json(self):
        c = self.client(response(201, {'uuid': 'u'}))
        c.post('/v1/nodes', body={'driver': 'fake-hardware'})
        self.assertEqual({'driver': 'fake-hardware'},
                         self.session.calls[0][2]['json'])

    def test_query(self):
        c = self.client(response(200, {'nodes': []}))
        c.get('/v1/nodes', params={'maintenance': True, 'associated': False,
                                   'fields': ['uuid', 'name'],
                                   'owner': None})
        self.assertEqual({'maintenance': 'true', 'associated': 'false',
                          'fields': 'uuid,name'},
                         self.session.calls[0][2]['params'])

    def test_error(self):
        c = self.client(ironic_error(404, 'Allocation nope could not be '
                                          'found.'))
        exc = self.assertRaises(client.PoolClientError,
                                c.allocation_get, 'nope')
        self.assertEqual(404, exc.status_code)
        self.assertEqual('Allocation nope could not be found.', exc.message)
        self.assertEqual('Allocation nope could not be found. (HTTP 404)',
                         str(exc))

    def test_error_is_command_error(self):
        from osc_lib import exceptions
        c = self.client(ironic_error(500, 'boom'))
        self.assertRaises(exceptions.CommandError, c.get, '/v1/nodes')

    def test_connection_error(self):
        c = self.client(ksa_exc.ConnectFailure('refused'))
        exc = self.assertRaises(client.PoolClientError, c.get, '/v1/nodes')
        self.assertIsNone(exc.status_code)
        self.assertIn('Unable to reach the pool API at %s' % ENDPOINT,
                      str(exc))

    def test_not_json(self):
        c = self.client(response(200, text='<html>'))
        exc = self.assertRaises(client.PoolClientError, c.get, '/v1/nodes')
        self.assertIn('not JSON', str(exc))

    def test_full_url(self):
        c = self.client(response(200, {}))
        c.get('http://other/v1/nodes')
        self.assertEqual('http://other/v1/nodes', self.session.calls[0][1])


class TestResources(base.BaseTestCase):

    def client(self, *responses):
        self.session = FakeSession(*responses)
        return client.Client(self.session, ENDPOINT + '/v1/')

    def call(self, index=0):
        method, url, kwargs = self.session.calls[index]
        return (method, url[len(ENDPOINT):], kwargs.get('json'),
                kwargs.get('params'))

    def test_node_create(self):
        c = self.client(response(201, {'uuid': 'u'}))
        self.assertEqual({'uuid': 'u'},
                         c.node_create(driver='d', name='n'))
        self.assertEqual(('POST', '/v1/nodes', {'driver': 'd', 'name': 'n'},
                          None), self.call())

    def test_node_list_follows_next(self):
        c = self.client(
            response(200, {'nodes': [{'uuid': 'a'}, {'uuid': 'b'}],
                           'next': 'http://elsewhere/v1/nodes?'
                                   'resource_class=gold&limit=2&marker=b'}),
            response(200, {'nodes': [{'uuid': 'c'}]}))
        nodes = c.node_list(resource_class='gold')
        self.assertEqual(['a', 'b', 'c'], [n['uuid'] for n in nodes])
        self.assertEqual(('GET', '/v1/nodes', None,
                          {'resource_class': 'gold'}), self.call(0))
        # The next page comes from the endpoint, not the host of the link.
        self.assertEqual(('GET', '/v1/nodes', None,
                          {'resource_class': 'gold', 'limit': '2',
                           'marker': 'b'}), self.call(1))

    def test_node_list_repeats_filters_on_every_page(self):
        c = self.client(
            response(200, {'nodes': [{'uuid': 'a'}],
                           'next': ENDPOINT + '/v1/nodes?pool=web&'
                                   'CPUS=Gte%284%29&CPUS=Lte%288%29&'
                                   'limit=1&marker=a'}),
            response(200, {'nodes': [{'uuid': 'b'}]}))
        nodes = c.node_list(match={'pool': ['web'],
                                   'CPUS': ['Gte(4)', 'Lte(8)']})
        self.assertEqual(['a', 'b'], [n['uuid'] for n in nodes])
        self.assertEqual({'pool': ['web'], 'CPUS': ['Gte(4)', 'Lte(8)']},
                         self.call(0)[3])
        self.assertEqual({'pool': 'web', 'CPUS': ['Gte(4)', 'Lte(8)'],
                          'limit': '1', 'marker': 'a'}, self.call(1)[3])

    def test_node_list_limit(self):
        c = self.client(
            response(200, {'nodes': [{'uuid': 'a'}, {'uuid': 'b'}],
                           'next': ENDPOINT + '/v1/nodes?limit=2&marker=b'}))
        nodes = c.node_list(limit=2, marker='x', fields=['uuid'])
        self.assertEqual(['a', 'b'], [n['uuid'] for n in nodes])
        self.assertEqual(1, len(self.session.calls))
        self.assertEqual({'limit': 2, 'marker': 'x', 'fields': 'uuid'},
                         self.call()[3])

    def test_node_list_detail(self):
        c = self.client(response(200, {'nodes': []}))
        c.node_list(detail=True, sort_key='name', sort_dir='desc')
        self.assertEqual(('GET', '/v1/nodes/detail', None,
                          {'sort_key': 'name', 'sort_dir': 'desc'}),
                         self.call())

    def test_node_list_stops_on_repeated_marker(self):
        page = {'nodes': [{'uuid': 'a'}],
                'next': ENDPOINT + '/v1/nodes?marker=a'}
        c = self.client(response(200, page), response(200, page))
        self.assertEqual(2, len(c.node_list()))
        self.assertEqual(2, len(self.session.calls))

    def test_node_get_update_delete(self):
        c = self.client(response(200, {'uuid': 'u'}),
                        response(200, {'uuid': 'u'}), response(204))
        c.node_get('n 1', fields=['uuid', 'name'])
        patch = [{'op': 'add', 'path': '/name', 'value': 'x'}]
        c.node_update('n1', patch)
        c.node_delete('n1')
        self.assertEqual(('GET', '/v1/nodes/n%201', None,
                          {'fields': 'uuid,name'}), self.call(0))
        self.assertEqual(('PATCH', '/v1/nodes/n1', patch, None),
                         self.call(1))
        self.assertEqual(('DELETE', '/v1/nodes/n1', None, None),
                         self.call(2))

    def test_node_states_and_maintenance(self):
        c = self.client(response(202), response(202), response(202),
                        response(202))
        c.node_set_provision_state('n1', 'manage')
        c.node_set_maintenance('n1', reason='broken')
        c.node_set_maintenance('n1')
        c.node_unset_maintenance('n1')
        self.assertEqual([
            ('PUT', '/v1/nodes/n1/states/provision', {'target': 'manage'},
             None),
            ('PUT', '/v1/nodes/n1/maintenance', {'reason': 'broken'}, None),
            ('PUT', '/v1/nodes/n1/maintenance', None, None),
            ('DELETE', '/v1/nodes/n1/maintenance', None, None),
        ], [self.call(i) for i in range(4)])

    def test_node_traits(self):
        c = self.client(response(200, {'traits': ['CUSTOM_A']}),
                        response(204), response(204), response(204),
                        response(204))
        self.assertEqual(['CUSTOM_A'], c.node_traits('n1'))
        c.node_set_traits('n1', ['CUSTOM_B'])
        c.node_add_trait('n1', 'CUSTOM_C')
        c.node_remove_trait('n1', 'CUSTOM_C')
        c.node_remove_trait('n1')
        self.assertEqual([
            ('GET', '/v1/nodes/n1/traits', None, None),
            ('PUT', '/v1/nodes/n1/traits', {'traits': ['CUSTOM_B']}, None),
            ('PUT', '/v1/nodes/n1/traits/CUSTOM_C', None, None),
            ('DELETE', '/v1/nodes/n1/traits/CUSTOM_C', None, None),
            ('DELETE', '/v1/nodes/n1/traits', None, None),
        ], [self.call(i) for i in range(5)])

    def test_allocations(self):
        c = self.client(response(201, {'uuid': 'a'}),
                        response(200, {'allocations': [{'uuid': 'a'}]}),
                        response(200, {'uuid': 'a'}),
                        response(200, {'uuid': 'a'}), response(204))
        c.allocation_create(resource_class='gold', traits=['CUSTOM_A'])
        self.assertEqual([{'uuid': 'a'}],
                         c.allocation_list(node='n1', state='active'))
        c.allocation_get('a', fields=['uuid'])
        c.allocation_update('a', [{'op': 'remove', 'path': '/name'}])
        c.allocation_delete('a')
        self.assertEqual([
            ('POST', '/v1/allocations',
             {'resource_class': 'gold', 'traits': ['CUSTOM_A']}, None),
            ('GET', '/v1/allocations', None,
             {'node': 'n1', 'state': 'active'}),
            ('GET', '/v1/allocations/a', None, {'fields': 'uuid'}),
            ('PATCH', '/v1/allocations/a',
             [{'op': 'remove', 'path': '/name'}], None),
            ('DELETE', '/v1/allocations/a', None, None),
        ], [self.call(i) for i in range(5)])

    def test_ports(self):
        c = self.client(response(201, {'uuid': 'p'}),
                        response(200, {'ports': [{'uuid': 'p'}]}),
                        response(200, {'uuid': 'p'}),
                        response(200, {'uuid': 'p'}), response(204))
        c.port_create(address='52:54:00:12:34:56', node_uuid='n')
        self.assertEqual([{'uuid': 'p'}],
                         c.port_list(node='n1', detail=True))
        c.port_get('p', fields=['uuid'])
        c.port_update('p', [{'op': 'remove', 'path': '/extra'}])
        c.port_delete('p')
        self.assertEqual([
            ('POST', '/v1/ports',
             {'address': '52:54:00:12:34:56', 'node_uuid': 'n'}, None),
            ('GET', '/v1/ports/detail', None, {'node': 'n1'}),
            ('GET', '/v1/ports/p', None, {'fields': 'uuid'}),
            ('PATCH', '/v1/ports/p', [{'op': 'remove', 'path': '/extra'}],
             None),
            ('DELETE', '/v1/ports/p', None, None),
        ], [self.call(i) for i in range(5)])

    def test_pools(self):
        c = self.client(response(200, {'name': 'web'}),
                        response(200, {'name': 'web', 'total': 0}))
        patch = [{'op': 'add', 'path': '/description', 'value': 'd'}]
        c.pool_update('web', patch)
        self.assertEqual({'name': 'web', 'total': 0}, c.pool_status('web'))
        self.assertEqual([
            ('PATCH', '/v1/pools/web', patch, None),
            ('GET', '/v1/pools/web/status', None, None),
        ], [self.call(i) for i in range(2)])

    def test_profiles(self):
        patch = [{'op': 'remove', 'path': '/description'}]
        c = self.client(response(201, {'name': 'p'}),
                        response(200, {'profiles': [{'name': 'p'}]}),
                        response(200, {'name': 'p'}),
                        response(200, {'name': 'p'}), response(204))
        c.profile_create(name='p', params={'a': 1})
        self.assertEqual([{'name': 'p'}], c.profile_list())
        c.profile_get('p')
        c.profile_update('p', patch)
        c.profile_delete('p')
        self.assertEqual([
            ('POST', '/v1/profiles', {'name': 'p', 'params': {'a': 1}},
             None),
            ('GET', '/v1/profiles', None, None),
            ('GET', '/v1/profiles/p', None, None),
            ('PATCH', '/v1/profiles/p', patch, None),
            ('DELETE', '/v1/profiles/p', None, None),
        ], [self.call(i) for i in range(5)])

    def test_brokers(self):
        patch = [{'op': 'add', 'path': '/parameters/delay', 'value': 2}]
        c = self.client(response(201, {'name': 'b'}),
                        response(200, {'brokers': [{'name': 'b'}]}),
                        response(200, {'name': 'b'}),
                        response(200, {'name': 'b'}), response(204))
        c.broker_create(name='b', driver='fake')
        self.assertEqual([{'name': 'b'}], c.broker_list())
        c.broker_get('b')
        c.broker_update('b', patch)
        c.broker_delete('b')
        self.assertEqual([
            ('POST', '/v1/brokers', {'name': 'b', 'driver': 'fake'}, None),
            ('GET', '/v1/brokers', None, None),
            ('GET', '/v1/brokers/b', None, None),
            ('PATCH', '/v1/brokers/b', patch, None),
            ('DELETE', '/v1/brokers/b', None, None),
        ], [self.call(i) for i in range(5)])

    def test_workflows(self):
        patch = [{'op': 'add', 'path': '/stages', 'value': ['a']}]
        c = self.client(response(201, {'name': 'w'}),
                        response(200, {'workflows': [{'name': 'w'}]}),
                        response(200, {'name': 'w'}),
                        response(200, {'name': 'w'}), response(204))
        c.workflow_create(name='w', stages=['a', 'b'])
        self.assertEqual([{'name': 'w'}], c.workflow_list())
        c.workflow_get('w')
        c.workflow_update('w', patch)
        c.workflow_delete('w')
        self.assertEqual([
            ('POST', '/v1/workflows', {'name': 'w', 'stages': ['a', 'b']},
             None),
            ('GET', '/v1/workflows', None, None),
            ('GET', '/v1/workflows/w', None, None),
            ('PATCH', '/v1/workflows/w', patch, None),
            ('DELETE', '/v1/workflows/w', None, None),
        ], [self.call(i) for i in range(5)])

    def test_content_export_and_import(self):
        document = {'meta': {}, 'sections': {}}
        c = self.client(response(200, document),
                        response(200, {'pools': {'created': ['web']}}))
        self.assertEqual(document, c.content_export())
        self.assertEqual({'pools': {'created': ['web']}},
                         c.content_import(document))
        self.assertEqual([('GET', '/v1/content', None, None),
                          ('POST', '/v1/content', document, None)],
                         [self.call(i) for i in range(2)])

    def test_node_return_and_params(self):
        patch = [{'op': 'remove', 'path': '/a~1b'}]
        c = self.client(response(200, 'Success'),
                        response(200, {'a': 1}), response(200, {'a': 1}),
                        response(200, {}), response(200, {}))
        self.assertEqual('Success', c.node_return('n1', force=True))
        self.assertEqual({'a': 1}, c.node_params('n1'))
        c.node_params('n1', aggregate=True)
        c.node_set_params('n1', {})
        c.node_update_params('n1', patch)
        self.assertEqual([
            ('POST', '/v1/nodes/n1/returnToPool', {'force': True}, None),
            ('GET', '/v1/nodes/n1/params', None, None),
            ('GET', '/v1/nodes/n1/params', None, {'aggregate': 'true'}),
            ('PUT', '/v1/nodes/n1/params', {}, None),
            ('PATCH', '/v1/nodes/n1/params', patch, None),
        ], [self.call(i) for i in range(5)])


ALLOC = '5e9f2a3c-7a51-4c1e-9d8b-3c1e2f9a4b21'


class FakeClock:
    """time.monotonic and time.sleep of the client: sleeping moves the
    clock on."""

    def __init__(self, test):
        self.now = 100.0
        self.sleeps = []
        test.useFixture(fixtures.MockPatchObject(
            client.time, 'monotonic', side_effect=lambda: self.now))
        test.useFixture(fixtures.MockPatchObject(
            client.time, 'sleep', side_effect=self.sleep))

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


class TestWaitPolling(base.BaseTestCase):
    """Waits against a server without the event feed: polls."""

    def setUp(self):
        super().setUp()
        self.clock = FakeClock(self)

    def test_wait_until_active(self):
        session = FakeSession(
            ironic_error(404, 'The resource could not be found.'),
            response(200, {'uuid': ALLOC, 'state': 'allocating'}),
            response(200, {'uuid': ALLOC, 'state': 'allocating'}),
            response(200, {'uuid': ALLOC, 'state': 'active'}))
        c = client.Client(session, ENDPOINT, poll_interval=0.5)
        self.assertEqual('active', c.allocation_wait(ALLOC)['state'])
        self.assertEqual(ENDPOINT + '/v1/events', session.calls[0][1])
        self.assertEqual(4, len(session.calls))
        self.assertEqual([0.5, 0.5], self.clock.sleeps)

    def test_wait_reports_each_state_read(self):
        session = FakeSession(
            ironic_error(404, 'The resource could not be found.'),
            response(200, {'uuid': ALLOC, 'state': 'allocating'}),
            response(200, {'uuid': ALLOC, 'state': 'active'}))
        c = client.Client(session, ENDPOINT, poll_interval=0.5)
        seen = []
        c.allocation_wait(ALLOC, progress=seen.append)
        self.assertEqual(['allocating', 'active'], seen)

    def test_wait_error_returns(self):
        session = FakeSession(
            ironic_error(404, 'The resource could not be found.'),
            response(200, {'uuid': ALLOC, 'state': 'error',
                           'last_error': 'no nodes'}))
        c = client.Client(session, ENDPOINT)
        self.assertEqual('error',
                         c.allocation_wait(ALLOC, timeout=5)['state'])

    def test_wait_timeout(self):
        session = FakeSession(
            ironic_error(404, 'The resource could not be found.'),
            *[response(200, {'uuid': ALLOC, 'state': 'allocating'})] * 10)
        c = client.Client(session, ENDPOINT, poll_interval=2)
        exc = self.assertRaises(client.PoolClientError,
                                c.allocation_wait, ALLOC, timeout=5)
        self.assertEqual('Allocation %s is still allocating after 5 seconds'
                         % ALLOC, str(exc))
        self.assertEqual([2, 2, 1], self.clock.sleeps)

    def test_nodes_wait_polls_the_moving_nodes(self):
        session = FakeSession(
            ironic_error(404, 'The resource could not be found.'),
            response(200, {'uuid': 'b', 'name': 'nb',
                           'pool_status': 'Building',
                           'pool_allocated': True}),
            response(200, {'uuid': 'b', 'name': 'nb',
                           'pool_status': 'InUse', 'pool_allocated': True}))
        c = client.Client(session, ENDPOINT)
        results = c.nodes_wait([
            {'uuid': 'a', 'name': 'na', 'status': 'InUse',
             'allocated': True},
            {'uuid': 'b', 'name': 'nb', 'status': 'Building',
             'allocated': True}])
        self.assertEqual([('na', 'InUse'), ('nb', 'InUse')],
                         [(r['name'], r['status']) for r in results])
        # Only the node on its way is read again.
        self.assertEqual(3, len(session.calls))
        self.assertTrue(all(call[1] == ENDPOINT + '/v1/nodes/b'
                            for call in session.calls[1:]))

    def test_nodes_wait_timeout_names_the_nodes(self):
        session = FakeSession(
            ironic_error(404, 'The resource could not be found.'),
            *[response(200, {'uuid': 'b', 'name': 'nb',
                             'pool_status': 'Destroying',
                             'pool_allocated': False})] * 10)
        c = client.Client(session, ENDPOINT, poll_interval=2)
        exc = self.assertRaises(
            client.PoolClientError, c.nodes_wait,
            [{'uuid': 'b', 'name': 'nb', 'status': 'Building'}],
            timeout=5)
        self.assertEqual('After 5 seconds these nodes have not reached '
                         'their stage: nb (Destroying)', str(exc))
