"""The pool fields broker, autofill and last_error, and the broker fields
of nodes."""
from pool_conductor import autofill
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import test_pools


class TestAutofillFields(test_pools.PoolAPITestCase):

    def setUp(self):
        super().setUp()
        self.create('brokers', {'name': 'cloud', 'driver': 'fake'})
        self.create('pools', {'name': 'spare'})

    def test_defaults(self):
        pool = self.create('pools', {'name': 'web'})
        self.assertIsNone(pool['broker'])
        self.assertIsNone(pool['last_error'])
        self.assertEqual(autofill.DEFAULTS, pool['autofill'])

    def test_create_show_update(self):
        fill = {'use_autofill': True, 'min_free': 2, 'max_free': 5,
                'acquire_pool': 'spare', 'return_pool': 'spare',
                'create_parameters': {'resource_class': 'vm'},
                'max_unready': 3, 'delete_unhealthy': True}
        pool = self.create('pools', {'name': 'web', 'broker': 'cloud',
                                     'autofill': fill})
        self.assertEqual(fill, pool['autofill'])
        self.assertEqual('cloud', self.get('/v1/pools/web').get_json()
                         ['broker'])
        resp = self.patch_json('/v1/pools/web', [
            {'op': 'replace', 'path': '/autofill/min_free', 'value': 4},
            {'op': 'remove', 'path': '/autofill/acquire_pool'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        after = self.get('/v1/pools/web').get_json()['autofill']
        self.assertEqual({**fill, 'min_free': 4, 'acquire_pool': None},
                         after)
        # A partial autofill gets the defaults of the rest.
        resp = self.patch_json('/v1/pools/web', [
            {'op': 'replace', 'path': '/autofill',
             'value': {'min_free': 1, 'use_autofill': True}}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({**autofill.DEFAULTS, 'min_free': 1,
                          'use_autofill': True}, resp.get_json()['autofill'])
        # The broker leaves a pool that still has nothing else to fill
        # from.
        self.assertError(400, self.patch_json('/v1/pools/web', [
            {'op': 'remove', 'path': '/broker'}]), 'cannot fill itself')
        # A broker a pool uses stays.
        self.assertError(409, self.delete('/v1/brokers/cloud'),
                         'pool web uses it')

    def test_invalid(self):
        for fill, message in (
                ({'min_free': 3, 'max_free': 2}, 'more than its max_free'),
                ({'acquire_pool': 'web'}, 'cannot be the pool itself'),
                ({'return_pool': 'web'}, 'cannot be the pool itself'),
                ({'use_autofill': True, 'min_free': 1},
                 'neither a broker nor'),
                ({'min_free': -1}, None), ({'max_unready': 0}, None),
                ({'use_autofill': 'yes'}, None), ({'colour': 1}, None),
                ({'create_parameters': []}, None)):
            self.assertError(400, self.post('/v1/pools', {
                'name': 'web', 'autofill': fill}), message)
        self.assertError(404, self.post('/v1/pools', {
            'name': 'web', 'broker': 'nope'}), 'Broker nope')
        self.assertError(404, self.post('/v1/pools', {
            'name': 'web', 'autofill': {'return_pool': 'nope'}}),
            'Pool nope')
        self.create('pools', {'name': 'web'})
        self.assertError(400, self.patch_json('/v1/pools/web', [
            {'op': 'add', 'path': '/autofill/max_free', 'value': 1},
            {'op': 'add', 'path': '/autofill/min_free', 'value': 2}]),
            'more than its max_free')
        self.assertError(400, self.patch_json('/v1/pools/web', [
            {'op': 'add', 'path': '/last_error', 'value': 'x'}]))

    def test_unclaimed_lifespan(self):
        pool = self.create('pools', {'name': 'web',
                                     'lifespan': {'unclaimed': '4h'}})
        self.assertEqual({'unclaimed': '4h'}, pool['lifespan'])
        self.assertError(400, self.post('/v1/pools', {
            'name': 'w2', 'lifespan': {'unclaimed': '4 hours'}}))
        self.assertError(400, self.post('/v1/pools', {
            'name': 'w2', 'lifespan': {'unclaimed': '0h'}}),
            'lifespan.unclaimed must be longer than 0')

    def test_node_broker_fields_are_read_only(self):
        node = nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'broker': 'cloud',
            'broker_ref': 'r-1', 'broker_token': 't' * 32})
        body = self.get('/v1/nodes/%s' % node.uuid).get_json()
        self.assertEqual(('cloud', 'r-1', 't' * 32),
                         (body['broker'], body['broker_ref'],
                          body['broker_token']))
        for field in ('broker', 'broker_ref', 'broker_token'):
            self.assertError(400, self.patch_json(
                '/v1/nodes/%s' % node.uuid,
                [{'op': 'replace', 'path': '/' + field, 'value': 'x'}]),
                'it is the broker that made the node')


class TestPoolStatus(test_pools.PoolAPITestCase):

    def test_creating_and_unhealthy(self):
        conductors_db.register_conductor(self.context, 'test-host')
        self.create('brokers', {'name': 'cloud', 'driver': 'fake',
                                'parameters': {'fail': 1}})
        self.create('pools', {'name': 'web', 'broker': 'cloud',
                              'autofill': {'use_autofill': True,
                                           'min_free': 2}})
        autofill.AutoFiller('test-host').check(self.context)
        status = self.get('/v1/pools/web/status').get_json()
        self.assertEqual((2, 2, 2, 2), (
            status['total'], status['statuses']['Creating'],
            status['creating'], status['unhealthy']))
        self.assertIn('Broker cloud failed', self.get(
            '/v1/pools/web').get_json()['last_error'])
