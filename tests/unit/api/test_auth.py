"""Authentication strategies: http_basic and keystone, in front of the API."""
import base64
import json
import threading

import bcrypt
import fixtures
from keystoneauth1 import fixture as ks_fixture
from keystoneauth1 import loading as ks_loading
from keystonemiddleware.auth_token import _identity as ks_identity
from oslo_config import fixture as config_fixture
from requests_mock.contrib import fixture as rm_fixture

from pool_api import app as pool_app
from pool_api import auth
from pool_conductor.conf import CONF
from tests.unit.api import base

KEYSTONE = 'http://keystone.test/identity'
USER_TOKEN = 'user-token'
SERVICE_TOKEN = 'service-token'
# A token Keystone takes its time to answer about (and does not know).
SLOW_TOKEN = 'slow-token'


def basic(user: str, password: str) -> dict:
    value = base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
    return {'Authorization': 'Basic ' + value}


def write_htpasswd(path: str, users: dict) -> None:
    with open(path, 'w') as f:
        for user, password in users.items():
            digest = bcrypt.hashpw(password.encode(),
                                   bcrypt.gensalt(rounds=4)).decode()
            f.write('%s:%s\n' % (user, digest))


class TestHTTPBasic(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.htpasswd = self.useFixture(fixtures.TempDir()).join('htpasswd')
        write_htpasswd(self.htpasswd, {'alice': 's3cret'})
        self.config(auth_strategy='http_basic',
                    http_basic_auth_user_file=self.htpasswd)
        self.app = pool_app.create_app()
        self.client = self.app.test_client()

    def assertChallenge(self, resp):
        self.assertError(401, resp)
        self.assertEqual('Basic realm="Pool API"',
                         resp.headers['WWW-Authenticate'])

    def test_no_credentials_is_401(self):
        self.assertChallenge(self.get('/v1/nodes'))

    def test_wrong_password_is_401(self):
        self.assertChallenge(self.get('/v1/nodes',
                                      headers=basic('alice', 'wrong')))
        self.assertChallenge(self.get('/v1/nodes',
                                      headers=basic('bob', 's3cret')))

    def test_unknown_user_costs_what_a_wrong_password_costs(self):
        checks = []
        real = bcrypt.checkpw

        def spy(password, digest):
            checks.append(digest.split(b'$')[2])
            return real(password, digest)

        self.patch(auth.bcrypt, 'checkpw', spy)
        self.assertChallenge(self.get('/v1/nodes',
                                      headers=basic('alice', 'wrong')))
        self.assertChallenge(self.get('/v1/nodes',
                                      headers=basic('mallory', 'wrong')))
        # One bcrypt check each, of the file's cost.
        self.assertEqual([b'04', b'04'], checks)
        # The same wrong credentials again are not hashed again.
        self.assertChallenge(self.get('/v1/nodes',
                                      headers=basic('mallory', 'wrong')))
        self.assertEqual(2, len(checks))

    def test_changes_of_the_file_apply(self):
        self.patch(auth.BasicAuth, 'RELOAD_INTERVAL', 0)
        self.assertEqual(200, self.get(
            '/v1/nodes', headers=basic('alice', 's3cret')).status_code)
        write_htpasswd(self.htpasswd, {'bob': 'b0b'})
        self.assertEqual(200, self.get(
            '/v1/nodes', headers=basic('bob', 'b0b')).status_code)
        self.assertChallenge(self.get('/v1/nodes',
                                      headers=basic('alice', 's3cret')))
        # A broken file keeps the users of the last good one.
        with open(self.htpasswd, 'w') as f:
            f.write('carol:plain\n')
        self.assertEqual(200, self.get(
            '/v1/nodes', headers=basic('bob', 'b0b')).status_code)

    def test_malformed_header_is_401(self):
        for value in ('Basic !!!', 'Bearer x', 'Basic ' +
                      base64.b64encode(b'no-colon').decode()):
            self.assertChallenge(self.get(
                '/v1/nodes', headers={'Authorization': value}))

    def test_user_is_a_system_admin(self):
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware'},
                         headers=basic('alice', 's3cret'))
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.get('/v1/conductors', headers=basic('alice', 's3cret'))
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_forged_identity_headers_are_ignored(self):
        resp = self.get('/v1/nodes', headers={
            'X-Identity-Status': 'Confirmed', 'X-Roles': 'admin',
            'OpenStack-System-Scope': 'all'})
        self.assertChallenge(resp)

    def test_version_documents_and_healthcheck_are_public(self):
        for path in ('/', '/v1', '/v1/openapi.json', '/healthz'):
            self.assertEqual(200, self.get(path).status_code, path)

    def test_file_that_is_not_bcrypt_stops_the_start(self):
        with open(self.htpasswd, 'w') as f:
            f.write('alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n')
        self.assertRaisesRegex(ValueError, 'bcrypt', pool_app.create_app)


