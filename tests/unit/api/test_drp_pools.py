"""Digital Rebar's pools as its documents tell them: waits and their
timeouts, the pool params of machines, returnToPool, AutoFill's create
parameters, pool Meta, and pools exported and imported as content."""
import time

from pool_conductor import autofill
from pool_conductor.db import conductors as conductors_db
from pool_conductor import events
from pool_conductor import rpc
from pool_conductor import service
from pool_conductor import workflows
from tests.unit.api import test_pool_actions


class DRPTestCase(test_pool_actions.PoolActionTestCase):

    def setUp(self):
        super().setUp()
        self.create('workflows', {'name': 'deploy', 'stages': [
            'discover', 'install', 'complete']})
        self.make_pool()
        self.add(self.uuids)

    def params(self, ident: str) -> dict:
        resp = self.get('/v1/nodes/%s/params' % ident)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()

    def pool_params(self, ident: str) -> tuple:
        found = self.params(ident)
        return (found['pool/name'], found['pool/allocated'],
                found['pool/status'])

    def events_of(self, uuid: str, event_type: str) -> list[dict]:
        events.sequence()
        resp = self.get('/v1/events?since=0&object_uuid=%s&event_type=%s'
                        % (uuid, event_type))
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()['events']

    def run_conductor(self, stage_delay: float) -> None:
        """A conductor driving workflows with the fake provisioner, each
        stage taking stage_delay seconds."""
        self.config(driver='fake', fake_stage_delay=stage_delay,
                    group='provisioner')
        self.config(check_workflows_interval=0.05,
                    check_allocations_interval=0, group='conductor')
        self.addCleanup(rpc.cleanup)
        svc = service.ConductorService('test-host')
        svc.start()
        self.addCleanup(svc.stop)

    def wait_for(self, check, timeout: float = 15):
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)


