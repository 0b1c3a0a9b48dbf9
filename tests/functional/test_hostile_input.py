"""Hostile requests against live servers: pool-server on SQLite, pool-api
on PostgreSQL and on MariaDB. Each is a 4xx in the API's error shape,
answered within seconds, and stores nothing."""
import http.client
import json
import re
import select
import socket
import threading
import time

import testtools

from pool_api import routes
from tests.functional import cluster
from tests.functional import db_fixtures
from tests import hostile

VERSION = b'X-OpenStack-Ironic-API-Version: 1.60\r\n'
# Every answer comes within this many seconds; a body that stops
# arriving within [api] client_socket_timeout more.
PROMPT = 5
CLIENT_SOCKET_TIMEOUT = 2
API_OPTIONS = {'client_socket_timeout': CLIENT_SOCKET_TIMEOUT}
NODE = 'n1'
# Catastrophic for a backtracking engine: ^x(a+)+$ against x and 30 a's
# followed by a b.
SLOW_NAME = 'x' + 'a' * 30 + 'b'
# Values of the path parameters: resources the setup creates, so that a
# request reaches its body.
PATH_VALUES = {'node_ident': NODE, 'pool_name': 'p1', 'trait': 'CUSTOM_T',
               'allocation_ident': 'a1', 'profile_name': 'pr1',
               'workflow_name': 'w1', 'hostname': 'h1', 'broker_name': 'b1',
               'provider_name': 'pv1', 'claim_ident': 'c1',
               'reservation_ident': 'r1',
               'manager_name': 'm1', 'indicator': 'led@system',
               'template_ident': 'CUSTOM_T1', 'portgroup_ident': 'pg1',
               'connector_uuid': '0f5e2a4c-1d2b-4c3a-9e8f-7a6b5c4d3e21',
               'target_uuid': '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d',
               'chassis_uuid': '2b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d9e',
               'driver_name': 'fake-hardware', 'vif_id': 'v1',
               'handle_uuid': '3c4d5e6f-7a8b-4c3d-8e4f-5a6b7c8d9e0f',
               'event_uuid': '4d5e6f7a-8b9c-4d4e-9f5a-6b7c8d9e0f1a',
               'window_uuid': '5e6f7a8b-9c0d-4e5f-8a6b-7c8d9e0f1a2b'}

