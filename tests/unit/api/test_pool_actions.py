"""Pool actions: addMachines, removeMachines, allocateMachines,
returnMachines and returnToPool."""
from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import allocations as allocations_db
from tests.unit.api import test_pools


class PoolActionTestCase(test_pools.PoolAPITestCase):

    def setUp(self):
        super().setUp()
        self.nodes = [self.enroll(name='n%d' % i) for i in range(4)]
        self.uuids = [n['uuid'] for n in self.nodes]

    def action(self, pool: str, action: str, body=None, status=200):
        resp = self.post('/v1/pools/%s/%s' % (pool, action), body or {})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def node(self, ident: str) -> dict:
        return self.get('/v1/nodes/%s' % ident).get_json()

    def make_pool(self, name='web', **fields):
        self.create('pools', {'name': name, **fields})

    def allocate(self, body: dict) -> dict:
        """POST /v1/allocations, processed by a conductor's worker."""
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal',
                                             **body})
        self.assertEqual(201, resp.status_code, resp.get_data())
        worker = AllocationWorker('test-host', 1)
        self.addCleanup(worker.stop)
        for alloc_id, _host in self.casts:
            worker.process(alloc_id)
        self.casts = []
        return self.get('/v1/allocations/%s' % resp.get_json()['uuid']
                        ).get_json()

    def add(self, names, pool='web'):
        return self.action(pool, 'addMachines',
                           {'machine_list': names}).get_json()


class TestAddRemove(PoolActionTestCase):

    def test_add_by_uuid_name_and_key_value(self):
        self.make_pool()
        self.put('/v1/nodes/n3/params', {'rack': 'r7'})
        body = self.add([self.uuids[0], 'n1', 'Name:n2', 'rack:r7'])
        self.assertEqual(
            [{'status': 'Free', 'allocated': False, 'name': 'n%d' % i,
              'uuid': self.uuids[i]} for i in range(4)], body)
        self.assertEqual('web', self.node('n2')['pool'])
        self.assertEqual(4, self.get('/v1/pools/web/status')
                         .get_json()['statuses']['Free'])

    def test_all_machines_and_enter_exit_actions(self):
        self.create('profiles', {'name': 'p-web'})
        self.create('workflows', {'name': 'wipe', 'stages': ['erase']})
        self.make_pool(enter_actions={'add_profiles': ['p-web'],
                                      'add_parameters': {'in': 1}},
                       exit_actions={'remove_profiles': ['p-web'],
                                     'remove_parameters': ['in'],
                                     'workflow': 'wipe'})
        body = self.action('web', 'addMachines',
                           {'all_machines': True}).get_json()
        self.assertEqual(4, len(body))
        node = self.node('n0')
        self.assertEqual((['p-web'], {'in': 1}),
                         (node['profiles'], node['params']))
        body = self.action('web', 'removeMachines',
                           {'machine_list': ['n0']}).get_json()
        self.assertEqual('Free', body[0]['status'])
        node = self.node('n0')
        self.assertEqual(('default', [], {}, 'wipe'),
                         (node['pool'], node['profiles'], node['params'],
                          node['workflow']))

    def test_parent_pool_hierarchy(self):
        self.make_pool('rack')
        self.make_pool('web', parent_pool='rack')
        # Nodes come from the parent pool only.
        self.assertError(400, self.post('/v1/pools/web/addMachines', {
            'machine_list': ['n0']}), 'pool rack')
        self.add(['n0'], pool='rack')
        self.add(['n0'], pool='web')
        self.assertEqual('web', self.node('n0')['pool'])
        self.action('web', 'removeMachines', {'machine_list': ['n0']})
        self.assertEqual('rack', self.node('n0')['pool'])

    def test_preconditions(self):
        self.make_pool()
        self.assertError(400, self.post('/v1/pools/web/addMachines', {}),
                         'machine_list')
        self.assertError(404, self.post('/v1/pools/web/addMachines', {
            'machine_list': ['nope']}), 'nope')
        self.assertError(404, self.post('/v1/pools/nope/addMachines', {
            'machine_list': ['n0']}))
        self.assertError(400, self.post('/v1/pools/default/addMachines', {
            'machine_list': ['n0']}), 'default pool')
        self.assertError(400, self.post(
            '/v1/pools/default/removeMachines', {'machine_list': ['n0']}))
        self.assertError(400, self.post('/v1/pools/web/addMachines', {
            'machine_list': ['n0'], 'colour': 1}))
        # Allocated nodes cannot be added or removed.
        self.add(['n0'])
        self.action('web', 'allocateMachines')
        self.assertError(400, self.post('/v1/pools/web/removeMachines', {
            'machine_list': ['n0']}), 'InUse')


