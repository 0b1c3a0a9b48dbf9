"""The rules every path that gives, frees or moves a node follows."""

from pool_conductor.db import nodes as nodes_db
from tests.unit.api import test_pool_actions


class FleetRulesTestCase(test_pool_actions.PoolActionTestCase):

    def setUp(self):
        super().setUp()
        self.create('workflows', {'name': 'deploy',
                                  'stages': ['install', 'complete']})
        self.make_pool()

    def deploy(self, node: str) -> None:
        resp = self.put('/v1/nodes/%s/states/provision' % node,
                        {'target': 'active'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.finish_provisioning()

    def status(self, node: str) -> tuple:
        body = self.node(node)
        return body['pool'], body['pool_status'], body['pool_allocated']

    def report(self, node: str, **fields) -> dict:
        resp = self.patch_json('/v1/nodes/%s' % node, [
            {'op': 'replace', 'path': '/' + k, 'value': v}
            for k, v in fields.items()])
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()


class TestGiving(FleetRulesTestCase):

    def test_backfilled_node_is_in_use_and_stays_out_of_pools(self):
        self.deploy('n0')
        alloc = self.post('/v1/allocations', {'node': 'n0'}).get_json()
        self.assertEqual(('default', 'InUse', True), self.status('n0'))
        self.assertEqual(1, self.get('/v1/pools/default/status').get_json()
                         ['statuses']['InUse'])
        self.assertError(400, self.post('/v1/pools/web/addMachines', {
            'machine_list': ['n0']}), 'only Free')
        # Deployed: the allocation stays unless forced.
        self.assertError(409, self.post('/v1/pools/default/returnMachines', {
            'machine_list': ['n0']}), 'provision state "active"')
        self.assertEqual(200, self.post('/v1/pools/default/returnMachines', {
            'machine_list': ['n0'], 'force': True}).status_code)
        self.assertEqual(('default', 'Free', False), self.status('n0'))
        self.assertEqual(404, self.get('/v1/allocations/%s'
                                       % alloc['uuid']).status_code)

    def test_instance_uuid_by_patch_is_in_use_and_removal_frees(self):
        uuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
        self.report('n0', instance_uuid=uuid)
        self.assertEqual(('default', 'InUse', True), self.status('n0'))
        self.assertError(400, self.post('/v1/pools/web/addMachines', {
            'machine_list': ['n0']}), 'only Free')
        self.report('n0', instance_uuid=None)
        self.assertEqual(('default', 'Free', False), self.status('n0'))

    def test_pool_actions_hand_out_only_what_an_allocation_could(self):
        enrolled = self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'resource_class': 'baremetal',
            'name': 'new'}).get_json()
        self.add(['n0'])
        resp = self.post('/v1/pools/default/allocateMachines', {
            'machine_list': ['new']})
        self.assertError(400, resp, 'new (Free in pool default)')
        self.put('/v1/nodes/n1/maintenance', {'reason': 'disk'})
        body = self.action('default', 'allocateMachines', {
            'all_machines': True}).get_json()
        # Only n2 and n3: n0 is in web, n1 in maintenance, new enrolled.
        self.assertEqual(['n2', 'n3'], sorted(r['name'] for r in body))
        self.assertEqual(('default', 'Free', False),
                         self.status(enrolled['uuid']))

    def test_machine_list_is_honoured(self):
        self.add(self.uuids)
        body = self.action('web', 'allocateMachines', {
            'machine_list': ['n2']}).get_json()
        self.assertEqual(['n2'], [r['name'] for r in body])
        self.assertEqual(('web', 'InUse', True), self.status('n2'))
        self.assertEqual(('web', 'Free', False), self.status('n0'))
        # All or nothing: n2 is taken, so n1 is not allocated either.
        self.assertError(400, self.post('/v1/pools/web/allocateMachines', {
            'machine_list': ['n1', 'n2']}), 'n2 (InUse in pool web)')
        self.assertEqual(('web', 'Free', False), self.status('n1'))
        body = self.action('web', 'allocateMachines', {
            'machine_list': ['n1', 'n2'], 'partial_success': True}
        ).get_json()
        self.assertEqual(['n1'], [r['name'] for r in body])


