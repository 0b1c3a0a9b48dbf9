"""Maintenance windows of a node: booking, listing and deleting them,
their conflicts, the conductors' round that puts the node into
maintenance at the start (once nothing holds it) and takes it out at the
end, and how bookings, availability and the preview pass over them."""
import contextlib
import datetime

import sqlalchemy as sa

from pool_api import openapi
from pool_api import routes
from pool_conductor.allocator import AllocationWorker
from pool_conductor.booking import maintenance_windows
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import free_nodes
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from tests.unit.api import base
from tests.unit.api import test_openapi

HOUR = datetime.timedelta(hours=1)
MINUTE = datetime.timedelta(minutes=1)
SECOND = datetime.timedelta(seconds=1)


def rfc3339(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat() + 'Z'


def parse(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=None)


class MaintenanceWindowTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=1800, group='windows')
        conductors_db.register_conductor(self.context, 'test-host')
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)
        self.node = self.enroll(name='node-0')
        self.path = '/v1/nodes/node-0/maintenance_windows'
        self.now = db_api.utcnow().replace(microsecond=0) + MINUTE
        self.checker = test_openapi.OpenAPIChecker(
            openapi.build(routes.ROUTES))

    def paused(self):
        """The test's own writes (tests.unit.unrecorded pauses them)."""
        return contextlib.nullcontext()

    def call(self, method, path, body=None, status=200):
        resp = self.request(method, path, body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        self.checker.check(method, path, resp)
        return resp

    def book_maintenance(self, start, end, reason='firmware', status=201):
        return self.call('POST', self.path, {
            'start_at': rfc3339(self.now + start),
            'end_at': rfc3339(self.now + end), 'reason': reason},
            status=status)

    def book(self, start, end, status=201):
        """A windowed allocation."""
        resp = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'start_at': rfc3339(self.now + start),
            'end_at': rfc3339(self.now + end)})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def allocate_now(self, end=None):
        """An allocation that starts now, given its node."""
        body = {'resource_class': 'baremetal'}
        if end is not None:
            body['lifespan_end'] = rfc3339(self.now + end)
        alloc = self.post('/v1/allocations', body).get_json()
        casts, self.casts = self.casts, []
        for alloc_id, _host in casts:
            self.worker.process(alloc_id)
        return self.get('/v1/allocations/%s' % alloc['uuid']).get_json()

    def node_now(self):
        return self.get('/v1/nodes/node-0').get_json()

    def windows(self):
        return self.call('GET', self.path).get_json()['maintenance_windows']

    def events_of(self, uuid):
        with db_api.reader(self.context) as session:
            return [(e.event_type, e.prev_state, e.state)
                    for e in session.scalars(sa.select(models.Event).where(
                        models.Event.object_uuid == uuid)
                        .order_by(models.Event.id))
                    if 'maintenance' in e.event_type]

    def move(self, uuid, **times):
        """Move a window's slot (busy_from, busy_until) in time."""
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.NodeSlot).where(
                models.NodeSlot.uuid == uuid).values(**times))
            slots_db.refresh_booked(session.connection(), [
                session.scalar(sa.select(models.Node.id).where(
                    models.Node.uuid == self.node['uuid']))])

    def begin(self, uuid):
        self.move(uuid, busy_from=db_api.utcnow() - SECOND)

    def end(self, uuid):
        self.move(uuid, busy_from=db_api.utcnow() - HOUR,
                  busy_until=db_api.utcnow() - SECOND)

    def check(self, host='test-host'):
        return maintenance_windows.check(self.context, host)

    # Booking, listing, deleting

    def test_create_list_show_delete(self):
        resp = self.book_maintenance(HOUR, 3 * HOUR)
        window = resp.get_json()
        self.assertEqual((self.node['uuid'], 'firmware', 'scheduled'),
                         (window['node_uuid'], window['reason'],
                          window['state']))
        self.assertEqual((self.now + HOUR, self.now + 3 * HOUR),
                         (parse(window['start_at']), parse(window['end_at'])))
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/nodes/%s/maintenance_windows/%s'
            % (self.node['uuid'], window['uuid'])))
        self.assertEqual([window], self.windows())
        self.assertEqual(window, self.call(
            'GET', '%s/%s' % (self.path, window['uuid'])).get_json())
        slots = self.call('GET', '/v1/nodes/node-0/slots').get_json()
        self.assertEqual([{'purpose': 'maintenance',
                           'busy_from': window['start_at'],
                           'busy_until': window['end_at'],
                           'allocation_uuid': None,
                           'maintenance_window_uuid': window['uuid'],
                           'reason': 'firmware', 'state': 'scheduled'}],
                         slots['slots'])
        # Nothing changes on the node before the start.
        node = self.node_now()
        self.assertEqual((False, None), (node['maintenance'], node['fault']))
        self.call('DELETE', '%s/%s' % (self.path, window['uuid']),
                  status=204)
        self.assertEqual([], self.windows())
        with db_api.reader(self.context) as session:
            self.assertIsNone(session.scalar(sa.select(
                models.Node.booked_from)))
        self.assertEqual(
            [('pool.node.maintenance_window.create.end', None, 'scheduled'),
             ('pool.node.maintenance_window.delete.end', 'scheduled',
              None)], self.events_of(self.node['uuid']))
        self.assertError(404, self.delete('%s/%s' % (self.path,
                                                     window['uuid'])))
        self.assertError(404, self.get('%s/%s' % (self.path,
                                                  window['uuid'])))

    def test_slots_list_workload_and_maintenance(self):
        alloc = self.book(HOUR, 2 * HOUR).get_json()
        window = self.book_maintenance(3 * HOUR, 4 * HOUR).get_json()
        slots = self.call('GET', '/v1/nodes/node-0/slots').get_json()
        self.assertEqual(
            [('workload', alloc['uuid'], None, None),
             ('maintenance', None, window['uuid'], 'firmware')],
            [(s['purpose'], s['allocation_uuid'],
              s['maintenance_window_uuid'], s['reason'])
             for s in slots['slots']])
        # The allocation's slot ends after its cleaning margin.
        self.assertEqual(self.now + 150 * MINUTE,
                         parse(slots['slots'][0]['busy_until']))

    def test_bad_requests_are_400(self):
        start, end = rfc3339(self.now + HOUR), rfc3339(self.now + 2 * HOUR)
        for body in (
                {'start_at': start, 'end_at': end},
                {'start_at': start, 'end_at': end, 'reason': ''},
                {'start_at': start, 'reason': 'r'},
                {'end_at': end, 'reason': 'r'},
                {'start_at': end, 'end_at': start, 'reason': 'r'},
                {'start_at': start, 'end_at': start, 'reason': 'r'},
                {'start_at': (self.now + HOUR).isoformat(), 'end_at': end,
                 'reason': 'r'},
                {'start_at': 'soon', 'end_at': end, 'reason': 'r'},
                {'start_at': 7, 'end_at': end, 'reason': 'r'},
                {'start_at': start, 'end_at': '9999-12-31T23:59:59Z',
                 'reason': 'r'},
                {'start_at': start, 'end_at': end, 'reason': 'r',
                 'force': True},
                # Ended already.
                {'start_at': rfc3339(self.now - 2 * HOUR),
                 'end_at': rfc3339(self.now - HOUR), 'reason': 'r'}):
            self.assertError(400, self.post(self.path, body))
        self.assertEqual([], self.windows())
        self.assertError(404, self.post(
            '/v1/nodes/nope/maintenance_windows',
            {'start_at': start, 'end_at': end, 'reason': 'r'}))

    def test_start_in_the_past_is_now(self):
        before = db_api.utcnow().replace(microsecond=0)
        window = self.book_maintenance(-2 * HOUR, HOUR).get_json()
        self.assertLessEqual(before, parse(window['start_at']))
        self.assertGreater(self.now, parse(window['start_at']))

    # Conflicts

    def test_overlapping_windows_are_409(self):
        first = self.book_maintenance(HOUR, 3 * HOUR).get_json()
        text = self.assertError(409, self.book_maintenance(
            2 * HOUR, 4 * HOUR, status=409))
        self.assertIn('maintenance window %s (firmware)' % first['uuid'],
                      text)
        # Back to back is fine.
        self.book_maintenance(3 * HOUR, 4 * HOUR)
        self.book_maintenance(0 * HOUR, HOUR)

    def test_over_a_windowed_allocation_is_409(self):
        alloc = self.book(2 * HOUR, 3 * HOUR).get_json()
        text = self.assertError(409, self.book_maintenance(
            HOUR, 4 * HOUR, status=409))
        self.assertIn('allocation %s' % alloc['uuid'], text)
        # After its cleaning margin it fits.
        self.book_maintenance(3 * HOUR + 30 * MINUTE, 4 * HOUR)

    def test_over_what_holds_the_node_now(self):
        alloc = self.allocate_now(end=2 * HOUR)
        self.assertEqual('active', alloc['state'])
        text = self.assertError(409, self.book_maintenance(
            2 * HOUR, 3 * HOUR, status=409))
        self.assertIn('held by allocation %s until %s' % (
            alloc['uuid'], rfc3339(self.now + 150 * MINUTE)), text)
        self.book_maintenance(150 * MINUTE, 3 * HOUR)

    def test_over_an_open_ended_allocation_is_409(self):
        alloc = self.allocate_now()
        text = self.assertError(409, self.book_maintenance(
            100 * HOUR, 101 * HOUR, status=409))
        self.assertIn('held by allocation %s until never' % alloc['uuid'],
                      text)

    def test_over_an_instance_without_an_allocation_is_409(self):
        self.node_values(instance_uuid='0e5d7c4a-2b1f-4e8d-9c3a-6f7e8d9c0b1a')
        text = self.assertError(409, self.book_maintenance(
            HOUR, 2 * HOUR, status=409))
        self.assertIn('held by instance 0e5d7c4a-2b1f-4e8d-9c3a-6f7e8d9c0b1a '
                      'until never', text)

    # What a window blocks

    def test_windowed_allocation_over_a_window_is_409(self):
        window = self.book_maintenance(HOUR, 3 * HOUR).get_json()
        resp = self.book(2 * HOUR, 4 * HOUR, status=409)
        self.assertIn('maintenance window %s' % window['uuid'],
                      self.assertError(409, resp))
        # Its 30 minutes of cleaning must end by the window's start.
        self.book(0 * HOUR, 30 * MINUTE)
        self.book(3 * HOUR, 4 * HOUR)

    def test_extension_into_a_window_is_409(self):
        alloc = self.allocate_now(end=HOUR)
        window = self.book_maintenance(2 * HOUR, 3 * HOUR).get_json()
        text = self.assertError(409, self.patch_json(
            '/v1/allocations/%s' % alloc['uuid'],
            [{'op': 'replace', 'path': '/lifespan_end',
              'value': rfc3339(self.now + 2 * HOUR)}]))
        self.assertIn('maintenance window %s' % window['uuid'], text)

    def test_open_ended_allocation_does_not_take_the_node(self):
        self.book_maintenance(5 * HOUR, 6 * HOUR)
        alloc = self.allocate_now()
        self.assertEqual('error', alloc['state'])
        self.assertIn('No available nodes', alloc['last_error'])
        # One that ends (with its cleaning) before the window does.
        self.assertEqual('active', self.allocate_now(end=4 * HOUR)['state'])

    def test_claims_and_pool_actions_leave_the_node_alone(self):
        self.book_maintenance(100 * HOUR, 101 * HOUR)
        with db_api.reader(self.context) as session:
            self.assertEqual([], free_nodes.matching(
                session.connection(), 'default', None, (), {}))
        resp = self.post('/v1/pools/default/allocateMachines', {'count': 1})
        self.assertNotEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(('Free', None), (self.node_now()['pool_status'],
                                          self.node_now()['allocation_uuid']))

    def test_availability_shows_the_window_busy(self):
        self.book_maintenance(HOUR, 2 * HOUR)
        after = rfc3339(self.now)
        before = rfc3339(self.now + 10 * HOUR)
        body = self.get(
            '/v1/availability?resource_class=baremetal&duration=2h&after=%s'
            '&before=%s' % (after, before)).get_json()
        self.assertEqual(self.now + 2 * HOUR, parse(body['earliest_start']))
        self.assertEqual(
            [(self.now, self.now + HOUR),
             (self.now + 2 * HOUR, self.now + 10 * HOUR)],
            [(parse(p['from']), parse(p['until']))
             for p in body['nodes'][0]['free']])

    def test_preview_counts_the_window_as_overlapping(self):
        self.book_maintenance(HOUR, 2 * HOUR)
        resp = self.post('/v1/allocation_candidates',
                         {'resource_class': 'baremetal'})
        self.assertEqual(200, resp.status_code, resp.get_data())
        answer = resp.get_json()
        self.assertEqual(1, answer['rejected']['overlapping_window'])
        self.assertIsNone(answer['would_pick'])
        answer = self.post('/v1/allocation_candidates', {
            'resource_class': 'baremetal',
            'lifespan_end': rfc3339(self.now + 30 * MINUTE)}).get_json()
        self.assertEqual(0, answer['rejected']['overlapping_window'])
        self.assertEqual(self.node['uuid'], answer['would_pick'])

    # The conductors' round

    def test_the_node_enters_maintenance_at_the_start_and_leaves_at_the_end(
            self):
        window = self.book_maintenance(HOUR, 2 * HOUR,
                                       reason='new disks').get_json()
        self.assertEqual(0, self.check())
        self.begin(window['uuid'])
        self.assertEqual(1, self.check())
        node = self.node_now()
        self.assertEqual((True, 'new disks', 'scheduled maintenance'),
                         (node['maintenance'], node['maintenance_reason'],
                          node['fault']))
        self.assertEqual('active', self.windows()[0]['state'])
        # Begun once: another conductor's round finds nothing to do.
        self.assertEqual(0, self.check('other-host'))
        self.end(window['uuid'])
        self.assertEqual(1, self.check('other-host'))
        node = self.node_now()
        self.assertEqual((False, None, None),
                         (node['maintenance'], node['maintenance_reason'],
                          node['fault']))
        self.assertEqual([], self.windows())
        self.assertEqual(
            [('pool.node.maintenance_window.create.end', None, 'scheduled'),
             ('baremetal.node.maintenance_set.end', None, None),
             ('pool.node.maintenance_window.started', 'scheduled', 'active'),
             ('baremetal.node.maintenance_set.end', None, None),
             ('pool.node.maintenance_window.ended', 'active', None)],
            self.events_of(self.node['uuid']))
        # The node is free again, for anyone.
        self.assertEqual('active', self.allocate_now()['state'])

    def test_the_start_waits_for_the_current_allocation(self):
        alloc = self.allocate_now(end=HOUR)
        window = self.book_maintenance(2 * HOUR, 3 * HOUR).get_json()
        self.begin(window['uuid'])
        self.assertEqual(1, self.check())
        self.assertEqual('waiting', self.windows()[0]['state'])
        self.assertFalse(self.node_now()['maintenance'])
        # Waiting is recorded once.
        self.assertEqual(0, self.check())
        waiting = [e for e in self.events_of(self.node['uuid'])
                   if e[0].endswith('waiting')]
        self.assertEqual([('pool.node.maintenance_window.waiting',
                           'scheduled', 'waiting')], waiting)
        self.assertEqual(204, self.delete(
            '/v1/allocations/%s' % alloc['uuid']).status_code)
        self.finish_provisioning()
        self.assertEqual(1, self.check())
        node = self.node_now()
        self.assertEqual((True, 'scheduled maintenance'),
                         (node['maintenance'], node['fault']))
        self.assertEqual('active', self.windows()[0]['state'])

    def node_values(self, **values):
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).values(**values))

    def test_the_start_waits_for_a_conductors_lock_and_cleaning(self):
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.node_values(reservation='other-host')
        self.assertEqual(1, self.check())
        self.assertEqual('waiting', self.windows()[0]['state'])
        self.node_values(reservation=None, provision_state='cleaning')
        self.assertEqual(0, self.check())
        self.assertFalse(self.node_now()['maintenance'])
        self.node_values(provision_state='available')
        self.assertEqual(1, self.check())
        self.assertEqual(('active', True), (self.windows()[0]['state'],
                                            self.node_now()['maintenance']))

    def test_the_end_waits_for_a_conductors_lock(self):
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.check()
        self.end(window['uuid'])
        self.node_values(reservation='other-host')
        self.assertEqual(0, self.check())
        self.node_values(reservation=None)
        self.assertEqual(1, self.check())
        self.assertFalse(self.node_now()['maintenance'])
        self.assertEqual([], self.windows())

    def test_a_window_that_ends_while_waiting_leaves_the_node(self):
        alloc = self.allocate_now(end=HOUR)
        window = self.book_maintenance(2 * HOUR, 3 * HOUR).get_json()
        self.begin(window['uuid'])
        self.check()
        self.end(window['uuid'])
        self.assertEqual(1, self.check())
        self.assertEqual([], self.windows())
        node = self.node_now()
        self.assertEqual((False, alloc['uuid']),
                         (node['maintenance'], node['allocation_uuid']))

    def test_deleting_an_active_window_ends_its_maintenance(self):
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.check()
        self.assertTrue(self.node_now()['maintenance'])
        self.call('DELETE', '%s/%s' % (self.path, window['uuid']),
                  status=204)
        node = self.node_now()
        self.assertEqual((False, None), (node['maintenance'], node['fault']))
        self.assertEqual(('pool.node.maintenance_window.delete.end',
                          'active', None),
                         self.events_of(self.node['uuid'])[-1])

    def test_a_node_in_maintenance_already_is_left_as_it_is(self):
        self.put('/v1/nodes/node-0/maintenance', {'reason': 'broken fan'})
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.assertEqual(1, self.check())
        self.end(window['uuid'])
        self.assertEqual(1, self.check())
        node = self.node_now()
        self.assertEqual((True, 'broken fan', None),
                         (node['maintenance'], node['maintenance_reason'],
                          node['fault']))

    def test_an_operators_maintenance_set_meanwhile_stays(self):
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.check()
        self.put('/v1/nodes/node-0/maintenance', {'reason': 'broken fan'})
        self.end(window['uuid'])
        self.assertEqual(1, self.check())
        node = self.node_now()
        # The window's fault goes; the operator's maintenance stays.
        self.assertEqual((True, 'broken fan', None),
                         (node['maintenance'], node['maintenance_reason'],
                          node['fault']))

    def test_leaving_maintenance_by_hand_clears_the_fault(self):
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.check()
        self.assertEqual(202, self.delete(
            '/v1/nodes/node-0/maintenance').status_code)
        node = self.node_now()
        self.assertEqual((False, None), (node['maintenance'], node['fault']))
        # The window still holds the node until its end.
        self.assertEqual('error', self.allocate_now()['state'])
        self.end(window['uuid'])
        self.assertEqual(1, self.check())
        self.assertFalse(self.node_now()['maintenance'])

    def test_back_to_back_windows(self):
        first = self.book_maintenance(HOUR, 2 * HOUR, reason='a').get_json()
        second = self.book_maintenance(2 * HOUR, 3 * HOUR,
                                       reason='b').get_json()
        self.begin(first['uuid'])
        self.check()
        # The first ends as the second begins, in one round.
        self.end(first['uuid'])
        self.begin(second['uuid'])
        self.assertEqual(2, self.check())
        node = self.node_now()
        self.assertEqual((True, 'b', 'scheduled maintenance'),
                         (node['maintenance'], node['maintenance_reason'],
                          node['fault']))
        self.assertEqual([(second['uuid'], 'active')],
                         [(w['uuid'], w['state']) for w in self.windows()])

    def test_the_round_never_raises(self):
        window = self.book_maintenance(HOUR, 2 * HOUR).get_json()
        self.begin(window['uuid'])
        self.patch(slots_db, 'set_maintenance',
                   lambda *a: 1 / 0)
        self.assertEqual(0, self.check())
        self.assertEqual('scheduled', self.windows()[0]['state'])
        self.patch(slots_db, 'due_windows', lambda *a: 1 / 0)
        self.assertEqual(0, self.check())