class TestAllocateReturn(PoolActionTestCase):

    def setUp(self):
        super().setUp()
        self.create('profiles', {'name': 'base'})
        self.create('profiles', {'name': 'web'})
        self.create('workflows', {'name': 'deploy',
                                  'stages': ['install', 'complete']})
        self.make_pool(allocate_actions={'add_parameters': {'a': 1}},
                       release_actions={'remove_parameters': ['a']})
        self.add(self.uuids)

    def test_allocate_count_makes_allocations(self):
        body = self.action('web', 'allocateMachines', {'count': 2}
                           ).get_json()
        self.assertEqual(2, len(body))
        self.assertEqual({('InUse', True)},
                         {(r['status'], r['allocated']) for r in body})
        node = self.node(body[0]['uuid'])
        self.assertEqual({'a': 1}, node['params'])
        alloc = self.get('/v1/nodes/%s/allocation' % node['uuid']
                         ).get_json()
        self.assertEqual('active', alloc['state'])
        self.assertEqual(node['uuid'], alloc['node_uuid'])
        self.assertEqual(alloc['uuid'], node['instance_uuid'])
        self.assertEqual(('web', {}), (alloc['pool'], alloc['extra']))
        status = self.get('/v1/pools/web/status').get_json()['statuses']
        self.assertEqual((2, 2), (status['InUse'], status['Free']))

    def test_request_actions_remove_before_add(self):
        self.patch_json('/v1/nodes/n0', [
            {'op': 'add', 'path': '/profiles', 'value': ['base']},
            {'op': 'add', 'path': '/params/old', 'value': 1}])
        self.action('web', 'allocateMachines', {
            'filter': {'name': 'Eq(n0)'}, 'new_workflow': 'deploy',
            'remove_profiles': ['base', 'web'], 'add_profiles': ['web'],
            'remove_parameters': ['old', 'x'],
            'add_parameters': {'x': 2}})
        node = self.node('n0')
        self.assertEqual(['web'], node['profiles'])
        self.assertEqual({'a': 1, 'x': 2}, node['params'])
        self.assertEqual('deploy', node['workflow'])

    def test_filter(self):
        self.put('/v1/nodes/n2/params', {'inventory/data/CPUS': 3})
        body = self.action('web', 'allocateMachines', {
            'filter': {'inventory/data/CPUS': 'Eq(3)'}}).get_json()
        self.assertEqual(['n2'], [r['name'] for r in body])
        self.assertError(400, self.post('/v1/pools/web/allocateMachines', {
            'filter': {'cpus': 'Nope(3)'}}), '"cpus"')
        for pattern in ('a++', 'a{4294967296}', r'(a)\1', '(?=a)'):
            self.assertError(400, self.post(
                '/v1/pools/web/allocateMachines',
                {'filter': {'rack': 'Re(%s)' % pattern}}), '"rack"')

    def test_filter_regex_runs_with_re2(self):
        self.put('/v1/nodes/n2/params', {'rack': 'a' * 40 + 'x'})
        body = self.action('web', 'allocateMachines', {
            'filter': {'rack': 'Re(^(a+)+$)'}, 'partial_success': True}
        ).get_json()
        self.assertEqual([], body)
        body = self.action('web', 'allocateMachines', {
            'filter': {'rack': 'Re(^(a+)+x$)'}}).get_json()
        self.assertEqual(['n2'], [r['name'] for r in body])

    def test_all_or_nothing_unwinds(self):
        resp = self.post('/v1/pools/web/allocateMachines', {'count': 5})
        self.assertError(409, resp, 'nothing was allocated')
        status = self.get('/v1/pools/web/status').get_json()['statuses']
        self.assertEqual(4, status['Free'])
        self.assertEqual([], self.get('/v1/allocations').get_json()
                         ['allocations'])

    def test_partial_success(self):
        self.action('web', 'allocateMachines', {'count': 3})
        body = self.action('web', 'allocateMachines', {
            'count': 3, 'partial_success': True}).get_json()
        self.assertEqual(1, len(body))
        body = self.action('web', 'allocateMachines', {
            'count': 3, 'partial_success': True}).get_json()
        self.assertEqual([], body)

    def test_return_machines(self):
        body = self.action('web', 'allocateMachines', {'count': 2}
                           ).get_json()
        uuids = [r['uuid'] for r in body]
        body = self.action('web', 'returnMachines', {
            'machine_list': uuids, 'add_parameters': {'r': 1}}).get_json()
        self.assertEqual({('Free', False)},
                         {(r['status'], r['allocated']) for r in body})
        node = self.node(uuids[0])
        self.assertEqual({'r': 1}, node['params'])
        self.assertIsNone(node['instance_uuid'])
        self.assertEqual([], self.get('/v1/allocations').get_json()
                         ['allocations'])
        # Only InUse nodes can be returned.
        self.assertError(400, self.post('/v1/pools/web/returnMachines', {
            'machine_list': uuids}), 'InUse')

    def test_return_all_machines_and_return_to_pool(self):
        self.action('web', 'allocateMachines', {'count': 3})
        resp = self.post('/v1/nodes/n0/returnToPool', {})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('Success', resp.get_json())
        self.assertEqual('Free', self.node('n0')['pool_status'])
        body = self.action('web', 'returnMachines', {'all_machines': True}
                           ).get_json()
        self.assertEqual(2, len(body))
        self.assertError(400, self.post('/v1/nodes/n0/returnToPool', {}))

    def test_wait_for_stage_building_hold_and_in_use(self):
        body = self.action('web', 'allocateMachines', {
            'new_workflow': 'deploy', 'wait_for_stage': 'complete'}
        ).get_json()
        self.assertEqual('Building', body[0]['status'])
        path = '/v1/nodes/%s' % body[0]['uuid']

        def report(**fields) -> str:
            return self.patch_json(path, [
                {'op': 'replace', 'path': '/' + k, 'value': v}
                for k, v in fields.items()]).get_json()['pool_status']

        self.assertEqual('Building', report(stage='install'))
        self.assertEqual('HoldBuild', report(runnable=False))
        self.assertEqual('Building', report(runnable=True))
        self.assertEqual('InUse', report(stage='complete'))

    def test_return_with_wait_destroying_hold_and_free(self):
        uuid = self.action('web', 'allocateMachines').get_json()[0]['uuid']
        body = self.action('web', 'returnMachines', {
            'machine_list': [uuid], 'wait_for_stage': 'wiped'}).get_json()
        self.assertEqual(('Destroying', True),
                         (body[0]['status'], body[0]['allocated']))
        path = '/v1/nodes/%s' % uuid
        self.patch_json(path, [{'op': 'replace', 'path': '/runnable',
                                'value': False}])
        self.assertEqual('HoldDestroy', self.node(uuid)['pool_status'])
        self.patch_json(path, [{'op': 'replace', 'path': '/runnable',
                                'value': True},
                               {'op': 'replace', 'path': '/stage',
                                'value': 'wiped'}])
        node = self.node(uuid)
        self.assertEqual(('Free', False),
                         (node['pool_status'], node['pool_allocated']))

    def test_force_return_of_building_node(self):
        uuid = self.action('web', 'allocateMachines', {
            'wait_for_stage': 'complete'}).get_json()[0]['uuid']
        self.assertError(400, self.post('/v1/pools/web/returnMachines', {
            'machine_list': [uuid]}))
        body = self.action('web', 'returnMachines', {
            'machine_list': [uuid], 'force': True,
            'wait_for_stage': 'wiped', 'add_parameters': {'f': 1}}
        ).get_json()
        self.assertEqual('Free', body[0]['status'])
        self.assertEqual({'f': 1}, self.node(uuid)['params'])

    def test_blocking_timeout_is_capped_and_says_so(self):
        self.config(max_blocking_wait=0, group='pool')
        resp = self.action('web', 'allocateMachines', {
            'count': 2, 'wait_for_stage': 'complete', 'blocking': True,
            'wait_timeout': 3600})
        self.assertEqual('0', resp.headers['X-Pool-Wait-Timeout'])
        self.assertEqual(['timeout', 'timeout'],
                         [r['status'] for r in resp.get_json()])
        # The nodes go on building.
        self.assertEqual(2, self.get('/v1/pools/web/status').get_json()
                         ['statuses']['Building'])

    def test_blocking_without_a_stage_returns_at_once(self):
        resp = self.action('web', 'allocateMachines', {
            'blocking': True, 'wait_timeout': 5})
        self.assertEqual('InUse', resp.get_json()[0]['status'])
        self.assertNotIn('X-Pool-Wait-Timeout', resp.headers)

    def test_bad_parameters_are_400(self):
        for body in ({'count': 0}, {'count': 'x'}, {'filter': []},
                     {'wait_timeout': -1}, {'new_workflow': 'a b'},
                     {'add_parameters': []}):
            self.assertError(400, self.post(
                '/v1/pools/web/allocateMachines', body))
        self.config(max_count=2, group='pool')
        self.assertError(400, self.post('/v1/pools/web/allocateMachines',
                                        {'count': 3}), 'at most 2')
        self.assertError(404, self.post('/v1/pools/web/allocateMachines', {
            'new_workflow': 'nope'}), 'Workflow nope')

    def test_allocations_of_pool_show_in_allocation_api(self):
        self.action('web', 'allocateMachines', {'count': 2})
        allocs = allocations_db.list_allocations(self.context, {})
        self.assertEqual(2, len(allocs))