class TestPartition(FleetRulesTestCase):

    def test_plain_allocation_draws_from_the_default_pool(self):
        self.add(self.uuids)
        alloc = self.allocate({})
        self.assertEqual('error', alloc['state'])
        self.assertIn('No available nodes found in pool default with '
                      'resource class baremetal', alloc['last_error'])
        self.assertEqual({'Free': 4}, {
            k: v for k, v in self.get('/v1/pools/web/status').get_json()
            ['statuses'].items() if v})
        alloc = self.allocate({'pool': 'web', 'name': 'n3'})
        self.assertEqual(('active', self.uuids[3]),
                         (alloc['state'], alloc['node_uuid']))

    def test_failed_pool_allocation_names_the_pool(self):
        self.add(self.uuids)
        for _node in self.uuids:
            self.assertEqual('active',
                             self.allocate({'pool': 'web'})['state'])
        alloc = self.allocate({'pool': 'web', 'resource_class': 'baremetal'})
        self.assertEqual('error', alloc['state'])
        self.assertEqual('No available nodes found in pool web with resource '
                         'class baremetal', alloc['last_error'])

    def test_candidate_in_another_pool_is_an_error_naming_it(self):
        self.add(['n0'])
        self.assertError(400, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'candidate_nodes': ['n0', 'n1']}),
            'is in pool web')
        alloc = self.allocate({'candidate_nodes': ['n1']})
        self.assertEqual(self.uuids[1], alloc['node_uuid'])


class TestStages(FleetRulesTestCase):

    def test_node_at_the_wait_stage_is_through_at_once(self):
        self.report('n0', workflow='deploy', stage='complete')
        self.add(['n0'])
        body = self.action('web', 'allocateMachines', {
            'wait_for_stage': 'complete'}).get_json()
        self.assertEqual(('InUse', True),
                         (body[0]['status'], body[0]['allocated']))

    def test_a_repeated_stage_report_is_evaluated(self):
        self.add(['n0'])
        self.action('web', 'allocateMachines', {
            'new_workflow': 'deploy', 'wait_for_stage': 'complete'})
        # A stage recorded without its report being evaluated.
        node = nodes_db.get_node(self.context, 'n0')
        nodes_db.update_node(self.context, node, {'stage': 'complete'})
        self.assertEqual('Building', self.node('n0')['pool_status'])
        self.assertEqual('InUse', self.report('n0', stage='complete')
                         ['pool_status'])

    def test_joining_and_leaving_wait_for_their_stages(self):
        self.create('workflows', {'name': 'burnin', 'stages': ['tested']})
        self.create('workflows', {'name': 'wipe', 'stages': ['wiped']})
        self.create('pools', {'name': 'lab', 'enter_actions': {
            'workflow': 'burnin', 'wait_for_stage': 'tested'},
            'exit_actions': {'workflow': 'wipe', 'wait_for_stage': 'wiped'}})
        body = self.action('lab', 'addMachines', {'machine_list': ['n0']}
                           ).get_json()
        self.assertEqual(('Joining', False),
                         (body[0]['status'], body[0]['allocated']))
        self.assertEqual('HoldJoin', self.report('n0', runnable=False)
                         ['pool_status'])
        self.report('n0', runnable=True, stage='tested')
        self.assertEqual(('lab', 'Free', False), self.status('n0'))
        body = self.action('lab', 'removeMachines', {'machine_list': ['n0']}
                           ).get_json()
        self.assertEqual('Leaving', body[0]['status'])
        node = self.node('n0')
        self.assertEqual(('lab', 'wipe', None),
                         (node['pool'], node['workflow'], node['stage']))
        self.assertEqual('HoldLeave', self.report('n0', runnable=False)
                         ['pool_status'])
        self.report('n0', runnable=True, stage='wiped')
        self.assertEqual(('default', 'Free', False), self.status('n0'))
        # Joining and Leaving nodes are nobody's to allocate.
        self.action('lab', 'addMachines', {'machine_list': ['n1']})
        self.assertError(409, self.post('/v1/pools/lab/allocateMachines',
                                        {}), 'has 0 free nodes')


