"""The event feed in the client: lists, watches, waits that watch instead
of polling; the event and history commands."""
import io
import json
import urllib.parse

from osc_lib import exceptions
from oslotest import base as oslotest_base

from pool_client import client
from pool_client.v1 import events
from tests.unit.client import base
from tests.unit.client import test_client

ALLOC = test_client.ALLOC
GONE = 'Cursor 1 is not one of the retained events'


def event(cursor, object_uuid=ALLOC, **values):
    body = {'cursor': cursor, 'uuid': 'e-%d' % cursor,
            'created_at': '2026-11-30T10:00:00.000001+00:00',
            'object_type': 'allocation', 'object_uuid': object_uuid,
            'object_name': None,
            'event_type': 'pool.allocation.state_set.success',
            'level': 'info', 'prev_state': None, 'state': None,
            'message': None, 'request_id': 'req-1', 'user': None,
            'project': None, 'conductor': None}
    body.update(values)
    return body


def page(cursor, *evs, more=False, oldest=0):
    return {'events': list(evs), 'cursor': cursor, 'more': more,
            'oldest': oldest}


class RoutedSession:
    """A keystoneauth session: the feed answers from one list, the other
    paths from another, each call recorded."""

    def __init__(self, feed, others=()):
        self.feed = list(feed)
        self.others = list(others)
        self.calls = []

    def request(self, url, method, **kwargs):
        path = urllib.parse.urlsplit(url).path
        self.calls.append((method, path, kwargs.get('params')))
        answers = self.feed if path == '/v1/events' else self.others
        result = answers.pop(0)
        if isinstance(result, Exception):
            raise result
        if isinstance(result, dict):
            return test_client.response(200, result)
        return result

    def feed_calls(self):
        return [params or {} for _m, path, params in self.calls
                if path == '/v1/events']