class TestIronicAllocationsInPools(PoolActionTestCase):
    """POST /v1/allocations with a pool, and deletion as a return."""

    def setUp(self):
        super().setUp()
        self.make_pool(allocate_actions={'add_parameters': {'a': 1}},
                       release_actions={'remove_parameters': ['a'],
                                        'add_parameters': {'r': 1}})
        self.add(['n2'])

    def test_allocation_in_pool_applies_actions_and_delete_returns(self):
        alloc = self.allocate({'pool': 'web'})
        self.assertEqual('active', alloc['state'])
        self.assertEqual(('web', {}), (alloc['pool'], alloc['extra']))
        node = self.node(alloc['node_uuid'])
        self.assertEqual(('n2', 'InUse', True, {'a': 1}),
                         (node['name'], node['pool_status'],
                          node['pool_allocated'], node['params']))
        # Pool nodes are taken: no node left.
        self.assertEqual('error', self.allocate({'pool': 'web'})['state'])
        self.assertEqual(204, self.delete('/v1/allocations/%s'
                                          % alloc['uuid']).status_code)
        node = self.node('n2')
        self.assertEqual(('Free', False, {'r': 1}),
                         (node['pool_status'], node['pool_allocated'],
                          node['params']))

    def test_plain_allocation_marks_node_in_use(self):
        alloc = self.allocate({'name': 'n0'})
        node = self.node(alloc['node_uuid'])
        self.assertEqual(('default', 'InUse'),
                         (node['pool'], node['pool_status']))
        # A pool allocation does not take it, and returning it works.
        self.assertEqual(204, self.delete('/v1/allocations/%s'
                                          % alloc['uuid']).status_code)
        self.assertEqual('Free', self.node(alloc['node_uuid'])
                         ['pool_status'])

    def test_pool_allocation_errors(self):
        self.assertError(404, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'pool': 'nope'}), 'Pool nope')
        # The pool is read by the INSERT: the refusal undid it, and no
        # conductor was told.
        self.assertEqual([], self.get('/v1/allocations').get_json()[
            'allocations'])
        self.assertEqual([], self.casts)
        self.assertError(400, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'pool': 'web', 'node': 'n2'}))
        self.assertError(400, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'pool': 'a b'}))


