"""Authentication middleware of the API: noauth, http_basic or keystone."""
import base64
import binascii
import collections
import hashlib
import os
import threading
import time
from typing import Callable, Iterable

import bcrypt
from keystonemiddleware import auth_token
from oslo_log import log

from pool_api import errors
from pool_conductor.conf import CONF

LOG = log.getLogger(__name__)

# Served without authentication under every strategy: the version
# documents and the description of the API.
PUBLIC_PATHS = frozenset(['/', '/v1', '/v1/openapi.json'])
# Public only when [api] public_metrics is on.
METRICS_PATH = '/metrics'
# Identity headers only an authentication middleware may set; a client
# sending them is ignored.
IDENTITY_HEADERS = ('HTTP_X_IDENTITY_STATUS', 'HTTP_X_USER_ID',
                    'HTTP_X_USER_NAME', 'HTTP_X_PROJECT_ID',
                    'HTTP_X_PROJECT_NAME', 'HTTP_X_ROLES',
                    'HTTP_OPENSTACK_SYSTEM_SCOPE', 'HTTP_X_SERVICE_ROLES',
                    'HTTP_X_DOMAIN_ID', 'HTTP_X_USER_DOMAIN_ID',
                    'HTTP_X_PROJECT_DOMAIN_ID', 'HTTP_X_IS_ADMIN_PROJECT')
# The identity of an http_basic user: a system admin, as in Ironic's
# standalone mode.
BASIC_ROLES = 'admin,member,reader'

WSGIApp = Callable[[dict, Callable], Iterable[bytes]]


def read_htpasswd(path: str) -> dict[str, bytes]:
    """The users and bcrypt hashes of an htpasswd file.

    :raises: ValueError for a missing file or a hash that is not bcrypt
    """
    users = {}
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise ValueError('Cannot read the http_basic_auth_user_file %s: %s'
                         % (path, exc)) from None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        user, sep, digest = line.partition(':')
        if not sep or not digest.startswith(('$2y$', '$2b$', '$2a$')):
            raise ValueError('%s line %d: expected user:bcrypt-hash '
                             '(htpasswd -B)' % (path, number))
        users[user] = digest.encode()
    return users


class BasicAuth:
    """HTTP Basic authentication against an htpasswd file of bcrypt hashes.

    bcrypt is slow on purpose. Credentials already checked, right or
    wrong, are remembered by their SHA-256 until the file changes, so a
    client repeating them costs one lookup per request; one bcrypt check
    runs at a time per process, so wrong passwords cannot take more than
    one core; an unknown user is checked against a dummy hash of the same
    cost, so that the answer takes as long as for a known one. The file is
    read again when it changes (looked at once a second).
    """

    CACHE_SIZE = 1024
    RELOAD_INTERVAL = 1.0

    def __init__(self, app: WSGIApp, path: str, realm: str):
        self.app = app
        self.path = path
        self.challenge = 'Basic realm="%s"' % realm.replace('"', '')
        self._lock = threading.Lock()
        self._hashing = threading.Lock()
        self._load()

    def _load(self) -> None:
        """Read the file; forget what was checked against the old one.

        :raises: ValueError, as read_htpasswd()
        """
        stamp = self._stamp()
        users = read_htpasswd(self.path)
        cost = next((int(h.split(b'$')[2]) for h in users.values()), 12)
        dummy = bcrypt.hashpw(b'-', bcrypt.gensalt(rounds=cost))
        with self._lock:
            self.users, self._dummy, self._file_stamp = users, dummy, stamp
            self._checked: collections.OrderedDict[bytes, str | None] = (
                collections.OrderedDict())
            self._looked_at = time.monotonic()

    def _stamp(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def _reload_if_changed(self) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._looked_at < self.RELOAD_INTERVAL:
                return
            self._looked_at = now
        if self._stamp() != self._file_stamp:
            try:
                self._load()
            except ValueError as exc:
                # The users of the last good file stay.
                LOG.error('Not reloading http_basic users: %s', exc)

    def _check(self, header: str) -> str | None:
        """The user of an Authorization header, None if not valid."""
        self._reload_if_changed()
        key = hashlib.sha256(header.encode()).digest()
        with self._lock:
            if key in self._checked:
                return self._checked[key]
        scheme, _sep, value = header.partition(' ')
        if scheme.lower() != 'basic':
            return None
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return None
        user, sep, password = decoded.partition(':')
        with self._lock:
            digest = self.users.get(user) if sep else None
            dummy = self._dummy
        with self._hashing:
            matched = bcrypt.checkpw(password.encode(), digest or dummy)
        result = user if matched and digest is not None else None
        with self._lock:
            self._checked[key] = result
            while len(self._checked) > self.CACHE_SIZE:
                self._checked.popitem(last=False)
        return result

    def check_password(self, user: str, password: str) -> bool:
        """Whether a user of the file has this password (the checks of
        a request's header, its cache and its cost included)."""
        if ':' in user:
            return False
        value = base64.b64encode(('%s:%s' % (user, password)).encode())
        return self._check('Basic ' + value.decode()) == user

    def digest(self, user: str) -> bytes | None:
        """The hash of a user's password in the file as it is now, None
        for a user it does not have."""
        self._reload_if_changed()
        with self._lock:
            return self.users.get(user)

    def __call__(self, environ: dict, start_response):
        header = environ.get('HTTP_AUTHORIZATION')
        user = self._check(header) if header else None
        if user is None:
            return errors.wsgi_error(
                start_response, 401,
                'Authentication required' if header is None
                else 'Invalid username or password',
                (('WWW-Authenticate', self.challenge),))
        environ.update({
            'HTTP_X_IDENTITY_STATUS': 'Confirmed',
            'HTTP_X_USER_ID': user,
            'HTTP_X_USER_NAME': user,
            'HTTP_X_ROLES': BASIC_ROLES,
            'HTTP_OPENSTACK_SYSTEM_SCOPE': 'all',
        })
        return self.app(environ, start_response)


class _PublicPaths:
    """Sends the public paths around the authentication middleware."""

    def __init__(self, app: WSGIApp, protected: WSGIApp):
        self.app = app
        self.protected = protected

    def __call__(self, environ: dict, start_response):
        for name in IDENTITY_HEADERS:
            environ.pop(name, None)
        path = environ.get('PATH_INFO', '').rstrip('/') or '/'
        if path in PUBLIC_PATHS or (path == METRICS_PATH
                                    and CONF.api.public_metrics):
            return self.app(environ, start_response)
        return self.protected(environ, start_response)


def wrap(app: WSGIApp) -> WSGIApp:
    """The application behind the [DEFAULT] auth_strategy middleware.

    :raises: ValueError when http_basic's user file is not usable
    """
    strategy = CONF.auth_strategy
    if strategy == 'noauth':
        LOG.warning('The API serves every request as a system admin: '
                    '[DEFAULT] auth_strategy = noauth is for development '
                    'only')
        return _PublicPaths(app, app)
    if strategy == 'http_basic':
        protected = BasicAuth(app, CONF.http_basic_auth_user_file,
                              CONF.http_basic_auth_realm)
    else:
        protected = auth_token.AuthProtocol(app,
                                            {'oslo_config_config': CONF})
    return _PublicPaths(app, protected)