class KeystoneMixin:
    """keystonemiddleware's auth_token, its identity server mocked: the
    token USER_TOKEN is a member and reader of project-a."""

    def setUp(self):
        super().setUp()
        self.config(auth_strategy='keystone')
        self.requests = self.useFixture(rm_fixture.Fixture())
        self._mock_keystone()
        # What auth_token registers when it loads the password plugin.
        self.useFixture(config_fixture.Config(CONF)).register_opts(
            ks_loading.get_auth_plugin_conf_options('password'),
            group='keystone_authtoken')
        self.config(group='keystone_authtoken', auth_type='password',
                    auth_url=KEYSTONE + '/v3', username='pool',
                    password='pool', user_domain_id='default',
                    project_name='service', project_domain_id='default',
                    www_authenticate_uri=KEYSTONE)
        self.app = pool_app.create_app()
        self.client = self.app.test_client()

    def _mock_keystone(self):
        service = ks_fixture.V3Token()
        service.set_project_scope()
        catalog = service.add_service('identity')
        catalog.add_standard_endpoints(public=KEYSTONE + '/v3',
                                       admin=KEYSTONE + '/v3',
                                       internal=KEYSTONE + '/v3')
        discovery = ks_fixture.DiscoveryList(href=KEYSTONE, v2=False)
        self.requests.get(KEYSTONE, json=discovery, status_code=300)
        self.requests.get(KEYSTONE + '/v3', json={
            'version': ks_fixture.V3Discovery(KEYSTONE + '/v3')})
        self.requests.post(KEYSTONE + '/v3/auth/tokens', json=service,
                           headers={'X-Subject-Token': SERVICE_TOKEN})
        user = ks_fixture.V3Token(project_id='project-a',
                                  user_id='user-1')
        user.add_role(name='member')
        user.add_role(name='reader')

        def validate(request, context):
            if request.headers.get('X-Subject-Token') != USER_TOKEN:
                context.status_code = 404
                return {'error': {'code': 404, 'message': 'not found'}}
            context.headers['X-Subject-Token'] = USER_TOKEN
            return user

        self.requests.get(KEYSTONE + '/v3/auth/tokens', json=validate)



class TestKeystone(KeystoneMixin, base.APITestCase):

    def test_no_token_is_401_with_keystone_challenge(self):
        resp = self.get('/v1/nodes')
        self.assertEqual(401, resp.status_code)
        self.assertIn(KEYSTONE, resp.headers['WWW-Authenticate'])

    def test_invalid_token_is_401(self):
        resp = self.get('/v1/nodes', headers={'X-Auth-Token': 'bogus'})
        self.assertEqual(401, resp.status_code)

    def test_token_gives_the_project_scope(self):
        self.create_node(owner='project-a', name='mine')
        self.create_node(owner='project-b', name='theirs')
        headers = {'X-Auth-Token': USER_TOKEN}
        resp = self.get('/v1/nodes', headers=headers)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(['mine'],
                         [n['name'] for n in resp.get_json()['nodes']])
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal'},
                         headers=headers)
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual('project-a', resp.get_json()['owner'])
        self.assertError(403, self.post('/v1/nodes',
                                        {'driver': 'fake-hardware'},
                                        headers=headers))

    def test_a_token_in_validation_holds_no_turn(self):
        # Keystone's answer about one token does not keep the process's
        # only turn from another request.
        self.config(max_active_requests=1, group='api')
        asked, answers = threading.Event(), threading.Event()
        self.addCleanup(answers.set)
        verify = ks_identity.IdentityServer.verify_token

        def slow_keystone(server, token, *args, **kwargs):
            if token == SLOW_TOKEN:
                asked.set()
                answers.wait(10)
            return verify(server, token, *args, **kwargs)

        self.patch(ks_identity.IdentityServer, 'verify_token', slow_keystone)
        done = {}
        waiting = threading.Thread(target=lambda: done.update(
            slow=self.get('/v1/nodes', headers={
                'X-Auth-Token': SLOW_TOKEN}).status_code))
        waiting.start()
        self.addCleanup(waiting.join, 10)
        self.assertTrue(asked.wait(5))
        other = threading.Thread(target=lambda: done.update(
            other=self.get('/v1/nodes', headers={
                'X-Auth-Token': USER_TOKEN}).status_code))
        other.start()
        other.join(5)
        self.assertEqual({'other': 200}, done)
        answers.set()
        waiting.join(5)
        self.assertEqual({'other': 200, 'slow': 401}, done)

    def test_version_documents_are_public(self):
        resp = self.get('/v1')
        self.assertEqual(200, resp.status_code)
        self.assertEqual('v1', json.loads(resp.get_data())['id'])
