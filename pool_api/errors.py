"""Errors rendered as Ironic renders them, whatever raised them."""
import http
import json

import flask
from oslo_db import exception as db_exc
from oslo_log import log
from webob import exc as webob_exc
from werkzeug import exceptions as http_exc

from pool_conductor.db import api as db_api
from pool_conductor import exception

LOG = log.getLogger(__name__)


def error_body(status: int, message: str) -> str:
    """Ironic's error body: a JSON document inside a JSON string, ending
    with a newline as the other bodies do."""
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': message,
             'debuginfo': None}
    return json.dumps({'error_message': json.dumps(fault)}) + '\n'


def error_response(status: int, message: str) -> flask.Response:
    return flask.Response(error_body(status, message), status=status,
                          mimetype='application/json')


def wsgi_error(start_response, status: int, message: str,
               headers: tuple = ()) -> list[bytes]:
    """An error in Ironic's shape from WSGI middleware, outside Flask."""
    body = error_body(status, message).encode()
    start_response('%d %s' % (status, http.HTTPStatus(status).phrase), [
        ('Content-Type', 'application/json'),
        ('Content-Length', str(len(body))), *headers])
    return [body]


def raw_error_response(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 error response in Ironic's shape, for the errors a
    WSGI server answers itself (the request never reached the
    application); the server closes the connection after it."""
    body = error_body(status, message).encode()
    head = ('HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n'
            'Content-Length: %d\r\nConnection: close\r\n\r\n'
            % (status, http.HTTPStatus(status).phrase, len(body)))
    return head.encode('ascii') + body


def _pool_error(exc: exception.PoolException):
    if exc.code >= 500:
        LOG.warning('Request %s %s failed: %s', flask.request.method,
                    flask.request.path, exc.message)
    response = error_response(exc.code, exc.message)
    # A 429 says when to retry.
    response.headers.update(getattr(exc, 'headers', None) or {})
    return response


def _http_error(exc: http_exc.HTTPException):
    response = error_response(exc.code, exc.description or exc.name)
    if isinstance(exc, http_exc.MethodNotAllowed) and exc.valid_methods:
        response.headers['Allow'] = ', '.join(exc.valid_methods)
    return response


def _too_large(exc: webob_exc.HTTPRequestEntityTooLarge):
    # oslo.middleware's sizelimit, raised while the body is read.
    return error_response(413, exc.explanation or exc.title)


def _database_error(exc: Exception):
    refused = db_api.refusal(exc)
    if refused is None:
        return _unexpected(exc)
    if isinstance(refused, exception.DatabaseUnavailable):
        LOG.warning('Database unavailable: %s', exc)
    else:
        LOG.info('The database refused request %s %s: %s',
                 flask.request.method, flask.request.path, exc)
    return _pool_error(refused)


def _deadlock(exc: db_exc.DBDeadlock):
    # Transactions are retried on a deadlock ([conductor]
    # deadlock_retries); one that still reaches here is a conflict.
    LOG.warning('Request %s %s deadlocked: %s', flask.request.method,
                flask.request.path, exc)
    return _pool_error(exception.ConcurrentUpdate(
        what='The data this request changes'))


def _unexpected(exc: Exception):
    if isinstance(exc, http_exc.HTTPException):
        return _http_error(exc)
    LOG.exception('Unexpected error in %s %s', flask.request.method,
                  flask.request.path)
    return error_response(500, 'An unexpected error occurred. The server '
                               'log has the details.')


def register(app: flask.Flask) -> None:
    app.register_error_handler(exception.PoolException, _pool_error)
    app.register_error_handler(webob_exc.HTTPRequestEntityTooLarge,
                               _too_large)
    app.register_error_handler(db_exc.DBDeadlock, _deadlock)
    # DBDeadlock is a DBError: the more specific handler above wins.
    for error in (*db_api.UNAVAILABLE_ERRORS, *db_api.DATABASE_ERRORS):
        app.register_error_handler(error, _database_error)
    app.register_error_handler(Exception, _unexpected)
