"""cheroot for pool-server: its own errors in Ironic's shape, bounded
request lines, headers and bodies."""
import http

from cheroot import errors as cheroot_errors
from cheroot import server
from cheroot import wsgi

from pool_api import errors
from pool_conductor.conf import CONF

CRLF = (b'\r\n', b'\n')


class _HeadersTooLarge(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class _LimitedLines:
    """The request line and header fields of a request, read line by line
    within [api] max_request_line, max_header_fields and
    max_header_field_size."""

    def __init__(self, rfile):
        self.rfile = rfile
        self.fields = None
        self.limit = CONF.api.max_request_line

    def headers(self) -> None:
        """Header fields follow: count them and bound each."""
        self.fields = 0
        self.limit = CONF.api.max_header_field_size

    def readline(self, size=None) -> bytes:
        # Enough for a line at the limit, its CRLF and one byte more.
        line = self.rfile.readline(self.limit + 3)
        if len(line.rstrip(b'\r\n')) > self.limit:
            if self.fields is None:
                raise _HeadersTooLarge(
                    414, 'The request line is longer than %d bytes ([api] '
                         'max_request_line).' % self.limit)
            raise _HeadersTooLarge(
                431, 'A header field is longer than %d bytes ([api] '
                     'max_header_field_size).' % self.limit)
        if self.fields is not None and line not in CRLF:
            self.fields += 1
            if self.fields > CONF.api.max_header_fields:
                raise _HeadersTooLarge(
                    431, 'The request has more than %d header fields '
                         '([api] max_header_fields).'
                         % CONF.api.max_header_fields)
        return line

    def read(self, size=-1) -> bytes:
        return self.rfile.read(size)


class Request(server.HTTPRequest):
    """cheroot's request: bounded headers, errors in Ironic's shape."""

    def parse_request(self):
        lines = _LimitedLines(self.conn.rfile)
        self.rfile = lines
        try:
            if not self.read_request_line():
                return
            lines.headers()
            if not self.read_request_headers():
                return
        except _HeadersTooLarge as exc:
            self.simple_response('%d' % exc.status, str(exc))
            return
        self.ready = True

    def simple_response(self, status, msg=''):
        """Answer an error of the request in Ironic's shape and close."""
        code = int(str(status)[:3])
        self.close_connection = True
        try:
            self.conn.wfile.write(errors.raw_error_response(
                code, msg or http.HTTPStatus(code).phrase))
        except OSError as exc:
            if exc.args[0] not in cheroot_errors.socket_errors_to_ignore:
                raise

    def send_headers(self):
        # cheroot reads what the application left of a body before it
        # answers, so that the connection can serve the next request. A
        # body the client stopped sending (the read timed out) or whose
        # chunks are malformed cannot be read: close instead, and answer.
        if not self.close_connection:
            try:
                if self.chunked_read:
                    self.rfile.read()
                elif getattr(self.rfile, 'remaining', 0) > 0:
                    self.rfile.read(self.rfile.remaining)
            except (OSError, ValueError, cheroot_errors.MaxSizeExceeded):
                self.close_connection = True
        super().send_headers()


class Connection(server.HTTPConnection):
    RequestHandlerClass = Request


def make_server(app) -> wsgi.Server:
    """A cheroot server of the application on [api] host_ip and port."""
    wsgi_server = wsgi.Server(
        (CONF.api.host_ip, CONF.api.port), app,
        numthreads=CONF.api.threads, server_name='pool-server',
        timeout=CONF.api.client_socket_timeout)
    wsgi_server.ConnectionClass = Connection
    # Above the application's own limit, which answers 413 itself; this
    # one bounds what cheroot reads of a body the application did not.
    wsgi_server.max_request_body_size = (
        2 * CONF.oslo_middleware.max_request_body_size)
    return wsgi_server
