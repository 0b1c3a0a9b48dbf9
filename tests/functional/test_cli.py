"""The ``openstack pool`` commands against a live pool-server.

They run the real ``openstack`` program of the virtualenv, with
``OS_AUTH_TYPE=none`` and ``OS_ENDPOINT`` pointing at the server.
"""
import datetime
import json
import os
import subprocess
import sys
import uuid

import fixtures
import testtools

from tests.functional import cluster

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


class CLIResult:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)


class TestPoolCLI(testtools.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = cluster.PoolServer()
        cls.server.setUp()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanUp()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        if not os.path.exists(OPENSTACK):
            self.skipTest('%s is not installed (python-openstackclient)'
                          % OPENSTACK)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}
        self.env.update(OS_AUTH_TYPE='none', OS_ENDPOINT=self.server.url,
                        # stevedore's cache of entry points, which may
                        # predate the commands of this tree.
                        XDG_CACHE_HOME=self.useFixture(
                            fixtures.TempDir()).path)
        self.prefix = 'cli-%s' % uuid.uuid4().hex[:8]

    def run_cli(self, *args, check=True) -> CLIResult:
        proc = subprocess.run([OPENSTACK, 'pool', *args], env=self.env,
                              capture_output=True, text=True, timeout=120)
        result = CLIResult(proc)
        if check and result.returncode != 0:
            self.fail('openstack pool %s failed (%d): %s\n%s\nserver log:\n%s'
                      % (' '.join(args), result.returncode, result.stdout,
                         result.stderr, self.server.log()[-3000:]))
        return result

    def run_baremetal(self, *args, check=True) -> CLIResult:
        proc = subprocess.run([OPENSTACK, 'baremetal', *args], env=self.env,
                              capture_output=True, text=True, timeout=120)
        result = CLIResult(proc)
        if check and result.returncode != 0:
            self.fail('openstack baremetal %s failed (%d): %s\n%s'
                      % (' '.join(args), result.returncode, result.stdout,
                         result.stderr))
        return result

    def assertFails(self, result: CLIResult, message: str) -> None:
        self.assertNotEqual(0, result.returncode, result.stdout)
        self.assertIn(message, result.stderr)
        self.assertNotIn('Traceback', result.stderr)

    def create_node(self, name: str, *args: str) -> dict:
        return self.run_cli('node', 'create', '--driver', 'fake-hardware',
                            '--name', name, *args, '-f', 'json').json()

    def test_allocation_scenario(self):
        rc = self.prefix + '-rc'
        names = [self.prefix + '-n1', self.prefix + '-n2']
        created = [self.create_node(name, '--resource-class', rc,
                                    '--property', 'cpus=4',
                                    '--extra', 'rack=r1')
                   for name in names]
        for node, name in zip(created, names, strict=True):
            self.assertEqual(name, node['name'])
            self.assertEqual('enroll', node['provision_state'])
            self.assertEqual({'cpus': 4}, node['properties'])
            self.assertEqual({'rack': 'r1'}, node['extra'])
            self.assertNotIn('links', node)
        for name in names:
            self.run_cli('node', 'manage', name)
            self.run_cli('node', 'provide', name)
        listed = self.run_cli('node', 'list', '--resource-class', rc,
                              '-f', 'json').json()
        self.assertEqual(sorted(names), sorted(n['Name'] for n in listed))
        self.assertEqual({'available'},
                         {n['Provisioning State'] for n in listed})

        alloc = self.run_cli('allocation', 'create', '--resource-class', rc,
                             '--name', self.prefix + '-a', '--wait', '60',
                             '-f', 'json').json()
        self.assertEqual('active', alloc['state'])
        self.assertIn(alloc['node_uuid'], [n['uuid'] for n in created])
        self.assertIsNone(alloc['last_error'])

        allocs = self.run_cli('allocation', 'list', '--resource-class', rc,
                              '-f', 'json').json()
        self.assertEqual([{'UUID': alloc['uuid'],
                           'Name': self.prefix + '-a',
                           'Resource Class': rc, 'State': 'active',
                           'Node UUID': alloc['node_uuid']}], allocs)

        node = self.run_cli('node', 'show', alloc['node_uuid'],
                            '-f', 'json').json()
        self.assertEqual(alloc['uuid'], node['allocation_uuid'])
        self.assertEqual(alloc['uuid'], node['instance_uuid'])

        self.run_cli('allocation', 'set', alloc['uuid'], '--extra', 'k=v',
                     '--extra', 'n=1')
        shown = self.run_cli('allocation', 'show', self.prefix + '-a',
                             '-f', 'json').json()
        self.assertEqual({'k': 'v', 'n': 1}, shown['extra'])
        self.run_cli('allocation', 'unset', alloc['uuid'], '--extra', 'n',
                     '--name')
        shown = self.run_cli('allocation', 'show', alloc['uuid'],
                             '--fields', 'uuid', 'name', 'extra',
                             '-f', 'json').json()
        self.assertEqual({'uuid': alloc['uuid'], 'name': None,
                          'extra': {'k': 'v'}}, shown)

        result = self.run_cli('allocation', 'delete', alloc['uuid'])
        self.assertIn('Deleted allocation %s' % alloc['uuid'], result.stdout)
        node = self.run_cli('node', 'show', alloc['node_uuid'], '--fields',
                            'allocation_uuid', 'instance_uuid',
                            '-f', 'json').json()
        self.assertEqual({'allocation_uuid': None, 'instance_uuid': None},
                         node)

        result = self.run_cli('node', 'delete', *names)
        for name in names:
            self.assertIn('Deleted node %s' % name, result.stdout)
        listed = self.run_cli('node', 'list', '--resource-class', rc,
                              '-f', 'json').json()
        self.assertEqual([], listed)

    def test_allocation_candidates(self):
        rc = self.prefix + '-rc'
        names = [self.prefix + '-p1', self.prefix + '-p2']
        for name in names:
            self.create_node(name, '--resource-class', rc)
            self.run_cli('node', 'manage', name)
            self.run_cli('node', 'provide', name)
        self.run_cli('node', 'maintenance', 'set', names[1])
        preview = self.run_cli('allocation', 'candidates', '--resource-class',
                               rc, '--seed', '7', '-f', 'json').json()
        self.assertEqual([names[0]], preview['candidates'])
        self.assertEqual(1, preview['total_matching'])
        self.assertIn('maintenance=1', preview['rejected'])
        alloc = self.run_cli('allocation', 'create', '--resource-class', rc,
                             '--wait', '60', '-f', 'json').json()
        self.assertEqual(preview['would_pick'], alloc['node_uuid'])
        preview = self.run_cli('allocation', 'candidates', '--resource-class',
                               rc, '-f', 'json').json()
        self.assertEqual([], preview['candidates'])
        self.assertIsNone(preview['would_pick'])
        self.assertIn('allocated=1', preview['rejected'])
        self.run_cli('allocation', 'delete', alloc['uuid'])

    def test_baremetal_allocation_create_with_a_window(self):
        """python-ironicclient's command, with pool's --start, --end and
        --duration."""
        rc = self.prefix + '-rc'
        names = [self.prefix + '-w1', self.prefix + '-w2']
        for name in names:
            self.create_node(name, '--resource-class', rc)
            self.run_cli('node', 'manage', name)
            self.run_cli('node', 'provide', name)
        start = (datetime.datetime.now(datetime.timezone.utc)
                 + datetime.timedelta(hours=1)).replace(microsecond=0)
        window = ('--start', start.isoformat().replace('+00:00', 'Z'),
                  '--duration', '2h')
        preview = self.run_cli('allocation', 'candidates', '--resource-class',
                               rc, '--seed', '5', *window, '-f',
                               'json').json()
        self.assertEqual(2, preview['total_matching'])
        booked = self.run_baremetal('allocation', 'create',
                                    '--resource-class', rc, *window,
                                    '-f', 'json').json()
        self.assertEqual('scheduled', booked['state'])
        self.assertIn(booked['node_uuid'], [
            self.run_cli('node', 'show', n, '-f', 'json').json()['uuid']
            for n in names])
        self.assertEqual(start + datetime.timedelta(hours=2),
                         datetime.datetime.fromisoformat(
                             booked['lifespan_end']))
        preview = self.run_cli('allocation', 'candidates', '--resource-class',
                               rc, *window, '-f', 'json').json()
        self.assertEqual(1, preview['total_matching'])
        self.assertIn('overlapping_window=1', preview['rejected'])
        # Without a window it is Ironic's command, through ironicclient.
        now = self.run_baremetal('allocation', 'create', '--resource-class',
                                 rc, '--wait', '60', '-f', 'json').json()
        self.assertEqual('active', now['state'])
        self.assertNotEqual(booked['node_uuid'], now['node_uuid'])
        self.assertNotIn('busy_until', now)
        bad = self.run_baremetal('allocation', 'create', '--resource-class',
                                 rc, '--start', window[1], check=False)
        self.assertFails(bad, 'either end_at or duration')
        for alloc in (booked, now):
            self.run_cli('allocation', 'delete', alloc['uuid'])

    def test_node_set_unset_maintenance(self):
        name = self.prefix + '-node'
        self.create_node(name)
        self.run_cli('node', 'set', name, '--resource-class', 'silver',
                     '--property', 'cpus=8', '--extra', 'a=b',
                     '--description', 'a node', '--owner', 'p1')
        node = self.run_cli('node', 'show', name, '-f', 'json').json()
        self.assertEqual('silver', node['resource_class'])
        self.assertEqual({'cpus': 8}, node['properties'])
        self.assertEqual({'a': 'b'}, node['extra'])
        self.assertEqual('p1', node['owner'])
        self.run_cli('node', 'unset', name, '--property', 'cpus',
                     '--description', '--owner')
        node = self.run_cli('node', 'show', name, '-f', 'json').json()
        self.assertEqual({}, node['properties'])
        self.assertIsNone(node['description'])
        self.assertIsNone(node['owner'])

        self.run_cli('node', 'maintenance', 'set', name, '--reason', 'fan')
        node = self.run_cli('node', 'show', name, '-f', 'json').json()
        self.assertTrue(node['maintenance'])
        self.assertEqual('fan', node['maintenance_reason'])
        listed = self.run_cli('node', 'list', '--maintenance', '--fields',
                              'name', '-f', 'value').stdout.split()
        self.assertIn(name, listed)
        self.run_cli('node', 'maintenance', 'unset', name)
        node = self.run_cli('node', 'show', name, '-f', 'json').json()
        self.assertFalse(node['maintenance'])
        self.run_cli('node', 'delete', name)

    def test_pool_scenario(self):
        profile, workflow = self.prefix + '-web', self.prefix + '-deploy'
        pool, name = self.prefix + '-pool', self.prefix + '-node'

        created = self.run_cli('profile', 'create', profile, '--param',
                               'role=web', '--param', 'inventory/data/CPUS=8',
                               '-f', 'json').json()
        self.assertEqual({'role': 'web', 'inventory/data/CPUS': 8},
                         created['params'])
        self.run_cli('profile', 'set', profile, '--description', 'Web',
                     '--param', 'tier=1')
        self.run_cli('profile', 'unset', profile, '--param',
                     'inventory/data/CPUS')
        shown = self.run_cli('profile', 'show', profile, '-f', 'json').json()
        self.assertEqual('Web', shown['description'])
        self.assertEqual({'role': 'web', 'tier': 1}, shown['params'])
        listed = self.run_cli('profile', 'list', '-f', 'json').json()
        self.assertIn({'Name': profile, 'Description': 'Web'}, listed)

        created = self.run_cli('workflow', 'create', workflow, '--stage',
                               'install', '-f', 'json').json()
        self.assertEqual(['install'], created['stages'])
        self.run_cli('workflow', 'set', workflow, '--stage', 'install',
                     '--stage', 'complete')
        shown = self.run_cli('workflow', 'show', workflow,
                             '-f', 'json').json()
        self.assertEqual(['install', 'complete'], shown['stages'])
        # The table keeps the stages in their order.
        table = self.run_cli('workflow', 'show', workflow, '-c', 'stages',
                             '-f', 'table').stdout
        self.assertIn('| stages | install, complete |', table)
        self.run_cli('workflow', 'set', workflow, '--description', 'Deploy')
        self.run_cli('workflow', 'unset', workflow, '--description')
        self.assertIsNone(self.run_cli('workflow', 'show', workflow, '-f',
                                       'json').json()['description'])

        self.run_cli('create', pool, '--allocate-workflow', workflow,
                     '--allocate-add-profile', profile)
        self.run_cli('set', pool, '--description', 'Web servers',
                     '--allocate-add-parameter', 'inventory/data/CPUS=4',
                     '--release-remove-profile', profile,
                     '--release-add-parameter', 'wiped=false')
        self.run_cli('unset', pool, '--allocate-add-parameter',
                     'inventory/data/CPUS')
        shown = self.run_cli('show', pool, '-f', 'json').json()
        self.assertEqual('Web servers', shown['description'])
        self.assertEqual({'workflow': workflow, 'add_profiles': [profile]},
                         shown['allocate_actions'])
        self.assertEqual({'remove_profiles': [profile],
                          'add_parameters': {'wiped': False}},
                         shown['release_actions'])
        result = self.run_cli('set', pool, '--enter-workflow', 'nope',
                              check=False)
        self.assertFails(result, 'Workflow nope could not be found')

        self.create_node(name)
        # Pool actions hand out only what an allocation could take.
        self.run_cli('node', 'manage', name)
        self.run_cli('node', 'provide', name)
        self.run_cli('node', 'param', 'set', name, '--param',
                     'inventory/data/CPUS=16', '--param', 'rack=r1')
        self.run_cli('machines', 'add', pool, '--machine', name)
        status = self.run_cli('status', pool, '-f', 'json').json()
        self.assertEqual((pool, 1, 1, 0),
                         (status['name'], status['total'], status['Free'],
                          status['InUse']))
        allocated = self.run_cli('machines', 'allocate', pool,
                                 '-f', 'json').json()
        self.assertEqual([(name, 'InUse', True)],
                         [(r['Name'], r['Status'], r['Allocated'])
                          for r in allocated])
        params = self.run_cli('node', 'param', 'list', name, '--aggregate',
                              '-f', 'json').json()
        # With Digital Rebar's pool params, derived from the pool fields.
        self.assertEqual({'inventory/data/CPUS': 16, 'rack': 'r1',
                          'role': 'web', 'tier': 1, 'pool/name': pool,
                          'pool/allocated': True,
                          'pool/status': 'complete'},
                         {p['Name']: p['Value'] for p in params})

        # Waiting for a stage nothing reports: the client's wait fails
        # naming the node, the server's answers with "timeout", and the
        # node stays Destroying until a forced return.
        result = self.run_cli('node', 'return', name, '--remove-parameter',
                              'rack', '--wait-for-stage', 'wiped',
                              '--wait', '1', check=False)
        self.assertFails(result, 'After 1 seconds these nodes have not '
                                 'reached their stage: %s (Destroying)'
                         % name)
        status = self.run_cli('status', pool, '-f', 'json').json()
        self.assertEqual(1, status['Destroying'])
        self.run_cli('node', 'return', name, '--force')
        self.run_cli('machines', 'allocate', pool, '--machine', name)
        returned = self.run_cli('machines', 'return', pool, '--machine',
                                name, '--wait-for-stage', 'wiped',
                                '--blocking', '1', '-f', 'json').json()
        self.assertEqual([(name, 'timeout')],
                         [(r['Name'], r['Status']) for r in returned])
        # returnToPool answers "Success", as Digital Rebar's.
        returned = self.run_cli('node', 'return', name, '--force',
                                '-f', 'json').json()
        self.assertEqual([{'Result': 'Success'}], returned)
        result = self.run_cli('node', 'return', name, check=False)
        self.assertFails(result, 'Cannot return nodes')

        node = self.run_cli('node', 'show', name, '-f', 'json').json()
        self.assertEqual((pool, 'Free', [], workflow),
                         (node['pool'], node['pool_status'],
                          node['profiles'], node['workflow']))
        params = self.run_cli('node', 'param', 'list', name,
                              '-f', 'json').json()
        self.assertEqual({'inventory/data/CPUS': 16, 'wiped': False,
                          'pool/name': pool, 'pool/allocated': False,
                          'pool/status': 'unallocated'},
                         {p['Name']: p['Value'] for p in params})
        self.run_cli('node', 'param', 'unset', name, '--param', 'wiped')
        self.run_cli('node', 'param', 'unset', name, '--all')
        # The pool params stay: they are the node's pool membership.
        self.assertEqual(['pool/allocated', 'pool/name', 'pool/status'],
                         sorted(p['Name'] for p in self.run_cli(
                             'node', 'param', 'list', name,
                             '-f', 'json').json()))

        self.run_cli('node', 'delete', name)
        self.run_cli('delete', pool)
        result = self.run_cli('profile', 'delete', profile)
        self.assertIn('Deleted profile %s' % profile, result.stdout)
        result = self.run_cli('workflow', 'delete', workflow)
        self.assertIn('Deleted workflow %s' % workflow, result.stdout)
        result = self.run_cli('workflow', 'show', workflow, check=False)
        self.assertFails(result, 'could not be found')

    def test_pool_membership_and_pool_allocation(self):
        rc = self.prefix + '-rc'
        name = self.prefix + '-node'
        pool = self.prefix + '-pool'
        node = self.create_node(name, '--resource-class', rc)
        self.run_cli('node', 'manage', name)
        self.run_cli('node', 'provide', name)
        self.run_cli('node', 'param', 'set', name, '--param',
                     'inventory/data/CPUS=16')
        self.run_cli('create', pool)
        self.run_cli('machines', 'add', pool, '--machine', name)

        listed = self.run_cli('node', 'list', '--pool', pool,
                              '--pool-status', 'Free', '--filter',
                              'inventory/data/CPUS=Gte(8)', '--filter',
                              'inventory/data/CPUS=Lte(16)', '--fields',
                              'name', 'pool', 'pool_status',
                              '-f', 'json').json()
        self.assertEqual([{'Name': name, 'Pool': pool,
                           'Pool Status': 'Free'}], listed)
        for option in (['--filter', 'inventory/data/CPUS=Gte(32)'],
                       ['--pool-status', 'InUse'],
                       ['--filter', 'inventory/data/CPUS=Gte(8)', '--filter',
                        'inventory/data/CPUS=Lt(16)']):
            self.assertEqual([], self.run_cli(
                'node', 'list', '--pool', pool, *option,
                '-f', 'json').json())
        long_list = self.run_cli('node', 'list', '--pool', pool, '--long',
                                 '-f', 'json').json()
        self.assertEqual([(pool, 'Free', False)],
                         [(n['Pool'], n['Pool Status'], n['Pool Allocated'])
                          for n in long_list])
        result = self.run_cli('node', 'list', '--filter',
                              'inventory/data/CPUS=Nope(4)', check=False)
        self.assertFails(result, 'HTTP 400')

        # Without --pool an allocation takes nodes of the default pool.
        result = self.run_cli('allocation', 'create', '--resource-class', rc,
                              '--wait', '60', check=False)
        self.assertFails(result, 'No available nodes found in pool default '
                                 'with resource class %s' % rc)
        alloc = self.run_cli('allocation', 'create', '--resource-class', rc,
                             '--pool', pool, '--wait', '60',
                             '-f', 'json').json()
        self.assertEqual(('active', node['uuid']),
                         (alloc['state'], alloc['node_uuid']))
        shown = self.run_cli('node', 'show', name, '--fields', 'pool',
                             'pool_status', 'pool_allocated',
                             '-f', 'json').json()
        self.assertEqual({'pool': pool, 'pool_status': 'InUse',
                          'pool_allocated': True}, shown)

        self.run_cli('allocation', 'delete', alloc['uuid'])
        self.run_cli('machines', 'remove', pool, '--all')
        self.run_cli('node', 'delete', name)
        self.run_cli('delete', pool)

    def test_list_pagination(self):
        rc = self.prefix + '-page'
        names = ['%s-%d' % (self.prefix, i) for i in range(3)]
        for name in names:
            self.create_node(name, '--resource-class', rc)
        listed = self.run_cli('node', 'list', '--resource-class', rc,
                              '--limit', '2', '--sort', 'name:desc',
                              '-f', 'json').json()
        self.assertEqual(names[:0:-1], [n['Name'] for n in listed])
        self.run_cli('node', 'delete', *names)

    def test_conductor_list(self):
        conductors = self.run_cli('conductor', 'list', '-f', 'json').json()
        self.assertEqual([{'Hostname': 'pool-server-test', 'Alive': True}],
                         conductors)

    def test_not_found(self):
        result = self.run_cli('allocation', 'show', 'nope', check=False)
        self.assertFails(result, 'could not be found')
        result = self.run_cli('node', 'show', 'nope', check=False)
        self.assertFails(result, 'could not be found')

    def test_delete_partial_failure(self):
        name = self.prefix + '-node'
        self.create_node(name)
        result = self.run_cli('node', 'delete', 'nope', name, check=False)
        self.assertFails(result, 'Failed to delete node nope')
        self.assertIn('Deleted node %s' % name, result.stdout)

    def test_allocation_error(self):
        result = self.run_cli('allocation', 'create', '--resource-class',
                              self.prefix + '-none', '--wait', '60',
                              check=False)
        self.assertFails(result, 'No available nodes found in pool default '
                                 'with resource class %s-none' % self.prefix)

    def test_server_validation_error(self):
        name = self.prefix + '-node'
        self.create_node(name)
        result = self.run_cli('node', 'create', '--driver', 'fake-hardware',
                              '--name', name, check=False)
        self.assertFails(result, 'HTTP 409')
        self.run_cli('node', 'delete', name)

    def test_provider_and_claim_scenario(self):
        rc = self.prefix + '-rc'
        names = [self.prefix + '-c1', self.prefix + '-c2']
        pool = self.prefix + '-pool'
        provider = self.prefix + '-prov'
        for name in names:
            self.create_node(name, '--resource-class', rc)
            self.run_cli('node', 'manage', name)
            self.run_cli('node', 'provide', name)
        self.run_cli('create', pool)
        self.run_cli('machines', 'add', pool, '--machine', names[0],
                     '--machine', names[1])
        created = self.run_cli(
            'provider', 'create', provider, '--pool', pool,
            '--defaults', json.dumps({'resource_class': rc,
                                      'params': {'power': 'on'}}),
            '--template-disable', '--match-ignore', '/params/power',
            '--update-filter', '/params/power:replace',
            '--lifespan-default', '1h', '-f', 'json').json()
        self.assertEqual(
            ({'resource_class': rc, 'params': {'power': 'on'}},
             {'enable': False}, ['/params/power'],
             [{'path_match': '/params/power', 'allowed_ops': ['replace']}],
             {'default': '1h'}),
            (created['defaults'], created['template'],
             created['match_ignore'], created['update_filters'],
             created['lifespan']))
        listed = self.run_cli('provider', 'list', '-f', 'json').json()
        self.assertIn({'Name': provider, 'Pool': pool, 'Description': None},
                      listed)

        claim = self.run_cli('claim', 'create', self.prefix + '-claim',
                             '--resource', provider, '--resource',
                             provider + '={"params": {"power": "off"}}',
                             '--wait', '60', '-f', 'json').json()
        self.assertIn(claim['state'], ('bound', 'ready'))
        self.assertEqual(2, len(claim['allocations']))
        self.assertEqual(['on', 'off'], [r['template']['params']['power']
                                         for r in claim['resources']])

        self.run_cli('claim', 'set', self.prefix + '-claim',
                     '--resource-param', '0:power=off')
        shown = self.run_cli('claim', 'show', self.prefix + '-claim',
                             '--fields', 'resources', '-f', 'json').json()
        self.assertEqual('off',
                         shown['resources'][0]['template']['params']['power'])
        result = self.run_cli('claim', 'set', self.prefix + '-claim',
                              '--resource-param', '0:hostname=db',
                              check=False)
        self.assertFails(result, 'do not allow the operation add')

        # Both machines are taken: a second claim fails, and --wait says
        # why.
        result = self.run_cli('claim', 'create', self.prefix + '-more',
                              '--resource', provider, '--wait', '60',
                              check=False)
        self.assertFails(result, 'No Free machine of pool %s' % pool)
        listed = self.run_cli('claim', 'list', '--state', 'error',
                              '-f', 'json').json()
        self.assertIn(self.prefix + '-more', [c['Name'] for c in listed])
        result = self.run_cli('provider', 'delete', provider, check=False)
        self.assertFails(result, 'HTTP 409')

        self.run_cli('claim', 'delete', self.prefix + '-claim',
                     self.prefix + '-more')
        status = self.run_cli('status', pool, '-f', 'json').json()
        self.assertEqual(2, status['Free'])
        self.run_cli('provider', 'delete', provider)
        self.run_cli('machines', 'remove', pool, '--all')
        self.run_cli('node', 'delete', *names)
        self.run_cli('delete', pool)
