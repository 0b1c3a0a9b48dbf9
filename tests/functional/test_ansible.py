"""The openstack.cloud Ansible collection against a pool-server process.

A playbook enrolls a node with its NICs, reads it and its ports, deploys
and undeploys it and deletes it, as Bifrost-style deployments do, with
the collection bundled with the ``ansible`` package and openstacksdk
configured by a clouds.yaml with ``auth_type: none``.
"""
import json
import os
import subprocess
import sys
import time

import fixtures
import testtools

from tests.functional import cluster

PLAYBOOK = os.path.join(os.path.dirname(__file__), 'ansible',
                        'lifecycle.yaml')
BIN = os.path.dirname(sys.executable)
TIMEOUT = 300
MACS = ['52:54:00:aa:bb:01', '52:54:00:aa:bb:02']


class AnsibleTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        for name in os.environ:
            if name.startswith('OS_'):
                self.useFixture(fixtures.EnvironmentVariable(name))
        self.dir = self.useFixture(fixtures.TempDir()).path

    def run_playbook(self, url: str, skip_tags=()) -> dict:
        """Run the playbook against the API at url; the registered result
        of each step that ran, by name."""
        clouds = os.path.join(self.dir, 'clouds.yaml')
        with open(clouds, 'w') as f:
            json.dump({'clouds': {'pool': {
                'auth_type': 'none', 'region_name': '',
                'baremetal_endpoint_override': url}}}, f)
        results = os.path.join(self.dir, 'results.json')
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('OS_', 'ANSIBLE_'))}
        # The collection reads openstack.version without importing it;
        # the modules' Python imports it first.
        site = os.path.join(self.dir, 'site')
        os.mkdir(site)
        with open(os.path.join(site, 'sitecustomize.py'), 'w') as f:
            f.write('import openstack.version  # noqa: F401\n')
        env['PYTHONPATH'] = os.pathsep.join(
            p for p in (site, env.get('PYTHONPATH')) if p)
        env.update(OS_CLIENT_CONFIG_FILE=clouds,
                   ANSIBLE_LOCAL_TEMP=os.path.join(self.dir, 'tmp'),
                   ANSIBLE_HOME=os.path.join(self.dir, 'home'),
                   ANSIBLE_NOCOLOR='1', ANSIBLE_HOST_KEY_CHECKING='0',
                   # The time of each task, in the output.
                   ANSIBLE_CALLBACKS_ENABLED='ansible.posix.profile_tasks',
                   ANSIBLE_PYTHON_INTERPRETER=sys.executable)
        started = time.monotonic()
        proc = subprocess.run(
            [os.path.join(BIN, 'ansible-playbook'), '-i', 'localhost,',
             '-c', 'local', '-e', 'results=%s' % results, PLAYBOOK]
            + ['--skip-tags=%s' % tag for tag in skip_tags],
            env=env, capture_output=True, text=True, timeout=TIMEOUT)
        self.addDetail('ansible-output', testtools.content.text_content(
            proc.stdout + proc.stderr))
        self.addDetail('ansible-seconds', testtools.content.text_content(
            '%.1f' % (time.monotonic() - started)))
        self.assertEqual(0, proc.returncode, proc.stdout[-4000:])
        with open(results) as f:
            return {step: result for step, result in json.load(f).items()
                    if result is not None}

    def check_lifecycle(self, results: dict, deployed: bool) -> None:
        enrolled = results['enrolled']
        self.assertTrue(enrolled['changed'])
        node = enrolled['node']
        self.assertEqual('node-a', node['name'])
        # register_machine takes a new node through manage and provide.
        self.assertEqual('available', node['provision_state'])
        self.assertFalse(results['again']['changed'])

        shown = results['node_info']['nodes']
        self.assertEqual([node['id']], [n['id'] for n in shown])
        self.assertEqual('baremetal', shown[0]['resource_class'])
        self.assertEqual([node['id']],
                         [n['id'] for n in results['by_mac']['nodes']])

        ports = results['port_info']['ports']
        self.assertEqual(MACS, sorted(p['address'] for p in ports))
        self.assertEqual({node['id']}, {p['node_id'] for p in ports})
        self.assertTrue(all(p['is_pxe_enabled'] for p in ports))

        if deployed:
            self.assertTrue(results['deployed']['changed'])
            node = results['deployed_info']['nodes'][0]
            self.assertEqual('active', node['provision_state'])
            self.assertEqual('http://192.0.2.1/image.qcow2',
                             node['instance_info']['image_source'])
            self.assertTrue(results['undeployed']['changed'])

        self.assertTrue(results['deleted']['changed'])
        # The node went with its ports.
        self.assertEqual([], results['ports_left']['ports'])


class TestAnsibleSQLite(AnsibleTestCase):
    """One pool-server process on SQLite."""

    def server_url(self) -> str:
        server = self.useFixture(cluster.PoolServer())
        self.addOnException(lambda _e: self.addDetail(
            'pool-server-log', testtools.content.text_content(server.log())))
        return server.url

    def test_enroll_read_and_delete(self):
        results = self.run_playbook(self.server_url(), skip_tags=['deploy'])
        self.assertNotIn('deployed', results)
        self.check_lifecycle(results, deployed=False)

    def test_deploy_and_undeploy(self):
        self.check_lifecycle(self.run_playbook(self.server_url()),
                             deployed=True)


class TestAnsiblePostgreSQL(AnsibleTestCase):
    """pool-api and a pool-conductor on PostgreSQL and RabbitMQ."""

    def test_whole_lifecycle(self):
        db = self.useFixture(cluster.Database('postgresql'))
        pool = self.useFixture(cluster.Cluster(db.url, conductors=1))
        self.addOnException(lambda _e: self.addDetail(
            'pool-api-log', testtools.content.text_content(
                pool.log(pool.apis[0]))))
        self.check_lifecycle(self.run_playbook(pool.url), deployed=True)
