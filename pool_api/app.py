"""The Flask application factory."""
import re

import flask
from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_middleware import healthcheck
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
from oslo_middleware import sizelimit

from pool_api.dashboard import session as dashboard_session
from pool_api import errors
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import request_log
from pool_api import request_metrics
from pool_api import routes
from pool_api import turns
from pool_api import validation
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import filters
from pool_conductor import exception
from pool_conductor import rpcapi
from pool_conductor import waiting


# Requests to these paths ignore version headers, as Ironic's root does.
_UNVERSIONED = ('/', '/v1/openapi.json', '/metrics',
                *dashboard_session.PATHS)
HEALTHCHECK_PATH = '/healthz'
# Identifiers in paths: names and UUIDs, traits, hostnames.
MAX_IDENT_LENGTH = 255


def _context() -> pool_context.RequestContext:
    """The context of the request, from the authentication middleware."""
    environ = flask.request.environ
    if CONF.auth_strategy == 'noauth':
        return pool_context.RequestContext(
            is_admin=True, system_scope='all',
            roles=['admin', 'member', 'reader'],
            request_id=environ.get(request_id.ENV_REQUEST_ID),
            global_request_id=environ.get(request_id.GLOBAL_REQ_ID))
    return pool_context.RequestContext.from_environ(environ)


def _check_query() -> None:
    """Refuse more query parameters than [api] max_filters, and NUL or
    lone surrogates in their names and values.

    :raises: InvalidParameterValue
    """
    args = list(flask.request.args.items(multi=True))
    if len(args) > CONF.api.max_filters:
        raise exception.InvalidParameterValue(
            err='Too many query parameters: %d; a request may have at most '
                '%d ([api] max_filters).' % (len(args), CONF.api.max_filters))
    for key, value in args:
        validation.check_string(key, 'A query parameter name')
        validation.check_string(value, 'The query parameter %s' % key)


def _check_query_names() -> None:
    """Refuse query parameters the route does not document, and
    documented ones given more than once: the handlers would read one
    value and drop the others. Digital Rebar filters on the routes that
    take them may be repeated: each one filters.

    :raises: UnknownArgument, RepeatedArgument
    """
    if flask.request.url_rule is None:
        # No route: the request gets its 404 or 405.
        return
    doc = params.route_doc()
    seen = set()
    for name, value in flask.request.args.items(multi=True):
        if name in doc.query_names:
            if name in seen:
                raise exception.RepeatedArgument(name=name)
            seen.add(name)
        elif not (doc.match_filters and filters.is_filter(name, value)):
            raise exception.UnknownArgument(name=name)


def _before_request() -> None:
    flask.g.version = None
    flask.g.context = _context()
    # For the request's line in the log.
    flask.request.environ[request_log.CONTEXT] = flask.g.context
    for name, value in (flask.request.view_args or {}).items():
        if len(value) > MAX_IDENT_LENGTH:
            raise exception.InvalidParameterValue(
                err='Invalid %s "%s": it may have at most %d characters.'
                    % (name, value, MAX_IDENT_LENGTH))
        validation.check_string(value, 'The path parameter %s' % name)
    _check_query()
    _check_query_names()
    if flask.request.path not in _UNVERSIONED:
        flask.g.version = microversion.parse(flask.request.headers)


def _after_request(response: flask.Response) -> flask.Response:
    response.headers.update(microversion.response_headers(
        flask.g.get('version')))
    return response


class _Healthcheck:
    """oslo.middleware's healthcheck at HEALTHCHECK_PATH, unauthenticated.
    """

    def __init__(self, app):
        self.app = app
        self.health = healthcheck.Healthcheck(None,
                                              {'oslo_config_config': CONF})

    def __call__(self, environ: dict, start_response):
        if environ.get('PATH_INFO') == HEALTHCHECK_PATH:
            return self.health(environ, start_response)
        return self.app(environ, start_response)


def _chunked(environ: dict) -> bool:
    """Whether the body of a request comes in chunks (of no declared
    length)."""
    return 'chunked' in environ.get('HTTP_TRANSFER_ENCODING', '').lower()


def _content_length(environ: dict) -> int | None:
    """The declared length of the body of a request: None without one, -1
    for one that is not a number of bytes."""
    declared = environ.get('CONTENT_LENGTH')
    if not declared:
        return None
    try:
        return validation.integer(declared, 'Content-Length')
    except exception.InvalidParameterValue:
        return -1


class _Body:
    """wsgi.input, counting what the application reads of it."""

    def __init__(self, stream):
        self.stream = stream
        self.count = 0
        self.ended = False

    def _counted(self, data: bytes, *size: int) -> bytes:
        self.count += len(data)
        self.ended = self.ended or (not data and size != (0,))
        return data

    # The size is passed on only when given: cheroot reads a size of -1
    # to the end of the connection.
    def read(self, *size: int) -> bytes:
        return self._counted(self.stream.read(*size), *size)

    def readline(self, *size: int) -> bytes:
        return self._counted(self.stream.readline(*size), *size)

    def __iter__(self):
        return iter(self.readline, b'')

    def __getattr__(self, name: str):
        # Reads by other means are not counted: the connection closes.
        return getattr(self.stream, name)

    def read_whole(self, length: int | None) -> bool:
        """Whether the application read the whole body."""
        return self.ended or (length is not None
                              and 0 <= length <= self.count)


