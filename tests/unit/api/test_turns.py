"""At most [api] max_active_requests requests run at once; a request that
waits for events or for a locked node gives its turn meanwhile."""
import threading
import time

from pool_api.handlers import root
from pool_conductor import events
from tests.unit.api import test_fleet_rules


class TestTurns(test_fleet_rules.FleetRulesTestCase):

    def setUp(self):
        super().setUp()
        self.config(max_active_requests=1, group='api')
        self.done = {}

    def start(self, name: str, method: str, path: str,
              body=None) -> threading.Thread:
        """A request in a thread of its own; its status and the time it
        ended go to self.done[name]."""
        client = self.app.test_client()

        def run():
            resp = client.open(path, method=method, json=body, headers={
                'X-OpenStack-Ironic-API-Version': self.version})
            self.done[name] = (resp.status_code, time.monotonic())

        thread = threading.Thread(target=run)
        thread.start()
        self.addCleanup(thread.join, 10)
        return thread

    def block_get_v1(self):
        """The application, whose GET /v1 runs until self.release is set
        (a request busy on the CPU, for its turn)."""
        self.entered, self.release = threading.Event(), threading.Event()
        self.addCleanup(self.release.set)
        version = root._version

        def busy():
            self.entered.set()
            self.release.wait(10)
            return version()

        self.patch(root, '_version', busy)

    def test_a_request_beyond_the_limit_waits_for_a_turn(self):
        self.block_get_v1()
        first = self.start('first', 'GET', '/v1')
        self.assertTrue(self.entered.wait(5))
        second = self.start('second', 'GET', '/v1/allocations')
        second.join(0.5)
        self.assertNotIn('second', self.done)
        self.release.set()
        first.join(5)
        second.join(5)
        self.assertEqual(200, self.done['first'][0])
        self.assertEqual(200, self.done['second'][0])
        self.assertLess(self.done['first'][1], self.done['second'][1])

    def test_more_at_once_when_the_limit_allows(self):
        for limit in (2, 0):
            self.config(max_active_requests=limit, group='api')
            self.block_get_v1()
            first = self.start('first', 'GET', '/v1')
            self.assertTrue(self.entered.wait(5))
            second = self.start('second', 'GET', '/v1/allocations')
            second.join(5)
            self.assertEqual(200, self.done.pop('second')[0])
            self.assertTrue(first.is_alive())
            self.release.set()
            first.join(5)

    def test_waiting_for_a_locked_node_gives_the_turn(self):
        self.config(node_locked_retry_attempts=100,
                    node_locked_retry_interval=0.05, group='conductor')
        self.lock_for_a_moment('n0', 2)
        started = time.monotonic()
        change = self.start('change', 'PATCH', '/v1/nodes/n0', [
            {'op': 'replace', 'path': '/extra', 'value': {'a': 1}}])
        time.sleep(0.1)
        self.assertEqual(200, self.get('/v1').status_code)
        answered = time.monotonic()
        change.join(5)
        self.assertEqual(200, self.done['change'][0])
        # The lock is held for 2 s: the other request did not wait for
        # the change (the bound leaves room for a busy machine).
        self.assertLess(answered, self.done['change'][1])
        self.assertLess(answered - started, 1.5)

    def test_a_watch_gives_the_turn_while_it_waits(self):
        self.config(watch_poll_interval=0.05, group='api')
        events.sequence()
        cursor = self.get('/v1/events').get_json()['cursor']
        started = time.monotonic()
        watch = self.start('watch', 'GET',
                           '/v1/events?since=%d&wait=3' % cursor)
        time.sleep(0.1)
        self.assertEqual(200, self.get('/v1').status_code)
        answered = time.monotonic()
        watch.join(5)
        self.assertEqual(200, self.done['watch'][0])
        # The watch waits 3 s: the other request did not wait for it.
        self.assertLess(answered - started, 1.5)
        self.assertLess(answered, self.done['watch'][1])