BODIES = {
    'malformed': b'{"name": ',
    'deep nesting': b'[' * 1000 + b']' * 1000,
    'deep objects': b'{"a": ' * 1000 + b'1' + b'}' * 1000,
    'NaN': b'{"name": NaN}',
    'Infinity': b'{"name": -Infinity}',
    'NUL': b'{"name": "a\\u0000b"}',
    'lone surrogate': b'{"name": "\\ud800"}',
    'huge number': b'{"name": 18446744073709551616}',
    'negative huge number': b'{"name": -18446744073709551616}',
    'huge float': b'{"name": 1e400}',
    'integer beyond a double': b'{"name": %s}' % (b'9' * 401),
    'integer past int()': b'{"name": %s}' % (b'9' * 5000),
}
NINES = '9' * 5000
LATE = '9999-12-31T23:59:59.5+00:00'
# Field by field, on the endpoints' own bodies; %(...)s are the path
# values (the node's and port's UUIDs among them).
FIELD_BODIES = [
    ('count of 401 digits', 'POST', '/v1/pools/p1/allocateMachines',
     '{"count": %s}' % ('9' * 401)),
    ('count past int()', 'POST', '/v1/pools/p1/allocateMachines',
     '{"count": %s}' % NINES),
    ('lifespan_end past 9999-12-30', 'POST', '/v1/pools/p1/allocateMachines',
     '{"count": 1, "lifespan_end": "%s"}' % LATE),
    ('claim lifespan_end past 9999-12-30', 'POST', '/v1/claims',
     '{"resources": [{"provider": "pv1"}], "lifespan_end": "%s"}' % LATE),
    ('claim lifespan_end not a date', 'POST', '/v1/claims',
     '{"resources": [{"provider": "pv1"}], "lifespan_end": "tomorrow"}'),
    ('claim lifespan_end a number', 'POST', '/v1/claims',
     '{"resources": [{"provider": "pv1"}], "lifespan_end": %s}' % NINES),
    ('claim lifespan_end patched past 9999-12-30', 'PATCH',
     '/v1/claims/c1', '[{"op": "add", "path": "/lifespan_end", '
                      '"value": "%s"}]' % LATE),
    ('reservation count past int()', 'POST', '/v1/reservations',
     '{"count": %s, "start_at": "2030-01-01T00:00:00Z", "duration": "1h"}'
     % NINES),
    ('reservation count.max of 401 digits', 'POST', '/v1/reservations',
     '{"count": {"min": 1, "max": %s}, "start_at": '
     '"2030-01-01T00:00:00Z", "duration": "1h"}' % ('9' * 401)),
    ('reservation start_at past 9999-12-30', 'POST', '/v1/reservations',
     '{"count": 1, "start_at": "%s", "duration": "1h"}' % LATE),
    ('allocation lifespan_end past 9999-12-30', 'POST', '/v1/allocations',
     '{"resource_class": "rc", "lifespan_end": "%s"}' % LATE),
    ('claim of too many resources', 'POST', '/v1/claims',
     '{"resources": [%s]}' % ', '.join(['{"provider": "pv1"}'] * 101)),
    ('claim of a provider NUL', 'POST', '/v1/claims',
     '{"resources": [{"provider": "pv\\u0000"}]}'),
    ('claim template overlong param name', 'POST', '/v1/claims',
     '{"resources": [{"provider": "pv1", "template": {"params": '
     '{"%s": 1}}}]}' % ('k' * 256)),
    ('claim uuid not a UUID', 'POST', '/v1/claims',
     '{"uuid": "%s", "resources": [{"provider": "pv1"}]}' % ('u' * 36)),
    ('provider overlong description', 'POST', '/v1/providers',
     '{"name": "pv2", "pool": "p1", "description": "%s"}' % ('d' * 70000)),
    ('provider bad lifespan', 'POST', '/v1/providers',
     '{"name": "pv2", "pool": "p1", "lifespan": {"default": "9999999w"}}'),
    ('provider validation not a schema', 'POST', '/v1/providers',
     '{"name": "pv2", "pool": "p1", "validation": {"type": 5}}'),
    ('provider update filter of a huge program', 'POST', '/v1/providers',
     '{"name": "pv2", "pool": "p1", "update_filters": '
     '[{"path_match": "((a{100}){100}){100}"}]}'),
    ('broker lone surrogate in a parameter', 'POST', '/v1/brokers',
     '{"name": "b2", "driver": "fake", "parameters": {"k": "\\udfff"}}'),
    ('broker overlong driver', 'POST', '/v1/brokers',
     '{"name": "b2", "driver": "%s"}' % ('d' * 256)),
    ('port overlong address', 'POST', '/v1/ports',
     '{"node_uuid": "%%(node_uuid)s", "address": "%s"}' % ('a' * 256)),
    ('port NUL in the address', 'POST', '/v1/ports',
     '{"node_uuid": "%(node_uuid)s", "address": "52:54\\u0000"}'),
    ('port huge number', 'POST', '/v1/ports',
     '{"node_uuid": "%%(node_uuid)s", "address": %s}' % NINES),
    ('port node not a UUID', 'POST', '/v1/ports',
     '{"node_uuid": "%s", "address": "52:54:00:00:00:02"}' % ('n' * 256)),
    ('port patched NaN', 'PATCH', '/v1/ports/%(port_uuid)s',
     '[{"op": "add", "path": "/extra/k", "value": NaN}]'),
    ('port patched deep', 'PATCH', '/v1/ports/%(port_uuid)s',
     '[{"op": "add", "path": "/extra/k", "value": %s}]'
     % ('[' * 100 + ']' * 100)),
    ('VIF overlong id', 'POST', '/v1/nodes/n1/vifs',
     '{"id": "%s"}' % ('v' * 256)),
    ('VIF id a huge number', 'POST', '/v1/nodes/n1/vifs',
     '{"id": %s}' % NINES),
    ('VIF id NUL', 'POST', '/v1/nodes/n1/vifs', '{"id": "v\\u0000"}'),
    ('VIF id lone surrogate', 'POST', '/v1/nodes/n1/vifs',
     '{"id": "\\ud800"}'),
]
# Names each named resource refuses.
BAD_NAMES = ('.', '..', 'a/b', 'a\n', ' a', 'a ', 'x' * 256, '')
NAMED_BODIES = [
    ('POST', '/v1/nodes', '{"driver": "fake-hardware", "name": %s}'),
    ('POST', '/v1/allocations', '{"resource_class": "rc", "name": %s}'),
    ('POST', '/v1/reservations', '{"count": 1, "duration": "1h", '
     '"start_at": "2030-01-01T00:00:00Z", "name": %s}'),
    ('POST', '/v1/pools', '{"name": %s}'),
    ('POST', '/v1/profiles', '{"name": %s}'),
    ('POST', '/v1/workflows', '{"name": %s}'),
    ('POST', '/v1/brokers', '{"name": %s, "driver": "fake"}'),
    ('POST', '/v1/providers', '{"name": %s, "pool": "p1"}'),
    ('POST', '/v1/claims', '{"name": %s, "resources": [{"provider": "pv1"}]}'),
    ('PATCH', '/v1/nodes/n1', '[{"op": "replace", "path": "/name", '
                              '"value": %s}]'),
]

