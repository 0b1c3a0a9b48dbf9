"""The Flask application factory."""
import flask
from oslo_config import cfg

from pool_api import errors
from pool_api import microversion
from pool_api import routes
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor import rpcapi

# Requests to these paths ignore version headers, as Ironic's root does.
_UNVERSIONED = ('/', '/v1/openapi.json')


def _before_request() -> None:
    flask.g.version = None
    flask.g.context = pool_context.RequestContext(
        is_admin=True,
        request_id=flask.request.headers.get('X-Openstack-Request-Id'))
    if flask.request.path not in _UNVERSIONED:
        flask.g.version = microversion.parse(flask.request.headers)


def _after_request(response: flask.Response) -> flask.Response:
    response.headers.update(microversion.response_headers(
        flask.g.get('version')))
    context = flask.g.get('context')
    if context is not None:
        response.headers['X-Openstack-Request-Id'] = context.request_id
    return response


def create_app(conf: cfg.ConfigOpts | None = None) -> flask.Flask:
    """The pool API as a WSGI application.

    :param conf: the parsed configuration; pool reads its options from the
        global ``CONF``, which this must be when given.
    """
    if conf is not None and conf is not CONF:
        raise ValueError('pool_api reads the global pool_conductor CONF')
    app = flask.Flask('pool_api')
    app.url_map.strict_slashes = False
    app.json.sort_keys = False
    app.config['RPCAPI'] = rpcapi.ConductorAPI()
    app.before_request(_before_request)
    app.after_request(_after_request)
    errors.register(app)
    routes.register(app)
    return app
