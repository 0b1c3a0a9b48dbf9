"""A conductor killed while it holds allocations: others finish them."""
import signal
import time

import testtools

from tests.functional import cluster

NODES = 12
ALLOCATIONS = 18
# heartbeat_timeout (5 s) + check_allocations_interval (1 s), with margin
# for two loaded cores; the default deployment takes over within 30 s.
TAKEOVER_WINDOW = 30


class TakeoverTestCase(cluster.ClusterTestMixin, testtools.TestCase):

    BACKEND = 'postgresql'

    def test_sigkill_conductor_with_allocating_rows(self):
        self.enroll(NODES, 'takeover')
        # The allocations of a class go to one conductor: the first shows
        # which.
        status, first = self.cluster.request(
            'POST', '/v1/allocations', {'resource_class': 'takeover'})
        self.assertEqual(201, status, first)
        created = [first['uuid']]
        with self.cluster.engine.connect() as conn:
            victim = conn.exec_driver_sql(
                'SELECT conductor_affinity FROM allocations').scalar()
        survivor, = set(self.cluster.hosts) - {victim}
        # A frozen conductor still looks alive, so the API keeps sending it
        # allocations that it cannot process: they stay allocating.
        self.cluster.signal(victim, signal.SIGSTOP)
        for _ in range(ALLOCATIONS - 1):
            status, alloc = self.cluster.request(
                'POST', '/v1/allocations', {'resource_class': 'takeover'})
            self.assertEqual(201, status, alloc)
            created.append(alloc['uuid'])
        with self.cluster.engine.connect() as conn:
            stranded = conn.exec_driver_sql(
                "SELECT count(*) FROM allocations WHERE state = "
                "'allocating' AND conductor_affinity = %(h)s",
                {'h': victim}).scalar()
        self.assertGreater(stranded, 0)
        self.cluster.signal(victim, signal.SIGKILL)
        killed_at = time.monotonic()

        while True:
            status, body = self.cluster.request(
                'GET', '/v1/allocations?fields=uuid,state,node_uuid')
            self.assertEqual(200, status)
            allocs = body['allocations']
            if all(a['state'] != 'allocating' for a in allocs):
                break
            self.assertLess(time.monotonic() - killed_at, TAKEOVER_WINDOW,
                            [a for a in allocs if a['state'] == 'allocating'])
            time.sleep(0.5)

        self.assertEqual(sorted(created), sorted(a['uuid'] for a in allocs))
        active = [a for a in allocs if a['state'] == 'active']
        self.assertEqual(NODES, len(active))
        self.assertEqual(ALLOCATIONS - NODES,
                         sum(a['state'] == 'error' for a in allocs))
        self.assertEqual(NODES, len({a['node_uuid'] for a in active}))
        for alloc in active:
            status, node = self.cluster.request(
                'GET', '/v1/nodes/%s' % alloc['node_uuid'])
            self.assertEqual(alloc['uuid'], node['instance_uuid'])
            self.assertEqual(alloc['uuid'], node['allocation_uuid'])
        with self.cluster.engine.connect() as conn:
            owners = {r[0] for r in conn.exec_driver_sql(
                'SELECT conductor_affinity FROM allocations')}
            locked = conn.exec_driver_sql(
                'SELECT count(*) FROM nodes WHERE reservation IS NOT NULL'
            ).scalar()
        self.assertIn(survivor, owners)
        self.assertEqual(0, locked)
        self.assertIn('Took over allocation', self.cluster.log(survivor))
        returncode, output = self.cluster.check()
        self.assertEqual((0, 'No problems found.\n'), (returncode, output))

    def test_no_live_conductor_is_503(self):
        for host in self.cluster.hosts:
            self.cluster.signal(host, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while True:
            status, body = self.cluster.request(
                'POST', '/v1/allocations', {'resource_class': 'takeover'})
            if status == 503:
                break
            self.assertLess(time.monotonic(), deadline, (status, body))
            time.sleep(0.5)
        self.assertIn('No conductor is alive', body['error_message'])