# Refused on every list endpoint.
LIST_QUERIES = {
    '1000 filters': '&'.join('f%d=1' % i for i in range(1000)),
    'NUL': 'limit=%00',
    'NUL in a name': 'a%00b=1',
}
# Refused where the route takes the parameter.
PARAMETER_QUERIES = {
    'limit': 'limit=-1',
    'sort_dir': 'sort_dir=sideways',
    'sort_key': 'sort_key=no_such_key',
    'fields': 'fields=no_such_field',
    'marker': 'marker=%00',
}
NODE_QUERIES = {
    'huge repetition': 'name=Re(a{4294967296})',
    'malformed pattern': 'name=Re(()',
    'backreference': 'name=Re((a)%5C1)',
    'huge number': 'k=Gt(18446744073709551616)',
    'negative huge number': 'k=Lt(-18446744073709551616)',
    'number past int()': 'cpus=Gte(%s)' % NINES,
    'number past int() on a field': 'name=Eq(%s)' % NINES,
    'numbers past int() in a list': 'cpus=In(1,%s)' % NINES,
}
# Other requests of the newer endpoints: paths and query parameters, and
# the version header.
REQUESTS = {
    'claims: limit past int()': ('GET', '/v1/claims?limit=' + NINES),
    'claims: unknown state': ('GET', '/v1/claims?state=nonsense'),
    'claims: overlong owner': ('GET', '/v1/claims?owner=' + 'o' * 256),
    'claims: NUL in a path': ('GET', '/v1/claims/c%00'),
    'claims: overlong ident': ('GET', '/v1/claims/' + 'c' * 256),
    'claims: delete NUL': ('DELETE', '/v1/claims/%00'),
    'ports: limit past int()': ('GET', '/v1/ports?limit=' + NINES),
    'ports: overlong address': ('GET', '/v1/ports?address=' + 'a' * 256),
    'ports: node_uuid not a UUID': ('GET', '/v1/ports?node_uuid=n1x'),
    'ports: lone surrogate in a path': ('GET', '/v1/ports/%ED%A0%80'),
    'ports: not a UUID': ('DELETE', '/v1/ports/' + 'p' * 256),
    'VIFs: overlong id': ('DELETE', '/v1/nodes/n1/vifs/' + 'v' * 256),
    'VIFs: NUL in the id': ('DELETE', '/v1/nodes/n1/vifs/v%00'),
    'providers: overlong name': ('GET', '/v1/providers/' + 'p' * 256),
    'providers: NUL in a path': ('DELETE', '/v1/providers/p%00'),
    'brokers: overlong name': ('GET', '/v1/brokers/' + 'b' * 256),
    'brokers: lone surrogate in a path': ('DELETE', '/v1/brokers/%ED%A0%80'),
    'version past int()': ('GET', '/v1/claims', '1.' + NINES),
}