class TestWorkflowExecution(PoolActionTestCase):
    """allocateMachines and returnMachines with a conductor running the
    fake provisioner."""

    def setUp(self):
        super().setUp()
        from pool_conductor import rpc
        from pool_conductor import service
        self.config(driver='fake', fake_stage_delay=0.05,
                    group='provisioner')
        self.config(check_workflows_interval=0.05,
                    check_allocations_interval=0, group='conductor')
        self.addCleanup(rpc.cleanup)
        svc = service.ConductorService('test-host')
        svc.start()
        self.addCleanup(svc.stop)
        self.create('workflows', {'name': 'deploy', 'stages': [
            'discover', 'install', 'complete']})
        self.create('workflows', {'name': 'wipe', 'stages': [
            'erase', 'wiped']})
        self.make_pool()
        self.add(self.uuids)

    def wait_for_status(self, uuid: str, status: str,
                        timeout: float = 15) -> dict:
        import time
        deadline = time.monotonic() + timeout
        while True:
            node = self.node(uuid)
            if node['pool_status'] == status:
                return node
            self.assertLess(time.monotonic(), deadline, node)
            time.sleep(0.05)

    def test_blocking_allocation_returns_in_use(self):
        resp = self.action('web', 'allocateMachines', {
            'count': 2, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete', 'blocking': True,
            'wait_timeout': 30})
        body = resp.get_json()
        self.assertEqual([('InUse', True)] * 2,
                         [(r['status'], r['allocated']) for r in body])
        node = self.node(body[0]['uuid'])
        self.assertEqual(('complete', True, 'deploy'),
                         (node['stage'], node['runnable'],
                          node['workflow']))
        status = self.get('/v1/pools/web/status').get_json()['statuses']
        self.assertEqual((2, 2), (status['InUse'], status['Free']))

    def test_blocking_return_returns_free(self):
        uuid = self.action('web', 'allocateMachines').get_json()[0]['uuid']
        body = self.action('web', 'returnMachines', {
            'machine_list': [uuid], 'new_workflow': 'wipe',
            'wait_for_stage': 'wiped', 'blocking': True}).get_json()
        self.assertEqual([('Free', False)],
                         [(r['status'], r['allocated']) for r in body])
        self.assertEqual('wiped', self.node(uuid)['stage'])

    def test_failed_stage_holds_until_runnable(self):
        self.put('/v1/nodes/n0/params', {'fake/fail-at-stage': 'install'})
        body = self.action('web', 'allocateMachines', {
            'filter': {'name': 'Eq(n0)'}, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete', 'blocking': True}).get_json()
        self.assertEqual('HoldBuild', body[0]['status'])
        node = self.node('n0')
        self.assertEqual(('install', False), (node['stage'],
                                              node['runnable']))
        self.assertIn('Stage install of workflow deploy failed',
                      node['last_error'])
        resp = self.patch_json('/v1/nodes/n0', [
            {'op': 'replace', 'path': '/runnable', 'value': True}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        node = self.wait_for_status(self.uuids[0], 'InUse')
        self.assertEqual('complete', node['stage'])
        self.assertIsNone(node['last_error'])

    def test_not_runnable_holds_without_error_and_resumes(self):
        self.put('/v1/nodes/n0/params',
                 {'fake/not-runnable-at-stage': 'discover'})
        self.action('web', 'allocateMachines', {
            'filter': {'name': 'Eq(n0)'}, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete'})
        node = self.wait_for_status(self.uuids[0], 'HoldBuild')
        self.assertEqual(('discover', False, None),
                         (node['stage'], node['runnable'],
                          node['last_error']))
        self.patch_json('/v1/nodes/n0', [
            {'op': 'replace', 'path': '/runnable', 'value': True}])
        self.assertEqual('complete',
                         self.wait_for_status(self.uuids[0],
                                              'InUse')['stage'])
