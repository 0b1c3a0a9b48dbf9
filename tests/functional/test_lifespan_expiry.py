"""Allocations whose lifespan ends are released by the conductors, also
those of a conductor killed before their end."""
import datetime
import signal
import time

import testtools

from tests.functional import cluster

NODES = 8
# heartbeat_timeout (5 s) + check_lifespans_interval (0.5 s), with margin
# for two loaded cores.
EXPIRY_WINDOW = 30


class ExpiryMixin(cluster.ClusterTestMixin):

    CONDUCTOR_OPTIONS = {'check_lifespans_interval': 0.5}

    def test_expiry_goes_on_after_a_sigkill(self):
        status, pool = self.cluster.request('POST', '/v1/pools', {
            'name': 'leases', 'lifespan': {'maximum': '1h'}})
        self.assertEqual(201, status, pool)
        self.enroll(NODES, 'lease')
        self.request('POST', '/v1/pools/leases/addMachines',
                     {'all_machines': True})
        later = (datetime.datetime.now(datetime.timezone.utc)
                 + datetime.timedelta(minutes=30))
        for _ in range(NODES):
            self.request('POST', '/v1/allocations', {
                'resource_class': 'lease', 'pool': 'leases',
                'lifespan_end': later.isoformat()}, expected=201)
        deadline = time.monotonic() + EXPIRY_WINDOW
        while True:
            allocs = self.request('GET', '/v1/allocations')['allocations']
            if all(a['state'] == 'active' for a in allocs):
                break
            self.assertLess(time.monotonic(), deadline, allocs)
            time.sleep(0.2)
        self.assertEqual(NODES, len(allocs))
        with self.cluster.engine.connect() as conn:
            held = dict(conn.exec_driver_sql(
                'SELECT conductor_affinity, count(*) FROM allocations '
                'GROUP BY conductor_affinity').all())
        # The conductor of the pool's class holds them: they must be taken.
        victim = max(held, key=held.get)
        self.assertGreater(held[victim], 0)
        self.cluster.signal(victim, signal.SIGKILL)
        # Their end comes after the kill.
        end = (datetime.datetime.now(datetime.timezone.utc)
               + datetime.timedelta(seconds=2))
        for alloc in allocs:
            self.request('PATCH', '/v1/allocations/%s' % alloc['uuid'], [
                {'op': 'replace', 'path': '/lifespan_end',
                 'value': end.isoformat()}])

        deadline = end + datetime.timedelta(seconds=EXPIRY_WINDOW)
        while self.request('GET', '/v1/allocations')['allocations']:
            self.assertLess(datetime.datetime.now(datetime.timezone.utc),
                            deadline)
            time.sleep(0.5)
        # Not before the end.
        self.assertGreaterEqual(
            datetime.datetime.now(datetime.timezone.utc), end)
        nodes = self.request(
            'GET', '/v1/nodes?fields=name,instance_uuid,pool_status'
        )['nodes']
        self.assertEqual([(None, 'Free')] * NODES,
                         [(n['instance_uuid'], n['pool_status'])
                          for n in nodes])
        survivor, = set(self.cluster.hosts) - {victim}
        self.assertIn('reached the end of its lifespan',
                      self.cluster.log(survivor))


class PostgreSQLExpiryTestCase(ExpiryMixin, testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLExpiryTestCase(ExpiryMixin, testtools.TestCase):
    BACKEND = 'mysql'
