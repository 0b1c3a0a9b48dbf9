"""The dashboard in headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium): the login form, cells equal to GET
/v1/fleet, a hostile node name shown as text, the Content-Security-Policy
header, and a stopped conductor shown dead.

The tests are skipped when Chromium, ChromeDriver or Selenium is missing,
unless POOL_TEST_REQUIRE_BROWSER=1 (as .ci/run sets it). With
POOL_DASHBOARD_SCREENSHOT=<file.png> the login test saves a screenshot of
the populated page there (doc/source/images/dashboard.png).
"""
import base64
import json
import os
import shutil
import signal
import time
import unittest
import urllib.request

import fixtures
import testtools

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import nodes as nodes_db
from pool_conductor import events
from tests import base as tests_base
from tests.functional import cluster
from tests.unit.api import test_auth

REQUIRE_BROWSER = os.environ.get('POOL_TEST_REQUIRE_BROWSER') == '1'
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
CHROMEDRIVER = shutil.which('chromedriver') or '/usr/bin/chromedriver'
EVIL = '<script>alert(1)</script>'
USER, PASSWORD = 'operator', 'pa55word'
VERSION = {'X-OpenStack-Ironic-API-Version': '1.60'}

try:
    from selenium import webdriver
    from selenium.common import exceptions as selenium_exc
    from selenium.webdriver.chrome import service as chrome_service
    from selenium.webdriver.common.by import By
except ImportError:  # pragma: no cover - depends on the machine
    webdriver = None


def _missing() -> str | None:
    if webdriver is None:
        return 'selenium is not installed (functional-requirements.txt)'
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return '%s is missing (apt-get install chromium chromium-driver)' \
                % path
    return None


class Browser(fixtures.Fixture):
    """Headless Chromium, its network log kept to read response headers."""

    def _setUp(self):
        profile = self.useFixture(fixtures.TempDir()).path
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ('--headless=new', '--no-sandbox', '--disable-gpu',
                     '--disable-quic', '--no-first-run',
                     '--disable-background-networking',
                     '--disable-component-update', '--disable-sync',
                     '--disable-dev-shm-usage', '--window-size=1400,1000',
                     '--user-data-dir=' + profile):
            options.add_argument(flag)
        options.set_capability('goog:loggingPrefs', {'performance': 'ALL'})
        self.driver = webdriver.Chrome(
            options=options,
            service=chrome_service.Service(executable_path=CHROMEDRIVER))
        self.addCleanup(self.driver.quit)

    def response_headers(self, url: str) -> dict:
        """The headers of the last response to url the browser got."""
        found = None
        for entry in self.driver.get_log('performance'):
            message = json.loads(entry['message'])['message']
            if (message['method'] == 'Network.responseReceived'
                    and message['params']['response']['url'] == url):
                found = message['params']['response']['headers']
        if found is None:
            raise AssertionError('no response to %s in the log' % url)
        return {k.lower(): v for k, v in found.items()}

    def cells(self) -> dict[str, str]:
        """The text of every number of the page, by its data-key."""
        # One script reads them all: the page may reload in between two
        # reads of elements.
        return dict(self.driver.execute_script(
            'return Array.from(document.querySelectorAll("[data-key]"))'
            '.map(e => [e.dataset.key, e.textContent.trim()]);'))

    def no_alert(self) -> bool:
        try:
            return not self.driver.switch_to.alert
        except selenium_exc.NoAlertPresentException:
            return True
        return False


class BrowserTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        missing = _missing()
        if missing:
            if REQUIRE_BROWSER:
                self.fail('POOL_TEST_REQUIRE_BROWSER=1: ' + missing)
            raise unittest.SkipTest(missing)
        self.browser = self.useFixture(Browser())
        self.driver = self.browser.driver

    def wait_for(self, check, timeout: float = 30, what: str = ''):
        deadline = time.monotonic() + timeout
        while True:
            try:
                result = check()
            except selenium_exc.WebDriverException:
                result = None
            if result:
                return result
            if time.monotonic() > deadline:
                raise AssertionError('not within %ss: %s' % (timeout, what))
            time.sleep(0.2)


