"""A watcher of GET /v1/events on a cluster sees every transition of many
concurrent allocations exactly once, in order, across a conductor killed
while it holds them and the takeover of another."""
import concurrent.futures
import signal
import threading
import time

import testtools

from tests.functional import cluster

ALLOCATIONS = 100
# One more for the allocation that shows which conductor serves the class.
NODES = ALLOCATIONS + 1
# heartbeat_timeout (5 s) + check_allocations_interval (1 s), with margin
# for two loaded cores.
TAKEOVER_WINDOW = 60
FINAL = {'pool.allocation.state_set.success': 'active',
         'pool.allocation.state_set.error': 'error'}


class Watcher(threading.Thread):
    """Follows the feed of allocation events from a cursor, as a client
    does: each request waits up to 10 s, the cursor of each answer is the
    since of the next."""

    def __init__(self, api: cluster.Cluster, since: int):
        super().__init__(daemon=True)
        self.api = api
        self.since = since
        self.events: list[dict] = []
        self.stop = threading.Event()
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set():
                status, body = self.api.request(
                    'GET', '/v1/events?object_type=allocation&limit=1000'
                           '&wait=10&since=%d' % self.since)
                if status != 200:
                    raise AssertionError((status, body))
                self.events.extend(body['events'])
                self.since = body['cursor']
        except Exception as exc:
            self.error = exc

    def finals(self) -> dict[str, str]:
        return {e['object_uuid']: FINAL[e['event_type']]
                for e in self.events if e['event_type'] in FINAL}


class WatchAcrossTakeoverMixin(cluster.ClusterTestMixin):

    def serving(self) -> str:
        """The conductor that serves the allocations of the class: the
        one a first allocation went to, once it is active and its events
        have their cursors (the watch starts after them)."""
        first = self.request('POST', '/v1/allocations', {
            'resource_class': 'watched', 'name': 'first'}, expected=201)
        deadline = time.monotonic() + TAKEOVER_WINDOW

        def scalar(sql: str):
            # A transaction each: MariaDB's would read one snapshot.
            with self.cluster.engine.connect() as conn:
                return conn.exec_driver_sql(sql % first['uuid']).scalar()

        while not scalar("SELECT COUNT(*) FROM events WHERE object_uuid = "
                         "'%s' AND seq IS NOT NULL AND state = 'active'"):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.2)
        return scalar("SELECT conductor_affinity FROM allocations WHERE "
                      "uuid = '%s'")

    def test_every_transition_once_in_order_across_a_takeover(self):
        self.enroll(NODES, 'watched')
        victim = self.serving()
        survivor, = set(self.cluster.hosts) - {victim}
        status, body = self.cluster.request('GET', '/v1/events')
        self.assertEqual(200, status, body)
        since = body['cursor']
        watcher = Watcher(self.cluster, since)
        watcher.start()
        self.addCleanup(watcher.stop.set)
        # A frozen conductor still looks alive: the API keeps sending it
        # allocations that stay allocating until the other takes them.
        self.cluster.signal(victim, signal.SIGSTOP)

        def create(i):
            return self.request('POST', '/v1/allocations', {
                'resource_class': 'watched', 'name': 'w-%d' % i},
                expected=201)['uuid']

        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            created = list(pool.map(create, range(ALLOCATIONS)))
        self.cluster.signal(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        while len(watcher.finals()) < ALLOCATIONS:
            self.assertIsNone(watcher.error)
            self.assertLess(time.monotonic() - killed_at, TAKEOVER_WINDOW,
                            '%d of %d allocations ended'
                            % (len(watcher.finals()), ALLOCATIONS))
            time.sleep(0.2)
        # A last round: nothing more may come.
        time.sleep(1)
        watcher.stop.set()
        watcher.join(15)
        self.assertIsNone(watcher.error)
        self.assertIn('Took over allocation', self.cluster.log(survivor))

        seen = watcher.events
        cursors = [e['cursor'] for e in seen]
        self.assertEqual(sorted(set(cursors)), cursors, 'not in order')
        self.assertEqual(len(seen), len({e['uuid'] for e in seen}))
        stories: dict[str, list] = {}
        for e in seen:
            stories.setdefault(e['object_uuid'], []).append(
                (e['event_type'], e['prev_state'], e['state']))
        self.assertEqual(sorted(created), sorted(stories))
        for uuid, story in stories.items():
            self.assertEqual(
                [('baremetal.allocation.create.end', None, 'allocating'),
                 ('pool.allocation.state_set.success', 'allocating',
                  'active')], story, uuid)
        # What the API shows is what the last event said.
        status, body = self.cluster.request(
            'GET', '/v1/allocations?fields=uuid,state&limit=1000')
        self.assertEqual(watcher.finals(),
                         {a['uuid']: a['state']
                          for a in body['allocations']
                          if a['uuid'] in created})
        # Every allocation event recorded was seen, no other.
        with self.cluster.engine.connect() as conn:
            recorded = {r[0] for r in conn.exec_driver_sql(
                "SELECT uuid FROM events WHERE object_type = 'allocation' "
                "AND seq > %d" % since)}
        self.assertEqual(recorded, {e['uuid'] for e in seen})
        # Outcomes the survivor gave after the takeover are among them.
        by = {e['conductor'] for e in seen
              if e['event_type'] in FINAL}
        self.assertIn(survivor, by)


class PostgreSQLWatchTestCase(WatchAcrossTakeoverMixin, testtools.TestCase):
    BACKEND = 'postgresql'


class MariaDBWatchTestCase(WatchAcrossTakeoverMixin, testtools.TestCase):
    BACKEND = 'mysql'


class HeldRequestsTestCase(cluster.ClusterTestMixin, testtools.TestCase):
    """Waiting requests never take the last request thread of pool-api."""

    BACKEND = 'mysql'
    CONDUCTORS = 1
    API_OPTIONS = {'threads': 4}

    def test_waiting_requests_leave_a_thread_to_the_others(self):
        answers = []

        def hold():
            answers.append(self.cluster.request(
                'GET', '/v1/events?wait=20')[0])

        holders = [threading.Thread(target=hold) for _ in range(4)]
        started = time.monotonic()
        for thread in holders:
            thread.start()
        # Three wait (threads - 1); the fourth is told to come back.
        deadline = time.monotonic() + 10
        while 429 not in answers and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual([429], answers)
        for _ in range(10):
            status, _body = self.cluster.request('GET', '/v1/nodes')
            self.assertEqual(200, status)
        # Answered while the three still wait.
        self.assertEqual([429], answers)
        self.assertLess(time.monotonic() - started, 20)
        for thread in holders:
            thread.join()
        self.assertEqual([429, 200, 200, 200], answers)
        self.assertGreaterEqual(time.monotonic() - started, 20)
