"""pool processes for functional tests: a cluster, or one pool-server."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

import fixtures
import sqlalchemy as sa

PG_ADMIN_URL = os.environ.get(
    'POOL_TEST_PG_URL',
    'postgresql+psycopg2://openstack_citest:openstack_citest@127.0.0.1/'
    'openstack_citest')
RABBIT_URL = os.environ.get('POOL_TEST_TRANSPORT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
API_VERSION = '1.60'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class PostgresDatabase(fixtures.Fixture):
    """A new, empty PostgreSQL database, dropped afterwards."""

    def _setUp(self):
        self.name = 'pool_%s' % uuid.uuid4().hex[:12]
        admin = sa.create_engine(PG_ADMIN_URL, isolation_level='AUTOCOMMIT')
        with admin.connect() as conn:
            conn.exec_driver_sql('CREATE DATABASE %s' % self.name)
        self.addCleanup(self._drop, admin)
        self.url = PG_ADMIN_URL.rsplit('/', 1)[0] + '/' + self.name

    def _drop(self, admin):
        with admin.connect() as conn:
            conn.exec_driver_sql('DROP DATABASE IF EXISTS %s WITH (FORCE)'
                                 % self.name)
        admin.dispose()


class Cluster(fixtures.Fixture):
    """One pool-api and some pool-conductor processes.

    Conductors heartbeat every second and are declared dead after five, so
    that a takeover happens within seconds.
    """

    def __init__(self, db_url: str, conductors: int = 2):
        super().__init__()
        self.db_url = db_url
        self.conductor_count = conductors

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        exchange = 'pool-test-%s' % uuid.uuid4().hex[:8]
        self.procs: dict[str, subprocess.Popen] = {}
        self.hosts = ['conductor-%s-%d' % (exchange, i)
                      for i in range(self.conductor_count)]
        for name in ['api'] + self.hosts:
            with open(self._conf(name), 'w') as f:
                f.write(
                    '[DEFAULT]\nhost = %s\ntransport_url = %s\n'
                    'control_exchange = %s\nlog_file = %s\n'
                    '[database]\nconnection = %s\n'
                    '[api]\nport = %d\nworkers = 1\n'
                    '[conductor]\nheartbeat_interval = 1\n'
                    'heartbeat_timeout = 5\ncheck_allocations_interval = 1\n'
                    % (name, RABBIT_URL, exchange,
                       os.path.join(self.dir, name + '.log'), self.db_url,
                       self.port))
        self._run('pool_conductor.cmd.dbsync', 'api', 'upgrade').wait(60)
        self.start('api', 'pool_api.cmd.api')
        for host in self.hosts:
            self.start(host, 'pool_conductor.cmd.conductor')
        self.wait_for_api()
        self.engine = sa.create_engine(self.db_url)
        self.addCleanup(self.engine.dispose)

    def _conf(self, name: str) -> str:
        return os.path.join(self.dir, name + '.conf')

    def _run(self, module: str, name: str, *args) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, '-c',
             'import sys; from %s import main; sys.argv[0] = "%s"; main()'
             % (module, name), '--config-file', self._conf(name), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def check(self) -> tuple[int, str]:
        """(exit code, output) of pool-dbsync check on the database."""
        proc = subprocess.run(
            [sys.executable, '-c',
             'import sys; from pool_conductor.cmd.dbsync import main; '
             'sys.argv[0] = "pool-dbsync"; main()',
             '--config-file', self._conf('api'), 'check'],
            capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout

    def start(self, name: str, module: str) -> None:
        proc = self._run(module, name)
        self.procs[name] = proc
        self.addCleanup(self._terminate, proc)

    def _terminate(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def signal(self, name: str, sig: int) -> None:
        self.procs[name].send_signal(sig)
        if sig == signal.SIGKILL:
            self.procs[name].wait()

    def log(self, name: str) -> str:
        try:
            with open(os.path.join(self.dir, name + '.log')) as f:
                return f.read()
        except OSError:
            return ''

    def request(self, method: str, path: str, body=None):
        """(status, decoded JSON body or None) of one API request."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={'Content-Type': 'application/json',
                     'X-OpenStack-Ironic-API-Version': API_VERSION})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            return exc.code, json.loads(raw) if raw else None

    def wait_for_api(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.request('GET', '/v1')[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError('pool-api did not start: %s' % self.log('api'))

    def alive_conductors(self) -> set[str]:
        with self.engine.connect() as conn:
            return {r[0] for r in conn.exec_driver_sql(
                "SELECT hostname FROM conductors WHERE online AND "
                "updated_at > (now() at time zone 'utc') - interval '5 s'")}


class PoolServer(fixtures.Fixture):
    """A pool-server process on a free port, its SQLite in a temp dir.

    ``url`` is its root URL; ``log()`` returns what it logged.
    """

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        conf = os.path.join(self.dir, 'pool.conf')
        with open(conf, 'w') as f:
            f.write('[DEFAULT]\nhost = pool-server-test\nstate_path = %s\n'
                    'log_file = %s\n[api]\nport = %d\n'
                    % (self.dir, os.path.join(self.dir, 'pool.log'),
                       self.port))
        self.proc = subprocess.Popen(
            [sys.executable, '-c',
             'import sys; from pool_api.cmd.server import main; '
             'sys.argv[0] = "pool-server"; main()',
             '--config-file', conf],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._stop)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + '/v1', timeout=5).read()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError('pool-server did not start: %s' % self.log())

    def _stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log(self) -> str:
        try:
            with open(os.path.join(self.dir, 'pool.log')) as f:
                return f.read()
        except OSError:
            return ''
