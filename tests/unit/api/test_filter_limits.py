"""User regular expressions cannot hold the server: RE2 and time limits."""
import json
import threading
import time
from urllib import parse


from pool_conductor import context as pool_context
from pool_conductor.db import nodes as nodes_db
from tests import base

VERSION = {'X-OpenStack-Ironic-API-Version': '1.60'}
# Backtracking engines take about 2**30 steps to find that it fails.
CATASTROPHIC = '^(a+)+$'
LONG_NAME = 'a' * 30 + 'x'


def fault(body: dict) -> str:
    """The message of an error body."""
    return json.loads(body['error_message'])['faultstring']


class HostileFilterMixin:
    """Requests through the in-process API; run on each backend."""

    def setUp(self):
        super().setUp()
        self.app = base.noauth_app(self)
        context = pool_context.get_admin_context()
        for name, params in ((LONG_NAME, {'label': LONG_NAME}),
                             ('other', {})):
            nodes_db.create_node(context, {
                'driver': 'fake-hardware', 'name': name,
                'resource_class': 'rc', 'params': params,
                'provision_state': 'available', 'power_state': 'power off'})

    def filtered(self, key: str, pattern: str):
        """A node list filtered by a regular expression on key."""
        return self.get('/v1/nodes?' + parse.urlencode(
            {key: 'Re(%s)' % pattern}))

    def get(self, path: str):
        """A request through the application: (status, body, seconds)."""
        start = time.monotonic()
        resp = self.app.test_client().get(path, headers=VERSION)
        return (resp.status_code, resp.get_json(),
                time.monotonic() - start)

    def concurrently(self, *calls) -> tuple[list, float]:
        """Run the calls in threads started together: their results, and
        the seconds until all ended."""
        results = [None] * len(calls)

        def run(i, call):
            results[i] = call()

        threads = [threading.Thread(target=run, args=(i, call))
                   for i, call in enumerate(calls)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results, time.monotonic() - start

    def test_catastrophic_pattern_does_not_hold_the_server(self):
        for key in ('name', 'label'):
            (hostile, other), elapsed = self.concurrently(
                lambda k=key: self.filtered(k, CATASTROPHIC),
                lambda: self.get('/v1/nodes/other'))
            status, body, seconds = hostile
            self.assertEqual(200, status, body)
            self.assertEqual([], body['nodes'])
            # Backtracking, the pattern would take minutes; the bound
            # leaves room for a busy machine.
            self.assertLess(seconds, 5, key)
            self.assertEqual(200, other[0])
            self.assertLess(other[2], 5, key)
            self.assertLess(elapsed, 5, key)

    def test_pattern_matches(self):
        status, body, _ = self.filtered('name', '^a{30}x$')
        self.assertEqual(200, status, body)
        self.assertEqual([LONG_NAME], [n['name'] for n in body['nodes']])

    def test_pattern_the_backend_reads_differently_is_400(self):
        for pattern in ('a++', 'a{4294967296}', 'a{256}', r'\bx',
                        '(?=a)', r'(a)\1'):
            status, body, _ = self.filtered('label', pattern)
            self.assertEqual(400, status, pattern)
            self.assertIn('"label"', fault(body), pattern)


class SQLiteHostileFilterTestCase(HostileFilterMixin, base.TestCase):
    pass
