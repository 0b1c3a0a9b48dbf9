"""The HTTP servers' own parts: errors in the API's shape, bounded header
reading, and pool-server's reading of headers without waiting."""
import http.client
import io
import json
import socket

from gunicorn.http import errors as http_errors
from oslo_config import fixture as config_fixture
from oslotest import base

from pool_api import cheroot_server
from pool_api import errors
from pool_api import gunicorn_worker
from pool_conductor.conf import CONF
from tests.unit.api import base as api_base


def _parse(raw: bytes) -> http.client.HTTPResponse:
    class _Sock:
        def makefile(self, *args, **kwargs):
            return io.BytesIO(raw)

    resp = http.client.HTTPResponse(_Sock())
    resp.begin()
    return resp


class TestRawErrorResponse(api_base.APITestCase):

    def test_same_shape_as_the_application(self):
        app_resp = self.get('/v1/nodes/missing')
        resp = _parse(errors.raw_error_response(431, 'Too many headers.'))
        self.assertEqual(431, resp.status)
        self.assertEqual('close', resp.headers['Connection'])
        self.assertEqual(app_resp.headers['Content-Type'],
                         resp.headers['Content-Type'])
        body = resp.read()
        self.assertEqual(int(resp.headers['Content-Length']), len(body))
        fault = json.loads(json.loads(body)['error_message'])
        app_fault = json.loads(app_resp.get_json()['error_message'])
        self.assertEqual(sorted(app_fault), sorted(fault))
        self.assertEqual(('Client', 'Too many headers.'),
                         (fault['faultcode'], fault['faultstring']))


class TestGunicornStatus(base.BaseTestCase):

    def test_status_of_refused_requests(self):
        for exc, status in [
                (http_errors.LimitRequestLine(9000, 8190), 414),
                (http_errors.LimitRequestHeaders('too many'), 431),
                (http_errors.InvalidHeader('CONTENT-LENGTH'), 400),
                (http_errors.InvalidChunkSize(b'zz'), 400),
                (http_errors.InvalidRequestLine('GARBAGE'), 400),
                (http_errors.InvalidResponseHeader('x'), 500),
                (RuntimeError('bug'), 500)]:
            self.assertEqual(status, gunicorn_worker.status_of(exc), exc)


class TestCherootReading(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(config_fixture.Config(CONF))
        self.client, server = socket.socketpair()
        self.addCleanup(self.client.close)
        self.addCleanup(server.close)
        server.settimeout(5)
        self.reader = cheroot_server._Reader(server)

    def test_fill_does_not_wait_for_the_rest_of_the_headers(self):
        self.assertFalse(self.reader.fill(1000))
        self.client.sendall(b'GET /v1 HTTP/1.1\r\nHost: x')
        self.assertFalse(self.reader.fill(1000))
        self.assertFalse(self.reader.has_data())
        self.client.sendall(b'\r\n\r\n{"a": 1}')
        self.assertTrue(self.reader.fill(1000))
        self.assertTrue(self.reader.has_data())
        self.assertEqual(b'GET /v1 HTTP/1.1\r\n', self.reader.readline())
        self.assertEqual(b'Host: x\r\n', self.reader.readline())
        self.assertEqual(b'\r\n', self.reader.readline())
        self.assertEqual(b'{"a"', self.reader.read(4))
        self.client.sendall(b'more')
        self.assertEqual(b': 1}more', self.reader.read(8))

    def test_fill_stops_past_the_limit_and_at_the_end(self):
        self.client.sendall(b'a' * 100)
        self.assertTrue(self.reader.fill(50))
        self.client.close()
        reader = self.reader
        self.assertTrue(reader.fill(1000))
        self.assertEqual(b'a' * 100, reader.read())

    def test_a_failed_read_fails_again_at_once(self):
        self.reader.sock.settimeout(0.01)
        self.assertRaises(OSError, self.reader.read, 10)
        self.reader.sock.settimeout(5)
        self.client.sendall(b'late')
        self.assertRaises(OSError, self.reader.read, 4)

    def _lines(self, data: bytes):
        self.client.sendall(data)
        return cheroot_server._LimitedLines(self.reader)

    def test_request_line_limit(self):
        self.conf.config(max_request_line=64, group='api')
        lines = self._lines(b'GET /' + b'a' * 60 + b' HTTP/1.1\r\n')
        exc = self.assertRaises(cheroot_server._HeadersTooLarge,
                                lines.readline)
        self.assertEqual(414, exc.status)

    def test_header_field_size_limit(self):
        self.conf.config(max_header_fields=2, max_header_field_size=64,
                         group='api')
        lines = self._lines(b'GET / HTTP/1.1\r\nA: 1\r\nB: ' + b'b' * 64
                            + b'\r\n')
        lines.readline()
        lines.headers()
        self.assertEqual(b'A: 1\r\n', lines.readline())
        exc = self.assertRaises(cheroot_server._HeadersTooLarge,
                                lines.readline)
        self.assertEqual(431, exc.status)

    def test_header_count_limit(self):
        self.conf.config(max_header_fields=2, group='api')
        lines = self._lines(b'C: 3\r\nD: 4\r\nE: 5\r\n\r\n')
        lines.headers()
        lines.readline()
        lines.readline()
        exc = self.assertRaises(cheroot_server._HeadersTooLarge,
                                lines.readline)
        self.assertEqual(431, exc.status)