class TestWaits(DRPTestCase):
    """pool/wait-timeout: "the number of seconds the allocation operation
    should wait for machines to get to the stage specified by
    pool/wait-for-stage. The default is 7200 seconds." pool/status
    timeout: "an allocated machine that timed out waiting for the
    specified stage"."""

    def test_wait_timeout_without_blocking_times_the_node_out(self):
        self.run_conductor(stage_delay=60)
        uuid = self.action('web', 'allocateMachines', {
            'new_workflow': 'deploy', 'wait_for_stage': 'complete',
            'wait_timeout': 0}).get_json()[0]['uuid']
        self.wait_for(lambda: self.params(uuid)['pool/status'] == 'timeout')
        self.assertEqual(('web', True, 'timeout'), self.pool_params(uuid))
        # It stays Building: reaching the stage later still completes it.
        self.assertEqual('Building', self.node(uuid)['pool_status'])
        found = self.events_of(uuid, 'pool.node.wait_timeout.error')
        self.assertEqual(1, len(found), found)
        self.assertEqual(('Building', 'timeout', 'warning'),
                         (found[0]['prev_state'], found[0]['state'],
                          found[0]['level']))

    def test_a_wait_within_its_timeout_is_not_timed_out(self):
        uuid = self.action('web', 'allocateMachines', {
            'wait_for_stage': 'complete', 'wait_timeout': 3600}
        ).get_json()[0]['uuid']
        self.assertEqual(0, workflows.time_out_waits(self.context))
        self.assertEqual(('web', True, 'allocated'), self.pool_params(uuid))

    def test_the_default_wait_timeout_applies_without_one(self):
        self.config(default_wait_timeout=1, group='pool')
        uuid = self.action('web', 'allocateMachines', {
            'wait_for_stage': 'complete'}).get_json()[0]['uuid']
        self.assertEqual(0, workflows.time_out_waits(self.context))
        time.sleep(1.1)
        self.assertEqual(1, workflows.time_out_waits(self.context))
        self.assertEqual('timeout', self.params(uuid)['pool/status'])
        # Reaching its stage afterwards completes it all the same.
        self.patch_json('/v1/nodes/%s' % uuid, [
            {'op': 'replace', 'path': '/stage', 'value': 'complete'}])
        self.assertEqual(('web', True, 'complete'), self.pool_params(uuid))

    def test_a_return_times_out_too(self):
        uuid = self.action('web', 'allocateMachines').get_json()[0]['uuid']
        self.action('web', 'returnMachines', {
            'machine_list': [uuid], 'wait_for_stage': 'wiped',
            'wait_timeout': 0})
        self.assertEqual(1, workflows.time_out_waits(self.context))
        self.assertEqual(('Destroying', 'timeout'), (
            self.node(uuid)['pool_status'],
            self.params(uuid)['pool/status']))

    def test_blocking_waits_up_to_the_seeds_default(self):
        self.run_conductor(stage_delay=0.05)
        resp = self.action('web', 'allocateMachines', {
            'count': 2, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete', 'blocking': True})
        # Neither capped to a minute nor shortened: 7200 s, the seed's.
        self.assertEqual('7200', resp.headers['X-Pool-Wait-Timeout'])
        self.assertEqual(['InUse', 'InUse'],
                         [r['status'] for r in resp.get_json()])
        resp = self.action('web', 'allocateMachines', {
            'new_workflow': 'deploy', 'wait_for_stage': 'complete',
            'blocking': True, 'wait_timeout': 600})
        self.assertEqual('600', resp.headers['X-Pool-Wait-Timeout'])

    def test_blocking_past_wait_timeout_records_the_timeout(self):
        self.run_conductor(stage_delay=60)
        resp = self.action('web', 'allocateMachines', {
            'new_workflow': 'deploy', 'wait_for_stage': 'complete',
            'blocking': True, 'wait_timeout': 1})
        body = resp.get_json()
        self.assertEqual(['timeout'], [r['status'] for r in body])
        # Recorded at once, not left to a conductor's next round.
        self.assertEqual('timeout', self.params(body[0]['uuid'])
                         ['pool/status'])
        self.assertEqual(1, len(self.events_of(
            body[0]['uuid'], 'pool.node.wait_timeout.error')))

    def test_blocking_holds_a_waiters_place_or_is_refused_first(self):
        self.config(max_waiters=0, group='api')
        resp = self.post('/v1/pools/web/allocateMachines', {
            'wait_for_stage': 'complete', 'blocking': True})
        self.assertError(429, resp, 'max_waiters')
        self.assertIn('Retry-After', resp.headers)
        # Refused before anything was done.
        self.assertEqual(4, self.get('/v1/pools/web/status').get_json()
                         ['statuses']['Free'])
        # Without blocking the same action runs.
        self.action('web', 'allocateMachines', {'wait_for_stage':
                                                'complete'})


class TestPoolParams(DRPTestCase):
    """"The pool name is stored in the pool/name Param with a default of
    default; the pool allocated state in pool/allocated ... false; the
    pool status in pool/status" with the values unallocated, allocated,
    complete, timeout and error."""

    def test_values_follow_the_pool_fields(self):
        self.action('web', 'removeMachines',
                    {'machine_list': ['n3']})
        self.assertEqual(('default', False, 'unallocated'),
                         self.pool_params('n3'))
        self.assertEqual(('web', False, 'unallocated'),
                         self.pool_params('n0'))
        done = self.action('web', 'allocateMachines', {
            'filter': {'name': 'Eq(n0)'}}).get_json()[0]['uuid']
        self.assertEqual(('web', True, 'complete'), self.pool_params(done))
        building = self.action('web', 'allocateMachines', {
            'filter': {'name': 'Eq(n1)'}, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete'}).get_json()[0]['uuid']
        self.assertEqual(('web', True, 'allocated'),
                         self.pool_params(building))
        self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/runnable', 'value': False}])
        self.assertEqual('HoldBuild', self.node('n1')['pool_status'])
        self.assertEqual(('web', True, 'error'), self.pool_params('n1'))
        self.post('/v1/nodes/n0/returnToPool', {})
        self.assertEqual(('web', False, 'unallocated'),
                         self.pool_params('n0'))
        aggregate = self.get('/v1/nodes/n1/params?aggregate=true').get_json()
        self.assertEqual('error', aggregate['pool/status'])

    def test_filters_on_the_pool_params(self):
        self.action('web', 'allocateMachines', {'filter': {
            'name': 'Eq(n0)'}})
        self.action('web', 'allocateMachines', {
            'filter': {'name': 'Eq(n1)'}, 'wait_for_stage': 'complete'})

        def names(query: str) -> list[str]:
            resp = self.get('/v1/nodes?fields=name&' + query)
            self.assertEqual(200, resp.status_code, resp.get_data())
            return sorted(n['name'] for n in resp.get_json()['nodes'])

        self.assertEqual(['n0'], names('pool/status=complete'))
        self.assertEqual(['n1'], names('pool/status=Eq(allocated)'))
        self.assertEqual(['n2', 'n3'], names('pool/status=unallocated'))
        self.assertEqual(['n0', 'n1'], names('pool/allocated=true'))
        self.assertEqual(['n0', 'n1', 'n2', 'n3'],
                         names('pool/name=web'))
        self.assertEqual(['n0', 'n1'], names(
            'pool/status=In(complete,allocated)'))
        # The pool actions' filter takes them too.
        body = self.action('web', 'allocateMachines', {
            'filter': {'pool/status': 'Eq(unallocated)',
                       'pool/name': 'Eq(web)'}, 'count': 2}).get_json()
        self.assertEqual(2, len(body))
        self.assertError(400, self.get('/v1/nodes?pool/allocated=Gt(1)'))

    def test_they_are_derived_never_stored(self):
        path = '/v1/nodes/n0/params'
        # Written back as read, they are accepted and not stored.
        current = self.params('n0')
        resp = self.put(path, {**current, 'rack': 'r1'})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'rack': 'r1'}, self.node('n0')['params'])
        self.assertEqual('unallocated', resp.get_json()['pool/status'])
        # Changed, they are refused: the pool actions change them.
        self.assertError(400, self.put(path, {'pool/status': 'complete'}),
                         'pool/status')
        self.assertError(400, self.patch_json(path, [
            {'op': 'replace', 'path': '/pool~1name', 'value': 'other'}]),
            'pool/name')
        self.assertError(400, self.post('/v1/pools/web/allocateMachines', {
            'add_parameters': {'pool/allocated': True}}), 'pool/allocated')
        self.assertError(400, self.post('/v1/pools', {
            'name': 'x', 'release_actions': {
                'remove_parameters': ['pool/status']}}), 'pool/status')


class TestCreateParameters(test_pool_actions.PoolActionTestCase):
    """AutoFill "CreateParameters are the parameters to apply to a create
    machine"."""

    def test_params_of_create_parameters_reach_the_node(self):
        conductors_db.register_conductor(self.context, 'test-host')
        self.create('brokers', {'name': 'cloud', 'driver': 'fake'})
        self.create('pools', {
            'name': 'vms', 'broker': 'cloud',
            'enter_actions': {'add_parameters': {'joined': True}},
            'autofill': {'use_autofill': True, 'min_free': 2,
                         'create_parameters': {
                             'resource_class': 'vm',
                             'params': {'rack': 'r9',
                                        'inventory/data/CPUS': 8}}}})
        autofill.AutoFiller('test-host').check(self.context)
        nodes = self.get('/v1/nodes?pool=vms&fields=uuid,resource_class'
                         ).get_json()['nodes']
        self.assertEqual(['vm', 'vm'], [n['resource_class'] for n in nodes])
        for node in nodes:
            self.assertEqual(
                {'rack': 'r9', 'inventory/data/CPUS': 8, 'joined': True,
                 'pool/name': 'vms', 'pool/allocated': False,
                 'pool/status': 'unallocated'},
                self.get('/v1/nodes/%s/params' % node['uuid']).get_json())
        # Filterable as any param: allocate by them.
        body = self.action('vms', 'allocateMachines', {
            'filter': {'inventory/data/CPUS': 'Gte(8)', 'rack': 'Eq(r9)'}}
        ).get_json()
        self.assertEqual(1, len(body))

    def test_invalid_params_are_400(self):
        for params in ([1], 'x', {'pool/status': 'complete'}):
            self.assertError(400, self.post('/v1/pools', {
                'name': 'vms', 'autofill': {
                    'create_parameters': {'params': params}}}))


class TestReturnToPool(DRPTestCase):
    """returnToPool: "This action only operates on one machine. The
    command returns "Success" or an error object." """

    def test_answers_success(self):
        uuid = self.action('web', 'allocateMachines').get_json()[0]['uuid']
        resp = self.post('/v1/nodes/%s/returnToPool' % uuid, {
            'add_parameters': {'wiped': False}})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('Success', resp.get_json())
        self.assertEqual(('web', False, 'unallocated'),
                         self.pool_params(uuid))
        self.assertFalse(self.params(uuid)['wiped'])

    def test_errors_are_error_objects(self):
        # Not allocated: nothing to return.
        self.assertError(400, self.post('/v1/nodes/n0/returnToPool', {}),
                         'InUse')
        # One machine only: the node it is run on.
        self.action('web', 'allocateMachines', {'count': 2})
        self.assertError(400, self.post('/v1/nodes/n0/returnToPool', {
            'machine_list': ['n1']}), 'returnMachines')
        self.assertError(404, self.post('/v1/nodes/nope/returnToPool', {}))

    def test_blocking_return_past_its_timeout_is_an_error(self):
        self.run_conductor(stage_delay=60)
        self.create('workflows', {'name': 'wipe', 'stages': ['erase',
                                                             'wiped']})
        uuid = self.action('web', 'allocateMachines').get_json()[0]['uuid']
        resp = self.post('/v1/nodes/%s/returnToPool' % uuid, {
            'new_workflow': 'wipe', 'wait_for_stage': 'wiped',
            'blocking': True, 'wait_timeout': 1})
        self.assertError(409, resp, 'did not reach stage wiped')
        self.assertEqual(('Destroying', 'timeout'), (
            self.node(uuid)['pool_status'],
            self.params(uuid)['pool/status']))

    def test_blocking_return_answers_success_once_there(self):
        self.run_conductor(stage_delay=0.05)
        self.create('workflows', {'name': 'wipe', 'stages': ['erase',
                                                             'wiped']})
        uuid = self.action('web', 'allocateMachines').get_json()[0]['uuid']
        resp = self.post('/v1/nodes/%s/returnToPool' % uuid, {
            'new_workflow': 'wipe', 'wait_for_stage': 'wiped',
            'blocking': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('Success', resp.get_json())
        self.assertEqual('Free', self.node(uuid)['pool_status'])

    def test_force_ignores_blocking(self):
        # "All other waiting, blocking, and timeouts will be ignored."
        self.config(max_waiters=0, group='api')
        uuid = self.action('web', 'allocateMachines', {
            'wait_for_stage': 'complete'}).get_json()[0]['uuid']
        resp = self.post('/v1/nodes/%s/returnToPool' % uuid, {
            'force': True, 'blocking': True, 'wait_for_stage': 'wiped'})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('Free', self.node(uuid)['pool_status'])


class TestMeta(test_pool_actions.PoolActionTestCase):
    """Pool Meta: "a key / value map ... The key type is string. The
    value type is also string ... common known keys: color, icon,
    title"."""

    def test_create_show_update(self):
        meta = {'color': 'blue', 'icon': 'server', 'title': 'From the lab',
                'owner/team': 'infra'}
        pool = self.create('pools', {'name': 'lab', 'meta': meta})
        self.assertEqual(meta, pool['meta'])
        self.assertEqual(meta, self.get('/v1/pools/lab').get_json()['meta'])
        resp = self.patch_json('/v1/pools/lab', [
            {'op': 'replace', 'path': '/meta/color', 'value': 'red'},
            {'op': 'remove', 'path': '/meta/owner~1team'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'color': 'red', 'icon': 'server',
                          'title': 'From the lab'},
                         self.get('/v1/pools/lab').get_json()['meta'])
        # Every pool has one, empty by default.
        self.assertEqual({}, self.get('/v1/pools/default').get_json()
                         ['meta'])
        listed = {p['name']: p['meta'] for p in
                  self.get('/v1/pools').get_json()['pools']}
        self.assertEqual('red', listed['lab']['color'])

    def test_values_are_strings(self):
        for meta in ({'color': 1}, {'a': None}, {'': 'x'}, [], 'blue',
                     {'k': 'x' * 5000}):
            self.assertError(400, self.post('/v1/pools', {
                'name': 'lab', 'meta': meta}))
        self.create('pools', {'name': 'lab'})
        self.assertError(400, self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/meta/color', 'value': {'r': 1}}]))


class TestContent(test_pool_actions.PoolActionTestCase):
    """"Pools are static configuration objects that can be shared through
    content packs": export, delete, import, export again is the same."""

    def populate(self):
        self.create('workflows', {'name': 'deploy', 'description': 'Go',
                                  'stages': ['install', 'complete']})
        self.create('profiles', {'name': 'base', 'params': {
            'ntp': 'pool.ntp.org', 'bmc_password': 'hunter22',
            'vault': 'v-1'}, 'secret_params': ['vault']})
        self.create('brokers', {'name': 'cloud', 'driver': 'fake',
                                'description': 'VMs', 'parameters': {
                                    'resource_class': 'vm',
                                    'api_token': 's3cr3t-t0ken'}})
        self.create('pools', {
            'name': 'spare', 'meta': {'color': 'grey'}})
        self.create('pools', {
            'name': 'web', 'parent_pool': 'spare', 'broker': 'cloud',
            'description': 'Web', 'meta': {'color': 'blue', 'icon': 'web',
                                           'title': 'Web servers'},
            'allocate_actions': {'workflow': 'deploy',
                                 'add_profiles': ['base'],
                                 'add_parameters': {'role': 'web'},
                                 'wait_for_stage': 'complete'},
            'lifespan': {'default': '4h', 'maximum': '7d'},
            'autofill': {'use_autofill': True, 'min_free': 1,
                         'acquire_pool': 'spare',
                         'create_parameters': {'params': {'rack': 'r1'},
                                               'password': 'pw-123456'}}})
        self.create('providers', {'name': 'small', 'pool': 'web',
                                  'defaults': {'resource_class': 'vm'}})

    def export(self) -> dict:
        resp = self.get('/v1/content')
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()

    def delete_all(self):
        for path in ('/v1/providers/small', '/v1/pools/web',
                     '/v1/pools/spare', '/v1/brokers/cloud',
                     '/v1/profiles/base', '/v1/workflows/deploy'):
            self.assertEqual(204, self.delete(path).status_code, path)

    def test_round_trip(self):
        self.populate()
        first = self.export()
        sections = first['sections']
        self.assertEqual({'workflows', 'profiles', 'brokers', 'pools',
                          'providers'}, set(sections))
        self.assertEqual(['default', 'spare', 'web'],
                         sorted(sections['pools']))
        web = sections['pools']['web']
        self.assertEqual(('spare', 'cloud', 'Web servers'), (
            web['parent_pool'], web['broker'], web['meta']['title']))
        self.delete_all()
        resp = self.post('/v1/content', first)
        self.assertEqual(200, resp.status_code, resp.get_data())
        done = resp.get_json()
        self.assertEqual(['spare', 'web'], done['pools']['created'])
        self.assertEqual(['default'], done['pools']['unchanged'])
        self.assertEqual(['small'], done['providers']['created'])
        self.assertEqual(first, self.export())
        # Imported again, nothing changes.
        done = self.post('/v1/content', first).get_json()
        self.assertEqual({kind: [] for kind in done},
                         {kind: d['created'] + d['updated']
                          for kind, d in done.items()})

    def test_secrets_are_left_out_and_kept_by_an_import(self):
        self.populate()
        document = self.export()
        text = self.get('/v1/content').get_data(as_text=True)
        for secret in ('hunter22', 'v-1', 's3cr3t-t0ken', 'pw-123456'):
            self.assertNotIn(secret, text)
        self.assertEqual({'ntp': 'pool.ntp.org'},
                         document['sections']['profiles']['base']['params'])
        self.assertEqual({'resource_class': 'vm'}, document['sections']
                         ['brokers']['cloud']['parameters'])
        # Importing over the objects changes what the document says and
        # keeps the secrets it left out.
        document['sections']['profiles']['base']['params']['ntp'] = 'x'
        done = self.post('/v1/content', document).get_json()
        self.assertEqual(['base'], done['profiles']['updated'])
        self.assertEqual(['cloud'], done['brokers']['unchanged'])
        from pool_conductor.db import models
        from pool_conductor.db import pools as pools_db
        profile = pools_db.get(self.context, models.Profile, 'base')
        self.assertEqual({'ntp': 'x', 'bmc_password': 'hunter22',
                          'vault': 'v-1'}, profile.params)
        broker = pools_db.get(self.context, models.Broker, 'cloud')
        self.assertEqual('s3cr3t-t0ken', broker.parameters['api_token'])

    def test_an_import_is_whole_or_nothing(self):
        self.populate()
        document = self.export()
        self.delete_all()
        document['sections']['providers']['small']['pool'] = 'nope'
        self.assertError(404, self.post('/v1/content', document), 'nope')
        self.assertEqual(['default'], [
            p['name'] for p in self.get('/v1/pools').get_json()['pools']])
        self.assertEqual([], self.get('/v1/workflows').get_json()
                         ['workflows'])

    def test_bad_documents_are_400(self):
        for document in ({}, {'sections': {'nodes': {}}},
                         {'sections': {'pools': {'a b': {}}}},
                         {'sections': {'pools': {'x': {'colour': 1}}}},
                         {'sections': {'pools': {
                             'a': {'parent_pool': 'b'},
                             'b': {'parent_pool': 'a'}}}},
                         {'sections': {'brokers': {'b': {}}}},
                         {'sections': {}, 'extra': 1}, []):
            self.assertError(400, self.post('/v1/content', document))