def fleet_cells(document: dict) -> dict[str, str]:
    """What the page's cells must read, from GET /v1/fleet."""
    cells = {'nodes.total': document['nodes']['total']['count'],
             'allocations.total': document['allocations']['total']['count'],
             'claims.total': document['claims']['total']['count']}
    for pool in document['pools']:
        cells['pool.%s.total' % pool['name']] = pool['total']['count']
        for status, count in pool['statuses'].items():
            cells['pool.%s.%s' % (pool['name'], status)] = count['count']
    for field, rows in (('provision_state', 'provision_states'),
                        ('power_state', 'power_states'),
                        ('maintenance', 'maintenance')):
        for row in document['nodes'][rows]:
            cells['nodes.%s.%s' % (field, row['value'])] = row['count']
    for kind in ('allocations', 'claims'):
        for row in document[kind]['states']:
            cells['%s.state.%s' % (kind, row['value'])] = row['count']
    for conductor in document['conductors']:
        name = conductor['hostname']
        cells['conductor.%s.state' % name] = (
            'alive' if conductor['alive'] else 'dead')
        for kind in ('allocations', 'claims', 'node_locks'):
            cells['conductor.%s.%s' % (name, kind)] = conductor[kind]
    for kind, count in document['stranded'].items():
        cells['stranded.' + kind] = count
    for kind in ('allocations', 'claims'):
        cells['ending.' + kind] = document['ending_soon'][kind]['total']
    # The page writes booleans as JSON does.
    return {k.replace('.True', '.true').replace('.False', '.false'): str(v)
            for k, v in cells.items()}


class TestDashboardOnPoolServer(BrowserTestCase):
    """pool-server with http_basic: the login, the cells, escaping, CSP."""

    def setUp(self):
        super().setUp()
        path = self.useFixture(fixtures.TempDir()).join('htpasswd')
        test_auth.write_htpasswd(path, {USER: PASSWORD})
        self.server = self.useFixture(cluster.PoolServer(
            'auth_strategy = http_basic\nhttp_basic_auth_user_file = %s'
            % path, sections={'dashboard': {'refresh_seconds': 600}}))
        self.addOnException(lambda _exc: self.addDetail(
            'pool-server-log',
            testtools.content.text_content(self.server.log())))
        self.credentials = 'Basic ' + base64.b64encode(
            ('%s:%s' % (USER, PASSWORD)).encode()).decode()

    def api(self, method: str, path: str, body=None):
        request = urllib.request.Request(
            self.server.url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={**VERSION, 'Content-Type': 'application/json',
                     'Authorization': self.credentials})
        with urllib.request.urlopen(request, timeout=30) as resp:
            data = resp.read()
        return json.loads(data) if data else None

    def populate(self) -> None:
        """Pools, nodes in several states, allocations, a failed one, a
        lifespan ending soon; a node named EVIL with an error event, put
        in the server's database directly (the API takes only logical
        names)."""
        self.api('POST', '/v1/pools', {
            'name': 'web', 'parent_pool': 'default',
            'lifespan': {'default': '30m'}})
        self.api('POST', '/v1/pools', {'name': 'gpu',
                                       'parent_pool': 'default'})
        for i in range(9):
            node = self.api('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'name': 'node-%d' % i,
                'resource_class': 'gpu' if i >= 7 else 'baremetal'})
            for verb in ('manage', 'provide')[:2 if i else 1]:
                self.api('PUT', '/v1/nodes/%s/states/provision'
                         % node['uuid'], {'target': verb})
        self.api('POST', '/v1/pools/web/addMachines',
                 {'machine_list': ['node-1', 'node-2', 'node-3']})
        self.api('POST', '/v1/pools/gpu/addMachines',
                 {'machine_list': ['node-7', 'node-8']})
        self.api('PUT', '/v1/nodes/node-6/maintenance',
                 {'reason': 'fan failure'})
        for name, pool in (('web-a', 'web'), ('web-b', 'web'),
                           ('gpu-a', 'gpu')):
            self.api('POST', '/v1/allocations', {
                'name': name, 'pool': pool,
                'resource_class': 'gpu' if pool == 'gpu' else 'baremetal'})
        self.api('POST', '/v1/allocations', {
            'name': 'no-match', 'resource_class': 'fpga'})
        database = self.useFixture(tests_base.Database(
            'sqlite:///' + os.path.join(self.server.dir, 'pool.sqlite')))
        del database
        context = pool_context.get_admin_context()
        node = nodes_db.create_node(context, {
            'name': EVIL, 'driver': 'fake-hardware',
            'provision_state': 'enroll', 'power_state': 'power off'})
        with db_api.writer(context) as session:
            events.record(session, [events.Event(
                'node', node.uuid, 'baremetal.node.power_set.error',
                object_name=EVIL, level='error',
                message='Failed to power on %s' % EVIL)])
        self.wait_for(lambda: all(
            a['state'] != 'allocating' for a in self.api(
                'GET', '/v1/allocations')['allocations']),
            what='the allocations are done')

    def log_in(self) -> None:
        self.driver.get(self.server.url + '/dashboard')
        self.driver.find_element(By.ID, 'username').send_keys(USER)
        self.driver.find_element(By.ID, 'password').send_keys(PASSWORD)
        self.driver.find_element(By.CSS_SELECTOR,
                                 'form#login button').click()
        self.wait_for(lambda: self.driver.find_elements(By.ID, 'pools'),
                      what='the page after the login')

    def test_login_cells_escaping_and_headers(self):
        self.populate()
        # An unauthenticated browser gets the login form.
        self.driver.get(self.server.url + '/dashboard')
        self.assertTrue(self.driver.find_element(By.ID, 'login'))
        self.assertEqual([], self.driver.find_elements(By.ID, 'pools'))
        self.driver.find_element(By.ID, 'username').send_keys(USER)
        self.driver.find_element(By.ID, 'password').send_keys('wrong')
        self.driver.find_element(By.CSS_SELECTOR,
                                 'form#login button').click()
        self.wait_for(lambda: self.driver.find_elements(By.ID,
                                                        'login-error'),
                      what='the error of a wrong password')
        self.log_in()

        # The cells are the JSON document's.
        document = self.api('GET', '/v1/fleet')
        expected = fleet_cells(document)
        cells = self.browser.cells()
        for key, value in expected.items():
            self.assertEqual(value, cells.get(key), key)
        self.assertEqual('3', cells['pool.web.total'])
        self.assertEqual('1', cells['allocations.state.error'])
        # Each number links to its list, which the browser can open.
        link = self.driver.find_element(
            By.CSS_SELECTOR, 'a[data-key="pool.web.InUse"]')
        self.assertEqual(self.server.url
                         + '/v1/nodes?pool=web&pool_status=InUse',
                         link.get_attribute('href'))

        # The hostile name is text: no dialog, no script element of it.
        self.assertTrue(self.browser.no_alert())
        scripts = self.driver.find_elements(By.TAG_NAME, 'script')
        self.assertEqual([self.server.url + '/dashboard/dashboard.js'],
                         [s.get_attribute('src') for s in scripts])
        alerts = self.driver.find_element(By.ID, 'alerts').text
        self.assertIn('Failed to power on ' + EVIL, alerts)
        self.assertIn(EVIL, alerts)

        headers = self.browser.response_headers(self.server.url
                                                + '/dashboard')
        csp = headers['content-security-policy']
        self.assertIn("default-src 'none'", csp)
        self.assertIn("script-src 'self'", csp)
        self.assertEqual('nosniff', headers['x-content-type-options'])

        # The cookie is HttpOnly: the page's scripts cannot read it.
        self.assertEqual('', self.driver.execute_script(
            'return document.cookie'))
        screenshot = os.environ.get('POOL_DASHBOARD_SCREENSHOT')
        if screenshot:
            height = self.driver.execute_script(
                'return document.body.scrollHeight')
            self.driver.execute_cdp_cmd(
                'Emulation.setDeviceMetricsOverride',
                {'width': 1280, 'height': height, 'deviceScaleFactor': 1,
                 'mobile': False})
            self.driver.save_screenshot(screenshot)
            self.driver.execute_cdp_cmd(
                'Emulation.clearDeviceMetricsOverride', {})

        # Logging out brings the form back.
        self.driver.find_element(By.ID, 'logout').click()
        self.wait_for(lambda: self.driver.find_elements(By.ID, 'login'),
                      what='the login form after the logout')