# Providers that a claim makes costly, or whose templates render what no
# database stores: their fields, the claim's template, what the 400 says.
_TEMPLATES = {'template': {'enable': True}}
HOSTILE_PROVIDERS = {
    'sum-in-c': ({**_TEMPLATES, 'defaults': {'params': {
        'x': hostile.SLOW_SUM}}}, {}, 'rendering the templates took more'),
    # Which bound it reaches first depends on the machine's speed.
    'tojson-1gib': ({**_TEMPLATES, 'defaults': {'params': {
        'x': hostile.SLOW_TOJSON}}}, {}, (
            'rendering the templates took more',
            'rendering the templates needed more than 256 MiB of memory')),
    'join-1gib': ({**_TEMPLATES, 'defaults': {'params': {
        'x': hostile.HUGE_JOIN}}}, {},
        'rendering the templates needed more than 256 MiB of memory'),
    'nul': ({**_TEMPLATES, 'defaults': {'params': {'x': hostile.NUL}}}, {},
            'the output of the template at /params/x holds a NUL'),
    'lone-surrogate': ({**_TEMPLATES, 'defaults': {'params': {
        'x': hostile.LONE_SURROGATE}}}, {},
        'the output of the template at /params/x holds a lone surrogate'),
    'unique-items': ({'validation': hostile.UNIQUE_ITEMS},
                     hostile.UNIQUE_CLAIM, 'validating it against provider '
                     'unique-items took more'),
    'any-of-chain': ({'validation': hostile.any_of_chain()},
                     hostile.any_of_claim(), 'validating it against provider '
                     'any-of-chain took more'),
}


def _request_line(method: str, path: str, headers: bytes = b'',
                  body: bytes | None = None,
                  version: bytes = VERSION) -> bytes:
    head = ('%s %s HTTP/1.1\r\nHost: pool\r\n' % (method, path)).encode()
    head += version + headers
    if body is not None:
        head += (b'Content-Type: application/json\r\n'
                 b'Content-Length: %d\r\n' % len(body))
    return head + b'\r\n' + (body or b'')


def _routes_with_bodies(values: dict):
    for route in routes.ROUTES:
        if route.doc.body:
            path = re.sub(r'<(\w+)>', lambda m: values[m.group(1)],
                          route.rule)
            yield route.method, path


def _list_queries():
    """(path, name, query) of every list endpoint's refused queries."""
    for route in routes.ROUTES:
        if (route.method == 'GET' and '<' not in route.rule
                and (route.doc.response or '').endswith('List')):
            for name, query in LIST_QUERIES.items():
                yield route.rule, name, query
            for param in route.doc.query:
                yield route.rule, param, PARAMETER_QUERIES[param]


