"""The operator's dashboard: /dashboard, a page rendered on the server
from the document of GET /v1/fleet, its login and its two static files.
"""
import functools
import importlib.resources

import flask
import jinja2

from pool_api.dashboard import session
from pool_api import fleet
from pool_api import policy
from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import states

# The feed the page's script watches, when the API has one.
EVENTS_ENDPOINT = 'GET /v1/events'
WATCH_QUERY = {'since': {'type': 'integer', 'minimum': 0},
               'wait': {'type': 'number', 'minimum': 0}}
HEADERS = {
    # No inline script or style, nothing from elsewhere, no framing.
    'Content-Security-Policy': (
        "default-src 'none'; script-src 'self'; style-src 'self'; "
        "img-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
        "form-action 'self'; base-uri 'none'"),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
}
STATIC = {'dashboard.css': 'text/css; charset=utf-8',
          'dashboard.js': 'text/javascript; charset=utf-8'}


@functools.cache
def _templates() -> jinja2.Environment:
    # Every value is escaped, whatever the template's name.
    return jinja2.Environment(
        loader=jinja2.PackageLoader('pool_api.dashboard', 'templates'),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True)


@functools.cache
def _static(name: str) -> bytes:
    return (importlib.resources.files('pool_api.dashboard') / 'static'
            / name).read_bytes()


def _strategy() -> str:
    """The authentication of the dashboard's middleware."""
    return flask.request.environ.get(session.STRATEGY,
                                     CONF.auth_strategy)


def _page(template: str, status: int = 200, **values) -> flask.Response:
    html = _templates().get_template(template).render(
        strategy=_strategy(), **values)
    response = flask.Response(html, status, mimetype='text/html')
    response.headers.update(HEADERS)
    return response


def _anonymous() -> bool:
    """Whether the request has no login: no cookie nor credentials, or a
    keystone token that is not valid (any more)."""
    return bool(flask.request.environ.get(session.ANONYMOUS))


def _login_form(error: str | None = None) -> flask.Response:
    response = _page('login.html', 401, error=error)
    if flask.request.cookies.get(session.COOKIE):
        response.headers['Set-Cookie'] = session.cookie_header(
            flask.request.environ, None)
    return response


def show_dashboard():
    """The page; the login form without a login."""
    if _anonymous():
        return _login_form()
    if not policy.allowed('pool:fleet:get'):
        return _page('forbidden.html', 403)
    context = flask.g.context
    return _page('dashboard.html', fleet=fleet.overview(
        context, CONF.dashboard.ending_within),
        pool_statuses=states.POOL_STATUSES,
        user=context.user_name or context.user_id,
        refresh_seconds=CONF.dashboard.refresh_seconds)


def _see_dashboard(cookie: str | None = None,
                   logout: bool = False) -> flask.Response:
    # No body: the browser goes on to the page.
    response = flask.Response(status=303)
    del response.headers['Content-Type']
    response.headers['Location'] = session.PREFIX
    response.headers.update(HEADERS)
    if cookie is not None or logout:
        response.headers['Set-Cookie'] = session.cookie_header(
            flask.request.environ, cookie)
    return response


def login():
    """Check a login form; a right one sets the session cookie."""
    if _strategy() == 'noauth':
        return _see_dashboard()
    login = flask.request.environ.get(session.LOGIN)
    if not login:
        return _login_form(
            'Wrong user name or password.'
            if _strategy() == 'http_basic'
            else 'This token is not valid.')
    return _see_dashboard(session.sign(login))


def logout():
    """End the session: the cookie is removed."""
    return _see_dashboard(logout=True)


def _static_file(name: str) -> flask.Response:
    response = flask.Response(_static(name), 200, content_type=STATIC[name])
    response.headers.update(HEADERS)
    response.headers['Cache-Control'] = 'max-age=300'
    return response


def get_stylesheet():
    return _static_file('dashboard.css')


def get_script():
    return _static_file('dashboard.js')


def watch_events():
    """The event feed (GET /v1/events) for the page's script, which has
    only the session cookie: the same answer, under the dashboard's path.

    :raises: NotFound where the API has no event feed
    """
    if _anonymous():
        raise exception.Forbidden()
    handler = flask.current_app.view_functions.get(EVENTS_ENDPOINT)
    if handler is None:
        raise exception.NotFound()
    return handler()