class TestNodeLock(FleetRulesTestCase):

    def test_a_locked_node_is_not_changed(self):
        self.config(node_locked_retry_attempts=0, group='conductor')
        node = nodes_db.get_node(self.context, 'n0')
        self.assertTrue(nodes_db.reserve(self.context, node.id, 'other'))
        self.assertFalse(nodes_db.reserve(self.context, node.id, 'third'))
        self.assertError(409, self.patch_json('/v1/nodes/n0', [
            {'op': 'replace', 'path': '/extra', 'value': {'a': 1}}]),
            'locked by host other')
        # Pool actions that name it answer as a change of it does.
        for action in ('allocateMachines', 'returnMachines'):
            self.assertError(409, self.post(
                '/v1/pools/default/%s' % action, {
                    'machine_list': ['n0'], 'force': True}),
                'locked by host other')
        self.assertError(409, self.post('/v1/pools/web/addMachines', {
            'machine_list': ['n0']}), 'locked by host other')
        # With all_machines a locked node is left out.
        self.assertEqual(['n1', 'n2', 'n3'], [n['name'] for n in self.post(
            '/v1/pools/web/addMachines', {'all_machines': True}
        ).get_json()])
        self.assertTrue(nodes_db.unreserve(self.context, node.id, 'other'))
        self.report('n0', extra={'a': 1})

    def test_a_change_waits_for_the_lock_then_is_made(self):
        self.config(node_locked_retry_attempts=50,
                    node_locked_retry_interval=0.05, group='conductor')
        self.lock_for_a_moment('n0')
        resp = self.patch_json('/v1/nodes/n0', [
            {'op': 'replace', 'path': '/extra', 'value': {'a': 1}}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(({'a': 1}, None), (resp.get_json()['extra'],
                                            resp.get_json()['reservation']))
        # Giving the node out waits the same way.
        self.lock_for_a_moment('n0')
        resp = self.patch_json('/v1/nodes/n0', [
            {'op': 'add', 'path': '/instance_uuid',
             'value': '8f6a7e2c-9d1b-4c3e-a5f0-1b2c3d4e5f60'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('InUse', resp.get_json()['pool_status'])

    def test_a_pool_action_waits_for_the_lock(self):
        # A conductor moving a Destroying node on in its workflow holds
        # its lock for a moment: a forced return meanwhile waits for it.
        self.config(node_locked_retry_attempts=50,
                    node_locked_retry_interval=0.05, group='conductor')
        self.add(['n0'])
        self.action('web', 'allocateMachines', {'machine_list': ['n0']})
        self.action('web', 'returnMachines', {
            'machine_list': ['n0'], 'wait_for_stage': 'wiped'})
        self.assertEqual(('web', 'Destroying', True), self.status('n0'))
        self.lock_for_a_moment('n0')
        body = self.action('web', 'returnMachines', {
            'machine_list': ['n0'], 'force': True}).get_json()
        self.assertEqual([('n0', 'Free', False)], [
            (r['name'], r['status'], r['allocated']) for r in body])

    def test_deleting_an_allocation_waits_for_the_lock(self):
        self.config(node_locked_retry_attempts=50,
                    node_locked_retry_interval=0.05, group='conductor')
        self.add(['n0'])
        uuid = self.action('web', 'allocateMachines', {
            'machine_list': ['n0'], 'wait_for_stage': 'complete'}
        ).get_json()[0]['uuid']
        allocation = self.node(uuid)['allocation_uuid']
        self.lock_for_a_moment('n0')
        resp = self.delete('/v1/allocations/%s' % allocation)
        self.assertEqual(204, resp.status_code, resp.get_data())
        self.assertEqual(('web', 'Free', False), self.status('n0'))
