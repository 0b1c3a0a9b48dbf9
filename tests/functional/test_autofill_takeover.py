"""AutoFill goes on after the conductor filling a pool is killed in the
middle of its broker's calls: nothing lost, nothing made twice."""
import os
import signal
import sys
import time

import fixtures
import testtools

from tests.functional import cluster

SCRIPT = os.path.join(os.path.dirname(__file__), os.pardir, 'brokers',
                      'machines.py')
MIN_FREE = 12
# heartbeat_timeout (5 s) + the rest of the machines, with margin for two
# loaded cores.
FILL_WINDOW = 90


class TakeoverMixin(cluster.ClusterTestMixin):

    CONDUCTOR_OPTIONS = {'check_autofill_interval': 0.3,
                         'broker_retry_interval': 0.5,
                         # Two calls at once: the pool fills over several
                         # seconds, and the kill lands in the middle.
                         'broker_workers': 2}
    SECTIONS = {'exec_broker': {
        'program': 'machines:%s %s' % (sys.executable, SCRIPT)}}

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path

    def members(self):
        with self.cluster.engine.connect() as conn:
            return conn.exec_driver_sql(
                "SELECT pool_status, broker_token, broker_ref, name "
                "FROM nodes WHERE pool = 'web'").all()

    def test_fill_goes_on_after_a_sigkill(self):
        self.request('POST', '/v1/brokers', {
            'name': 'vms', 'driver': 'exec',
            'parameters': {'program': 'machines', 'state_dir': self.state,
                           'delay': 0.4}},
            expected=201)
        self.request('POST', '/v1/pools', {
            'name': 'web', 'broker': 'vms',
            'autofill': {'use_autofill': True, 'min_free': MIN_FREE}},
            expected=201)
        # Wait until the broker is in the middle of its work.
        deadline = time.monotonic() + FILL_WINDOW
        while True:
            rows = self.members()
            free = sum(1 for r in rows if r.pool_status == 'Free')
            if 2 <= free < MIN_FREE - 2:
                break
            self.assertLess(time.monotonic(), deadline, rows)
            time.sleep(0.05)
        with self.cluster.engine.connect() as conn:
            victim = conn.exec_driver_sql(
                "SELECT autofill_conductor FROM pools WHERE name = 'web'"
            ).scalar_one()
        self.cluster.signal(victim, signal.SIGKILL)
        while True:
            rows = self.members()
            if [r.pool_status for r in rows] == ['Free'] * MIN_FREE:
                break
            self.assertLess(time.monotonic(), deadline, rows)
            time.sleep(0.2)
        tokens = {r.broker_token for r in rows}
        self.assertEqual(MIN_FREE, len(tokens))
        self.assertEqual({'vm-' + t for t in tokens},
                         {r.broker_ref for r in rows})
        # The broker made one machine per request: none twice, none lost.
        self.assertEqual(sorted('vm-%s.json' % t for t in tokens),
                         sorted(os.listdir(self.state)))
        with self.cluster.engine.connect() as conn:
            self.assertNotEqual(victim, conn.exec_driver_sql(
                "SELECT autofill_conductor FROM pools WHERE name = 'web'"
            ).scalar_one())


class PostgreSQLTakeoverTestCase(TakeoverMixin, testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLTakeoverTestCase(TakeoverMixin, testtools.TestCase):
    BACKEND = 'mysql'
