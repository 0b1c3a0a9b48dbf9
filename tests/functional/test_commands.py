"""The command lines of pool-server, pool-api and pool-conductor."""
import os
import socket
import subprocess
import time
import urllib.request

import fixtures
import testtools

from tests.functional import cluster

COMMANDS = {'pool-server': 'pool_api.cmd.server',
            'pool-api': 'pool_api.cmd.api',
            'pool-conductor': 'pool_conductor.cmd.conductor'}


class TestCommands(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        # No pool.conf of the user or of the machine.
        self.useFixture(fixtures.EnvironmentVariable('HOME', self.dir))
        self.conf = os.path.join(self.dir, 'pool.conf')
        with open(self.conf, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n' % self.dir)

    def run_command(self, name: str, *args: str,
                    timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            cluster._python_main(COMMANDS[name], name) + list(args),
            capture_output=True, text=True, timeout=timeout, cwd=self.dir)

    def busy_port(self) -> int:
        sock = socket.socket()
        self.addCleanup(sock.close)
        sock.bind(('127.0.0.1', 0))
        sock.listen()
        return sock.getsockname()[1]

    def test_help_says_what_each_program_is(self):
        for name, says in (('pool-server', 'runs the pool API and a '
                                           'conductor in one process'),
                           ('pool-api', 'serves the pool API'),
                           ('pool-conductor', 'runs one conductor')):
            result = self.run_command(name, '--help')
            self.assertEqual(0, result.returncode, result.stderr)
            help_text = ' '.join(result.stdout.split())
            self.assertIn('usage: %s' % name, help_text)
            self.assertIn('%s %s' % (name, says), help_text)
            if name == 'pool-conductor':
                self.assertNotIn('--port', help_text)
            else:
                self.assertIn('--port PORT The TCP port the API listens on; '
                              'overrides [api] port (default 6388).',
                              help_text)
                self.assertIn('--host ADDRESS The address the API listens '
                              'on; overrides [api] host_ip', help_text)

    def test_port_in_use_is_one_line_and_exit_status_1(self):
        for name in ('pool-server', 'pool-api'):
            port = self.busy_port()
            result = self.run_command(name, '--config-file', self.conf,
                                      '--port', str(port))
            self.assertEqual(1, result.returncode, result.stderr)
            self.assertEqual(
                '%s: cannot listen on 127.0.0.1 port %d: the port is in use '
                'by another process; choose another with --port or [api] '
                'port.\n' % (name, port), result.stderr)
            self.assertEqual('', result.stdout)

    def test_address_not_of_this_machine_is_one_line(self):
        result = self.run_command('pool-server', '--config-file', self.conf,
                                  '--host', '192.0.2.1', '--port', '6388')
        self.assertEqual(1, result.returncode, result.stderr)
        self.assertEqual(
            'pool-server: cannot listen on 192.0.2.1 port 6388: Cannot '
            'assign requested address; check --host and --port ([api] '
            'host_ip and port).\n', result.stderr)

    def start_server(self, port: int) -> subprocess.Popen:
        """pool-server on port, logging to pool.log, once it answers."""
        proc = subprocess.Popen(
            cluster._python_main(COMMANDS['pool-server'], 'pool-server')
            + ['--config-file', self.conf, '--port', str(port),
               '--log-file', os.path.join(self.dir, 'pool.log')],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=self.dir)
        self.addCleanup(cluster.stop_process, proc)
        url = 'http://127.0.0.1:%d/v1' % port
        for _attempt in range(300):
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    self.assertEqual(200, resp.status)
                    return proc
            except OSError:
                self.assertIsNone(proc.poll(), 'pool-server exited')
                time.sleep(0.2)
        self.fail('pool-server did not answer on port %d' % port)

    def test_server_listens_on_the_port_of_the_command_line(self):
        port = cluster.free_port()
        self.start_server(port)
        # A second one on the same port says so and stops.
        result = self.run_command('pool-server', '--config-file', self.conf,
                                  '--port', str(port))
        self.assertEqual(1, result.returncode, result.stderr)
        self.assertIn('port %d: the port is in use' % port, result.stderr)

    def test_server_writes_every_request_line_before_it_stops(self):
        port = cluster.free_port()
        proc = self.start_server(port)
        for _ in range(20):
            with urllib.request.urlopen(
                    'http://127.0.0.1:%d/v1/nodes?limit=3' % port,
                    timeout=5) as resp:
                self.assertEqual(200, resp.status)
        # Stopped at once: the lines still queued are written as it stops.
        proc.terminate()
        self.assertEqual(0, proc.wait(30))
        with open(os.path.join(self.dir, 'pool.log')) as f:
            self.assertEqual(20, f.read().count(
                '"GET /v1/nodes?limit=3 HTTP/1.1" status: 200'))
