"""The pools, profiles, workflows and node params API."""
from oslo_db import exception as db_exc

from pool_conductor.db import pools as pools_db
from tests.unit.api import base


class PoolAPITestCase(base.APITestCase):

    def create(self, collection: str, body: dict, status: int = 201):
        resp = self.post('/v1/' + collection, body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()


class TestPools(PoolAPITestCase):

    def test_default_pool_exists(self):
        pools = self.get('/v1/pools').get_json()['pools']
        self.assertEqual(['default'], [p['name'] for p in pools])
        self.assertEqual({}, pools[0]['enter_actions'])
        self.assertIsNone(pools[0]['parent_pool'])

    def test_create_show_update(self):
        self.create('workflows', {'name': 'burn-in', 'stages': ['a']})
        self.create('profiles', {'name': 'web'})
        actions = {'workflow': 'burn-in', 'add_profiles': ['web'],
                   'remove_profiles': [], 'add_parameters': {'x/y': 1},
                   'remove_parameters': ['z']}
        resp = self.post('/v1/pools', {
            'name': 'web', 'description': 'Web servers',
            'documentation': 'Long text', 'parent_pool': 'default',
            'allocate_actions': actions})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertTrue(resp.headers['Location'].endswith('/v1/pools/web'))
        pool = self.get('/v1/pools/web').get_json()
        self.assertEqual('Web servers', pool['description'])
        self.assertEqual('Long text', pool['documentation'])
        self.assertEqual('default', pool['parent_pool'])
        self.assertEqual(actions, pool['allocate_actions'])
        self.assertEqual({}, pool['release_actions'])
        resp = self.patch_json('/v1/pools/web', [
            {'op': 'replace', 'path': '/description', 'value': 'Web'},
            {'op': 'add', 'path': '/exit_actions',
             'value': {'remove_profiles': ['web']}}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('Web', resp.get_json()['description'])
        self.assertEqual({'remove_profiles': ['web']},
                         self.get('/v1/pools/web').get_json()
                         ['exit_actions'])

    def test_duplicate_is_409(self):
        self.create('pools', {'name': 'web'})
        self.assertError(409, self.post('/v1/pools', {'name': 'web'}),
                         'already exists')

    def test_bad_input_is_400(self):
        for body in ({}, {'name': ''}, {'name': 'a b'}, {'name': 'x',
                     'enter_actions': {'workflow': 1}},
                     {'name': 'x', 'allocate_actions': {'unknown': 1}},
                     {'name': 'x', 'colour': 'red'}):
            self.assertError(400, self.post('/v1/pools', body))
        self.assertError(400, self.patch_json(
            '/v1/pools/default', [{'op': 'replace', 'path': '/name',
                                   'value': 'other'}]))

    def test_references_must_exist(self):
        self.assertError(404, self.post('/v1/pools', {
            'name': 'x', 'parent_pool': 'nope'}), 'Pool nope')
        self.assertError(404, self.post('/v1/pools', {
            'name': 'x', 'enter_actions': {'workflow': 'nope'}}),
            'Workflow nope')
        self.assertError(404, self.post('/v1/pools', {
            'name': 'x', 'release_actions': {'add_profiles': ['nope']}}),
            'Profile nope')

    def test_parent_cycle_is_400(self):
        self.create('pools', {'name': 'a'})
        self.create('pools', {'name': 'b', 'parent_pool': 'a'})
        self.assertError(400, self.patch_json('/v1/pools/a', [
            {'op': 'add', 'path': '/parent_pool', 'value': 'b'}]), 'cycle')
        self.assertError(400, self.patch_json('/v1/pools/a', [
            {'op': 'add', 'path': '/parent_pool', 'value': 'a'}]), 'cycle')
        self.assertError(400, self.post('/v1/pools', {
            'name': 'c', 'parent_pool': 'c'}), 'cycle')

    def test_deadlock_victim_runs_again(self):
        self.create('pools', {'name': 'a'})
        self.create('pools', {'name': 'b'})
        real_update = pools_db.update
        calls = []

        def deadlock_once(*args):
            calls.append(args)
            if len(calls) == 1:
                raise db_exc.DBDeadlock()
            return real_update(*args)

        self.patch(pools_db, 'update', deadlock_once)
        resp = self.patch_json('/v1/pools/a', [
            {'op': 'add', 'path': '/parent_pool', 'value': 'b'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(2, len(calls))
        self.assertEqual('b', self.get('/v1/pools/a').get_json()
                         ['parent_pool'])

    def test_deadlock_every_time_is_409(self):
        self.create('pools', {'name': 'a'})

        def deadlock(*args):
            raise db_exc.DBDeadlock()

        self.patch(pools_db, 'update', deadlock)
        self.assertError(409, self.patch_json('/v1/pools/a', [
            {'op': 'add', 'path': '/description', 'value': 'd'}]),
            'was changed by another request')

    def test_unknown_is_404(self):
        for method in ('GET', 'DELETE'):
            self.assertError(404, self.request(method, '/v1/pools/nope'),
                             'Pool nope could not be found')
        self.assertError(404, self.get('/v1/pools/nope/status'))
        self.assertError(404, self.patch_json('/v1/pools/nope', [
            {'op': 'add', 'path': '/description', 'value': 'd'}]))

    def test_delete(self):
        self.create('pools', {'name': 'web'})
        self.assertEqual(204, self.delete('/v1/pools/web').status_code)
        self.assertError(404, self.get('/v1/pools/web'))

    def test_default_pool_cannot_be_deleted(self):
        self.assertError(409, self.delete('/v1/pools/default'),
                         'default pool')

    def test_parent_pool_cannot_be_deleted(self):
        self.create('pools', {'name': 'a'})
        self.create('pools', {'name': 'b', 'parent_pool': 'a'})
        self.assertError(409, self.delete('/v1/pools/a'), 'parent pool')

    def test_pool_with_members_cannot_be_deleted(self):
        self.create('pools', {'name': 'web'})
        self.create_node(pool='web')
        self.assertError(409, self.delete('/v1/pools/web'),
                         'it has member nodes')

    def test_pool_nodes_move_to_cannot_be_deleted(self):
        self.create('pools', {'name': 'web'})
        self.create_node(pool_destination='web')
        self.assertError(409, self.delete('/v1/pools/web'),
                         'nodes are moving to it')

    def test_pool_another_pool_fills_from_or_returns_to_is_kept(self):
        self.create('pools', {'name': 'spare'})
        self.create('pools', {'name': 'excess'})
        self.create('pools', {'name': 'web', 'autofill': {
            'acquire_pool': 'spare', 'return_pool': 'excess'}})
        self.assertError(409, self.delete('/v1/pools/spare'),
                         'it is the autofill.acquire_pool of pool web')
        self.assertError(409, self.delete('/v1/pools/excess'),
                         'it is the autofill.return_pool of pool web')
        self.assertEqual(200, self.patch_json('/v1/pools/web', [
            {'op': 'remove', 'path': '/autofill'}]).status_code)
        for name in ('spare', 'excess', 'web'):
            self.assertEqual(204, self.delete('/v1/pools/' + name)
                             .status_code)

    def test_pool_of_a_provider_is_kept(self):
        self.create('pools', {'name': 'lab'})
        self.create('providers', {'name': 'lab-web', 'pool': 'lab'})
        self.assertError(409, self.delete('/v1/pools/lab'),
                         'provider lab-web uses it')
        self.assertEqual(204, self.delete('/v1/providers/lab-web')
                         .status_code)
        self.assertEqual(204, self.delete('/v1/pools/lab').status_code)

    def test_member_added_without_the_lock_is_409(self):
        # A node that joined the pool unseen by the check (without the
        # pool's lock): the foreign key refuses the deletion.
        self.create('pools', {'name': 'web'})
        self.create_node(pool='web')
        self.patch(pools_db, '_users', lambda *args: None)
        self.assertError(409, self.delete('/v1/pools/web'),
                         'nodes were added to it meanwhile')
        self.assertEqual(200, self.get('/v1/pools/web').status_code)

    def test_status_counts(self):
        self.create_node()
        self.create_node()
        self.create('pools', {'name': 'web'})
        body = self.get('/v1/pools/default/status').get_json()
        self.assertEqual(2, body['total'])
        self.assertEqual(2, body['statuses']['Free'])
        self.assertEqual(0, body['statuses']['InUse'])
        self.assertEqual(11, len(body['statuses']))
        self.assertEqual(0, self.get('/v1/pools/web/status')
                         .get_json()['total'])


class TestProfilesAndWorkflows(PoolAPITestCase):

    def test_profile_crud(self):
        body = self.create('profiles', {'name': 'big', 'description': 'd',
                                        'params': {'a/b': 1}})
        self.assertEqual({'a/b': 1}, body['params'])
        resp = self.patch_json('/v1/profiles/big', [
            {'op': 'add', 'path': '/params/c', 'value': [1]}])
        self.assertEqual({'a/b': 1, 'c': [1]}, resp.get_json()['params'])
        self.assertEqual(['big'], [p['name'] for p in self.get(
            '/v1/profiles').get_json()['profiles']])
        self.assertError(409, self.post('/v1/profiles', {'name': 'big'}))
        self.assertError(400, self.post('/v1/profiles', {
            'name': 'x', 'params': []}))
        self.assertEqual(204, self.delete('/v1/profiles/big').status_code)
        self.assertError(404, self.get('/v1/profiles/big'),
                         'Profile big could not be found')

    def test_workflow_crud(self):
        body = self.create('workflows', {'name': 'deploy',
                                         'stages': ['discover', 'install']})
        self.assertEqual(['discover', 'install'], body['stages'])
        resp = self.patch_json('/v1/workflows/deploy', [
            {'op': 'add', 'path': '/stages/-', 'value': 'complete'}])
        self.assertEqual(['discover', 'install', 'complete'],
                         resp.get_json()['stages'])
        self.assertError(400, self.patch_json('/v1/workflows/deploy', [
            {'op': 'add', 'path': '/stages/-', 'value': 7}]), 'stages')
        self.assertEqual(204, self.delete('/v1/workflows/deploy')
                         .status_code)

    def test_in_use_cannot_be_deleted(self):
        self.create('profiles', {'name': 'a_b'})
        self.create('profiles', {'name': 'axb'})
        self.create('workflows', {'name': 'wf'})
        node = self.enroll(profiles=['a_b'], workflow='wf')
        self.assertError(409, self.delete('/v1/profiles/a_b'),
                         'node %s uses it' % node['uuid'])
        self.assertError(409, self.delete('/v1/workflows/wf'))
        # The underscore is no wildcard: axb is used by no node.
        self.assertEqual(204, self.delete('/v1/profiles/axb').status_code)


class TestNodePoolFields(PoolAPITestCase):

    def test_new_node_is_free_in_default(self):
        node = self.enroll()
        self.assertEqual('default', node['pool'])
        self.assertEqual('Free', node['pool_status'])
        self.assertFalse(node['pool_allocated'])
        self.assertEqual({}, node['params'])
        self.assertEqual([], node['profiles'])
        self.assertIsNone(node['workflow'])
        self.assertIsNone(node['stage'])
        self.assertTrue(node['runnable'])

    def test_pool_fields_with_old_versions_and_fields(self):
        node = self.enroll()
        body = self.get('/v1/nodes/%s' % node['uuid'],
                        version='1.1').get_json()
        self.assertEqual('default', body['pool'])
        body = self.get('/v1/nodes/%s?fields=pool,pool_status'
                        % node['uuid']).get_json()
        self.assertEqual({'pool', 'pool_status', 'links'}, set(body))

    def test_patch_pool_fields(self):
        self.create('profiles', {'name': 'web'})
        self.create('workflows', {'name': 'wf'})
        node = self.enroll()
        resp = self.patch_json('/v1/nodes/%s' % node['uuid'], [
            {'op': 'add', 'path': '/params/x', 'value': 1},
            {'op': 'add', 'path': '/profiles/-', 'value': 'web'},
            {'op': 'replace', 'path': '/workflow', 'value': 'wf'},
            {'op': 'replace', 'path': '/stage', 'value': 'install'},
            {'op': 'replace', 'path': '/runnable', 'value': False}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertEqual({'x': 1}, body['params'])
        self.assertEqual(['web'], body['profiles'])
        self.assertEqual(('wf', 'install', False),
                         (body['workflow'], body['stage'],
                          body['runnable']))

    def test_patch_unknown_references_is_404(self):
        node = self.enroll()
        path = '/v1/nodes/%s' % node['uuid']
        self.assertError(404, self.patch_json(path, [
            {'op': 'add', 'path': '/profiles/-', 'value': 'nope'}]),
            'Profile nope')
        self.assertError(404, self.patch_json(path, [
            {'op': 'replace', 'path': '/workflow', 'value': 'nope'}]),
            'Workflow nope')
        self.assertError(404, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'profiles': ['nope']}))

    def test_pool_status_is_read_only(self):
        node = self.enroll()
        for field, value in (('pool', 'web'), ('pool_status', 'InUse'),
                             ('pool_allocated', True)):
            self.assertError(400, self.patch_json(
                '/v1/nodes/%s' % node['uuid'],
                [{'op': 'replace', 'path': '/' + field, 'value': value}]),
                'pool actions')

    def test_bad_pool_field_values_are_400(self):
        node = self.enroll()
        for field, value in (('params', []), ('profiles', 'web'),
                             ('runnable', 'yes'), ('stage', 'a b')):
            self.assertError(400, self.patch_json(
                '/v1/nodes/%s' % node['uuid'],
                [{'op': 'replace', 'path': '/' + field, 'value': value}]),
                field)


# The pool params every node has (Digital Rebar's), for a node Free in the
# default pool.
POOL_PARAMS = {'pool/name': 'default', 'pool/allocated': False,
               'pool/status': 'unallocated'}


class TestNodeParams(PoolAPITestCase):

    def setUp(self):
        super().setUp()
        self.path = '/v1/nodes/%s/params' % self.enroll()['uuid']

    def test_put_replaces(self):
        resp = self.put(self.path, {'inventory/data/CPUS': 3, 'b': 'x'})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.put(self.path, {'c': True})
        self.assertEqual({'c': True, **POOL_PARAMS},
                         self.get(self.path).get_json())

    def test_patch(self):
        self.put(self.path, {'inventory/data/CPUS': 3, 'b': 'x'})
        resp = self.patch_json(self.path, [
            {'op': 'replace', 'path': '/inventory~1data~1CPUS',
             'value': 4},
            {'op': 'remove', 'path': '/b'},
            {'op': 'add', 'path': '/n', 'value': {'deep': [1]}}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'inventory/data/CPUS': 4, 'n': {'deep': [1]},
                          **POOL_PARAMS}, self.get(self.path).get_json())

    def test_bad_input_is_400(self):
        self.assertError(400, self.put(self.path, [1]))
        self.assertError(400, self.put(self.path, raw=b'{'))
        self.assertError(400, self.patch_json(self.path, [
            {'op': 'remove', 'path': '/missing'}]), 'Cannot apply')
        self.assertError(400, self.patch_json(self.path, {'a': 1}))
        self.assertError(400, self.get(self.path + '?aggregate=maybe'))

    def test_unknown_node_is_404(self):
        self.assertError(404, self.get('/v1/nodes/nope/params'))
        self.assertError(404, self.put('/v1/nodes/nope/params', {}))

    def test_aggregate_overlays_profiles(self):
        self.create('profiles', {'name': 'first',
                                 'params': {'a': 1, 'b': 1, 'c': 1}})
        self.create('profiles', {'name': 'second',
                                 'params': {'b': 2, 'd': 2}})
        node_path = self.path.rsplit('/', 1)[0]
        self.patch_json(node_path, [{'op': 'add', 'path': '/profiles',
                                     'value': ['first', 'second']}])
        self.put(self.path, {'c': 'own'})
        self.assertEqual({'c': 'own', **POOL_PARAMS},
                         self.get(self.path).get_json())
        self.assertEqual({'a': 1, 'b': 1, 'c': 'own', 'd': 2, **POOL_PARAMS},
                         self.get(self.path + '?aggregate=true')
                         .get_json())


class TestNodeListFilters(PoolAPITestCase):

    def setUp(self):
        super().setUp()
        for i, cpus in enumerate((2, 4, 8)):
            node = self.enroll(name='n%d' % i)
            self.put('/v1/nodes/%s/params' % node['uuid'],
                     {'inventory/data/CPUS': cpus})

    def names(self, query: str) -> list[str]:
        resp = self.get('/v1/nodes?fields=name&' + query)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return [n['name'] for n in resp.get_json()['nodes']]

    def test_param_and_field_filters(self):
        self.assertEqual(['n1', 'n2'],
                         self.names('inventory/data/CPUS=Gte(4)'))
        self.assertEqual(['n1'], self.names(
            'inventory/data/CPUS=Gte(4)&name=Ne(n2)'))
        self.assertEqual(['n0', 'n1', 'n2'], self.names(
            'pool=default&pool_status=Free&runnable=true'))
        self.assertEqual([], self.names('pool=web'))

    def test_a_range_is_two_calls_on_one_key(self):
        self.assertEqual(['n1'], self.names(
            'inventory/data/CPUS=Gte(4)&inventory/data/CPUS=Lt(8)'))
        self.assertEqual(['n0', 'n2'], self.names(
            'inventory/data/CPUS=Ne(4)&name=In(n0,n2)&pool=default'))

    def test_the_detail_list_takes_filters_too(self):
        resp = self.get('/v1/nodes/detail?inventory/data/CPUS=Gt(4)')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(['n2'], [n['name']
                                  for n in resp.get_json()['nodes']])

    def test_ironic_filters_keep_their_meaning(self):
        self.assertEqual(['n0', 'n1', 'n2'],
                         self.names('provision_state=available'))
        # A plain value on a name pool does not know is not a filter.
        self.assertError(400, self.get('/v1/nodes?sharded=true'),
                         'Unknown argument: "sharded"')

    def test_malformed_filter_is_400_naming_the_key(self):
        self.assertError(400, self.get('/v1/nodes?cpus=Foo(3)'), '"cpus"')
        self.assertError(400, self.get('/v1/nodes?name=Re(()'), '"name"')
        self.assertError(400, self.get('/v1/nodes?runnable=maybe'),
                         '"runnable"')