class _CloseUnreadBody:
    """Answers with "Connection: close" when the application did not read
    the whole body of the request (an early refusal: 413, 401, 404, ...):
    the server would have to read the rest, which may be large or never
    come, to find where the next request on the connection starts."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ: dict, start_response):
        length = _content_length(environ)
        if not (length or _chunked(environ)):
            return self.app(environ, start_response)
        body = _Body(environ['wsgi.input'])
        environ['wsgi.input'] = body

        def start(status: str, headers: list, exc_info=None):
            if not body.read_whole(length):
                headers = [*headers, ('Connection', 'close')]
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


class _BodySizeLimit:
    """Refuses a declared body over [oslo_middleware]
    max_request_body_size in Ironic's error shape; oslo.middleware's
    limiter stops bodies of no declared length as Flask reads them."""

    def __init__(self, app):
        self.app = app
        self.limiter = sizelimit.RequestBodySizeLimiter(
            app, {'oslo_config_config': CONF})

    def __call__(self, environ: dict, start_response):
        limit = CONF.oslo_middleware.max_request_body_size
        length = _content_length(environ)
        if length is None:
            if not _chunked(environ):
                # No body at all (a GET, a DELETE): nothing to limit.
                return self.app(environ, start_response)
            return self.limiter(environ, start_response)
        if length < 0:
            return errors.wsgi_error(start_response, 400,
                                     'Invalid Content-Length header.')
        if length > limit:
            return errors.wsgi_error(
                start_response, 413, 'Request is too large: the body may '
                'have at most %d bytes.' % limit)
        # The server reads no more than the declared length.
        return self.app(environ, start_response)


class _ProxyHeaders:
    """oslo.middleware's HTTPProxyToWSGI, only while [oslo_middleware]
    enable_proxy_headers_parsing is on: the other requests skip the cost
    of its request object."""

    def __init__(self, app):
        self.app = app
        self.proxy = http_proxy_to_wsgi.HTTPProxyToWSGI(
            app, {'oslo_config_config': CONF})

    def __call__(self, environ: dict, start_response):
        if CONF.oslo_middleware.enable_proxy_headers_parsing:
            return self.proxy(environ, start_response)
        return self.app(environ, start_response)


# A request ID a client may send, to be kept as the global request ID.
_GLOBAL_REQUEST_ID = re.compile(
    r'req-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}')


class _RequestId:
    """oslo.middleware's RequestId without its request and response
    objects: each request gets a new ID (environ
    ``openstack.request_id``), returned in X-Openstack-Request-Id; an ID
    the client sends in that header, when it has the form of one, is kept
    as the global request ID (``openstack.global_request_id``)."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ: dict, start_response):
        sent = environ.get('HTTP_X_OPENSTACK_REQUEST_ID', '')
        if _GLOBAL_REQUEST_ID.fullmatch(sent):
            environ[request_id.GLOBAL_REQ_ID] = sent
        ident = oslo_context.generate_request_id()
        environ[request_id.ENV_REQUEST_ID] = ident

        def start(status: str, headers: list, exc_info=None):
            if not any(k.lower() == request_id.HTTP_RESP_HEADER_REQUEST_ID
                       for k, _ in headers):
                headers = [*headers,
                           (request_id.HTTP_RESP_HEADER_REQUEST_ID, ident)]
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def _middleware(app):
    """The WSGI pipeline around the application, outermost last."""
    app = dashboard_session.wrap(app)
    app = _BodySizeLimit(app)
    app = _Healthcheck(app)
    app = request_log.RequestLog(app)
    app = _RequestId(app)
    return _CloseUnreadBody(_ProxyHeaders(app))


def create_app(conf: cfg.ConfigOpts | None = None) -> flask.Flask:
    """The pool API as a WSGI application.

    :param conf: the parsed configuration; pool reads its options from the
        global ``CONF``, which this must be when given.
    """
    if conf is not None and conf is not CONF:
        raise ValueError('pool_api reads the global pool_conductor CONF')
    # Every route is in the route table: no static files.
    app = flask.Flask('pool_api', static_folder=None)
    app.json.sort_keys = False
    app.config['RPCAPI'] = rpcapi.ConductorAPI()
    app.before_request(_before_request)
    app.after_request(_after_request)
    request_metrics.install(app)
    errors.register(app)
    routes.register(app)
    policy.setup(app)
    waiting.install(turns.given_up)
    # The authentication (a Keystone token's validation may wait on
    # Keystone) and the other middlewares take no turn.
    app.wsgi_app = _middleware(turns.Turns().wrap(app.wsgi_app))
    return app
