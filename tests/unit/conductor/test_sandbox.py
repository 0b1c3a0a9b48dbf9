"""Sandbox processes: limits that hold whatever the work does, and the
pool of processes that runs it."""
import os
import threading
import time

from oslo_config import fixture as config_fixture
import testtools

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import sandbox


class SandboxTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(config_fixture.Config(CONF)).config

    def refused(self, func, args: tuple, message: str) -> float:
        start = time.monotonic()
        error = self.assertRaises(exception.InvalidParameterValue,
                                  sandbox.call, func, args, 'Work')
        self.assertEqual('Work ' + message, error.message)
        return time.monotonic() - start

    def test_work_runs_in_another_process(self):
        self.assertNotEqual(os.getpid(), sandbox.call(os.getpid, (), 'W'))

    def test_wall_clock_limit_without_cpu_time(self):
        # Started before: the start of a sandbox process does not count.
        sandbox.call(os.getpid, (), 'W')
        self.config(wall_time_limit=0.3, group='sandbox')
        seconds = self.refused(time.sleep, (30,), 'took more than 0.3 s.')
        # Stopped, not slept to its end (room for a busy machine).
        self.assertLess(seconds, 8)
        self.assertNotEqual(os.getpid(), sandbox.call(os.getpid, (), 'W'))

    def test_a_worker_that_dies_is_a_refusal_and_replaced(self):
        self.refused(os.abort, (), 'stopped its sandbox process (exit '
                                   'status -6).')
        self.assertNotEqual(os.getpid(), sandbox.call(os.getpid, (), 'W'))

    def test_unexpected_errors_are_server_errors(self):
        error = self.assertRaises(RuntimeError, sandbox.call, os.getpid,
                                  (1,), 'W')
        self.assertIn('TypeError', str(error))

    def test_at_most_processes_at_once(self):
        self.config(processes=1, group='sandbox')
        # Another test of this process may have started more.
        pool = sandbox._POOL = sandbox._Pool()
        self.addCleanup(setattr, sandbox, '_POOL', sandbox._Pool())
        self.addCleanup(lambda: [p.stop() for p in pool.idle])
        pids = []
        threads = [threading.Thread(target=lambda: pids.append(
            sandbox.call(os.getppid, (), 'W'))) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Every worker was forked by the one sandbox process.
        self.assertEqual(1, len(set(pids)), pids)
        self.assertEqual(1, pool.started)
