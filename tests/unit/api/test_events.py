"""The event feed (GET /v1/events, watched with wait), the history of
objects, and the log line of every request."""
import json
import threading
import time

import fixtures
import sqlalchemy as sa

from pool_api import auth
from pool_api import watch
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor import events
from tests.unit.api import base
from tests.unit.api import test_policy

PROJECT = test_policy.PROJECT
OTHER = test_policy.OTHER
PERSONAS = test_policy.PERSONAS


def record(*evs: events.Event, context=None) -> None:
    """Commit events, as the code that makes a change does."""
    admin = pool_context.get_admin_context()
    with db_api.writer_connection(admin) as conn:
        # Not the context a previous request left to the thread.
        events.record(conn, list(evs), context=context or admin)


def node_event(uuid: str, event_type: str = 'baremetal.node.update.end',
               **kw) -> events.Event:
    return events.Event('node', uuid, event_type, **kw)


class WatchTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.config(watch_poll_interval=0.05, group='api')

    def feed(self, query: str = '', status: int = 200, **kw):
        resp = self.get('/v1/events' + ('?' + query if query else ''), **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def cursor_now(self) -> int:
        return self.feed()['cursor']

    def test_without_since_the_current_cursor_and_no_event(self):
        self.assertEqual({'events': [], 'cursor': 0, 'more': False,
                          'oldest': 0}, self.feed())
        record(node_event('n-1'), node_event('n-2'))
        events.sequence()
        self.assertEqual({'events': [], 'cursor': 2, 'more': False,
                          'oldest': 0}, self.feed())

    def test_events_after_since_at_once_in_order(self):
        record(node_event('n-1', message='first', prev_state='a',
                          state='b', payload={'x': 1}))
        record(node_event('n-2'), node_event('n-3'))
        events.sequence()
        started = time.monotonic()
        body = self.feed('since=0&wait=30')
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual([1, 2, 3], [e['cursor'] for e in body['events']])
        self.assertEqual(['n-1', 'n-2', 'n-3'],
                         [e['object_uuid'] for e in body['events']])
        self.assertEqual(3, body['cursor'])
        self.assertFalse(body['more'])
        first = body['events'][0]
        self.assertEqual(('node', 'baremetal.node.update.end', 'info',
                          'first', 'a', 'b'),
                         (first['object_type'], first['event_type'],
                          first['level'], first['message'],
                          first['prev_state'], first['state']))
        self.assertNotIn('payload', first)
        self.assertTrue(first['request_id'].startswith('req-'))
        detailed = self.feed('since=0&limit=1&detail=true')['events'][0]
        self.assertEqual({'x': 1}, detailed['payload'])
        self.assertEqual(body['events'][1:], self.feed('since=1')['events'])

    def test_pages_follow_the_cursor(self):
        record(*[node_event('n-%d' % i) for i in range(5)])
        events.sequence()
        body = self.feed('since=0&limit=2')
        self.assertEqual(([1, 2], 2, True),
                         ([e['cursor'] for e in body['events']],
                          body['cursor'], body['more']))
        body = self.feed('since=2&limit=2')
        self.assertEqual(([3, 4], 4, True),
                         ([e['cursor'] for e in body['events']],
                          body['cursor'], body['more']))
        body = self.feed('since=4&limit=2')
        self.assertEqual(([5], 5, False),
                         ([e['cursor'] for e in body['events']],
                          body['cursor'], body['more']))

    def test_unsequenced_events_are_not_in_the_feed(self):
        record(node_event('n-1'))
        self.assertEqual([], self.feed('since=0')['events'])
        events.sequence()
        self.assertEqual(['n-1'], [e['object_uuid']
                                   for e in self.feed('since=0')['events']])

    def test_filters(self):
        record(node_event('n-1', level='debug'),
               node_event('n-1', 'baremetal.node.power_set.end',
                          level='error'),
               events.Event('allocation', 'a-1',
                            'pool.allocation.state_set.success',
                            level='warning'),
               node_event('n-2', 'baremetal.node.provision_set.end'))
        events.sequence()

        def uuids_types(query):
            return [(e['object_uuid'], e['event_type'])
                    for e in self.feed('since=0&' + query)['events']]

        self.assertEqual([('a-1', 'pool.allocation.state_set.success')],
                         uuids_types('object_type=allocation'))
        self.assertEqual(['n-1', 'n-1'], [
            u for u, _t in uuids_types('object_uuid=n-1')])
        self.assertEqual([('n-2', 'baremetal.node.provision_set.end')],
                         uuids_types(
                             'event_type=baremetal.node.provision_set.end'))
        self.assertEqual(['baremetal.node.power_set.end',
                          'baremetal.node.provision_set.end'],
                         [t for _u, t in uuids_types(
                             'event_type_prefix=baremetal.node.p')])
        # level is the lowest level shown.
        self.assertEqual([('n-1', 'baremetal.node.power_set.end'),
                          ('a-1', 'pool.allocation.state_set.success')],
                         uuids_types('level=warning'))
        self.assertEqual(4, len(uuids_types('level=debug')))
        # A prefix is a prefix, not a pattern.
        self.assertEqual([], uuids_types('event_type_prefix=baremetal%25'))
        # Filtered out events move the cursor on all the same.
        self.assertEqual(4, self.feed('since=0&object_type=port')['cursor'])

    def test_request_id_filter(self):
        resp = self.post('/v1/allocations', {'resource_class': 'a'})
        request_id = resp.headers['X-Openstack-Request-Id']
        self.post('/v1/allocations', {'resource_class': 'b'})
        events.sequence()
        body = self.feed('since=0&request_id=' + request_id)
        self.assertEqual([resp.get_json()['uuid']],
                         [e['object_uuid'] for e in body['events']])

    def test_holds_and_answers_the_cursor_after_wait(self):
        record(node_event('n-1'))
        events.sequence()
        started = time.monotonic()
        body = self.feed('since=1&wait=1')
        elapsed = time.monotonic() - started
        self.assertEqual({'events': [], 'cursor': 1, 'more': False,
                          'oldest': 0}, body)
        self.assertGreaterEqual(elapsed, 0.95)
        # Not much longer than asked (room for a busy machine).
        self.assertLess(elapsed, 5)

    def test_wait_is_capped(self):
        self.config(max_watch_wait=0.3, group='api')
        started = time.monotonic()
        self.assertEqual([], self.feed('wait=3600')['events'])
        # The cap, not the hour asked (room for a busy machine).
        self.assertLess(time.monotonic() - started, 5)

    def test_a_new_event_wakes_the_waiting_request(self):
        """Nothing sequences but the API process itself: it gives the new
        event its cursor while the request waits."""
        record(node_event('n-1'))
        events.sequence()

        def later():
            time.sleep(0.3)
            record(node_event('n-2', state='active'))

        threading.Thread(target=later).start()
        started = time.monotonic()
        body = self.feed('since=1&wait=10')
        self.assertLess(time.monotonic() - started, 3)
        self.assertEqual([(2, 'n-2', 'active')],
                         [(e['cursor'], e['object_uuid'], e['state'])
                          for e in body['events']])
        self.assertEqual(2, body['cursor'])

    def test_events_the_filters_drop_do_not_end_the_wait(self):
        def later():
            time.sleep(0.2)
            record(node_event('n-1'))
            time.sleep(0.4)
            record(node_event('n-2'))

        threading.Thread(target=later).start()
        started = time.monotonic()
        body = self.feed('since=0&object_uuid=n-2&wait=10')
        self.assertGreater(time.monotonic() - started, 0.5)
        self.assertEqual([(2, 'n-2')], [(e['cursor'], e['object_uuid'])
                                        for e in body['events']])

    def set_pruned(self, value: int) -> None:
        with db_api.writer_connection(self.context) as conn:
            conn.execute(sa.insert(models.EventCursor.__table__).values(
                name='pruned', value=value))

    def test_gone_below_the_retained_events(self):
        record(*[node_event('n-%d' % i) for i in range(5)])
        events.sequence()
        self.set_pruned(3)
        for since in (0, 2):
            message = self.assertError(
                410, self.get('/v1/events?since=%d' % since))
            self.assertIn('after cursor 3', message)
        body = self.feed('since=3')
        self.assertEqual([4, 5], [e['cursor'] for e in body['events']])
        self.assertEqual(3, body['oldest'])

    def test_gone_for_a_cursor_never_given(self):
        record(node_event('n-1'))
        events.sequence()
        self.assertError(410, self.get('/v1/events?since=2&wait=5'))
        self.assertEqual([], self.feed('since=1')['events'])

    def test_bad_parameters(self):
        for query, contains in (
                ('since=-1', 'since'), ('since=abc', 'since'),
                ('since=1.5', 'since'), ('since=' + '9' * 19, 'since'),
                ('since=' + '1' * 400, 'since'), ('since=', 'since'),
                ('wait=-1', 'wait'), ('wait=nan', 'wait'),
                ('wait=inf', 'wait'), ('wait=1e3', 'wait'),
                ('wait=' + '9' * 400, 'wait'), ('wait=%201', 'wait'),
                ('wait=', 'wait'), ('wait=1.', 'wait'),
                ('level=bogus', 'level'), ('level=INFO', 'level'),
                ('limit=-1', 'imit'), ('limit=x', 'limit'),
                ('object_type=Node', 'object_type'),
                ('object_type=' + 'a' * 33, 'object_type'),
                ('event_type=' + 'a' * 129, 'event_type'),
                ('object_uuid=' + 'a' * 37, 'object_uuid'),
                ('detail=maybe', 'detail'),
                ('since=1&since=2', 'since'),
                ('bogus=1', 'bogus')):
            self.assertError(400, self.get('/v1/events?' + query),
                             contains)

    def test_too_many_waiters(self):
        self.config(max_waiters=1, group='api')
        holding = threading.Thread(
            target=lambda: self.feed('wait=1.5'))
        holding.start()
        deadline = time.monotonic() + 5
        while not watch.WAITERS.any() and time.monotonic() < deadline:
            time.sleep(0.01)
        resp = self.get('/v1/events?wait=5')
        self.assertError(429, resp, 'max_waiters')
        self.assertEqual('1', resp.headers['Retry-After'])
        # A read that does not wait, or that finds events, is answered.
        self.assertEqual([], self.feed('since=0')['events'])
        holding.join()
        self.assertEqual([], self.feed('wait=0.1')['events'])

    def test_a_request_thread_is_always_left(self):
        self.config(threads=1, group='api')
        self.assertError(429, self.get('/v1/events?wait=1'))
        self.config(threads=2, max_waiters=0, group='api')
        self.assertError(429, self.get('/v1/events?wait=1'))
        self.config(max_waiters=8, group='api')
        self.assertEqual([], self.feed('wait=0.1')['events'])

    def test_served_at_every_version(self):
        self.assertEqual(0, self.feed(version='1.1')['cursor'])
        self.assertError(406, self.get('/v1/events', version='1.99'))


class ProjectScopeTestCase(test_policy.PolicyTestCase):

    def test_project_callers_read_their_projects_events(self):
        record(node_event('owned', owner=PROJECT),
               node_event('leased', owner=OTHER, lessee=PROJECT),
               node_event('others', owner=OTHER),
               node_event('nobodys'),
               events.Event('allocation', 'asked', 'x.y',
                            actor=events.Actor('req-1', 'u', PROJECT)))
        events.sequence()

        def seen(persona, query='since=0'):
            resp = self.as_persona(persona, 'GET', '/v1/events?' + query)
            self.assertEqual(200, resp.status_code, resp.get_data())
            return [e['object_uuid'] for e in resp.get_json()['events']]

        everything = ['owned', 'leased', 'others', 'nobodys', 'asked']
        self.assertEqual(everything, seen('system_reader'))
        self.assertEqual(['owned', 'leased', 'asked'],
                         seen('project_reader'))
        self.assertEqual(['leased', 'others'], seen('other_member'))
        # A filter does not widen what a project sees.
        self.assertEqual([], seen('project_reader', 'since=0&object_uuid='
                                                    'others'))
        resp = self.as_persona('no_role', 'GET', '/v1/events')
        self.assertEqual(403, resp.status_code)

    def test_node_history_is_read_by_the_owner_not_the_lessee(self):
        node = self.create_node(owner=PROJECT, lessee=OTHER)
        record(node_event(node.uuid, owner=PROJECT, lessee=OTHER))
        path = '/v1/nodes/%s/history' % node.uuid
        for persona, status in (('system_reader', 200),
                                ('project_reader', 200),
                                ('other_member', 403)):
            resp = self.as_persona(persona, 'GET', path)
            self.assertEqual(status, resp.status_code, persona)
        # The lessee reads the events of its lease in the feed.
        resp = self.as_persona('other_member', 'GET', '/v1/events?since=0')
        events.sequence()
        resp = self.as_persona('other_member', 'GET', '/v1/events?since=0')
        self.assertEqual([node.uuid], [e['object_uuid'] for e in
                                       resp.get_json()['events']])
        free = self.create_node()
        resp = self.as_persona('project_reader', 'GET',
                               '/v1/nodes/%s/history' % free.uuid)
        self.assertError(404, resp)


class HistoryTestCase(base.APITestCase):

    def test_node_history_in_ironics_shape(self):
        node = {'uuid': self.create_node(name='node-h').uuid}
        record(*[node_event(node['uuid'], event_type, prev_state=prev,
                            state=state, message=message)
                 for event_type, prev, state, message in (
                     ('baremetal.node.create.end', None, 'enroll',
                      'Created'),
                     ('baremetal.node.provision_set.success', 'enroll',
                      'manageable', None),
                     ('baremetal.node.provision_set.success', 'manageable',
                      'available', None))])
        resp = self.get('/v1/nodes/node-h/history')
        self.assertEqual(200, resp.status_code, resp.get_data())
        history = resp.get_json()['history']
        self.assertEqual(
            ['baremetal.node.create.end',
             'baremetal.node.provision_set.success',
             'baremetal.node.provision_set.success'],
            [self.get(h['links'][0]['href'].split('localhost')[1])
             .get_json()['event_type'] for h in history])
        first = history[0]
        self.assertEqual({'uuid', 'created_at', 'severity', 'event',
                          'links'}, set(first))
        self.assertEqual('INFO', first['severity'])
        self.assertTrue(first['created_at'].endswith('+00:00'))
        self.assertEqual(
            'http://localhost/v1/nodes/%s/history/%s' % (node['uuid'],
                                                          first['uuid']),
            first['links'][0]['href'])
        self.assertEqual('self', first['links'][0]['rel'])
        one = self.get('/v1/nodes/%s/history/%s' % (node['uuid'],
                                                     history[1]['uuid']))
        self.assertEqual(200, one.status_code)
        one = one.get_json()
        self.assertEqual({'uuid', 'created_at', 'severity', 'event_type',
                          'event', 'conductor', 'user', 'project',
                          'prev_state', 'state', 'request_id', 'cursor',
                          'links'}, set(one))
        self.assertEqual(('enroll', 'manageable'),
                         (one['prev_state'], one['state']))
        detailed = self.get('/v1/nodes/node-h/history?detail=true')
        self.assertEqual(one, detailed.get_json()['history'][1])

    def test_history_pages(self):
        node = self.create_node()
        record(*[node_event(node.uuid, message='m%d' % i)
                 for i in range(5)])
        path = '/v1/nodes/%s/history' % node.uuid
        resp = self.get(path + '?limit=2').get_json()
        self.assertEqual(['m0', 'm1'], [h['event'] for h in resp['history']])
        self.assertIn('marker=' + resp['history'][-1]['uuid'], resp['next'])
        resp = self.get(resp['next'].split('localhost')[1]).get_json()
        self.assertEqual(['m2', 'm3'], [h['event'] for h in resp['history']])
        resp = self.get(resp['next'].split('localhost')[1]).get_json()
        self.assertEqual(['m4'], [h['event'] for h in resp['history']])
        self.assertNotIn('next', resp)
        resp = self.get(path + '?sort_dir=desc&limit=3').get_json()
        self.assertEqual(['m4', 'm3', 'm2'],
                         [h['event'] for h in resp['history']])
        resp = self.get(resp['next'].split('localhost')[1]).get_json()
        self.assertEqual(['m1', 'm0'], [h['event'] for h in resp['history']])

    def test_history_errors(self):
        node = self.create_node()
        other = self.create_node()
        record(node_event(other.uuid))
        event = self.get('/v1/nodes/%s/history' % other.uuid).get_json()[
            'history'][0]['uuid']
        path = '/v1/nodes/%s/history' % node.uuid
        self.assertError(404, self.get(path + '/' + event), event)
        self.assertError(404, self.get(path + '?marker=' + event), event)
        self.assertError(404, self.get('/v1/nodes/missing/history'))
        self.assertError(400, self.get(path + '?sort_dir=up'))
        self.assertError(400, self.get(path + '?limit=-2'))
        self.assertError(400, self.get(path + '?detail=perhaps'))
        self.assertError(400, self.get(path + '?since=1'))

    def test_long_events_are_shortened_in_the_list(self):
        node = self.create_node()
        record(node_event(node.uuid, message='x' * 300))
        short = self.get('/v1/nodes/%s/history' % node.uuid).get_json()[
            'history'][0]
        self.assertEqual('x' * 251 + '...', short['event'])
        whole = self.get('/v1/nodes/%s/history?detail=true'
                         % node.uuid).get_json()['history'][0]
        self.assertEqual('x' * 300, whole['event'])

    def test_an_event_without_message_says_what_changed(self):
        node = self.create_node()
        record(node_event(node.uuid, 'pool.node.pool_status_set.success',
                          prev_state='Free', state='InUse'),
               node_event(node.uuid, level='error'))
        history = self.get('/v1/nodes/%s/history' % node.uuid).get_json()[
            'history']
        self.assertEqual(
            [('INFO', 'pool.node.pool_status_set.success: Free -> InUse'),
             ('ERROR', 'baremetal.node.update.end')],
            [(h['severity'], h['event']) for h in history])

    def test_allocation_history_has_every_transition(self):
        self.create_node()
        alloc = self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'name': 'alloc-h'}).get_json()
        from pool_conductor.allocator import AllocationWorker
        worker = AllocationWorker('test-host', 1, batch_size=8)
        self.addCleanup(worker.stop)
        worker.process_batch([a for a, _ in self.casts], {})
        history = self.get('/v1/allocations/alloc-h/history?detail=true')
        self.assertEqual(200, history.status_code, history.get_data())
        self.assertEqual(
            [('baremetal.allocation.create.end', None, 'allocating'),
             ('pool.allocation.state_set.success', 'allocating', 'active')],
            [(h['event_type'], h['prev_state'], h['state'])
             for h in history.get_json()['history']])
        self.assertEqual(
            '/v1/allocations/%s/history/' % alloc['uuid'],
            history.get_json()['history'][0]['links'][0]['href'].split(
                'localhost')[1][:-36])

    def test_pool_and_claim_history(self):
        resp = self.post('/v1/pools', {'name': 'web'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        record(events.Event('pool', 'web', 'pool.pool.update.end',
                            object_name='web', message='changed'),
               events.Event('pool', 'web2', 'pool.pool.update.end',
                            object_name='web2'))
        history = self.get('/v1/pools/web/history').get_json()['history']
        self.assertEqual(['changed'], [h['event'] for h in history][-1:])
        self.assertTrue(all('web2' not in h['event'] for h in history))
        one = self.get('/v1/pools/web/history/' + history[-1]['uuid'])
        self.assertEqual(200, one.status_code)
        self.assertError(404, self.get('/v1/pools/nope/history'))
        from pool_conductor.db import claims as claims_db
        claim = claims_db.create(self.context, {
            'uuid': '0d0a8a39-6dc7-4b5c-9e4a-000000000001', 'name': 'c1',
            'owner': None, 'resources': [], 'state': 'pending'})
        record(events.Event('claim', claim.uuid, 'pool.claim.bound',
                            prev_state='pending', state='bound'))
        history = self.get('/v1/claims/c1/history?detail=true').get_json()[
            'history']
        self.assertEqual([('pending', 'bound')],
                         [(h['prev_state'], h['state']) for h in history])


class RequestLogTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name='pool_api.app', level='INFO',
            format='%(levelname)s %(message)s'))

    def lines(self) -> list[str]:
        return [line for line in self.log.output.splitlines()
                if line.startswith('INFO') and 'status:' in line]

    def test_every_request_is_logged_once_with_its_id(self):
        resp = self.get('/v1/nodes?limit=5')
        request_id = resp.headers['X-Openstack-Request-Id']
        self.assertTrue(request_id.startswith('req-'))
        resp = self.get('/v1/nodes/missing')
        self.assertEqual(404, resp.status_code)
        self.post('/v1/nodes', {'driver': 'fake-hardware'})
        lines = self.lines()
        self.assertEqual(3, len(lines), lines)
        self.assertIn('"GET /v1/nodes?limit=5 HTTP/1.1" status: 200', lines[0])
        self.assertIn('"GET /v1/nodes/missing HTTP/1.1" status: 404',
                      lines[1])
        self.assertIn('"POST /v1/nodes HTTP/1.1" status: 201', lines[2])
        self.assertRegex(lines[0], r' len: \d+ time: \d+\.\d{7}$')

    def test_the_line_carries_the_context(self):
        self.useFixture(fixtures.MonkeyPatch(
            'pool_api.request_log.LOG.logger.handle',
            self.capture))
        self.records = []
        resp = self.get('/v1/nodes',
                        headers={'X-Openstack-Request-Id':
                                 'req-11111111-2222-3333-4444-555555555555'})
        context = self.records[-1].context
        self.assertEqual(resp.headers['X-Openstack-Request-Id'],
                         context.request_id)
        # A client's request ID is not the request's: it is kept as the
        # global request ID, as oslo.middleware does.
        self.assertNotEqual('req-11111111-2222-3333-4444-555555555555',
                            context.request_id)
        self.assertEqual('req-11111111-2222-3333-4444-555555555555',
                         context.global_request_id)

    def capture(self, record):
        self.records.append(record)

    def test_refused_requests_are_logged(self):
        self.config(auth_strategy='keystone')
        self.patch(auth, 'wrap', lambda app: _refuse)
        from pool_api import app as pool_app
        self.client = pool_app.create_app().test_client()
        resp = self.get('/v1/nodes', headers={'X-User-Id': 'someone'})
        self.assertEqual(401, resp.status_code)
        lines = self.lines()
        self.assertEqual(1, len(lines), lines)
        self.assertIn('"GET /v1/nodes HTTP/1.1" status: 401', lines[0])


def _refuse(environ, start_response):
    body = json.dumps({'error': 'no'}).encode()
    start_response('401 Unauthorized', [('Content-Type', 'application/json'),
                                        ('Content-Length', str(len(body)))])
    return [body]
