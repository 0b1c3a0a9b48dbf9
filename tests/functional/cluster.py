"""pool processes for functional tests: a cluster, or one pool-server.

A cluster is what a multi-node deployment runs, on one machine: pool-api
processes (behind HAProxy when there are several), pool-conductor
processes, RabbitMQ as the message bus and PostgreSQL or MariaDB as the
database, each process with its own configuration file. Run one by hand::

    python -m tests.functional.cluster --db postgresql --apis 2 \\
        --conductors 3

It prints its URL and the folder of its configuration files and logs, and
stops everything on Ctrl-C.
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

import fixtures
import sqlalchemy as sa

ADMIN_URLS = {
    'postgresql': os.environ.get(
        'POOL_TEST_PG_URL',
        'postgresql+psycopg2://openstack_citest:openstack_citest@'
        '127.0.0.1/openstack_citest'),
    # mysqlclient, the C driver a deployment uses (doc/source/deployment.rst);
    # the other MariaDB tests run on PyMySQL, oslo.db's default.
    'mysql': os.environ.get(
        'POOL_TEST_MYSQL_URL',
        'mysql+mysqldb://openstack_citest:openstack_citest@127.0.0.1/'
        'openstack_citest'),
}
RABBIT_URL = os.environ.get('POOL_TEST_TRANSPORT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
API_VERSION = '1.60'
# Conductors heartbeat every second and are dead after five seconds of
# silence, so that a takeover happens within seconds.
FAST_CONDUCTOR_OPTIONS = {'heartbeat_interval': 1, 'heartbeat_timeout': 5,
                          'check_allocations_interval': 1}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _python_main(module: str, argv0: str) -> list[str]:
    """The command that runs module's main() as the console script."""
    return [sys.executable, '-c',
            'import sys; from %s import main; sys.argv[0] = "%s"; main()'
            % (module, argv0)]


