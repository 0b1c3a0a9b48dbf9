"""The dashboard: the page matches GET /v1/fleet, escapes what it shows,
its headers, and its login with http_basic and keystone."""
import html.parser
import json
import os
import time

import fixtures

from pool_api import app as pool_app
from pool_api.dashboard import session
from pool_api.dashboard import views
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor import events
from tests.unit.api import base
from tests.unit.api import test_auth

EVIL = '<script>alert(1)</script>'


class Page(html.parser.HTMLParser):
    """What a browser would find in a page: the numbers by data-key, the
    script elements and forms, and the text."""

    def __init__(self, text: str):
        super().__init__()
        self.numbers: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.scripts: list[dict] = []
        self.forms: list[str] = []
        self.inputs: list[str] = []
        self.text: list[str] = []
        self._key = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == 'script':
            self.scripts.append(attrs)
        elif tag == 'form':
            self.forms.append(attrs.get('action'))
        elif tag == 'input':
            self.inputs.append(attrs.get('name'))
        self._key = attrs.get('data-key')
        if self._key and tag == 'a':
            self.links[self._key] = attrs['href']

    def handle_data(self, data):
        self.text.append(data)
        if self._key:
            self.numbers[self._key] = data.strip()
            self._key = None


class NoauthDashboardTestCase(base.APITestCase):

    def page(self, status: int = 200) -> Page:
        resp = self.client.get('/dashboard')
        self.assertEqual(status, resp.status_code, resp.get_data())
        self.assertEqual('text/html', resp.mimetype)
        return Page(resp.get_data(as_text=True))

    def test_every_number_is_the_json_count_and_links_to_its_list(self):
        conductors_db.register_conductor(self.context, 'test-host')
        self.post('/v1/pools', {'name': 'web', 'parent_pool': 'default'})
        for i in range(3):
            self.enroll(name='node-%d' % i)
        self.create_node(name='broken', maintenance=True)
        page = self.page()
        document = self.get('/v1/fleet').get_json()
        keys = {
            'nodes.total': document['nodes']['total'],
            'allocations.total': document['allocations']['total'],
        }
        for pool in document['pools']:
            keys['pool.%s.total' % pool['name']] = pool['total']
            for status, count in pool['statuses'].items():
                keys['pool.%s.%s' % (pool['name'], status)] = count
        for field, rows in (('provision_state', 'provision_states'),
                            ('power_state', 'power_states'),
                            ('maintenance', 'maintenance')):
            for row in document['nodes'][rows]:
                value = json.dumps(row['value']).strip('"')
                keys['nodes.%s.%s' % (field, value)] = row
        for row in document['claims']['states']:
            keys['claims.state.%s' % row['value']] = row
        for key, count in keys.items():
            self.assertEqual(str(count['count']), page.numbers[key], key)
            self.assertEqual(count['href'], page.links[key], key)
        self.assertEqual('4', page.numbers['pool.default.total'])
        self.assertEqual('alive', page.numbers['conductor.test-host.state'])
        # Every number of the page links to a list, but the conductors'
        # and the ending ones (lists the API cannot filter).
        unlinked = set(page.numbers) - set(page.links)
        self.assertEqual(set(), {k for k in unlinked if not k.startswith(
            ('conductor.', 'stranded.', 'ending.'))})

    def test_values_are_escaped(self):
        node = self.create_node(name=EVIL)
        with db_api.writer(self.context) as session_:
            events.record(session_, [events.Event(
                'node', node.uuid, 'test.failure', level='error',
                object_name=EVIL, message='failed: ' + EVIL)])
        resp = self.client.get('/dashboard')
        text = resp.get_data(as_text=True)
        self.assertNotIn(EVIL, text)
        self.assertIn('&lt;script&gt;alert(1)&lt;/script&gt;', text)
        page = Page(text)
        self.assertEqual([{'src': '/dashboard/dashboard.js', 'defer': None}],
                         page.scripts)
        self.assertIn('failed: ' + EVIL, page.text)

    def test_headers(self):
        resp = self.client.get('/dashboard')
        csp = resp.headers['Content-Security-Policy']
        for directive in ("default-src 'none'", "script-src 'self'",
                          "style-src 'self'", "frame-ancestors 'none'",
                          "form-action 'self'"):
            self.assertIn(directive, csp)
        self.assertEqual('nosniff', resp.headers['X-Content-Type-Options'])
        self.assertEqual('no-store', resp.headers['Cache-Control'])
        for path, media in (('/dashboard/dashboard.js', 'text/javascript'),
                            ('/dashboard/dashboard.css', 'text/css')):
            resp = self.client.get(path)
            self.assertEqual(200, resp.status_code)
            self.assertEqual(media, resp.mimetype)
            self.assertEqual('nosniff',
                             resp.headers['X-Content-Type-Options'])

    def test_no_inline_script_or_style(self):
        text = self.client.get('/dashboard').get_data(as_text=True)
        page = Page(text)
        self.assertTrue(all('src' in s for s in page.scripts))
        self.assertNotIn(' style=', text)
        self.assertNotIn('<style', text)
        self.assertNotIn(' on', text.replace(' one', ''))

    def test_refreshes_without_javascript(self):
        text = self.client.get('/dashboard').get_data(as_text=True)
        self.assertIn('<noscript><meta http-equiv="refresh" content="15">'
                      '</noscript>', text)
        self.config(refresh_seconds=3, group='dashboard')
        self.assertIn('content="3"', self.client.get(
            '/dashboard').get_data(as_text=True))

    def test_noauth_has_no_login(self):
        page = self.page()
        self.assertNotIn('/dashboard/login', page.forms)
        resp = self.client.post('/dashboard/login')
        self.assertEqual(303, resp.status_code)
        self.assertNotIn('Set-Cookie', resp.headers)

    def test_watch_is_the_event_feed_where_there_is_one(self):
        resp = self.client.get('/dashboard/watch?wait=0')
        if views.EVENTS_ENDPOINT in self.app.view_functions:
            self.assertEqual(200, resp.status_code, resp.get_data())
            self.assertIn('cursor', resp.get_json())
        else:
            self.assertError(404, resp)


class BasicDashboardTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        directory = self.useFixture(fixtures.TempDir()).path
        self.htpasswd = os.path.join(directory, 'htpasswd')
        test_auth.write_htpasswd(self.htpasswd, {'alice': 's3cret'})
        self.config(auth_strategy='http_basic',
                    http_basic_auth_user_file=self.htpasswd,
                    state_path=directory)
        self.app = pool_app.create_app()
        self.client = self.app.test_client()

    def login(self, user='alice', password='s3cret', https=False):
        return self.client.post(
            '/dashboard/login', data={'username': user,
                                      'password': password},
            base_url='https://localhost' if https else 'http://localhost')

    def cookie(self, resp) -> str:
        header = resp.headers['Set-Cookie']
        return header.split(';')[0].split('=', 1)[1]

    def test_unauthenticated_browser_gets_the_login_form(self):
        resp = self.client.get('/dashboard')
        self.assertEqual(401, resp.status_code)
        self.assertEqual('text/html', resp.mimetype)
        # No Basic challenge: the browser shows the form, not its prompt.
        self.assertNotIn('WWW-Authenticate', resp.headers)
        page = Page(resp.get_data(as_text=True))
        self.assertEqual(['/dashboard/login'], page.forms)
        self.assertEqual(['username', 'password'], page.inputs)
        self.assertIn("default-src 'none'",
                      resp.headers['Content-Security-Policy'])
        # The style sheet of the form needs no login.
        self.assertEqual(200, self.client.get(
            '/dashboard/dashboard.css').status_code)

    def test_login_sets_a_strict_cookie_the_page_accepts(self):
        resp = self.login()
        self.assertEqual(303, resp.status_code, resp.get_data())
        self.assertTrue(resp.headers['Location'].endswith('/dashboard'))
        flags = [f.strip() for f in resp.headers['Set-Cookie'].split(';')]
        self.assertIn('HttpOnly', flags)
        self.assertIn('SameSite=Strict', flags)
        self.assertIn('Path=/dashboard', flags)
        self.assertIn('Max-Age=3600', flags)
        self.assertNotIn('Secure', flags)
        resp = self.client.get('/dashboard')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIn('alice', resp.get_data(as_text=True))
        self.assertIn('Secure', self.login(https=True).headers[
            'Set-Cookie'].split('; '))

    def test_wrong_password_gets_the_form_again(self):
        resp = self.login(password='wrong')
        self.assertEqual(401, resp.status_code)
        self.assertNotIn('Set-Cookie', resp.headers)
        self.assertIn('Wrong user name or password',
                      resp.get_data(as_text=True))
        self.assertEqual(401, self.login(user='bob').status_code)

    def test_the_api_refuses_the_cookie(self):
        cookie = self.cookie(self.login())
        for path in ('/v1/nodes', '/v1/fleet', '/metrics'):
            resp = self.client.get(
                path, headers={'Cookie': '%s=%s' % (session.COOKIE, cookie),
                               'X-OpenStack-Ironic-API-Version': '1.60'})
            self.assertEqual(401, resp.status_code, path)
        # The browser sends it to the dashboard's paths only.
        self.assertIsNone(self.client.get_cookie(session.COOKIE,
                                                 path='/v1'))

    def test_a_changed_or_expired_cookie_is_refused(self):
        cookie = self.cookie(self.login())
        body, mac = cookie.split('.')
        self.client.set_cookie(session.COOKIE, body + 'x.' + mac,
                               path='/dashboard')
        self.assertEqual(401, self.client.get('/dashboard').status_code)
        forged = session.sign({'user': 'alice', 'fp': 'x'})
        self.client.set_cookie(session.COOKIE, forged, path='/dashboard')
        self.assertEqual(401, self.client.get('/dashboard').status_code)
        with self.app.test_request_context():
            old = session.sign(session.verify(cookie),
                               now=time.time() - 3601)
        self.client.set_cookie(session.COOKIE, old, path='/dashboard')
        resp = self.client.get('/dashboard')
        self.assertEqual(401, resp.status_code)
        # The form clears the cookie that is no good.
        self.assertIn('Max-Age=0', resp.headers['Set-Cookie'])

    def test_a_new_password_ends_the_sessions(self):
        self.login()
        self.assertEqual(200, self.client.get('/dashboard').status_code)
        test_auth.write_htpasswd(self.htpasswd, {'alice': 'n3w'})
        # The file is looked at again after a second.
        time.sleep(1.1)
        self.assertEqual(401, self.client.get('/dashboard').status_code)

    def test_the_key_is_shared_through_the_state_path(self):
        cookie = self.cookie(self.login())
        path = os.path.join(session.CONF.state_path, session.SECRET_FILE)
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
        # Another process (another worker) reads the same key.
        session._secret_cache.clear()
        other = pool_app.create_app().test_client()
        other.set_cookie(session.COOKIE, cookie, path='/dashboard')
        self.assertEqual(200, other.get('/dashboard').status_code)
        # A configured key wins; cookies of the other key are refused.
        self.config(secret='configured', group='dashboard')
        self.assertEqual(401, other.get('/dashboard').status_code)

    def test_logout_clears_the_cookie(self):
        self.login()
        resp = self.client.post('/dashboard/logout')
        self.assertEqual(303, resp.status_code)
        self.assertIn('Max-Age=0', resp.headers['Set-Cookie'])
        self.assertEqual(401, self.client.get('/dashboard').status_code)

    def test_api_credentials_open_the_page_too(self):
        resp = self.client.get('/dashboard',
                               headers=test_auth.basic('alice', 's3cret'))
        self.assertEqual(200, resp.status_code)

    def test_watch_needs_the_login(self):
        resp = self.client.get('/dashboard/watch?wait=0')
        self.assertError(403, resp)


class KeystoneDashboardTestCase(test_auth.KeystoneMixin, base.APITestCase):
    """The login takes a keystone token; the cookie carries it."""

    def setUp(self):
        super().setUp()
        self.config(state_path=self.useFixture(fixtures.TempDir()).path)

    def test_login_with_a_token(self):
        resp = self.client.get('/dashboard')
        self.assertEqual(401, resp.status_code)
        self.assertEqual(['token'], Page(resp.get_data(as_text=True)).inputs)
        resp = self.client.post('/dashboard/login',
                                data={'token': 'bogus'})
        self.assertEqual(401, resp.status_code)
        self.assertIn('not valid', resp.get_data(as_text=True))
        resp = self.client.post('/dashboard/login',
                                data={'token': test_auth.USER_TOKEN})
        self.assertEqual(303, resp.status_code, resp.get_data())
        # A project member may log in, but not read the fleet.
        resp = self.client.get('/dashboard')
        self.assertEqual(403, resp.status_code, resp.get_data())
        self.assertIn('pool:fleet:get', resp.get_data(as_text=True))
        # The token of the cookie is not the API's.
        self.assertEqual(401, self.get('/v1/nodes').status_code)