class HostileInputMixin:
    """The table of hostile requests; subclasses start the server."""

    port: int

    @classmethod
    def call(cls, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        return cls.send(_request_line(method, path, body=data))

    @classmethod
    def claim(cls, provider: str, template: dict | None = None):
        return cls.call('POST', '/v1/claims', {'resources': [
            {'provider': provider, 'template': template or {}}]})

    @classmethod
    def send(cls, data: bytes, keep_open: bool = False):
        """(status, headers, body, seconds) of a raw request."""
        start = time.monotonic()
        sock = socket.create_connection(('127.0.0.1', cls.port),
                                        timeout=PROMPT + CLIENT_SOCKET_TIMEOUT)
        try:
            sock.sendall(data)
            if not keep_open:
                sock.shutdown(socket.SHUT_WR)
            resp = http.client.HTTPResponse(sock)
            resp.begin()
            body = resp.read()
            return (resp.status, resp.headers, body,
                    time.monotonic() - start)
        finally:
            sock.close()

    @classmethod
    def create_data(cls) -> None:
        for body in ({'driver': 'fake-hardware', 'name': NODE},
                     {'driver': 'fake-hardware', 'name': SLOW_NAME}):
            status, _, text, _ = cls.call('POST', '/v1/nodes', body)
            assert status == 201, text
        status, _, text, _ = cls.call('POST', '/v1/pools', {'name': 'p1'})
        assert status == 201, text
        status, _, text, _ = cls.call('GET', '/v1/nodes/%s' % NODE)
        node_uuid = json.loads(text)['uuid']
        for path, body in (
                ('/v1/ports', {'node_uuid': node_uuid,
                               'address': '52:54:00:00:00:01'}),
                ('/v1/brokers', {'name': 'b1', 'driver': 'fake'}),
                ('/v1/external_managers', {
                    'name': 'm1', 'driver': 'fake',
                    'parameters': {'path': '/nonexistent'}}),
                ('/v1/providers', {'name': 'pv1', 'pool': 'p1'}),
                *(('/v1/providers', {'name': name, 'pool': 'p1', **fields})
                  for name, (fields, _, _) in HOSTILE_PROVIDERS.items()),
                ('/v1/claims', {'name': 'c1',
                                'resources': [{'provider': 'pv1'}]})):
            status, _, text, _ = cls.call('POST', path, body)
            assert status == 201, text
            if path == '/v1/ports':
                cls.path_values = {**PATH_VALUES, 'node_uuid': node_uuid,
                                   'port_uuid': json.loads(text)['uuid']}
        # The claim (of a pool without machines) is bound, in error, by a
        # conductor: the snapshots must not see it change.
        deadline = time.monotonic() + 30
        while json.loads(cls.call('GET', '/v1/claims/c1')[2])[
                'state'] == 'pending':
            assert time.monotonic() < deadline, 'claim c1 stays pending'
            time.sleep(0.2)

    def snapshot(self) -> list:
        """What a request could have stored."""
        state = []
        for path in ('/v1/nodes/detail', '/v1/nodes/%s/params' % NODE,
                     '/v1/nodes/%s/traits' % NODE, '/v1/pools',
                     '/v1/profiles', '/v1/workflows', '/v1/allocations',
                     '/v1/ports/detail', '/v1/brokers', '/v1/providers',
                     '/v1/claims'):
            status, _, body, _ = self.call('GET', path)
            self.assertEqual(200, status, (path, body))
            state.append(json.loads(body))
        return state

    def assertRefused(self, answer, what, statuses=range(400, 500)):
        status, headers, body, seconds = answer
        self.assertIn(status, statuses, (what, body))
        self.assertLess(seconds, PROMPT + CLIENT_SOCKET_TIMEOUT, what)
        self.assertEqual('application/json', headers['Content-Type'], what)
        fault = json.loads(json.loads(body)['error_message'])
        self.assertEqual('Client', fault['faultcode'], what)
        self.assertTrue(fault['faultstring'], what)

    def assertFault(self, answer, text: str | tuple, what: str):
        """A 400 whose message holds text (one of text, a tuple)."""
        self.assertRefused(answer, what, (400,))
        message = json.loads(json.loads(answer[2])[
            'error_message'])['faultstring']
        self.assertTrue(any(t in message for t in (
            (text,) if isinstance(text, str) else text)), (what, message))

    def test_hostile_providers_cost_a_bounded_time_and_store_nothing(self):
        before = self.snapshot()
        for name, (_, template, message) in HOSTILE_PROVIDERS.items():
            self.assertFault(self.claim(name, template), message, name)
        self.assertEqual(before, self.snapshot())

    def test_references_outside_a_schema_are_never_fetched(self):
        server = self.useFixture(hostile.SchemaServer())
        before = self.snapshot()
        for reference in (server.url, 'file:///etc/passwd',
                          'file:///nonexistent.json'):
            self.assertFault(self.call('POST', '/v1/providers', {
                'name': 'ref', 'pool': 'p1',
                'validation': {'$ref': reference}}),
                "validation refers to '%s'" % reference, reference)
        self.assertEqual([], server.paths)
        self.assertEqual(before, self.snapshot())

    def test_a_costly_render_does_not_hold_the_server(self):
        answers = []
        thread = threading.Thread(
            target=lambda: answers.append(self.claim('sum-in-c')))
        thread.start()
        time.sleep(0.3)
        status, _, body, seconds = self.call('GET', '/v1')
        thread.join()
        self.assertEqual(200, status, body)
        # The render took 17 s, holding the GIL: no other request was
        # answered meanwhile.
        self.assertLess(seconds, 1)
        self.assertFault(answers[0], 'rendering the templates took more',
                         'sum-in-c')
        # The claim was still being refused when GET /v1 was answered.
        self.assertGreater(answers[0][3], 0.3 + seconds)

    def test_hostile_bodies_are_refused_and_store_nothing(self):
        before = self.snapshot()
        tried = 0
        for method, path in _routes_with_bodies(self.path_values):
            for name, body in BODIES.items():
                what = '%s %s: %s' % (method, path, name)
                self.assertRefused(self.send(_request_line(
                    method, path, body=body)), what)
                tried += 1
        self.assertGreater(tried, 100)
        self.assertEqual(before, self.snapshot())

    def test_hostile_queries_are_refused(self):
        for path, name, query in _list_queries():
            self.assertRefused(
                self.send(_request_line('GET', path + '?' + query)),
                '%s: %s' % (path, name))
        for name, query in NODE_QUERIES.items():
            self.assertRefused(
                self.send(_request_line('GET', '/v1/nodes?' + query)), name)

    def test_hostile_fields_are_refused_and_store_nothing(self):
        before = self.snapshot()
        for name, method, path, body in FIELD_BODIES:
            self.assertRefused(self.send(_request_line(
                method, path % self.path_values,
                body=(body % self.path_values).encode())), name)
        for method, path, template in NAMED_BODIES:
            for name in BAD_NAMES:
                answer = self.send(_request_line(
                    method, path, body=(template % json.dumps(name)).encode()))
                self.assertRefused(answer, '%s %s: %r' % (method, path, name))
        self.assertEqual(before, self.snapshot())

    def test_hostile_paths_and_parameters_are_refused(self):
        before = self.snapshot()
        for name, (method, path, *version) in REQUESTS.items():
            header = (b'X-OpenStack-Ironic-API-Version: %s\r\n'
                      % version[0].encode()) if version else VERSION
            self.assertRefused(self.send(_request_line(
                method, path, version=header)), name)
        self.assertEqual(before, self.snapshot())

    def test_catastrophic_pattern_answers_promptly(self):
        status, _, body, seconds = self.send(_request_line(
            'GET', '/v1/nodes?name=Re(%5Ex(a%2B)%2B%24)'))
        self.assertEqual(200, status, body)
        self.assertEqual([], json.loads(body)['nodes'])
        self.assertLess(seconds, PROMPT)

    def test_hostile_headers_are_refused(self):
        body = b'{"driver": "fake-hardware", "name": "hdr"}'
        post = (b'POST /v1/nodes HTTP/1.1\r\nHost: pool\r\n' + VERSION
                + b'Content-Type: application/json\r\n')
        cases = {
            'huge request line': (
                _request_line('GET', '/v1/nodes?name=' + 'a' * 9000),
                (414,)),
            'huge header': (_request_line(
                'GET', '/v1/nodes', b'X-Big: ' + b'a' * 9000 + b'\r\n'),
                (431,)),
            'too many headers': (_request_line('GET', '/v1/nodes', b''.join(
                b'X-H%d: v\r\n' % i for i in range(150))), (431,)),
            'bad version header': (_request_line(
                'GET', '/v1/nodes', version=b'X-OpenStack-Ironic-API-'
                b'Version: latest-ish\r\n'), (400,)),
            'unsupported version': (_request_line(
                'GET', '/v1/nodes', version=b'X-OpenStack-Ironic-API-'
                b'Version: 9.99\r\n'), (406,)),
            'negative Content-Length': (
                post + b'Content-Length: -5\r\n\r\n' + body, (400,)),
            'malformed Content-Length': (
                post + b'Content-Length: 1x\r\n\r\n' + body, (400,)),
            'malformed chunk size': (
                post + b'Transfer-Encoding: chunked\r\n\r\nZZ\r\n'
                + body + b'\r\n0\r\n\r\n', (400,)),
            'malformed request line': (b'GARBAGE\r\n\r\n', (400,)),
            'lowercase method': (_request_line('get', '/v1/nodes'), (400,)),
            'path without a slash': (_request_line('GET', 'v1/nodes'),
                                     (400,)),
            'header without a colon': (_request_line(
                'GET', '/v1/nodes', b'NoColon\r\n'), (400,)),
        }
        before = self.snapshot()
        for name, (data, statuses) in cases.items():
            self.assertRefused(self.send(data), name, statuses)
        self.assertEqual(before, self.snapshot())

    def test_an_answer_before_the_body_closes_the_connection(self):
        post = (b'POST /v1/nodes HTTP/1.1\r\nHost: pool\r\n' + VERSION
                + b'Content-Type: application/json\r\n')
        cases = {
            # The body would follow the answer, if at all.
            'body too large': (
                post + b'Content-Length: 100000000\r\n\r\n', 413),
            'unknown route': (_request_line(
                'POST', '/v1/no_such_thing', body=b'{"name": "x"}'), 404),
            'unsupported version': (_request_line(
                'POST', '/v1/nodes', body=b'{"driver": "fake-hardware"}',
                version=b'X-OpenStack-Ironic-API-Version: 9.99\r\n'), 406),
        }
        for name, (data, status) in cases.items():
            sock = socket.create_connection(('127.0.0.1', self.port),
                                            timeout=PROMPT)
            self.addCleanup(sock.close)
            sock.sendall(data)
            resp = http.client.HTTPResponse(sock)
            resp.begin()
            resp.read()
            self.assertEqual((status, 'close'),
                             (resp.status, resp.headers['Connection']), name)
            # The server closes its end at once, rather than wait for a
            # body to drain.
            start = time.monotonic()
            try:
                self.assertEqual(b'', sock.recv(1), name)
            except ConnectionResetError:
                pass
            self.assertLess(time.monotonic() - start, 1, name)
            status, _, body, seconds = self.send(_request_line('GET', '/v1'))
            self.assertEqual(200, status, (name, body))
            self.assertLess(seconds, 1, name)

    def test_a_body_read_whole_keeps_the_connection(self):
        sock = socket.create_connection(('127.0.0.1', self.port),
                                        timeout=PROMPT)
        self.addCleanup(sock.close)
        for _ in range(2):
            # A body the application refuses once it has read it all.
            sock.sendall(_request_line('POST', '/v1/nodes',
                                       body=b'{"name": "x"}'))
            start = time.monotonic()
            resp = http.client.HTTPResponse(sock)
            resp.begin()
            resp.read()
            self.assertEqual(400, resp.status)
            self.assertNotEqual('close', resp.headers['Connection'])
            self.assertLess(time.monotonic() - start, 1)

    def test_truncated_bodies_are_400_within_the_socket_timeout(self):
        post = (b'POST /v1/nodes HTTP/1.1\r\nHost: pool\r\n' + VERSION
                + b'Content-Type: application/json\r\n')
        before = self.snapshot()
        for name, data in {
                'truncated chunk': post + b'Transfer-Encoding: chunked'
                                          b'\r\n\r\n40\r\n{"driver": ',
                'short body': post + b'Content-Length: 100\r\n\r\n'
                                     b'{"driver": '}.items():
            answer = self.send(data, keep_open=True)
            self.assertFault(answer, 'none of it came for', name)
            self.assertGreater(answer[3], CLIENT_SOCKET_TIMEOUT / 2, name)
        self.assertEqual(before, self.snapshot())


class PoolServerHostileInputTestCase(HostileInputMixin, testtools.TestCase):
    # More slow clients than pool-server has request threads ([api]
    # threads, 16).
    SLOW_CLIENTS = 40

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = cluster.PoolServer(api_options=API_OPTIONS)
        cls.server.setUp()
        cls.port = cls.server.port
        try:
            cls.create_data()
        except BaseException:
            cls.server.cleanUp()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanUp()
        super().tearDownClass()

    def test_slow_clients_do_not_hold_the_server(self):
        slow = []
        try:
            for _ in range(self.SLOW_CLIENTS):
                sock = socket.create_connection(('127.0.0.1', self.port))
                slow.append(sock)
                sock.sendall(b'GET /v1/no')
            # Each request thread would have taken one by now.
            time.sleep(0.5)
            status, _, body, seconds = self.send(_request_line('GET', '/v1'))
            self.assertEqual(200, status, body)
            # A request thread per slow client would keep this one waiting
            # for their timeout.
            self.assertLess(seconds, 1)
        finally:
            for sock in slow:
                sock.close()

    def test_a_trickling_client_is_408_within_the_socket_timeout(self):
        sock = socket.create_connection(('127.0.0.1', self.port),
                                        timeout=PROMPT)
        self.addCleanup(sock.close)
        start = time.monotonic()
        # A byte every 0.2 s: each read gets its next byte in time.
        for byte in b'GET /v1/nodes HTTP/1.1\r\nX-Slow: ' + b'a' * 100:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            # Stop sending once the answer is there.
            if select.select([sock], [], [], 0.2)[0]:
                break
            if time.monotonic() - start > CLIENT_SOCKET_TIMEOUT + PROMPT:
                break
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        self.assertEqual(408, resp.status)
        self.assertEqual('application/json', resp.headers['Content-Type'])
        self.assertLess(time.monotonic() - start,
                        CLIENT_SOCKET_TIMEOUT + 1)


class _ClusterMixin(HostileInputMixin):
    BACKEND: str

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.database = cluster.Database(cls.BACKEND)
        try:
            cls.database.setUp()
        except Exception as exc:
            raise db_fixtures.backend_unavailable(
                '%s: %s' % (cls.BACKEND, exc)) from exc
        try:
            cls.cluster = cluster.Cluster(cls.database.url, conductors=1,
                                          api_options=API_OPTIONS)
            cls.cluster.setUp()
            cls.port = cls.cluster.port
            cls.create_data()
        except BaseException:
            cls.database.cleanUp()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.cluster.cleanUp()
        cls.database.cleanUp()
        super().tearDownClass()


class PostgreSQLHostileInputTestCase(_ClusterMixin, testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLHostileInputTestCase(_ClusterMixin, testtools.TestCase):
    BACKEND = 'mysql'
