"""Faults while allocations are in flight: nothing is lost or held twice.

Each test runs a cluster of two pool-api processes behind HAProxy and
three pool-conductor processes, enrolls NODES nodes, and posts ALLOCATIONS
allocations (more than the nodes) from several clients while it breaks
something. Then every allocation must end active or error within the
takeover window, exactly NODES of them active (none failed while a node
was free), and ``pool-dbsync check`` must find nothing wrong.

These tests restart shared services (RabbitMQ, PostgreSQL): they run one
at a time, after the other functional tests (tools/run-tests.sh).
"""
import concurrent.futures
import os
import signal
import socket
import subprocess
import threading
import time

import sqlalchemy as sa
import testtools

from tests.functional import cluster

NODES = 24
ALLOCATIONS = 32
CLIENTS = 4
# heartbeat_timeout (5 s) + check_allocations_interval (1 s) in these
# clusters, with a wide margin for two loaded cores.
TAKEOVER_WINDOW = 30
RESOURCE_CLASS = 'faults'


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=1):
            return True
    except OSError:
        return False


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('%s did not happen within %d s'
                                 % (what, timeout))
        time.sleep(0.5)


def restart_rabbitmq() -> None:
    subprocess.run(['rabbitmqctl', 'stop'], capture_output=True,
                   timeout=120)
    _wait(lambda: not _port_open(5672), 60, 'RabbitMQ stopping')
    time.sleep(2)
    subprocess.run(['rabbitmq-server', '-detached'], capture_output=True,
                   timeout=120)
    _wait(lambda: _port_open(5672), 120, 'RabbitMQ starting')


def restart_postgresql(outage: float = 3) -> None:
    version = sorted(os.listdir('/etc/postgresql'))[-1]
    ctl = ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main']
    subprocess.run(ctl + ['stop', '-m', 'fast'], check=True,
                   capture_output=True, timeout=120)
    time.sleep(outage)
    subprocess.run(ctl + ['start'], check=True, capture_output=True,
                   timeout=120)
    _wait(lambda: _port_open(5432), 60, 'PostgreSQL starting')


class FaultTestMixin(cluster.ClusterTestMixin):

    BACKEND = 'postgresql'
    CONDUCTORS = 3
    APIS = 2

    def setUp(self):
        super().setUp()
        self.enroll()

    def request(self, method, path, body=None, retry_for=60):
        """A request as a client makes it: retried while the service is
        unreachable or answers 502/503, never given up on a 500.

        Its (status, answer) is returned, not asserted: the tests check
        what became of each request once the fault is over.
        """
        deadline = time.monotonic() + retry_for
        while True:
            try:
                status, data = self.cluster.request(method, path, body)
            except OSError:
                status, data = None, None
            if status not in (None, 502, 503, 504):
                return status, data
            if time.monotonic() > deadline:
                return status, data
            time.sleep(0.3)

    def enroll(self):
        for i in range(NODES):
            status, node = self.request('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'resource_class': RESOURCE_CLASS,
                'name': 'node-%d' % i})
            self.assertEqual(201, status, node)
            for verb in ('manage', 'provide'):
                status, body = self.request(
                    'PUT', '/v1/nodes/%s/states/provision' % node['uuid'],
                    {'target': verb})
                self.assertEqual(202, status, body)

    def allocate_during(self, fault) -> list[str]:
        """Post the allocations from CLIENTS threads; run fault once a
        quarter of them are posted. Returns the UUIDs created."""
        posted = []
        quarter = threading.Event()
        lock = threading.Lock()

        def post(i):
            status, body = self.request('POST', '/v1/allocations', {
                'resource_class': RESOURCE_CLASS, 'name': 'alloc-%d' % i})
            if status == 409 and 'alloc-%d' % i in str(body):
                # A retried POST whose first attempt got through.
                status, body = self.request('GET',
                                            '/v1/allocations/alloc-%d' % i)
                self.assertEqual(200, status, body)
            else:
                self.assertEqual(201, status, body)
            with lock:
                posted.append(body['uuid'])
                if len(posted) >= ALLOCATIONS // 4:
                    quarter.set()

        with concurrent.futures.ThreadPoolExecutor(CLIENTS + 1) as pool:
            futures = [pool.submit(post, i) for i in range(ALLOCATIONS)]
            quarter.wait(120)
            fault()
            for future in futures:
                future.result()
        return posted

    def assert_all_settled(self, posted):
        start = time.monotonic()
        while True:
            status, body = self.request(
                'GET', '/v1/allocations?fields=uuid,state,node_uuid')
            self.assertEqual(200, status, body)
            allocs = body['allocations']
            pending = [a for a in allocs if a['state'] == 'allocating']
            if not pending:
                break
            self.assertLess(time.monotonic() - start, TAKEOVER_WINDOW,
                            pending)
            time.sleep(0.5)
        self.assertEqual(sorted(posted), sorted(a['uuid'] for a in allocs))
        active = [a for a in allocs if a['state'] == 'active']
        self.assertEqual(NODES, len(active), allocs)
        self.assertEqual(NODES, len({a['node_uuid'] for a in active}))
        returncode, output = self.cluster.check()
        self.assertEqual(0, returncode, output)

    def kill(self, *names):
        for name in names:
            self.cluster.signal(name, signal.SIGKILL)

    def serving(self) -> str:
        """The conductor most allocations were sent to (all ask for the
        same resource class: one conductor serves them)."""
        with self.cluster.engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT conductor_affinity FROM allocations GROUP BY '
                'conductor_affinity ORDER BY COUNT(*) DESC')).scalars().first()

    def test_kill_one_conductor(self):
        posted = self.allocate_during(lambda: self.kill(self.serving()))
        self.assert_all_settled(posted)

    def test_kill_one_api(self):
        posted = self.allocate_during(lambda: self.kill(
            self.cluster.apis[0]))
        self.assert_all_settled(posted)