def stop_process(proc: subprocess.Popen) -> None:
    """Stop a process (frozen or not), killing it after 20 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def explain(engine, stmt, params: dict) -> list:
    """The rows of EXPLAIN (EXPLAIN QUERY PLAN on SQLite) for a SQLAlchemy
    statement and its parameters."""
    compiled = stmt.compile(engine)
    values = compiled.construct_params(params)
    if compiled.positional:
        values = tuple(values[name] for name in compiled.positiontup)
    explain = ('EXPLAIN QUERY PLAN ' if engine.dialect.name == 'sqlite'
               else 'EXPLAIN ')
    with engine.connect() as conn:
        return conn.exec_driver_sql(explain + compiled.string,
                                    values).mappings().all()


class Database(fixtures.Fixture):
    """A new, empty PostgreSQL or MariaDB database, dropped afterwards."""

    def __init__(self, backend: str = 'postgresql'):
        super().__init__()
        self.backend = backend

    def _setUp(self):
        self.name = 'pool_%s' % uuid.uuid4().hex[:12]
        admin_url = ADMIN_URLS[self.backend]
        # No pooled connections: they would not survive a database restart.
        admin = sa.create_engine(admin_url, isolation_level='AUTOCOMMIT',
                                 poolclass=sa.pool.NullPool)
        self.addCleanup(admin.dispose)
        with admin.connect() as conn:
            conn.exec_driver_sql('CREATE DATABASE %s' % self.name)
        self.addCleanup(self._drop, admin)
        self.url = admin_url.rsplit('/', 1)[0] + '/' + self.name

    def _drop(self, admin):
        force = ' WITH (FORCE)' if self.backend == 'postgresql' else ''
        with admin.connect() as conn:
            conn.exec_driver_sql('DROP DATABASE IF EXISTS %s%s'
                                 % (self.name, force))


class Cluster(fixtures.Fixture):
    """pool-api and pool-conductor processes on one database and bus.

    :param db_url: the database, with the schema or empty.
    :param conductors: how many pool-conductor processes.
    :param apis: how many pool-api processes; with more than one, HAProxy
        listens on ``url`` and spreads requests over them.
    :param conductor_options: ``[conductor]`` options of every process.
    :param api_options: more ``[api]`` options of every process.
    :param sections: more sections of every process's configuration:
        ``{section: {option: value}}``.
    :param auth_strategy: ``[DEFAULT] auth_strategy`` of every process.
    """

    def __init__(self, db_url: str, conductors: int = 2, apis: int = 1,
                 conductor_options: dict | None = None,
                 directory: str | None = None,
                 api_options: dict | None = None,
                 sections: dict[str, dict] | None = None,
                 auth_strategy: str = 'noauth'):
        super().__init__()
        self.auth_strategy = auth_strategy
        self.api_options = dict(api_options or {})
        self.sections = dict(sections or {})
        self.db_url = db_url
        self.conductor_count = conductors
        self.api_count = apis
        self.conductor_options = dict(
            FAST_CONDUCTOR_OPTIONS if conductor_options is None
            else conductor_options)
        self.directory = directory

    def _setUp(self):
        self.dir = (self.directory
                    or self.useFixture(fixtures.TempDir()).path)
        exchange = 'pool-test-%s' % uuid.uuid4().hex[:8]
        # The control exchange of every process: its RPC and notifications.
        self.exchange = exchange
        self.procs: dict[str, subprocess.Popen] = {}
        self.modules: dict[str, str] = {}
        self.apis = ['api-%d' % i for i in range(self.api_count)]
        self.hosts = ['conductor-%d-%s' % (i, exchange[-8:])
                      for i in range(self.conductor_count)]
        self.api_ports = {name: free_port() for name in self.apis}
        for name in self.apis + self.hosts:
            self._write_conf(name, exchange)
        subprocess.run(
            _python_main('pool_conductor.cmd.dbsync', 'pool-dbsync')
            + ['--config-file', self._conf(self.apis[0]), 'upgrade'],
            check=True, capture_output=True, timeout=120)
        if self.api_count > 1:
            self.port = free_port()
            self._start_haproxy()
        else:
            self.port = self.api_ports[self.apis[0]]
        self.url = 'http://127.0.0.1:%d' % self.port
        for name in self.apis:
            self.start(name, 'pool_api.cmd.api')
        for host in self.hosts:
            self.start(host, 'pool_conductor.cmd.conductor')
        self.wait_for_api()
        self.engine = sa.create_engine(self.db_url, pool_pre_ping=True)
        self.addCleanup(self.engine.dispose)

    def _conf(self, name: str) -> str:
        return os.path.join(self.dir, name + '.conf')

    def _write_conf(self, name: str, exchange: str) -> None:
        conductor = ''.join('%s = %s\n' % item
                            for item in self.conductor_options.items())
        api = ''.join('%s = %s\n' % item
                      for item in self.api_options.items())
        more = ''.join(
            '[%s]\n%s' % (section, ''.join('%s = %s\n' % item
                                           for item in options.items()))
            for section, options in self.sections.items())
        with open(self._conf(name), 'w') as f:
            f.write('[DEFAULT]\nhost = %s\ntransport_url = %s\n'
                    'auth_strategy = %s\n'
                    'control_exchange = %s\nlog_file = %s\n'
                    '[database]\nconnection = %s\n'
                    '[api]\nport = %d\nworkers = 1\n%s'
                    '[conductor]\n%s%s'
                    % (name, RABBIT_URL, self.auth_strategy, exchange,
                       os.path.join(self.dir, name + '.log'), self.db_url,
                       self.api_ports.get(name, 0), api, conductor, more))

    def _start_haproxy(self) -> None:
        haproxy = shutil.which('haproxy') or '/usr/sbin/haproxy'
        servers = ''.join(
            '    server %s 127.0.0.1:%d check inter 500 fall 2 rise 1\n'
            % (name, port) for name, port in self.api_ports.items())
        path = os.path.join(self.dir, 'haproxy.cfg')
        with open(path, 'w') as f:
            f.write(HAPROXY_CONFIG % {'port': self.port, 'servers': servers})
        proc = subprocess.Popen([haproxy, '-db', '-f', path],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.procs['haproxy'] = proc
        self.addCleanup(stop_process, proc)

    def start(self, name: str, module: str | None = None) -> None:
        """Start (or start again) the process of a conductor or API."""
        module = module or self.modules[name]
        self.modules[name] = module
        argv0 = 'pool-api' if module.endswith('.api') else 'pool-conductor'
        proc = subprocess.Popen(
            _python_main(module, argv0) + ['--config-file', self._conf(name)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs[name] = proc
        self.addCleanup(stop_process, proc)

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
            try:
                return exc.code, json.loads(raw) if raw else None
            except ValueError:
                return exc.code, {'error_message': raw.decode()}

    def wait_for_api(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.request('GET', '/v1')[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError('pool-api did not start: %s'
                             % self.log(self.apis[0]))

    def alive_conductors(self) -> set[str]:
        timeout = self.conductor_options.get('heartbeat_timeout', 15)
        since = (datetime.datetime.now(datetime.timezone.utc)
                 .replace(tzinfo=None)
                 - datetime.timedelta(seconds=timeout))
        with self.engine.connect() as conn:
            return {host for host, online, updated in conn.execute(
                sa.text('SELECT hostname, online, updated_at '
                        'FROM conductors'))
                    if online and updated and updated > since}

    def wait_for_conductors(self, count: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.alive_conductors()) < count:
            if time.monotonic() > deadline:
                raise AssertionError('%d conductors did not register'
                                     % count)
            time.sleep(0.2)

    def check(self) -> tuple[int, str]:
        """(exit code, output) of pool-dbsync check on the database."""
        proc = subprocess.run(
            _python_main('pool_conductor.cmd.dbsync', 'pool-dbsync')
            + ['--config-file', self._conf(self.apis[0]), 'check'],
            capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout + proc.stderr


HAPROXY_CONFIG = """\
global
    maxconn 2000

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch

frontend pool_api
    bind 127.0.0.1:%(port)d
    default_backend pool_api

