"""cheroot for pool-server: its own errors in Ironic's shape, bounded
request lines, headers and bodies, and headers read without holding a
request thread."""
import http
import io
import time

from cheroot import errors as cheroot_errors
from cheroot import server
from cheroot import wsgi

from pool_api import errors
from pool_conductor.conf import CONF

CRLF = (b'\r\n', b'\n')


class _Reader:
    """What a client sends on a connection.

    Until the request line and headers of a request have all arrived,
    fill() reads what is there without waiting, so that a slow client does
    not hold a request thread; the request is then read from here, each
    read waiting at most the socket's timeout for the next bytes.
    """

    def __init__(self, sock, bufsize: int = io.DEFAULT_BUFFER_SIZE):
        self.sock = sock
        self.bufsize = bufsize
        self.buffer = bytearray()
        self.bytes_read = 0
        self.eof = False
        self.failed = False

    def has_data(self) -> bool:
        """Whether the headers of a request are all in the buffer (cheroot
        serves the connection again at once, without waiting for bytes)."""
        return b'\r\n\r\n' in self.buffer or b'\n\n' in self.buffer

    def fill(self, limit: int) -> bool:
        """Read what has arrived, without waiting.

        :returns: whether the request can be parsed now: its headers are
            all there, or the client closed the connection or sent more
            than limit bytes without ending them (an error to answer).
        """
        timeout = self.sock.gettimeout()
        self.sock.settimeout(0)
        try:
            while not (self.has_data() or self.eof
                       or len(self.buffer) > limit):
                try:
                    data = self.sock.recv(self.bufsize)
                except BlockingIOError:
                    break
                self.eof = not data
                self.buffer += data
        finally:
            self.sock.settimeout(timeout)
        return self.has_data() or self.eof or len(self.buffer) > limit

    def _recv(self) -> None:
        # After a failed read the connection is at no request boundary:
        # fail at once rather than wait again.
        if self.failed:
            raise OSError('An earlier read of this connection failed.')
        try:
            data = self.sock.recv(self.bufsize)
        except OSError:
            self.failed = True
            raise
        self.eof = not data
        self.buffer += data

    def _take(self, size: int) -> bytes:
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        self.bytes_read += len(data)
        return data

    def read(self, size: int | None = -1) -> bytes:
        """Up to size bytes (all until the end without size), waiting for
        them."""
        while not self.eof and (size is None or size < 0
                                or len(self.buffer) < size):
            self._recv()
        return self._take(len(self.buffer) if size is None or size < 0
                          else size)

    def readline(self, size: int | None = -1) -> bytes:
        """A line, or its first size bytes, waiting for them."""
        while True:
            end = self.buffer.find(b'\n')
            if end >= 0:
                length = end + 1
            elif self.eof or (size is not None
                              and 0 <= size <= len(self.buffer)):
                length = len(self.buffer)
            else:
                self._recv()
                continue
            if size is not None and size >= 0:
                length = min(length, size)
            return self._take(length)

    def close(self) -> None:
        self.buffer.clear()


def _headers_limit() -> int:
    """The most bytes a request line and headers within the limits take."""
    return (CONF.api.max_request_line + 4 + CONF.api.max_header_fields
            * (CONF.api.max_header_field_size + 2) + 2)


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
        # So does an application answering "Connection: close".
        if (b'connection', b'close') in [
                (k.lower(), v.lower()) for k, v in self.outheaders]:
            self.close_connection = True
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
    """cheroot's connection, handed to a request thread once the headers
    of a request have arrived; until then it waits in cheroot's selector
    and costs no thread."""

    RequestHandlerClass = Request

    def __init__(self, server, sock, makefile):
        super().__init__(server, sock, makefile)
        # Releases the socket's reference held by cheroot's reader.
        self.rfile.close()
        self.rfile = _Reader(sock, self.rbufsize)
        self.started = None

    def communicate(self):
        if self.rfile.fill(_headers_limit()):
            self.started = None
            return super().communicate()
        now = time.monotonic()
        if self.started is None:
            # Idle connections are closed by cheroot after the timeout.
            if self.rfile.buffer:
                self.started = now
        elif now - self.started > CONF.api.client_socket_timeout:
            try:
                self.wfile.write(errors.raw_error_response(
                    408, 'The request line and headers did not arrive '
                         'within %s seconds ([api] client_socket_timeout).'
                         % CONF.api.client_socket_timeout))
            except OSError:
                pass
            return False
        # Back to cheroot's selector until more bytes arrive.
        return True


def make_server() -> wsgi.Server:
    """A cheroot server on [api] host_ip and port, without its application
    yet (attach() gives it one), so that it can bind first."""
    wsgi_server = wsgi.Server(
        (CONF.api.host_ip, CONF.api.port), None,
        numthreads=CONF.api.threads, server_name='pool-server',
        timeout=CONF.api.client_socket_timeout,
        # cheroot's backlog of 5 leaves clients beyond it in SYN retries
        # for seconds; gunicorn's is 2048.
        request_queue_size=2048)
    wsgi_server.ConnectionClass = Connection
    return wsgi_server


def attach(wsgi_server: wsgi.Server, app) -> None:
    """Serve app (pool_api.app.create_app(), which registers the
    [oslo_middleware] options)."""
    wsgi_server.wsgi_app = app
    # Above the application's own limit, which answers 413 itself; this
    # one bounds what cheroot reads of a body the application did not.
    wsgi_server.max_request_body_size = (
        2 * CONF.oslo_middleware.max_request_body_size)