class PostgreSQLFaultTestCase(FaultTestMixin, testtools.TestCase):

    def test_kill_two_of_three_conductors(self):
        def fault():
            serving = self.serving()
            self.kill(serving, next(h for h in self.cluster.hosts
                                    if h != serving))

        posted = self.allocate_during(fault)
        self.assert_all_settled(posted)

    def test_restart_rabbitmq(self):
        posted = self.allocate_during(restart_rabbitmq)
        self.assert_all_settled(posted)

    def test_restart_postgresql(self):
        statuses = []

        def outage():
            stop = threading.Event()

            def probe():
                while not stop.is_set():
                    try:
                        statuses.append(self.cluster.request(
                            'GET', '/v1/allocations?limit=1')[0])
                    except OSError:
                        pass
                    time.sleep(0.2)
            prober = threading.Thread(target=probe)
            prober.start()
            try:
                restart_postgresql()
            finally:
                stop.set()
                prober.join()

        posted = self.allocate_during(outage)
        self.assert_all_settled(posted)
        self.assertIn(503, statuses)
        self.assertEqual(set(), set(statuses) - {200, 503})

    def held_by(self, host: str) -> int:
        """How many allocations wait for host."""
        with self.cluster.engine.connect() as conn:
            return conn.execute(sa.text(
                "SELECT COUNT(*) FROM allocations WHERE state = "
                "'allocating' AND conductor_affinity = :host"),
                {'host': host}).scalar()

    def test_conductor_back_from_the_dead_does_not_fight(self):
        zombie = None
        extra = []

        def freeze():
            nonlocal zombie
            zombie = self.serving()
            self.cluster.signal(zombie, signal.SIGSTOP)
            # Until it is declared dead, the APIs still send it
            # allocations: post more until it holds one, so that there is
            # something to take over however fast the others were.
            while not self.held_by(zombie):
                self.assertLess(len(extra), 60)
                status, body = self.request('POST', '/v1/allocations', {
                    'resource_class': RESOURCE_CLASS,
                    'name': 'extra-%d' % len(extra)})
                self.assertEqual(201, status, body)
                extra.append(body['uuid'])
            _wait(lambda: zombie not in self.cluster.alive_conductors(),
                  30, 'the frozen conductor being declared dead')
            _wait(lambda: not self.held_by(zombie), 30,
                  'its allocations being taken over')
            self.cluster.signal(zombie, signal.SIGCONT)

        posted = self.allocate_during(freeze)
        self.assert_all_settled(posted + extra)
        self.assertIn('Took over allocation',
                      ''.join(self.cluster.log(h)
                              for h in self.cluster.hosts if h != zombie))
        _wait(lambda: zombie in self.cluster.alive_conductors(), 30,
              'the conductor coming back')
        self.assertEqual(0, self.cluster.check()[0])


class MySQLFaultTestCase(FaultTestMixin, testtools.TestCase):

    BACKEND = 'mysql'
