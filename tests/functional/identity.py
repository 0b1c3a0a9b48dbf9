"""A stand-in Keystone v3 for tests: password tokens and their validation.

It knows the users of a devstack (``admin``, ``demo``, ``alt_demo``) and a
service user for pool's keystonemiddleware, issues tokens scoped to a
project or to the system with the roles those users have there (implied
roles expanded, as Keystone does) and a service catalog, and validates
them for auth_token (``GET /v3/auth/tokens``). Enough for clients built
from a clouds.yaml and for pool-api with ``auth_strategy = keystone``;
nothing else of Keystone's API.
"""
import datetime
import json
import socketserver
import threading
import uuid
from wsgiref import simple_server

import fixtures

DOMAIN = {'id': 'default', 'name': 'Default'}
REGION = 'RegionOne'
# Keystone's default implied roles: admin implies member, member reader.
IMPLIED = {'admin': ['admin', 'member', 'reader'],
           'member': ['member', 'reader'], 'reader': ['reader'],
           'service': ['service']}


class _Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(simple_server.WSGIRequestHandler):

    def log_message(self, *args):
        pass


class Identity(fixtures.Fixture):
    """The identity endpoint on a free port of 127.0.0.1, in a thread.

    ``url`` is its root (clients discover ``/v3`` there). ``users`` maps a
    user name to its password, its project and its role on that project,
    and its role on the system (None: no system role).
    ``set_endpoint(service_type, url)`` adds a service to the catalog of
    the tokens issued afterwards.
    """

    def __init__(self):
        super().__init__()
        self.projects = {name: uuid.uuid4().hex
                         for name in ('admin', 'demo', 'alt_demo',
                                      'service')}
        self.users = {
            # name: (password, project, project role, system role)
            'admin': ('secret-admin', 'admin', 'admin', 'admin'),
            'demo': ('secret-demo', 'demo', 'member', None),
            'alt_demo': ('secret-alt', 'alt_demo', 'member', None),
            'pool': ('secret-pool', 'service', 'service', None),
        }
        self.user_ids = {name: uuid.uuid4().hex for name in self.users}
        self.endpoints: dict[str, str] = {}
        self.tokens: dict[str, dict] = {}
        self.lock = threading.Lock()

    def _setUp(self):
        self.server = simple_server.make_server(
            '127.0.0.1', 0, self, server_class=_Server,
            handler_class=_QuietHandler)
        self.url = 'http://127.0.0.1:%d' % self.server.server_port
        self.endpoints['identity'] = self.url + '/v3'
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def set_endpoint(self, service_type: str, url: str) -> None:
        self.endpoints[service_type] = url

    # WSGI

    def __call__(self, environ, start_response):
        method = environ['REQUEST_METHOD']
        path = environ.get('PATH_INFO', '').rstrip('/') or '/'
        try:
            if method == 'GET' and path == '/':
                status, headers, body = (
                    '300 Multiple Choices', {},
                    {'versions': {'values': [self._version()]}})
            elif method == 'GET' and path == '/v3':
                status, headers, body = '200 OK', {}, {
                    'version': self._version()}
            elif method == 'POST' and path == '/v3/auth/tokens':
                status, headers, body = self._issue(environ)
            elif method in ('GET', 'HEAD') and path == '/v3/auth/tokens':
                status, headers, body = self._validate(environ)
            else:
                status, headers, body = _error(404, 'Not Found',
                                               'No such resource.')
        except (ValueError, KeyError, TypeError) as exc:
            status, headers, body = _error(400, 'Bad Request', str(exc))
        raw = json.dumps(body).encode()
        start_response(status, [('Content-Type', 'application/json'),
                                ('Content-Length', str(len(raw))),
                                *headers.items()])
        return [raw]

    def _version(self) -> dict:
        return {'id': 'v3.14', 'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self', 'href': self.url + '/v3/'}],
                'media-types': [{
                    'base': 'application/json',
                    'type': 'application/vnd.openstack.identity-v3+json'}]}

    def _issue(self, environ):
        length = int(environ.get('CONTENT_LENGTH') or 0)
        auth = json.loads(environ['wsgi.input'].read(length))['auth']
        identity = auth['identity']
        if identity['methods'] != ['password']:
            return _error(401, 'Unauthorized', 'Only passwords here.')
        user = identity['password']['user']
        name = user.get('name') or next(
            (n for n, i in self.user_ids.items() if i == user.get('id')),
            None)
        if name not in self.users or self.users[name][0] != user.get(
                'password'):
            return _error(401, 'Unauthorized',
                          'The request you have made requires '
                          'authentication.')
        _password, project, project_role, system_role = self.users[name]
        scope = auth.get('scope') or {'project': {'name': project}}
        token = {
            'methods': ['password'],
            'user': {'id': self.user_ids[name], 'name': name,
                     'domain': DOMAIN, 'password_expires_at': None},
            'audit_ids': [uuid.uuid4().hex[:22]],
            'issued_at': _time(datetime.timedelta()),
            'expires_at': _time(datetime.timedelta(hours=2)),
        }
        if 'system' in scope:
            if not system_role:
                return _error(401, 'Unauthorized',
                              '%s has no role on the system.' % name)
            token['system'] = {'all': True}
            role = system_role
        elif 'project' in scope:
            wanted = scope['project']
            if (wanted.get('name', project) != project
                    or wanted.get('id', self.projects[project])
                    != self.projects[project]):
                return _error(401, 'Unauthorized',
                              '%s has no role on that project.' % name)
            token['project'] = {'id': self.projects[project],
                                'name': project, 'domain': DOMAIN}
            role = project_role
        else:
            return _error(400, 'Bad Request', 'Unknown scope.')
        token['roles'] = [{'id': 'role-' + r, 'name': r}
                          for r in IMPLIED[role]]
        token['catalog'] = self._catalog()
        token_id = uuid.uuid4().hex
        with self.lock:
            self.tokens[token_id] = token
        return '201 Created', {'X-Subject-Token': token_id}, {
            'token': token}

    def _validate(self, environ):
        with self.lock:
            caller = self.tokens.get(environ.get('HTTP_X_AUTH_TOKEN'))
            subject_id = environ.get('HTTP_X_SUBJECT_TOKEN')
            subject = self.tokens.get(subject_id)
        if caller is None:
            return _error(401, 'Unauthorized',
                          'The request you have made requires '
                          'authentication.')
        if subject is None:
            return _error(404, 'Not Found',
                          'Could not find token: %s.' % subject_id)
        if 'nocatalog' in environ.get('QUERY_STRING', ''):
            subject = {k: v for k, v in subject.items() if k != 'catalog'}
        return '200 OK', {'X-Subject-Token': subject_id}, {'token': subject}

    def _catalog(self) -> list[dict]:
        return [{'type': service_type, 'name': service_type,
                 'id': uuid.uuid5(uuid.NAMESPACE_URL, url).hex,
                 'endpoints': [{'id': uuid.uuid4().hex,
                                'interface': interface, 'region': REGION,
                                'region_id': REGION, 'url': url}
                               for interface in ('public', 'internal',
                                                 'admin')]}
                for service_type, url in sorted(self.endpoints.items())]

    def cloud(self, user: str, system_scope: bool = False) -> dict:
        """A clouds.yaml entry for a user, scoped to its project or to the
        system."""
        password, project = self.users[user][:2]
        auth = {'auth_url': self.url, 'username': user,
                'password': password, 'user_domain_id': 'default'}
        if system_scope:
            auth['system_scope'] = 'all'
        else:
            auth.update(project_name=project, project_domain_id='default')
        return {'auth': auth, 'auth_type': 'password',
                'identity_api_version': '3', 'region_name': REGION,
                'interface': 'public'}

    def authtoken_options(self) -> dict:
        """The [keystone_authtoken] options of a pool-api that checks the
        tokens issued here."""
        password, project = self.users['pool'][:2]
        return {'www_authenticate_uri': self.url,
                'auth_url': self.url + '/v3', 'auth_type': 'password',
                'username': 'pool', 'password': password,
                'user_domain_id': 'default', 'project_name': project,
                'project_domain_id': 'default', 'region_name': REGION,
                'interface': 'public'}


def _time(delta: datetime.timedelta) -> str:
    moment = datetime.datetime.now(datetime.timezone.utc) + delta
    return moment.strftime('%Y-%m-%dT%H:%M:%S.000000Z')


def _error(code: int, title: str, message: str):
    return ('%d %s' % (code, title), {},
            {'error': {'code': code, 'title': title, 'message': message}})