class TestConductorDeath(cluster.ClusterTestMixin, BrowserTestCase):
    """A cluster of two conductors: one stops, the page shows it dead."""

    BACKEND = 'postgresql'
    SECTIONS = {'dashboard': {'refresh_seconds': 1}}

    def setUp(self):
        try:
            super().setUp()
        except OSError as exc:
            raise unittest.SkipTest(
                'no PostgreSQL or RabbitMQ: %s' % exc) from None

    def state_of(self, host: str) -> str:
        return self.browser.cells().get('conductor.%s.state' % host)

    def test_a_stopped_conductor_turns_dead(self):
        self.driver.get(self.cluster.url + '/dashboard')
        victim, survivor = self.cluster.hosts
        self.wait_for(lambda: self.state_of(victim) == 'alive'
                      and self.state_of(survivor) == 'alive',
                      what='both conductors alive on the page')
        self.cluster.signal(victim, signal.SIGKILL)
        # Dead after [conductor] heartbeat_timeout (5 s); the page reloads
        # itself every [dashboard] refresh_seconds.
        self.wait_for(lambda: self.state_of(victim) == 'dead', timeout=40,
                      what='%s dead on the page' % victim)
        self.assertEqual('alive', self.state_of(survivor))
        self.assertEqual('dead', self.driver.execute_script(
            'return document.querySelector(\'tr[data-conductor="%s"]\')'
            '.className;' % victim))
