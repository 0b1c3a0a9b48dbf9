"""pool-api's metrics and request log across gunicorn workers: every
worker's requests in every scrape, exactly, and in the log, once each."""
import concurrent.futures
import signal
import urllib.request

from prometheus_client import parser
import testtools

from tests.functional import cluster

REQUESTS = 200


class MetricsWorkersMixin(cluster.ClusterTestMixin):

    CONDUCTORS = 1
    API_OPTIONS = {'workers': 4, 'threads': 4}

    def scrape(self) -> dict:
        with urllib.request.urlopen(self.cluster.url + '/metrics',
                                    timeout=30) as resp:
            text = resp.read().decode()
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in parser.text_string_to_metric_families(text)
                for s in family.samples}

    def test_requests_of_all_workers_are_summed_exactly(self):
        self.enroll(3, 'metrics')
        # Each request on a connection of its own, many at once: the four
        # workers share them.
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(
                lambda _: self.cluster.request('GET', '/v1/nodes')[0],
                range(REQUESTS)))
        self.assertEqual([200] * REQUESTS, statuses)
        key = ('pool_api_requests_total', (('method', 'GET'),
                                           ('route', '/v1/nodes'),
                                           ('status', '200')))
        # Scrapes land on any worker; each sums all four.
        for _ in range(12):
            found = self.scrape()
            self.assertEqual(REQUESTS, found.get(key), sorted(
                k for k in found if k[0] == key[0]))
            self.assertEqual(3, sum(
                v for (name, labels), v in found.items()
                if name == 'pool_nodes'
                and ('provision_state', 'available') in labels))

    def test_every_workers_requests_are_in_the_log_once(self):
        line = '"GET /v1/nodes?limit=7 HTTP/1.1" status: 200'
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(
                lambda _: self.cluster.request(
                    'GET', '/v1/nodes?limit=7')[0], range(REQUESTS)))
        self.assertEqual([200] * REQUESTS, statuses)
        # Lines still to write when the workers stop are written then.
        api = self.cluster.apis[0]
        self.cluster.signal(api, signal.SIGTERM)
        self.cluster.procs[api].wait(30)
        self.assertEqual(REQUESTS, self.cluster.log(api).count(line))


class PostgreSQLMetricsWorkersTestCase(MetricsWorkersMixin,
                                       testtools.TestCase):
    BACKEND = 'postgresql'
