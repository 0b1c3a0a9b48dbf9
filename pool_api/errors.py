"""Errors rendered as Ironic renders them, whatever raised them."""
import json

import flask
from oslo_log import log
from werkzeug import exceptions as http_exc

from pool_conductor.db import api as db_api
from pool_conductor import exception

LOG = log.getLogger(__name__)


def error_response(status: int, message: str) -> flask.Response:
    """Ironic's error body: a JSON document inside a JSON string."""
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': message,
             'debuginfo': None}
    return flask.Response(
        json.dumps({'error_message': json.dumps(fault)}), status=status,
        mimetype='application/json')


def _pool_error(exc: exception.PoolException):
    if exc.code >= 500:
        LOG.warning('Request %s %s failed: %s', flask.request.method,
                    flask.request.path, exc.message)
    return error_response(exc.code, exc.message)


def _http_error(exc: http_exc.HTTPException):
    response = error_response(exc.code, exc.description or exc.name)
    if isinstance(exc, http_exc.MethodNotAllowed) and exc.valid_methods:
        response.headers['Allow'] = ', '.join(exc.valid_methods)
    return response


def _database_down(exc: Exception):
    LOG.warning('Database unavailable: %s', exc)
    return _pool_error(exception.DatabaseUnavailable())


def _unexpected(exc: Exception):
    if isinstance(exc, http_exc.HTTPException):
        return _http_error(exc)
    LOG.exception('Unexpected error in %s %s', flask.request.method,
                  flask.request.path)
    return error_response(500, 'An unexpected error occurred. The server '
                               'log has the details.')


def register(app: flask.Flask) -> None:
    app.register_error_handler(exception.PoolException, _pool_error)
    for error in db_api.UNAVAILABLE_ERRORS:
        app.register_error_handler(error, _database_down)
    app.register_error_handler(Exception, _unexpected)
