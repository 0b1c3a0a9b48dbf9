"""The harness of test_openstacksdk_suite: the stand-in Keystone with a
pool-api checking its tokens, and the reading of a suite's results."""
import os
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request

import fixtures
import openstack
from openstack import exceptions as sdk_exc
import testtools

from tests.functional import cluster
from tests.functional import identity
from tests.functional import sdk_suite

SAMPLE = textwrap.dedent('''\
    import unittest


    class Sample(unittest.TestCase):

        def test_passes(self):
            pass

        def test_fails(self):
            self.assertEqual(1, 2)

        def test_skips(self):
            self.skipTest('no such feature')
''')


class TestIdentity(testtools.TestCase):
    """Clients from the clouds the harness writes, against a pool-server
    whose keystonemiddleware checks the stand-in's tokens."""

    def setUp(self):
        super().setUp()
        for name in os.environ:
            if name.startswith('OS_'):
                self.useFixture(fixtures.EnvironmentVariable(name))
        self.ident = self.useFixture(identity.Identity())
        self.server = self.useFixture(cluster.PoolServer(
            options='auth_strategy = keystone',
            sections={'keystone_authtoken':
                      self.ident.authtoken_options()}))
        self.ident.set_endpoint('baremetal', self.server.url)

    def connect(self, user, system_scope=False):
        cloud = self.ident.cloud(user, system_scope=system_scope)
        conn = openstack.connect(load_yaml_config=False,
                                 load_envvars=False, **cloud)
        self.addCleanup(conn.close)
        return conn

    def test_roles_and_scopes_reach_pool_policy(self):
        admin = self.connect('admin', system_scope=True)
        node = admin.baremetal.create_node(driver='fake-hardware',
                                           name='node-1')
        self.assertEqual(['node-1'],
                         [n.name for n in admin.baremetal.nodes()])
        # A project member: a 403 for creating a node, and the node of no
        # project is not one it sees.
        demo = self.connect('demo')
        self.assertRaises(sdk_exc.ForbiddenException,
                          demo.baremetal.create_node,
                          driver='fake-hardware')
        self.assertEqual([], list(demo.baremetal.nodes()))
        admin.baremetal.update_node(node, owner=self.ident.projects['demo'])
        self.assertEqual(['node-1'],
                         [n.name for n in demo.baremetal.nodes()])
        self.assertEqual([], list(
            self.connect('alt_demo').baremetal.nodes()))

    def test_wrong_password_and_unknown_token(self):
        cloud = self.ident.cloud('demo')
        cloud['auth']['password'] = 'wrong'
        conn = openstack.connect(load_yaml_config=False,
                                 load_envvars=False, **cloud)
        self.addCleanup(conn.close)
        exc = self.assertRaises(sdk_exc.SDKException, conn.authorize)
        self.assertIn('HTTP 401', str(exc))
        status, _ = _get(self.server.url + '/v1/nodes',
                         {'X-Auth-Token': 'not-a-token'})
        self.assertEqual(401, status)


def _get(url, headers):
    try:
        with urllib.request.urlopen(urllib.request.Request(
                url, headers=headers), timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class TestReport(testtools.TestCase):
    """The outcomes of a real subunit stream and what the report makes of
    them."""

    def setUp(self):
        super().setUp()
        folder = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(folder, 'sample_suite.py'), 'w') as f:
            f.write(SAMPLE)
        stream = subprocess.run(
            [sys.executable, '-m', 'subunit.run', 'sample_suite'],
            cwd=folder, capture_output=True, timeout=60,
            env={**os.environ, 'PYTHONPATH': folder}).stdout
        self.outcomes = {o.test_id.rsplit('.', 1)[1]: o
                         for o in sdk_suite.parse_subunit(stream)}

    def test_outcomes_and_reasons(self):
        self.assertEqual({'test_passes': 'success', 'test_fails': 'fail',
                          'test_skips': 'skip'},
                         {k: o.status for k, o in self.outcomes.items()})
        self.assertEqual('no such feature',
                         self.outcomes['test_skips'].reason)
        self.assertIn('AssertionError: 1 != 2',
                      self.outcomes['test_fails'].reason)

    def test_skips_not_listed_are_unexpected(self):
        skip = self.outcomes['test_skips']
        outcomes = list(self.outcomes.values())
        report = sdk_suite.Report(outcomes, {})
        self.assertEqual([skip], report.unexpected_skips)
        self.assertIn('NOT in', report.format('sample'))
        passed = self.outcomes['test_passes'].test_id
        report = sdk_suite.Report(outcomes, {skip.test_id: 'none here',
                                             passed: 'none here',
                                             'not.run': 'none here'})
        self.assertEqual([], report.unexpected_skips)
        self.assertEqual([passed], report.stale_skips)
        self.assertEqual({'ran': 3, 'passed': 1, 'failed': 1, 'skipped': 1},
                         report.counts())

    def test_expected_skips_file_has_a_reason_for_each(self):
        skips = sdk_suite.load_expected_skips()
        self.assertTrue(skips)
        for test_id, reason in skips.items():
            self.assertTrue(test_id.startswith(sdk_suite.SUITE + '.v1.'),
                            test_id)
            self.assertTrue(reason and reason.strip(), test_id)
