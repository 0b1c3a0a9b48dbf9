"""The pool fields broker, autofill and last_error, and the broker fields
of nodes; AutoFill's horizon."""
import datetime

import sqlalchemy as sa

from pool_conductor import autofill
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
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
                'max_unready': 3, 'delete_unhealthy': True,
                'horizon': 7200}
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
                ({'create_parameters': []}, None),
                ({'horizon': -1}, None)):
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


class TestAutofillHorizon(test_pools.PoolAPITestCase):
    """Free members a window holds soon are not counted as Free: the
    broker is asked for more ahead of the window's start."""

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=0, group='windows')
        conductors_db.register_conductor(self.context, 'test-host')
        self.filler = autofill.AutoFiller('test-host')
        self.create('brokers', {'name': 'cloud', 'driver': 'fake'})
        self.create('pools', {'name': 'web', 'broker': 'cloud',
                              'autofill': {'use_autofill': True,
                                           'min_free': 2}})
        self.assertEqual(2, self.filler.check(self.context)['web'].created)
        self.now = db_api.utcnow().replace(microsecond=0)

    def book(self, start: datetime.timedelta):
        resp = self.post('/v1/allocations', {
            'pool': 'web',
            'start_at': (self.now + start).isoformat() + 'Z',
            'duration': '1h'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        return resp.get_json()

    def scale_ups(self):
        with db_api.reader(self.context) as session:
            return [e.payload for e in session.scalars(
                sa.select(models.Event).where(
                    models.Event.event_type
                    == 'pool.pool.autofill.scale_up.start')
                .order_by(models.Event.id))]

    def free(self):
        return self.get('/v1/pools/web/status').get_json()['statuses'].get(
            'Free', 0)

    def test_a_window_within_the_horizon_asks_for_one_more(self):
        before = len(self.scale_ups())
        self.book(datetime.timedelta(minutes=30))
        done = self.filler.check(self.context)['web']
        self.assertEqual((1, 1), (done.requested, done.created))
        self.assertEqual(3, self.free())
        events = self.scale_ups()[before:]
        self.assertEqual(1, len(events))
        self.assertEqual(1, events[0]['pool_object.data']['requested'])
        # Counted once: the next round asks for nothing.
        self.assertEqual(0, self.filler.check(self.context)['web'].requested)

    def test_a_window_beyond_the_horizon_asks_for_nothing(self):
        self.book(datetime.timedelta(hours=2))
        self.assertEqual(0, self.filler.check(self.context)['web'].requested)
        self.assertEqual(2, self.free())
        # A pool's own horizon reaches it.
        resp = self.patch_json('/v1/pools/web', [
            {'op': 'add', 'path': '/autofill/horizon', 'value': 3 * 3600}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(1, self.filler.check(self.context)['web'].requested)
        resp = self.patch_json('/v1/pools/web', [
            {'op': 'remove', 'path': '/autofill/horizon'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIsNone(resp.get_json()['autofill']['horizon'])

    def test_the_option_sets_the_horizon_and_0_turns_it_off(self):
        self.book(datetime.timedelta(minutes=30))
        self.config(autofill_horizon=0, group='windows')
        self.assertEqual(0, self.filler.check(self.context)['web'].requested)
        self.config(autofill_horizon=600, group='windows')
        self.assertEqual(0, self.filler.check(self.context)['web'].requested)
        self.config(autofill_horizon=3600, group='windows')
        self.assertEqual(1, self.filler.check(self.context)['web'].requested)

    def test_max_free_does_not_destroy_the_replacement(self):
        resp = self.patch_json('/v1/pools/web', [
            {'op': 'add', 'path': '/autofill/max_free', 'value': 2}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.book(datetime.timedelta(minutes=30))
        done = self.filler.check(self.context)['web']
        self.assertEqual((1, 0), (done.created, done.destroyed))
        done = self.filler.check(self.context)['web']
        self.assertEqual((0, 0), (done.requested, done.destroyed))
        self.assertEqual(3, self.free())
