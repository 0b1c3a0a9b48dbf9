"""Prometheus metrics: the fleet's gauges match the API's counts, every
request is counted, no series per node, and who may scrape."""
import collections
import socket
import time
import urllib.request

import fixtures
from prometheus_client import parser

from pool_api import app as pool_app
from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import conductors as conductors_db
from pool_conductor import service
from tests.unit.api import base
from tests.unit.api import test_auth


def samples(text: str) -> dict:
    """(name, sorted labels) -> value of every sample."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in parser.text_string_to_metric_families(text)
            for s in family.samples}


def total(found: dict, name: str, **labels) -> float:
    return sum(v for (n, ls), v in found.items() if n == name
               and all(dict(ls).get(k) == w for k, w in labels.items()))


class MetricsTestCase(base.APITestCase):

    def scrape(self) -> dict:
        resp = self.get('/metrics')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertTrue(resp.content_type.startswith('text/plain'))
        return samples(resp.get_data(as_text=True))

    def test_fleet_gauges_equal_the_api_counts(self):
        conductors_db.register_conductor(self.context, 'test-host')
        worker = AllocationWorker('test-host', 1, batch_size=8)
        self.addCleanup(worker.stop)
        for i in range(6):
            self.create_node(name='node-%d' % i)
        self.create_node(name='other', resource_class='gpu',
                         provision_state='manageable')
        # Counters are the process's: other tests count too.
        timed = total(self.scrape(), 'pool_allocation_duration_seconds'
                      '_count', outcome='active')
        for _ in range(4):
            self.post('/v1/allocations', {'resource_class': 'baremetal'})
        self.post('/v1/allocations', {'resource_class': 'missing'})
        worker.process_batch([a for a, _ in self.casts])
        found = self.scrape()
        nodes = self.get('/v1/nodes?fields=provision_state').get_json()[
            'nodes']
        by_state = collections.Counter(n['provision_state'] for n in nodes)
        for state, count in by_state.items():
            self.assertEqual(count, total(found, 'pool_nodes',
                                          provision_state=state))
        self.assertEqual(len(nodes), total(found, 'pool_nodes'))
        allocs = self.get('/v1/allocations').get_json()['allocations']
        by_alloc = collections.Counter(a['state'] for a in allocs)
        self.assertEqual({'active': 4, 'error': 1}, by_alloc)
        for state, count in by_alloc.items():
            self.assertEqual(count, total(found, 'pool_allocations',
                                          state=state))
        self.assertEqual(4, total(found, 'pool_pool_nodes',
                                  pool='default', status='InUse'))
        self.assertEqual(3, total(found, 'pool_pool_nodes',
                                  pool='default', status='Free'))
        self.assertEqual(timed + 4, total(
            found, 'pool_allocation_duration_seconds_count',
            outcome='active'))
        self.assertEqual(1, total(found, 'pool_conductors', state='alive'))
        self.assertEqual(0, total(found, 'pool_stranded'))

    def test_every_request_is_counted_by_route(self):
        node = self.create_node(name='counted')
        before = self.scrape()
        for _ in range(7):
            self.get('/v1/nodes/%s' % node.uuid)
        self.get('/v1/nodes/no-such-node')
        after = self.scrape()
        route = '/v1/nodes/<node_ident>'

        def delta(status):
            key = ('pool_api_requests_total',
                   (('method', 'GET'), ('route', route),
                    ('status', status)))
            return after.get(key, 0) - before.get(key, 0)
        self.assertEqual(7, delta('200'))
        self.assertEqual(1, delta('404'))

    def test_series_do_not_grow_with_the_fleet(self):
        """No label takes a value per node: ten times the nodes, with
        other names and allocations, gives the same series."""
        for i in range(5):
            self.create_node(name='a-%d' % i)
        few = {k for k in self.scrape() if not k[0].startswith('pool_api')}
        for i in range(50):
            self.create_node(name='b-%d' % i)
        many = {k for k in self.scrape() if not k[0].startswith('pool_api')}
        self.assertEqual(few, many)


class PublicMetricsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.htpasswd = self.useFixture(fixtures.TempDir()).join('htpasswd')
        test_auth.write_htpasswd(self.htpasswd, {'alice': 's3cret'})
        self.config(auth_strategy='http_basic',
                    http_basic_auth_user_file=self.htpasswd)
        self.app = pool_app.create_app()
        self.client = self.app.test_client()

    def test_anonymous_scrape_needs_credentials_by_default(self):
        self.assertError(401, self.get('/metrics'))
        self.assertEqual(200, self.get('/metrics', headers=test_auth.basic(
            'alice', 's3cret')).status_code)

    def test_operator_may_open_metrics_to_anyone(self):
        self.config(public_metrics=True, group='api')
        resp = self.get('/metrics')
        self.assertEqual(200, resp.status_code)
        self.assertIn(b'pool_nodes', resp.get_data())
        # Only the metrics: the rest of the API still asks.
        self.assertError(401, self.get('/v1/nodes'))


class ConductorMetricsTestCase(base.APITestCase):

    def test_conductor_serves_its_metrics_on_its_port(self):
        port = self.free_port()
        self.config(metrics_port=port, heartbeat_interval=1,
                    group='conductor')
        conductor = service.ConductorService('metrics-host')
        conductor.start()
        self.addCleanup(conductor.stop)
        for _ in range(50):
            text = urllib.request.urlopen(
                'http://127.0.0.1:%d/metrics' % port, timeout=5).read()
            found = samples(text.decode())
            if total(found, 'pool_periodic_rounds_total', task='heartbeat'):
                break
            time.sleep(0.1)
        self.assertGreaterEqual(total(found, 'pool_periodic_rounds_total',
                                      task='heartbeat', outcome='ok'), 1)
        self.assertEqual(1, total(found, 'pool_conductors', state='alive'))

    @staticmethod
    def free_port() -> int:
        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            return s.getsockname()[1]
