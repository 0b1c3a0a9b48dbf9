"""The dashboard's login: a signed session cookie that only the
dashboard's paths accept, in front of the API's authentication.

The cookie is sent by the browser with every request to /dashboard, so
that a page can be read without credentials in each request; the /v1 API
never reads it (it would let other sites' pages make the browser call
the API: cross-site request forgery). It carries the login (the
http_basic user and a fingerprint of its password hash, or the keystone
token) and its expiry, signed with HMAC-SHA256 under a key of the server,
so that a browser cannot change it nor make one.
"""
import base64
import binascii
import hashlib
import hmac
import json
import os
import tempfile
import threading
import time
import urllib.parse

from keystonemiddleware import auth_token
from oslo_log import log

from pool_api import auth
from pool_conductor.conf import CONF

LOG = log.getLogger(__name__)

PREFIX = '/dashboard'
COOKIE = 'pool_dashboard'
LOGIN_PATH = PREFIX + '/login'
LOGOUT_PATH = PREFIX + '/logout'
# Served to anyone: the login form needs them, and they hold no data.
PUBLIC_PATHS = frozenset([PREFIX + '/dashboard.css',
                          PREFIX + '/dashboard.js', LOGIN_PATH, LOGOUT_PATH])
WATCH_PATH = PREFIX + '/watch'
# Every path of the dashboard: none reads the API version headers.
PATHS = (PREFIX, WATCH_PATH, *sorted(PUBLIC_PATHS))
# What the middleware tells the views, in the WSGI environment.
ANONYMOUS = 'pool.dashboard.anonymous'
LOGIN = 'pool.dashboard.login'
STRATEGY = 'pool.dashboard.strategy'
SECRET_FILE = 'dashboard.secret'
# The largest login form read.
MAX_FORM = 16384

_secret_lock = threading.Lock()
_secret_cache: dict[tuple, bytes] = {}


def _file_secret(state_path: str) -> bytes:
    """The key in $state_path/dashboard.secret, made on first use: the
    first process to link its file in place wins, the others read it."""
    path = os.path.join(state_path, SECRET_FILE)
    try:
        with open(path, 'rb') as f:
            secret = f.read().strip()
        if secret:
            return secret
    except FileNotFoundError:
        pass
    os.makedirs(state_path, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=state_path, prefix='.dashboard-')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(binascii.hexlify(os.urandom(32)))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
            LOG.info('The dashboard signs its logins with a new key in %s',
                     path)
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)
    with open(path, 'rb') as f:
        return f.read().strip()


def _key() -> bytes:
    """The key that signs cookies: from [dashboard] secret, else from
    the file under [DEFAULT] state_path (read at call time)."""
    source = (CONF.dashboard.secret, CONF.state_path)
    with _secret_lock:
        if source not in _secret_cache:
            secret = (CONF.dashboard.secret.encode() if CONF.dashboard.secret
                      else _file_secret(CONF.state_path))
            _secret_cache[source] = hmac.new(
                secret, b'pool dashboard session', hashlib.sha256).digest()
        return _secret_cache[source]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))


def fingerprint(digest: bytes) -> str:
    """A short mark of a password hash: a cookie made before the
    password changed is not valid after."""
    return hashlib.sha256(digest).hexdigest()[:16]


def sign(login: dict, now: float | None = None) -> str:
    """The cookie value of a login, expiring [dashboard] session_ttl
    seconds from now."""
    now = time.time() if now is None else now
    body = _b64(json.dumps({**login, 'exp': int(now) + CONF.dashboard
                            .session_ttl}, separators=(',', ':')).encode())
    mac = hmac.new(_key(), body.encode(), hashlib.sha256).digest()
    return '%s.%s' % (body, _b64(mac))


def verify(value: str, now: float | None = None) -> dict | None:
    """The login of a cookie value, None when it is not one this server
    signed or when it expired."""
    body, sep, mac = value.partition('.')
    if not sep:
        return None
    try:
        expected = hmac.new(_key(), body.encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, _unb64(mac)):
            return None
        login = json.loads(_unb64(body))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if not isinstance(login, dict) or not isinstance(login.get('exp'), int):
        return None
    if login['exp'] <= (time.time() if now is None else now):
        return None
    return login


def cookie_header(environ: dict, value: str | None) -> str:
    """The Set-Cookie header of a login (None: of a logout)."""
    parts = ['%s=%s' % (COOKIE, value or ''), 'Path=' + PREFIX,
             'HttpOnly', 'SameSite=Strict',
             'Max-Age=%d' % (CONF.dashboard.session_ttl if value else 0)]
    if environ.get('wsgi.url_scheme') == 'https':
        parts.append('Secure')
    return '; '.join(parts)


def _cookie(environ: dict) -> str | None:
    for part in environ.get('HTTP_COOKIE', '').split(';'):
        name, sep, value = part.strip().partition('=')
        if sep and name == COOKIE:
            return value
    return None


def read_form(environ: dict) -> dict[str, str]:
    """The fields of an urlencoded form body, at most MAX_FORM bytes."""
    try:
        length = int(environ.get('CONTENT_LENGTH') or 0)
    except ValueError:
        return {}
    if not 0 < length <= MAX_FORM:
        return {}
    data = environ['wsgi.input'].read(length)
    try:
        fields = urllib.parse.parse_qs(data.decode(), max_num_fields=8)
    except (UnicodeDecodeError, ValueError):
        return {}
    return {k: v[0] for k, v in fields.items()}


