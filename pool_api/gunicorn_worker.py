"""gunicorn's threaded worker, answering its own errors in Ironic's shape."""
import ssl

from gunicorn.http import errors as http_errors
from gunicorn import util
from gunicorn.workers import gthread

from pool_api import errors
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


class ThreadWorker(gthread.ThreadWorker):
    """gthread's worker: errors in Ironic's shape, a bounded body read."""

    def handle_request(self, req, conn):
        # gunicorn reads bodies from a blocking socket: a client that
        # stops sending one would hold this thread for ever.
        conn.sock.settimeout(CONF.api.client_socket_timeout)
        try:
            return super().handle_request(req, conn)
        finally:
            conn.sock.settimeout(None)

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
