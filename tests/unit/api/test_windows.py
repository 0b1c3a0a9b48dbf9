"""Windowed allocations: booking a window ahead (POST /v1/allocations
with start_at), its conflicts, what allocations that start now may take,
the start by a conductor, extension and deletion."""
import contextlib
import datetime

import sqlalchemy as sa

from pool_conductor.allocator import AllocationWorker
from pool_conductor.booking import windows
from pool_conductor import conductors
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from pool_conductor import expiry
from tests.unit.api import base

HOUR = datetime.timedelta(hours=1)
MINUTE = datetime.timedelta(minutes=1)


def rfc3339(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat() + 'Z'


def parse(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=None)


class WindowBase(base.APITestCase):
    """A conductor, its allocation worker, one node, and the ways of
    booking, starting and reading windows."""

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=1800, start_grace=300,
                    group='windows')
        conductors_db.register_conductor(self.context, 'test-host')
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)
        self.node = self.enroll(name='node-0')
        self.now = db_api.utcnow().replace(microsecond=0) + MINUTE
        self.started = []

    def paused(self):
        """The test's own writes (tests.unit.unrecorded pauses them)."""
        return contextlib.nullcontext()

    def book(self, start, end=None, status=201, **body):
        body.setdefault('resource_class', 'baremetal')
        body['start_at'] = rfc3339(self.now + start)
        if end is not None:
            body['end_at'] = rfc3339(self.now + end)
        resp = self.post('/v1/allocations', body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def run_casts(self):
        casts, self.casts = self.casts, []
        for alloc_id, _host in casts:
            self.worker.process(alloc_id)

    def allocation(self, uuid):
        return self.get('/v1/allocations/%s' % uuid).get_json()

    def events_of(self, uuid):
        with db_api.reader(self.context) as session:
            return [e.event_type for e in session.scalars(
                sa.select(models.Event).where(
                    models.Event.object_uuid == uuid)
                .order_by(models.Event.id))]

    def make_due(self, uuid):
        """The window of an allocation begins now (moved into the past)."""
        with self.paused(), db_api.writer(self.context) as session:
            alloc_id = session.scalar(sa.select(models.Allocation.id).where(
                models.Allocation.uuid == uuid))
            session.execute(sa.update(models.NodeSlot).where(
                models.NodeSlot.allocation_id == alloc_id).values(
                busy_from=db_api.utcnow() - datetime.timedelta(seconds=1)))
        return alloc_id

    def start_due(self, host='test-host'):
        return windows.start_due(self.context, host, self.started.append)


class WindowTestCase(WindowBase):

    # Booking

    def test_window_in_the_future_is_scheduled_with_its_slot(self):
        self.config(pre_margin=300, group='windows')
        body = self.book(HOUR, 3 * HOUR, name='lab').get_json()
        self.assertEqual('scheduled', body['state'])
        self.assertEqual(self.node['uuid'], body['node_uuid'])
        self.assertEqual(self.now + HOUR, parse(body['start_at']))
        self.assertEqual(self.now + 3 * HOUR, parse(body['lifespan_end']))
        self.assertEqual(self.now + HOUR - 5 * MINUTE,
                         parse(body['busy_from']))
        self.assertEqual(self.now + 3 * HOUR + 30 * MINUTE,
                         parse(body['busy_until']))
        # No conductor is asked now; the node stays free until then.
        self.assertEqual([], self.casts)
        node = self.get('/v1/nodes/node-0').get_json()
        self.assertEqual(('Free', None), (node['pool_status'],
                                          node['allocation_uuid']))
        self.assertEqual(['baremetal.allocation.create.end',
                          'pool.allocation.scheduled'],
                         self.events_of(body['uuid']))
        listed = self.get('/v1/allocations?state=scheduled').get_json()
        self.assertEqual([body['uuid']],
                         [a['uuid'] for a in listed['allocations']])

    def test_duration(self):
        body = self.book(HOUR, duration='90m').get_json()
        self.assertEqual(self.now + HOUR + 90 * MINUTE,
                         parse(body['lifespan_end']))

    def test_overlap_is_a_409_naming_the_holder_and_the_latest_end(self):
        first = self.book(2 * HOUR, 3 * HOUR).get_json()
        text = self.assertError(409, self.book(HOUR, 4 * HOUR, status=409))
        self.assertIn('allocation %s' % first['uuid'], text)
        self.assertIn('node %s' % self.node['uuid'], text)
        # 2 h minus the 30 min post margin.
        self.assertIn('the latest end possible from start_at is %s'
                      % rfc3339(self.now + 90 * MINUTE), text)
        # Within that end it fits.
        self.book(HOUR, 90 * MINUTE)

    def test_windows_touching_with_the_margin_fit(self):
        self.book(HOUR, 2 * HOUR)
        self.book(2 * HOUR + 30 * MINUTE, 3 * HOUR)
        self.assertError(409, self.book(2 * HOUR + 29 * MINUTE, 3 * HOUR,
                                        status=409))

    def test_second_node_takes_the_overlapping_window(self):
        other = self.enroll(name='node-1')
        a = self.book(HOUR, 2 * HOUR).get_json()
        b = self.book(HOUR, 2 * HOUR).get_json()
        self.assertEqual({self.node['uuid'], other['uuid']},
                         {a['node_uuid'], b['node_uuid']})
        self.assertError(409, self.book(HOUR, 2 * HOUR, status=409))

    def test_no_matching_node(self):
        text = self.assertError(409, self.book(
            HOUR, 2 * HOUR, resource_class='gpu', status=409))
        self.assertIn('no node of pool default matches the request', text)

    def test_bad_windows_are_400(self):
        start = rfc3339(self.now + HOUR)
        for body in (
                {'start_at': start},
                {'start_at': start, 'end_at': rfc3339(self.now + 2 * HOUR),
                 'duration': '1h'},
                {'start_at': (self.now + HOUR).isoformat(),
                 'duration': '1h'},
                {'start_at': start, 'end_at': rfc3339(self.now)},
                {'start_at': start, 'end_at': start},
                {'end_at': start},
                {'duration': '1h'},
                {'start_at': start, 'duration': 'soon'},
                {'start_at': start, 'duration': '1h',
                 'lifespan_end': rfc3339(self.now + 2 * HOUR)},
                {'start_at': start, 'duration': '1h', 'node': 'node-0'},
                {'start_at': 'tomorrow', 'duration': '1h'},
                {'start_at': 7, 'duration': '1h'},
                {'start_at': start, 'duration': '1h', 'unknown': 1},
                {'start_at': '9999-12-31T23:00:00Z', 'duration': '2h'}):
            body['resource_class'] = 'baremetal'
            self.assertError(400, self.post('/v1/allocations', body))

    def test_window_longer_than_the_pool_allows_is_400(self):
        resp = self.post('/v1/pools', {'name': 'short',
                                       'lifespan': {'maximum': '2h'}})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertError(400, self.book(HOUR, 4 * HOUR, pool='short',
                                        status=400), 'latest end allowed')

    def test_pool_margins(self):
        resp = self.post('/v1/pools', {'name': 'quick',
                                       'reservation_pre_margin': 60,
                                       'reservation_post_margin': 0})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual((60, 0), (resp.get_json()['reservation_pre_margin'],
                                   resp.get_json()['reservation_post_margin']))
        resp = self.post('/v1/pools/quick/addMachines',
                         {'machine_list': ['node-0']})
        self.assertEqual(200, resp.status_code, resp.get_data())
        a = self.book(HOUR, 2 * HOUR, pool='quick').get_json()
        self.assertEqual((self.now + HOUR - MINUTE, self.now + 2 * HOUR),
                         (parse(a['busy_from']), parse(a['busy_until'])))
        # No cleaning margin: the next window may start one minute (its
        # pre margin) after the end.
        self.book(2 * HOUR + MINUTE, 3 * HOUR, pool='quick')
        self.assertError(400, self.patch_json('/v1/pools/quick', [
            {'op': 'replace', 'path': '/reservation_post_margin',
             'value': -1}]))

    def test_missing_pool_is_404(self):
        self.assertError(404, self.book(HOUR, 2 * HOUR, pool='nope',
                                        status=404))

    def test_started_window_is_an_allocation_now(self):
        body = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'start_at': rfc3339(self.now - 2 * MINUTE),
            'end_at': rfc3339(self.now + HOUR)}).get_json()
        self.assertEqual('allocating', body['state'])
        self.assertEqual(self.now + HOUR, parse(body['lifespan_end']))

    # Allocations that start now and windows

    def test_open_ended_allocation_does_not_take_a_booked_node(self):
        self.book(5 * HOUR, 6 * HOUR)
        body = self.post('/v1/allocations',
                         {'resource_class': 'baremetal'}).get_json()
        self.run_casts()
        alloc = self.allocation(body['uuid'])
        self.assertEqual('error', alloc['state'])
        self.assertIn('No available nodes', alloc['last_error'])

    def test_allocation_ending_before_the_slot_takes_the_node(self):
        self.book(5 * HOUR, 6 * HOUR)
        fits = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'lifespan_end': rfc3339(self.now + 4 * HOUR)}).get_json()
        self.run_casts()
        self.assertEqual('active', self.allocation(fits['uuid'])['state'])

    def test_allocation_ending_in_the_slot_margin_does_not(self):
        self.book(5 * HOUR, 6 * HOUR)
        late = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'lifespan_end': rfc3339(self.now + 4 * HOUR + 31 * MINUTE)}
        ).get_json()
        self.run_casts()
        self.assertEqual('error', self.allocation(late['uuid'])['state'])

    def test_window_after_an_allocation_with_an_end(self):
        now = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'lifespan_end': rfc3339(self.now + 2 * HOUR)}).get_json()
        self.run_casts()
        self.assertEqual('active', self.allocation(now['uuid'])['state'])
        text = self.assertError(409, self.book(2 * HOUR, 3 * HOUR,
                                               status=409))
        self.assertIn('held by allocation %s until %s' % (
            now['uuid'], rfc3339(self.now + 150 * MINUTE)), text)
        self.book(150 * MINUTE, 3 * HOUR)

    def test_open_ended_allocation_holds_its_node_forever(self):
        now = self.post('/v1/allocations',
                        {'resource_class': 'baremetal'}).get_json()
        self.run_casts()
        text = self.assertError(409, self.book(100 * HOUR, 101 * HOUR,
                                               status=409))
        self.assertIn('held by allocation %s until never' % now['uuid'],
                      text)

    # Extension

    def test_extension_into_a_window_is_a_409_with_the_latest_end(self):
        now = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'lifespan_end': rfc3339(self.now + HOUR)}).get_json()
        self.run_casts()
        booked = self.book(3 * HOUR, 4 * HOUR).get_json()
        path = '/v1/allocations/%s' % now['uuid']
        text = self.assertError(409, self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(self.now + 3 * HOUR)}]))
        self.assertIn(booked['uuid'], text)
        self.assertIn('the latest end possible is %s'
                      % rfc3339(self.now + 150 * MINUTE), text)
        self.assertError(409, self.patch_json(path, [
            {'op': 'remove', 'path': '/lifespan_end'}]))
        resp = self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(self.now + 150 * MINUTE)}])
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_extension_of_a_window_moves_its_slot(self):
        a = self.book(HOUR, 2 * HOUR).get_json()
        b = self.book(4 * HOUR, 5 * HOUR).get_json()
        path = '/v1/allocations/%s' % a['uuid']
        resp = self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(self.now + 3 * HOUR)}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(self.now + 210 * MINUTE,
                         parse(resp.get_json()['busy_until']))
        text = self.assertError(409, self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(self.now + 4 * HOUR)}]))
        self.assertIn(b['uuid'], text)
        self.assertError(400, self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(self.now + 30 * MINUTE)}]))
        self.assertError(400, self.patch_json(path, [
            {'op': 'remove', 'path': '/lifespan_end'}]))

    # Deletion

    def test_deleting_a_scheduled_allocation_frees_its_slot(self):
        a = self.book(HOUR, 2 * HOUR).get_json()
        self.assertEqual(204, self.delete('/v1/allocations/%s'
                                          % a['uuid']).status_code)
        with db_api.reader(self.context) as session:
            self.assertEqual(0, session.scalar(
                sa.select(sa.func.count()).select_from(models.NodeSlot)))
            self.assertIsNone(session.scalar(sa.select(
                models.Node.booked_from)))
        self.book(HOUR, 2 * HOUR)

    # The start

    def test_a_conductor_starts_the_window_on_its_node(self):
        a = self.book(HOUR, 2 * HOUR).get_json()
        self.assertEqual(0, self.start_due())
        alloc_id = self.make_due(a['uuid'])
        self.assertEqual(1, self.start_due())
        self.assertEqual([alloc_id], self.started)
        self.assertEqual('allocating', self.allocation(a['uuid'])['state'])
        # Started once: another round (another conductor) finds nothing.
        self.assertEqual(0, self.start_due('other-host'))
        self.assertEqual('allocated', self.worker.process(alloc_id))
        body = self.allocation(a['uuid'])
        self.assertEqual(('active', self.node['uuid']),
                         (body['state'], body['node_uuid']))
        node = self.get('/v1/nodes/node-0').get_json()
        self.assertEqual(a['uuid'], node['allocation_uuid'])
        self.assertEqual(['baremetal.allocation.create.end',
                          'pool.allocation.scheduled',
                          'pool.allocation.starting',
                          'pool.allocation.state_set.success',
                          'pool.allocation.started'],
                         [e for e in self.events_of(a['uuid'])
                          if e.startswith(('pool.alloc', 'baremetal.alloc'))])
        # Its end releases it, and its slot with it.
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.id == alloc_id).values(
                lifespan_end=db_api.utcnow() - MINUTE))
        self.assertEqual(1, expiry.expire(self.context, 'test-host'))
        with db_api.reader(self.context) as session:
            self.assertEqual(0, session.scalar(
                sa.select(sa.func.count()).select_from(models.NodeSlot)))

    def test_node_not_free_at_the_start_waits_then_fails(self):
        a = self.book(HOUR, 2 * HOUR).get_json()
        alloc_id = self.make_due(a['uuid'])
        # The node is held by something else meanwhile (a conductor lock).
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).values(
                reservation='someone'))
        self.assertEqual(1, self.start_due())
        self.assertEqual(windows.WAITING, self.worker.process(alloc_id))
        self.assertEqual('allocating', self.allocation(a['uuid'])['state'])
        self.config(start_grace=0, group='windows')
        self.assertEqual('failed', self.worker.process(alloc_id))
        body = self.allocation(a['uuid'])
        self.assertEqual('error', body['state'])
        self.assertIn('start_grace', body['last_error'])
        with db_api.reader(self.context) as session:
            self.assertIsNone(session.scalar(sa.select(
                models.Node.booked_from)))

    def test_dead_conductors_start_taken_over(self):
        a = self.book(HOUR, 2 * HOUR).get_json()
        alloc_id = self.make_due(a['uuid'])
        self.config(heartbeat_timeout=60, group='conductor')
        conductors_db.register_conductor(self.context, 'dead-host')
        # dead-host claims the start, then dies before giving the node.
        self.assertEqual(1, self.start_due('dead-host'))
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == 'dead-host').values(
                updated_at=db_api.utcnow() - HOUR))
        alive = ['test-host']
        orphans = allocations_db.list_orphaned(self.context, alive)
        self.assertEqual([(alloc_id, 'dead-host')], orphans)
        self.assertTrue(conductors.take_over_allocation(
            self.context, alloc_id, 'dead-host', 'test-host'))
        self.assertEqual('allocated', self.worker.process(alloc_id))
        self.assertEqual('active', self.allocation(a['uuid'])['state'])

    def test_claims_and_pool_moves_leave_booked_nodes(self):
        self.book(5 * HOUR, 6 * HOUR)
        resp = self.post('/v1/pools', {'name': 'other'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        with db_api.reader(self.context) as session:
            from pool_conductor.db import free_nodes
            self.assertEqual([], free_nodes.matching(
                session.connection(), 'default', None, (), {}))
            self.assertEqual([], slots_db.overlaps(session.connection()))

    # Availability

    def availability(self, query, status=200):
        resp = self.get('/v1/availability?' + query)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def test_availability_free_periods_and_earliest_start(self):
        other = self.enroll(name='node-1')
        a = self.book(HOUR, 2 * HOUR).get_json()
        self.book(HOUR, 2 * HOUR)
        after = rfc3339(self.now)
        before = rfc3339(self.now + 10 * HOUR)
        body = self.availability(
            'resource_class=baremetal&duration=2h&count=2&after=%s&before=%s'
            % (after, before)).get_json()
        # Both nodes are free from now to the first booking, and again
        # after its end plus the post margin.
        self.assertEqual(self.now + 150 * MINUTE,
                         parse(body['earliest_start']))
        self.assertEqual({self.node['uuid'], other['uuid']},
                         {n['uuid'] for n in body['nodes']})
        for node in body['nodes']:
            self.assertEqual(
                [{'from': after, 'until': rfc3339(self.now + HOUR)},
                 {'from': rfc3339(self.now + 150 * MINUTE),
                  'until': before}],
                [{k: rfc3339(parse(v)) for k, v in p.items()}
                 for p in node['free']])
        # One node for an hour fits before the bookings.
        body = self.availability(
            'resource_class=baremetal&duration=30m&after=%s' % after
        ).get_json()
        self.assertEqual(after, rfc3339(parse(body['earliest_start'])))
        # Once the first booking is gone, one node is free for 2 h now.
        self.delete('/v1/allocations/%s' % a['uuid'])
        body = self.availability(
            'resource_class=baremetal&duration=2h&after=%s' % after
        ).get_json()
        self.assertEqual(after, rfc3339(parse(body['earliest_start'])))

    def test_availability_none_within_the_horizon(self):
        body = self.availability(
            'resource_class=gpu&duration=1h').get_json()
        self.assertIsNone(body['earliest_start'])
        self.assertEqual([], body['nodes'])

    def test_availability_bad_queries_are_4xx(self):
        for query in ('', 'duration=soon', 'duration=1h&count=0',
                      'duration=1h&count=x', 'duration=1h&after=tomorrow',
                      'duration=1h&after=2030-01-01T00:00:00',
                      'duration=1h&before=2000-01-01T00:00:00Z',
                      'duration=1h&unknown=1', 'duration=1h&traits=bad trait',
                      'duration=1h&before=2099-01-01T00:00:00Z'):
            self.assertError(400, self.availability(query, status=400))
        self.assertError(404, self.availability('duration=1h&pool=nope',
                                                status=404))