backend pool_api
    balance roundrobin
    option httpchk GET /v1
%(servers)s"""


class ClusterTestMixin:
    """A test case's own cluster, started in setUp, and its API requests.

    setUp creates a database on BACKEND and starts a Cluster on it with
    CONDUCTORS conductors and APIS APIs, then waits until every conductor
    has registered, so that a test starts on a cluster that allocates.
    CONDUCTOR_OPTIONS are set on top of FAST_CONDUCTOR_OPTIONS;
    API_OPTIONS and SECTIONS are the Cluster's ``api_options`` and
    ``sections``. The cluster is ``self.cluster``.
    """

    BACKEND: str
    CONDUCTORS = 2
    APIS = 1
    CONDUCTOR_OPTIONS: dict = {}
    API_OPTIONS: dict = {}
    SECTIONS: dict[str, dict] = {}

    def setUp(self):
        super().setUp()
        db = self.useFixture(Database(self.BACKEND))
        self.cluster = self.useFixture(Cluster(
            db.url, conductors=self.CONDUCTORS, apis=self.APIS,
            conductor_options={**FAST_CONDUCTOR_OPTIONS,
                               **self.CONDUCTOR_OPTIONS},
            api_options=self.API_OPTIONS, sections=self.SECTIONS))
        self.cluster.wait_for_conductors(self.CONDUCTORS)

    def request(self, method: str, path: str, body=None,
                expected: int = 200):
        """The decoded answer of an API request whose status must be
        ``expected``; the test fails with the answer otherwise."""
        status, answer = self.cluster.request(method, path, body)
        self.assertEqual(expected, status, answer)
        return answer

    def enroll(self, count: int, resource_class: str) -> list[str]:
        """Nodes node-0 to node-<count - 1>, powered off and available;
        their UUIDs."""
        uuids = []
        for i in range(count):
            node = self.request('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'resource_class': resource_class,
                'name': 'node-%d' % i}, expected=201)
            for path, body in [('power', {'target': 'power off'}),
                               ('provision', {'target': 'manage'}),
                               ('provision', {'target': 'provide'})]:
                self.request('PUT', '/v1/nodes/%s/states/%s'
                             % (node['uuid'], path), body, expected=202)
            uuids.append(node['uuid'])
        return uuids


class PoolServer(fixtures.Fixture):
    """A pool-server process on a free port, its SQLite in a temp dir.

    ``url`` is its root URL; ``log()`` returns what it logged.
    ``options`` are more lines of its [DEFAULT] section, ``api_options``
    more options of its [api] section, ``sections`` more sections:
    ``{section: {option: value}}``.
    """

    def __init__(self, options: str = '',
                 api_options: dict | None = None,
                 sections: dict[str, dict] | None = None):
        super().__init__()
        self.options = options
        self.api_options = dict(api_options or {})
        self.sections = dict(sections or {})

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        conf = os.path.join(self.dir, 'pool.conf')
        with open(conf, 'w') as f:
            f.write('[DEFAULT]\nhost = pool-server-test\nstate_path = %s\n'
                    'log_file = %s\n%s\n[api]\nport = %d\n%s'
                    % (self.dir, os.path.join(self.dir, 'pool.log'),
                       self.options, self.port,
                       ''.join('%s = %s\n' % item
                               for item in self.api_options.items()))
                    + ''.join('[%s]\n%s' % (section, ''.join(
                        '%s = %s\n' % item for item in options.items()))
                        for section, options in self.sections.items()))
        self.proc = subprocess.Popen(
            _python_main('pool_api.cmd.server', 'pool-server')
            + ['--config-file', conf],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(stop_process, self.proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + '/v1', timeout=5).read()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError('pool-server did not start: %s' % self.log())

    def log(self) -> str:
        try:
            with open(os.path.join(self.dir, 'pool.log')) as f:
                return f.read()
        except OSError:
            return ''


def main() -> None:
    parser = argparse.ArgumentParser(
        description='Run a pool cluster on this machine until Ctrl-C.')
    parser.add_argument('--db', choices=sorted(ADMIN_URLS),
                        default='postgresql')
    parser.add_argument('--apis', type=int, default=2)
    parser.add_argument('--conductors', type=int, default=3)
    parser.add_argument('--dir', help='where the configuration files and '
                                      'logs go (default: a new temporary '
                                      'folder, removed at the end)')
    args = parser.parse_args()
    with Database(args.db) as db:
        if args.dir:
            os.makedirs(args.dir, exist_ok=True)
        with Cluster(db.url, conductors=args.conductors, apis=args.apis,
                     conductor_options={}, directory=args.dir) as cluster:
            print('pool cluster at %s (%d pool-api, %d pool-conductor, %s); '
                  'configuration and logs in %s; Ctrl-C stops it'
                  % (cluster.url, args.apis, args.conductors, args.db,
                     cluster.dir), flush=True)
            stop = threading.Event()
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: stop.set())
            while not stop.wait(1):
                pass


if __name__ == '__main__':
    main()
