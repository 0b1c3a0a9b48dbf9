"""gunicorn's threaded worker, answering its own errors in Ironic's shape."""
import errno
import socket
import ssl
import struct

from gunicorn.http import errors as http_errors
from gunicorn import util
from gunicorn.workers import gthread

from pool_api import errors
from pool_api import request_log
from pool_conductor.conf import CONF

# The status of the requests gunicorn refuses, where it is not 400.
_STATUS = (
    (http_errors.LimitRequestLine, 414),
    (http_errors.LimitRequestHeaders, 431),
    (http_errors.ExpectationFailed, 417),
    (http_errors.ForbiddenProxyRequest, 403),
    (http_errors.UnsupportedTransferCoding, 501),
)
# Errors of the server or the application, not of the request.
_SERVER_ERRORS = (http_errors.ConfigurationProblem,
                  http_errors.InvalidResponseHeader,
                  http_errors.InvalidResponseHeaderName)


def status_of(exc: BaseException) -> int:
    """The HTTP status of an error gunicorn hands to handle_error()."""
    if isinstance(exc, _SERVER_ERRORS):
        return 500
    for error, status in _STATUS:
        if isinstance(exc, error):
            return status
    if isinstance(exc, (http_errors.ParseException, ssl.SSLError)):
        return 400
    return 500


def _timeval(seconds: float) -> bytes:
    """seconds as the struct timeval of a socket option."""
    whole = int(seconds)
    return struct.pack('ll', whole, int((seconds - whole) * 1e6))


def _close_graceful(sock) -> None:
    sock.setblocking(True)
    util.close_graceful(sock)


class _Connection(gthread.TConn):

    # The request threads of the worker.
    pool = None

    def init(self):
        first = not self.initialized
        super().init()
        if first:
            # Without a timeout, a client that stops sending its headers
            # or body would hold a request thread for ever. The kernel's
            # timeouts, not Python's: those poll() before every read and
            # write, and each poll gives the interpreter lock up.
            timeout = _timeval(CONF.api.client_socket_timeout)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                                 timeout)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                                 timeout)

    def close(self, graceful=False):
        # gunicorn lingers for the client to close its end on the worker's
        # main thread, which meanwhile accepts no connection: a request
        # thread lingers instead.
        if graceful and self.pool is not None:
            try:
                self.pool.submit(_close_graceful, self.sock)
                return
            except RuntimeError:
                # The worker is stopping: its threads take no more work.
                pass
        super().close(graceful)


def _closing(app):
    """app, its "Connection: close" closing the connection: gunicorn
    drops the hop-by-hop headers of an application, and would keep the
    connection and read what is left of the body."""
    def wsgi(environ: dict, start_response):
        def start(status: str, headers: list, exc_info=None):
            if any(k.lower() == 'connection' and v.lower() == 'close'
                   for k, v in headers):
                # gunicorn's start_response is a method of its response.
                start_response.__self__.force_close()
            return start_response(status, headers, exc_info)
        return app(environ, start)
    return wsgi


class ThreadWorker(gthread.ThreadWorker):
    """gthread's worker: errors in Ironic's shape, bounded reads, and
    "Connection: close" of the application honoured."""

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = _closing(self.wsgi)
        request_log.start()

    def run(self):
        try:
            super().run()
        finally:
            request_log.stop()

    def accept(self, listener):
        # gthread's accept(), with the connection class above.
        try:
            client_sock, client_addr = listener.accept()
            self.nr_conns += 1
            client_sock.setblocking(True)
            conn = _Connection(self.cfg, client_sock, client_addr,
                               listener.getsockname())
            conn.pool = self.tpool
            self.enqueue_req(conn)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED,
                                 errno.EWOULDBLOCK):
                raise

    def handle_error(self, req, client, addr, exc):
        status = status_of(exc)
        if status < 500:
            message = str(exc)
            self.log.warning('Invalid request from %s: %s',
                             (addr or ('',))[0], message)
        else:
            self.log.exception('Error handling request %s %s',
                               getattr(req, 'method', ''),
                               getattr(req, 'uri', ''))
            message = ('An unexpected error occurred. The server log has '
                       'the details.')
        try:
            util.write_nonblock(client,
                                errors.raw_error_response(status, message))
        except Exception:
            self.log.debug('Failed to send error message.')