class TestWaitWatching(oslotest_base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.clock = test_client.FakeClock(self)

    def test_allocation_wait_reads_again_on_its_events_only(self):
        session = RoutedSession(
            feed=[page(7), page(8, event(8)), page(9, event(9))],
            others=[{'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'active'}])
        c = client.Client(session, test_client.ENDPOINT)
        self.assertEqual('active', c.allocation_wait(ALLOC)['state'])
        self.assertEqual(
            [{'object_type': 'allocation', 'object_uuid': ALLOC},
             {'object_type': 'allocation', 'object_uuid': ALLOC,
              'since': 7, 'wait': '30.000'},
             {'object_type': 'allocation', 'object_uuid': ALLOC,
              'since': 8, 'wait': '30.000'}],
            session.feed_calls())
        # No poll: the feed held the requests.
        self.assertEqual([], self.clock.sleeps)

    def test_the_cursor_is_taken_before_the_first_read(self):
        session = RoutedSession(
            feed=[page(3)],
            others=[{'uuid': ALLOC, 'state': 'active'}])
        c = client.Client(session, test_client.ENDPOINT)
        c.allocation_wait(ALLOC)
        self.assertEqual(['/v1/events', '/v1/allocations/' + ALLOC],
                         [path for _m, path, _p in session.calls])

    def test_a_timeout_bounds_each_request(self):
        session = RoutedSession(
            feed=[page(1), page(1), page(1)],
            others=[{'uuid': ALLOC, 'state': 'allocating'}] * 3)
        c = client.Client(session, test_client.ENDPOINT)

        def held(url, method, **kwargs):
            result = RoutedSession.request(session, url, method, **kwargs)
            wait = (kwargs.get('params') or {}).get('wait')
            if wait:
                self.clock.now += float(wait)
            return result

        session.request = held
        exc = self.assertRaises(client.PoolClientError, c.allocation_wait,
                                ALLOC, timeout=12)
        self.assertIn('still allocating after 12 seconds', str(exc))
        self.assertEqual(['12.000'], [p.get('wait')
                                      for p in session.feed_calls()[1:]])

    def test_gone_takes_the_current_cursor(self):
        session = RoutedSession(
            feed=[page(1), test_client.ironic_error(410, GONE), page(40),
                  page(41, event(41))],
            others=[{'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'error'}])
        c = client.Client(session, test_client.ENDPOINT)
        self.assertEqual('error', c.allocation_wait(ALLOC)['state'])
        self.assertEqual([None, 1, None, 40],
                         [p.get('since') for p in session.feed_calls()])

    def test_too_many_waiters_polls_once(self):
        session = RoutedSession(
            feed=[page(1), test_client.ironic_error(429, 'max_waiters'),
                  page(2, event(2))],
            others=[{'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'active'}])
        c = client.Client(session, test_client.ENDPOINT, poll_interval=0.5)
        self.assertEqual('active', c.allocation_wait(ALLOC)['state'])
        self.assertEqual([0.5], self.clock.sleeps)

    def test_other_errors_are_raised(self):
        session = RoutedSession(
            feed=[page(1), test_client.ironic_error(403, 'Forbidden')],
            others=[{'uuid': ALLOC, 'state': 'allocating'}])
        c = client.Client(session, test_client.ENDPOINT)
        exc = self.assertRaises(client.PoolClientError, c.allocation_wait,
                                ALLOC)
        self.assertEqual(403, exc.status_code)

    def test_a_name_is_watched_by_its_uuid(self):
        session = RoutedSession(
            feed=[page(1)],
            others=[{'uuid': ALLOC, 'state': 'allocating'},
                    {'uuid': ALLOC, 'state': 'active'}])
        c = client.Client(session, test_client.ENDPOINT)
        c.allocation_wait('alloc-1')
        self.assertEqual(ALLOC, session.feed_calls()[0]['object_uuid'])

    def test_claim_wait_rounds_are_short(self):
        claim_uuid = '2f0d5c1e-9a7b-4c3d-8e6f-1a2b3c4d5e6f'
        session = RoutedSession(
            feed=[page(1), page(1)],
            others=[{'uuid': claim_uuid, 'state': 'pending'},
                    {'uuid': claim_uuid, 'state': 'bound'}])
        c = client.Client(session, test_client.ENDPOINT)
        self.assertEqual('bound', c.claim_wait(claim_uuid)['state'])
        self.assertEqual(
            {'object_type': 'claim', 'object_uuid': claim_uuid, 'since': 1,
             'wait': '5.000'}, session.feed_calls()[1])

    def test_nodes_wait_watches_pool_status_changes(self):
        session = RoutedSession(
            feed=[page(5), page(6, event(6, 'b'))],
            others=[{'uuid': 'b', 'name': 'nb', 'pool_status': 'Building'},
                    {'uuid': 'b', 'name': 'nb', 'pool_status': 'InUse'}])
        c = client.Client(session, test_client.ENDPOINT)
        results = c.nodes_wait([{'uuid': 'b', 'name': 'nb',
                                 'status': 'Building'}])
        self.assertEqual('InUse', results[0]['status'])
        self.assertEqual('pool.node.pool_status_set.success',
                         session.feed_calls()[1]['event_type'])


class TestEventListAndWatch(oslotest_base.BaseTestCase):

    def test_list_from_the_oldest_retained_to_the_end(self):
        session = RoutedSession(feed=[
            page(9, oldest=4),
            page(6, event(5), event(6), more=True),
            page(9, event(7))])
        c = client.Client(session, test_client.ENDPOINT)
        self.assertEqual([5, 6, 7], [e['cursor'] for e in c.event_list()])
        self.assertEqual([None, 4, 6], [p.get('since')
                                        for p in session.feed_calls()])

    def test_list_limit_and_gone(self):
        session = RoutedSession(feed=[
            test_client.ironic_error(410, GONE), page(9, oldest=3),
            page(5, event(4), event(5), more=True)])
        c = client.Client(session, test_client.ENDPOINT)
        found = c.event_list(since=1, limit=2, object_type='allocation')
        self.assertEqual([4, 5], [e['cursor'] for e in found])
        self.assertEqual({'since': 3, 'limit': 2,
                          'object_type': 'allocation'},
                         session.feed_calls()[2])

    def test_watch_follows_the_cursor(self):
        session = RoutedSession(feed=[
            page(10), page(11, event(11)), page(11),
            page(13, event(12), event(13))])
        c = client.Client(session, test_client.ENDPOINT)
        watched = c.event_watch(wait=20, level='error')
        self.assertEqual([11, 12, 13], [next(watched)['cursor']
                                        for _ in range(3)])
        self.assertEqual([None, 10, 11, 11],
                         [p.get('since') for p in session.feed_calls()])
        self.assertTrue(all(p['level'] == 'error'
                            for p in session.feed_calls()))


class TestEventCommands(base.TestCommand):

    def test_list(self):
        cmd = events.ListEvent(self.app, None)
        self.client.event_list.return_value = [
            event(3, state='active', prev_state='allocating')]
        args = self.check_parser(cmd, [
            '--since', '2', '--limit', '5', '--object-type', 'allocation',
            '--object', ALLOC, '--event-type-prefix', 'pool.',
            '--level', 'warning', '--request-id', 'req-1'], [])
        labels, rows = cmd.take_action(args)
        self.client.event_list.assert_called_once_with(
            since=2, limit=5, object_type='allocation', object_uuid=ALLOC,
            event_type_prefix='pool.', level='warning',
            request_id='req-1')
        self.assertEqual(('Cursor', 'Created At', 'Object Type',
                          'Object Uuid', 'Event Type', 'Prev State',
                          'State', 'Message'), labels)
        self.assertEqual(3, rows[0][0])
        self.assertParserFails(cmd, ['--level', 'loud'])
        self.assertParserFails(cmd, ['--since', 'x'])

    def test_watch_prints_until_interrupted(self):
        cmd = events.WatchEvent(self.app, None)

        def watched(since, wait, **filters):
            yield event(4, state='active', prev_state='allocating',
                        object_name='a1', message='done')
            yield event(5, level='error')
            raise KeyboardInterrupt

        self.client.event_watch.side_effect = watched
        args = self.check_parser(cmd, ['--object-type', 'allocation'], [])
        self.assertEqual(0, cmd.take_action(args))
        lines = self.app.stdout.getvalue().splitlines()
        self.assertEqual(
            ['4 2026-11-30T10:00:00.000001+00:00 INFO allocation %s (a1) '
             'pool.allocation.state_set.success allocating -> active: done'
             % ALLOC,
             '5 2026-11-30T10:00:00.000001+00:00 ERROR allocation %s '
             'pool.allocation.state_set.success' % ALLOC], lines)
        self.client.event_watch.assert_called_once_with(
            since=None, wait=30, object_type='allocation')

    def test_watch_json_and_gone(self):
        cmd = events.WatchEvent(self.app, None)
        calls = []

        def watched(since, wait, **filters):
            calls.append(since)
            if len(calls) == 1:
                yield event(4)
                raise client.PoolClientError(GONE, 410)
            yield event(21)
            raise KeyboardInterrupt

        self.client.event_watch.side_effect = watched
        self.client.event_page.return_value = page(30, oldest=20)
        self.app.stderr = io.StringIO()
        args = self.check_parser(cmd, ['--json', '--since', '3'], [])
        self.assertEqual(0, cmd.take_action(args))
        self.assertEqual([3, 20], calls)
        self.assertEqual([4, 21], [json.loads(line)['cursor'] for line in
                                   self.app.stdout.getvalue().splitlines()])
        self.assertIn('from cursor 20', self.app.stderr.getvalue())

    def test_watch_bad_arguments(self):
        cmd = events.WatchEvent(self.app, None)
        for argv in (['--since', '-1'], ['--request-wait', '0']):
            args = self.check_parser(cmd, argv, [])
            self.assertRaises(exceptions.CommandError, cmd.take_action,
                              args)
        self.client.event_watch.assert_not_called()

    def test_node_history(self):
        cmd = events.ListNodeHistory(self.app, None)
        self.client.history_list.return_value = [
            {'uuid': 'e-1', 'created_at': 't', 'severity': 'INFO',
             'event': 'Created', 'links': []}]
        args = self.check_parser(cmd, ['node-1', '--limit', '3',
                                       '--sort-dir', 'desc'], [])
        labels, rows = cmd.take_action(args)
        self.client.history_list.assert_called_once_with(
            'nodes', 'node-1', detail=False, limit=3, marker=None,
            sort_dir='desc')
        self.assertEqual(('UUID', 'Created At', 'Severity', 'Event'),
                         labels)
        self.assertEqual(('e-1', 't', 'INFO', 'Created'), rows[0])

    def test_history_show_of_each_kind(self):
        for cls, kind in ((events.ShowNodeHistory, 'nodes'),
                          (events.ShowAllocationHistory, 'allocations'),
                          (events.ShowPoolHistory, 'pools'),
                          (events.ShowClaimHistory, 'claims')):
            self.client.history_get.reset_mock()
            self.client.history_get.return_value = {
                'uuid': 'e-1', 'event': 'x', 'links': []}
            cmd = cls(self.app, None)
            columns, data = cmd.take_action(
                self.check_parser(cmd, ['obj', 'e-1'], []))
            self.client.history_get.assert_called_once_with(
                kind, 'obj', 'e-1')
            self.assertEqual(('event', 'uuid'), columns)


class TestHistoryClient(oslotest_base.BaseTestCase):

    def test_history_paths(self):
        session = RoutedSession(feed=[], others=[
            {'history': [{'uuid': 'e-1'}],
             'next': test_client.ENDPOINT + '/v1/pools/a%20b/history?'
                                            'limit=1&marker=e-1'},
            {'history': [{'uuid': 'e-2'}]},
            {'uuid': 'e-2'}])
        c = client.Client(session, test_client.ENDPOINT)
        self.assertEqual(['e-1', 'e-2'], [
            h['uuid'] for h in c.history_list('pools', 'a b', detail=True)])
        c.history_get('claims', 'c/1', 'e-2')
        self.assertEqual(
            [('GET', '/v1/pools/a%20b/history', {'detail': 'true'}),
             ('GET', '/v1/pools/a%20b/history',
              {'limit': '1', 'marker': 'e-1'}),
             ('GET', '/v1/claims/c%2F1/history/e-2', None)],
            session.calls)