def _on_dashboard(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + '/')


class _MarkAnonymous:
    """Marks a request ANONYMOUS when auth_token (deciding late) found
    no valid token in it."""

    def __init__(self, app: auth.WSGIApp):
        self.app = app

    def __call__(self, environ: dict, start_response):
        if environ.get('HTTP_X_IDENTITY_STATUS') != 'Confirmed':
            environ[ANONYMOUS] = True
        return self.app(environ, start_response)


class _Recorder:
    """The end of a keystone check: what auth_token said of a token."""

    def __call__(self, environ: dict, start_response):
        environ['pool.dashboard.identity'] = environ.get(
            'HTTP_X_IDENTITY_STATUS')
        start_response('204 No Content', [])
        return []


class DashboardAuth:
    """Authenticates requests to /dashboard by their session cookie (or
    the API's own credentials), and lets the others through to the API's
    authentication, which never reads the cookie.

    A request to the dashboard without a valid login reaches the
    application marked ANONYMOUS, which answers with the login form;
    every one is marked with the STRATEGY of the middleware.
    A login (POST /dashboard/login) reaches it with LOGIN set to what
    the cookie is to hold, or to None when the credentials are wrong.
    """

    def __init__(self, app: auth.WSGIApp, protected: auth.WSGIApp):
        self.app = app
        self.protected = protected
        self.strategy = CONF.auth_strategy
        self.basic = None
        if self.strategy == 'http_basic':
            self.basic = auth.BasicAuth(app, CONF.http_basic_auth_user_file,
                                        CONF.http_basic_auth_realm)
        elif self.strategy == 'keystone':
            # Invalid or missing tokens reach the application (marked
            # so), which shows the login form instead of a 401 document.
            delayed = {'oslo_config_config': CONF,
                       'delay_auth_decision': 'true'}
            self.keystone = auth_token.AuthProtocol(_MarkAnonymous(app),
                                                    dict(delayed))
            self.keystone_check = auth_token.AuthProtocol(_Recorder(),
                                                          dict(delayed))

    def _token_valid(self, token: str) -> bool:
        environ = {'REQUEST_METHOD': 'GET', 'PATH_INFO': PREFIX,
                   'SERVER_NAME': 'localhost', 'SERVER_PORT': '80',
                   'wsgi.url_scheme': 'http', 'HTTP_X_AUTH_TOKEN': token}
        list(self.keystone_check(environ, lambda *args: None))
        return environ.get('pool.dashboard.identity') == 'Confirmed'

    def _login(self, environ: dict) -> dict | None:
        """What a valid login form holds, for the cookie."""
        form = read_form(environ)
        if self.basic is not None:
            user = form.get('username', '')
            if user and self.basic.check_password(user,
                                                  form.get('password', '')):
                return {'user': user,
                        'fp': fingerprint(self.basic.digest(user) or b'')}
            return None
        token = form.get('token', '').strip()
        if token and self._token_valid(token):
            return {'token': token}
        return None

    def _basic_identity(self, environ: dict, login: dict) -> bool:
        user = login.get('user')
        digest = self.basic.digest(user) if isinstance(user, str) else None
        if digest is None or fingerprint(digest) != login.get('fp'):
            return False
        environ.update({
            'HTTP_X_IDENTITY_STATUS': 'Confirmed',
            'HTTP_X_USER_ID': user,
            'HTTP_X_USER_NAME': user,
            'HTTP_X_ROLES': auth.BASIC_ROLES,
            'HTTP_OPENSTACK_SYSTEM_SCOPE': 'all',
        })
        return True

    def __call__(self, environ: dict, start_response):
        path = environ.get('PATH_INFO', '').rstrip('/') or '/'
        if not _on_dashboard(path):
            return self.protected(environ, start_response)
        environ[STRATEGY] = self.strategy
        if self.strategy == 'noauth':
            return self.protected(environ, start_response)
        for name in auth.IDENTITY_HEADERS:
            environ.pop(name, None)
        if path in PUBLIC_PATHS:
            if path == LOGIN_PATH and environ.get('REQUEST_METHOD') == 'POST':
                environ[LOGIN] = self._login(environ)
            return self.app(environ, start_response)
        login = verify(_cookie(environ) or '')
        if login is not None:
            if self.basic is not None and self._basic_identity(environ,
                                                               login):
                return self.app(environ, start_response)
            token = login.get('token')
            if self.basic is None and isinstance(token, str):
                environ['HTTP_X_AUTH_TOKEN'] = token
                return self.keystone(environ, start_response)
        if (environ.get('HTTP_AUTHORIZATION')
                or environ.get('HTTP_X_AUTH_TOKEN')):
            # The API's own credentials (curl -u, X-Auth-Token).
            return self.protected(environ, start_response)
        environ[ANONYMOUS] = True
        return self.app(environ, start_response)


def wrap(app: auth.WSGIApp) -> auth.WSGIApp:
    """The application behind the API's authentication, and the
    dashboard's login in front of it.

    :raises: ValueError when http_basic's user file is not usable
    """
    return DashboardAuth(app, auth.wrap(app))
