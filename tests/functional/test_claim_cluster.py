"""Claims on a cluster: bound by the conductors' rounds, also those written
for a conductor killed meanwhile, and released when their lifespan ends."""
import datetime
import signal
import time

import testtools

from tests.functional import cluster

NODES = 6
# heartbeat_timeout (5 s) + the rounds, with margin for two loaded cores.
WINDOW = 30


class ClaimClusterMixin(cluster.ClusterTestMixin):

    CONDUCTOR_OPTIONS = {'check_claims_interval': 0.2,
                         'check_lifespans_interval': 0.5}

    def wait(self, predicate, what):
        deadline = time.monotonic() + WINDOW
        while True:
            found = predicate()
            if found:
                return found
            self.assertLess(time.monotonic(), deadline, what)
            time.sleep(0.2)

    def claims(self):
        return self.request('GET', '/v1/claims')['claims']

    def test_claims_bound_taken_over_and_expired(self):
        self.request('POST', '/v1/pools', {'name': 'lab'}, expected=201)
        self.enroll(NODES, 'lab')
        self.request('POST', '/v1/pools/lab/addMachines',
                     {'all_machines': True})
        self.request('POST', '/v1/providers', {
            'name': 'lab', 'pool': 'lab',
            'defaults': {'resource_class': 'lab'},
            'lifespan': {'maximum': '1h'}}, expected=201)
        # A conductor dies; until its heartbeat is stale the API still
        # writes claims for it, and the survivor takes them over.
        victim = self.cluster.hosts[0]
        self.cluster.signal(victim, signal.SIGKILL)
        for i in range(3):
            self.request('POST', '/v1/claims', {
                'name': 'c%d' % i,
                'resources': [{'provider': 'lab'}, {'provider': 'lab'}]},
                expected=201)
        self.wait(lambda: all(c['state'] == 'ready'
                              for c in self.claims()), 'claims bound')
        nodes = {self.request('GET', '/v1/allocations/%s' % a)['node_uuid']
                 for c in self.claims() for a in c['allocations']}
        self.assertEqual(NODES, len(nodes))
        # The survivor bound them all, whichever conductor they were
        # written for.
        survivor, = set(self.cluster.hosts) - {victim}
        with self.cluster.engine.connect() as conn:
            self.assertEqual([(survivor,)], conn.exec_driver_sql(
                'SELECT DISTINCT conductor_affinity FROM claims').all())
        # A fourth finds no machine left: error, nothing held.
        self.request('POST', '/v1/claims', {
            'name': 'late', 'resources': [{'provider': 'lab'}]},
            expected=201)
        late = self.wait(lambda: [c for c in self.claims()
                                  if c['name'] == 'late'
                                  and c['state'] == 'error'], 'late error')
        self.assertIn('No Free machine of pool lab', late[0]['last_error'])
        end = (datetime.datetime.now(datetime.timezone.utc)
               + datetime.timedelta(seconds=2))
        for i in range(3):
            self.request('PATCH', '/v1/claims/c%d' % i, [
                {'op': 'replace', 'path': '/lifespan_end',
                 'value': end.isoformat()}])
        self.wait(lambda: all(c['state'] == 'expired'
                              for c in self.claims()
                              if c['name'] != 'late'), 'claims expired')
        self.assertGreaterEqual(
            datetime.datetime.now(datetime.timezone.utc), end)
        self.assertEqual([], self.request('GET', '/v1/allocations')[
            'allocations'])
        self.assertEqual(NODES, self.request(
            'GET', '/v1/pools/lab/status')['statuses']['Free'])


class PostgreSQLClaimClusterTestCase(ClaimClusterMixin, testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLClaimClusterTestCase(ClaimClusterMixin, testtools.TestCase):
    BACKEND = 'mysql'
