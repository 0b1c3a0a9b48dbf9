"""The allocations API: /v1/allocations and /v1/nodes/<node>/allocation."""
import time
from unittest import mock
import uuid

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base


class AllocationAPITestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)

    def run_casts(self):
        """Process the allocations the API sent, as the conductor would."""
        casts, self.casts = self.casts, []
        for alloc_id, _host in casts:
            self.worker.process(alloc_id)

    def allocate(self, body, status=201, **kw):
        resp = self.post('/v1/allocations', body, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def allocate_and_run(self, body):
        alloc = self.allocate(body)
        self.run_casts()
        return self.get('/v1/allocations/%s' % alloc['uuid']).get_json()

    # Creation and the conductor's work

    def test_create_returns_allocating_and_casts(self):
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal',
                                             'name': 'alloc-1',
                                             'extra': {'k': 'v'}})
        self.assertEqual(201, resp.status_code)
        body = resp.get_json()
        self.assertEqual('allocating', body['state'])
        self.assertEqual('alloc-1', body['name'])
        self.assertIsNone(body['node_uuid'])
        self.assertEqual({'k': 'v'}, body['extra'])
        self.assertEqual([], body['traits'])
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/allocations/%s' % body['uuid']))
        alloc = allocations_db.get_allocation(self.context, body['uuid'])
        self.assertEqual('test-host', alloc.conductor_affinity)
        self.assertEqual([(alloc.id, 'test-host')], self.casts)

    def test_allocation_becomes_active_and_node_shows_it(self):
        node = self.create_node(name='node-1', traits=['CUSTOM_GPU'])
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       'traits': ['CUSTOM_GPU']})
        self.assertEqual('active', alloc['state'])
        self.assertEqual(node.uuid, alloc['node_uuid'])
        self.assertEqual(['CUSTOM_GPU'], alloc['traits'])
        node_body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(alloc['uuid'], node_body['allocation_uuid'])
        self.assertEqual(alloc['uuid'], node_body['instance_uuid'])

    def test_no_matching_node_ends_in_error(self):
        self.create_node(resource_class='other')
        alloc = self.allocate_and_run({'resource_class': 'baremetal'})
        self.assertEqual('error', alloc['state'])
        self.assertIn('baremetal', alloc['last_error'])
        self.assertIsNone(alloc['node_uuid'])

    def test_candidate_nodes_by_name_are_stored_as_uuids(self):
        self.create_node(name='other-node')
        wanted = self.create_node(name='wanted')
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       'candidate_nodes': ['wanted']})
        self.assertEqual([wanted.uuid], alloc['candidate_nodes'])
        self.assertEqual(wanted.uuid, alloc['node_uuid'])

    def test_name_matching_a_node_is_preferred(self):
        for i in range(5):
            self.create_node(name='node-%d' % i)
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       'name': 'node-3'})
        node = nodes_db.get_node(self.context, 'node-3')
        self.assertEqual(node.uuid, alloc['node_uuid'])

    def test_owner_matches_node_owner_or_lessee(self):
        self.create_node(name='theirs', owner='other')
        leased = self.create_node(name='leased', owner='other',
                                  lessee='project-a')
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       'owner': 'project-a'})
        self.assertEqual(leased.uuid, alloc['node_uuid'])
        self.assertEqual('project-a', alloc['owner'])

    def test_create_with_uuid(self):
        wanted = str(uuid.uuid4())
        alloc = self.allocate({'resource_class': 'baremetal',
                               'uuid': wanted})
        self.assertEqual(wanted, alloc['uuid'])

    def test_no_live_conductor_is_503_and_creates_nothing(self):
        self.alive = []
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal'})
        self.assertError(503, resp, 'conductor')
        self.assertEqual([], allocations_db.list_allocations(self.context,
                                                             {}))

    def test_database_outage_is_503(self):
        refused = sa.exc.OperationalError(
            'connect', {}, Exception('Connection refused'))
        for error in (refused, db_exc.DBConnectionError()):
            with mock.patch.object(allocations_db, 'list_allocations',
                                   side_effect=error):
                self.assertError(503, self.get('/v1/allocations'),
                                 'database')

    def test_failed_cast_leaves_the_row_to_its_conductor(self):
        from pool_conductor import rpcapi

        def broken(*args, **kwargs):
            raise ConnectionError('message bus down')
        # The real queue and sender thread, with a message bus that is down.
        self.patch(rpcapi.ConductorAPI, 'create_allocation',
                   self.real_create_allocation)
        cast = mock.Mock(side_effect=broken)
        self.patch(rpcapi.ConductorAPI, 'client',
                   mock.Mock(prepare=mock.Mock(
                       return_value=mock.Mock(cast=cast))))
        alloc = self.allocate({'resource_class': 'baremetal'})
        for _ in range(100):
            if cast.called:
                break
            time.sleep(0.02)
        alloc_id = allocations_db.get_allocation(self.context,
                                                 alloc['uuid']).id
        # The message names the request that created the allocation, whose
        # events the conductor records with its outcome.
        cast.assert_called_once_with(
            mock.ANY, 'create_allocations', allocation_ids=[alloc_id],
            actors={str(alloc_id): [mock.ANY, mock.ANY, mock.ANY]})
        self.assertEqual('allocating', alloc['state'])
        self.assertEqual([allocations_db.get_allocation(
            self.context, alloc['uuid']).id],
            allocations_db.list_allocating_ids(self.context, 'test-host'))

    # Creation errors

    def test_resource_class_is_mandatory(self):
        self.assertError(400, self.post('/v1/allocations', {}),
                         'resource_class')
        self.assertError(400, self.post('/v1/allocations',
                                        {'resource_class': None}),
                         'resource_class')

    def test_null_fields_mean_absent(self):
        # openstacksdk sends null for every attribute left unset.
        node = self.create_node(name='node-1')
        nulls = {'uuid': None, 'name': None, 'traits': None,
                 'candidate_nodes': None, 'extra': None, 'node': None,
                 'owner': None, 'pool': None}
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       **nulls})
        self.assertEqual('active', alloc['state'])
        self.assertEqual(node.uuid, alloc['node_uuid'])
        self.assertIsNone(alloc['name'])
        self.assertEqual([], alloc['traits'])
        self.assertEqual([], alloc['candidate_nodes'])
        self.assertEqual({}, alloc['extra'])
        # A null node is not refused by versions without backfill; owner,
        # even null, needs 1.60, as in Ironic.
        del nulls['owner']
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal',
                                             **nulls}, version='1.52')
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertError(406, self.post(
            '/v1/allocations', {'resource_class': 'baremetal',
                                'owner': None}, version='1.59'))

    def test_backfill_with_null_resource_class(self):
        node = self.create_node(name='deployed', provision_state='active')
        alloc = self.allocate({'node': 'deployed', 'resource_class': None,
                               'traits': None})
        self.assertEqual(node.uuid, alloc['node_uuid'])
        self.assertEqual('baremetal', alloc['resource_class'])

    def test_unknown_candidate_is_400(self):
        self.create_node(name='known')
        resp = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'candidate_nodes': ['known', 'unknown']})
        self.assertError(400, resp, 'unknown')

    def test_invalid_trait_is_400(self):
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal',
                                             'traits': ['not-a-trait']})
        self.assertError(400, resp, 'not-a-trait')

    def test_invalid_name_is_400(self):
        for name in ('has space', str(uuid.uuid4()), ''):
            resp = self.post('/v1/allocations',
                             {'resource_class': 'baremetal', 'name': name})
            self.assertError(400, resp)

    def test_wrong_types_and_unknown_fields_are_400(self):
        for body in ({'resource_class': 5},
                     {'resource_class': 'x' * 81},
                     {'resource_class': 'rc', 'traits': 'CUSTOM_A'},
                     {'resource_class': 'rc', 'extra': []},
                     {'resource_class': 'rc', 'uuid': 'not-a-uuid'},
                     {'resource_class': 'rc', 'node_id': 1},
                     ['resource_class']):
            self.assertError(400, self.post('/v1/allocations', body))

    def test_body_that_is_not_json_is_400(self):
        resp = self.request('POST', '/v1/allocations', raw=b'{"resource')
        self.assertError(400, resp, 'JSON')
        resp = self.request('POST', '/v1/allocations', raw=b'')
        self.assertError(400, resp)

    def test_duplicate_name_and_uuid_are_409(self):
        first = self.allocate({'resource_class': 'baremetal',
                               'name': 'taken'})
        self.assertError(409, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'name': 'taken'}), 'taken')
        self.assertError(409, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'uuid': first['uuid']}))

    def test_uuid_used_as_instance_uuid_is_409(self):
        instance = str(uuid.uuid4())
        node = self.create_node(instance_uuid=instance,
                                provision_state='active')
        message = self.assertError(409, self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'uuid': instance}))
        self.assertEqual(
            'Instance %s is already associated with node %s; an allocation '
            'cannot take this UUID, as it would become the instance_uuid of '
            'its node.' % (instance, node.uuid), message)
        self.assertEqual([], self.get('/v1/allocations').get_json()[
            'allocations'])

    def test_no_version_header_names_the_needed_version(self):
        response = self.client.get('/v1/allocations')
        message = self.assertError(404, response)
        self.assertEqual(
            'The resource could not be found. It requires API version 1.52 '
            'or later, and this request asked for 1.1; send the '
            'X-OpenStack-Ironic-API-Version header (for example '
            '"X-OpenStack-Ironic-API-Version: 1.52").', message)

    def test_json_bodies_end_with_a_newline(self):
        self.create_node(name='n1')
        for path in ('/v1/allocations', '/v1/nodes', '/v1/nodes/n1', '/',
                     '/v1'):
            body = self.get(path).get_data()
            self.assertTrue(body.endswith(b'}\n'), (path, body))

    def test_owner_needs_1_60(self):
        self.assertError(406, self.post(
            '/v1/allocations', {'resource_class': 'baremetal',
                                'owner': 'p'}, version='1.59'))

    # Backfill

    def test_backfill_active_node(self):
        node = self.create_node(name='deployed', provision_state='active',
                                traits=['CUSTOM_A'])
        alloc = self.allocate({'node': 'deployed', 'traits': ['CUSTOM_A']})
        self.assertEqual('active', alloc['state'])
        self.assertEqual(node.uuid, alloc['node_uuid'])
        self.assertEqual('baremetal', alloc['resource_class'])
        self.assertEqual([], self.casts)
        node_body = self.get('/v1/nodes/deployed').get_json()
        self.assertEqual(alloc['uuid'], node_body['instance_uuid'])
        self.assertEqual(alloc['uuid'], node_body['allocation_uuid'])

    def _bound_fields(self, node: str) -> dict:
        body = self.get('/v1/nodes/%s' % node).get_json()
        return {k: body[k] for k in ('instance_info', 'pool_status',
                                     'pool_allocated')}

    def test_backfill_leaves_the_node_as_an_allocation_does(self):
        self.create_node(name='free', traits=['CUSTOM_A'])
        self.create_node(name='deployed', provision_state='active',
                         traits=['CUSTOM_A'])
        allocated = self.allocate_and_run({
            'resource_class': 'baremetal', 'traits': ['CUSTOM_A'],
            'candidate_nodes': ['free']})
        self.assertEqual('active', allocated['state'])
        backfilled = self.allocate({'node': 'deployed',
                                    'traits': ['CUSTOM_A']})
        self.assertEqual(['CUSTOM_A'], backfilled['traits'])
        self.assertEqual({'instance_info': {'traits': ['CUSTOM_A']},
                          'pool_status': 'InUse', 'pool_allocated': True},
                         self._bound_fields('free'))
        self.assertEqual(self._bound_fields('free'),
                         self._bound_fields('deployed'))

    def test_backfill_of_a_node_with_an_instance_records_traits(self):
        instance = str(uuid.uuid4())
        self.create_node(name='deployed', provision_state='active',
                         instance_uuid=instance, traits=['CUSTOM_A'])
        alloc = self.allocate({'node': 'deployed', 'traits': ['CUSTOM_A']})
        self.assertEqual(instance, alloc['uuid'])
        node = self.get('/v1/nodes/deployed').get_json()
        self.assertEqual({'traits': ['CUSTOM_A']}, node['instance_info'])
        self.assertEqual(alloc['uuid'], node['allocation_uuid'])

    def test_extra_never_chooses_the_pool(self):
        self.assertEqual(201, self.post('/v1/pools',
                                        {'name': 'other'}).status_code)
        default = self.create_node(name='in-default')
        self.create_node(name='in-other')
        self.assertEqual(200, self.post('/v1/pools/other/addMachines', {
            'machine_list': ['in-other']}).status_code)
        for extra in ({'pool': 'other'}, {'pool': 'missing'}):
            alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                           'extra': extra})
            self.assertEqual('active', alloc['state'], alloc['last_error'])
            self.assertEqual(default.uuid, alloc['node_uuid'])
            self.assertEqual('default', alloc['pool'])
            self.assertEqual(extra, alloc['extra'])
            self.assertEqual(204, self.delete(
                '/v1/allocations/%s' % alloc['uuid']).status_code)
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       'pool': 'other'})
        self.assertEqual('other', alloc['pool'])
        self.assertEqual({}, alloc['extra'])
        self.assertEqual('in-other', self.get(
            '/v1/nodes/%s' % alloc['node_uuid']).get_json()['name'])

    def test_backfill_keeps_existing_instance_uuid(self):
        instance = str(uuid.uuid4())
        self.create_node(name='deployed', provision_state='active',
                         instance_uuid=instance)
        alloc = self.allocate({'node': 'deployed'})
        self.assertEqual(instance, alloc['uuid'])

    def test_backfill_with_another_nodes_instance_uuid_is_409(self):
        instance = str(uuid.uuid4())
        holder = self.create_node(name='holder', provision_state='active',
                                  instance_uuid=instance)
        self.create_node(name='deployed', provision_state='active')
        self.assertError(409, self.post('/v1/allocations', {
            'node': 'deployed', 'uuid': instance}),
            'Instance %s is already associated with node %s'
            % (instance, holder.uuid))

    def test_backfill_errors(self):
        self.create_node(name='avail')
        self.create_node(name='active', provision_state='active')
        self.assertError(400, self.post('/v1/allocations',
                                        {'node': 'avail'}), 'active')
        self.assertError(400, self.post('/v1/allocations',
                                        {'node': 'nope'}), 'nope')
        self.assertError(400, self.post('/v1/allocations', {
            'node': 'active', 'resource_class': 'other'}), 'other')
        self.assertError(400, self.post('/v1/allocations', {
            'node': 'active'}, version='1.57'))
        self.allocate({'node': 'active'})
        self.assertError(409, self.post('/v1/allocations',
                                        {'node': 'active'}))

    # Reading

    def test_get_by_uuid_and_name_with_fields(self):
        alloc = self.allocate({'resource_class': 'baremetal',
                               'name': 'mine'})
        for ident in (alloc['uuid'], 'mine'):
            resp = self.get('/v1/allocations/%s?fields=uuid,state' % ident)
            self.assertEqual({'uuid': alloc['uuid'], 'state': 'allocating',
                              'links': alloc['links']}, resp.get_json())
        self.assertError(400, self.get('/v1/allocations/mine?fields=nope'),
                         'nope')
        self.assertError(404, self.get('/v1/allocations/other'), 'other')

    def test_list_filters(self):
        self.create_node(name='n1')
        active = self.allocate_and_run({'resource_class': 'baremetal'})
        failed = self.allocate_and_run({'resource_class': 'baremetal'})
        other = self.allocate({'resource_class': 'other', 'owner': 'p1'})

        def uuids(query):
            resp = self.get('/v1/allocations' + query)
            self.assertEqual(200, resp.status_code, resp.get_data())
            return [a['uuid'] for a in resp.get_json()['allocations']]

        self.assertEqual([active['uuid'], failed['uuid'], other['uuid']],
                         uuids(''))
        self.assertEqual([active['uuid']], uuids('?state=active'))
        self.assertEqual([failed['uuid']], uuids('?state=error'))
        self.assertEqual([other['uuid']], uuids('?resource_class=other'))
        self.assertEqual([active['uuid']], uuids('?node=n1'))
        self.assertEqual([other['uuid']], uuids('?owner=p1'))
        self.assertError(400, self.get('/v1/allocations?state=bogus'))
        self.assertError(400, self.get('/v1/allocations?node=missing'))
        self.assertError(406, self.get('/v1/allocations?owner=p1',
                                       version='1.59'))

    def test_list_pages_with_next_link(self):
        created = [self.allocate({'resource_class': 'baremetal'})['uuid']
                   for _ in range(5)]
        seen = []
        url = '/v1/allocations?limit=2&fields=uuid'
        while url:
            body = self.get(url).get_json()
            seen += [a['uuid'] for a in body['allocations']]
            self.assertLessEqual(len(body['allocations']), 2)
            url = body.get('next')
            if url:
                self.assertIn('fields=uuid', url)
                url = url[len('http://localhost'):]
        self.assertEqual(created, seen)

    def test_list_sort_and_limit_errors(self):
        names = ['b', 'c', 'a']
        for name in names:
            self.allocate({'resource_class': 'baremetal', 'name': name})
        body = self.get('/v1/allocations?sort_key=name&sort_dir=desc')
        self.assertEqual(['c', 'b', 'a'],
                         [a['name'] for a in body.get_json()['allocations']])
        self.assertError(400, self.get('/v1/allocations?sort_key=traits'))
        self.assertError(400, self.get('/v1/allocations?sort_dir=up'))
        self.assertError(400, self.get('/v1/allocations?limit=-1'))
        self.assertError(400, self.get('/v1/allocations?limit=ten'))
        self.assertError(404, self.get('/v1/allocations?marker=nope'))

    def test_pages_follow_next_in_any_order(self):
        names = ['a-3', 'a-1', 'a-4', 'a-0', 'a-2']
        for name in names:
            self.allocate({'resource_class': 'baremetal', 'name': name})
        for sort_dir in ('asc', 'desc'):
            url = '/v1/allocations?limit=2&sort_key=name&sort_dir=' + sort_dir
            seen = []
            while url:
                body = self.get(url).get_json()
                seen += [a['name'] for a in body['allocations']]
                url = body.get('next', '').partition('localhost')[2] or None
                self.assertLessEqual(len(seen), len(names))
            self.assertEqual(sorted(names, reverse=sort_dir == 'desc'), seen)

    def test_limit_is_capped_by_max_limit(self):
        self.config(max_limit=2, group='api')
        for _ in range(3):
            self.allocate({'resource_class': 'baremetal'})
        body = self.get('/v1/allocations?limit=100').get_json()
        self.assertEqual(2, len(body['allocations']))
        self.assertIn('limit=2', body['next'])

    def test_owner_hidden_below_1_60(self):
        alloc = self.allocate({'resource_class': 'baremetal'})
        body = self.get('/v1/allocations/%s' % alloc['uuid'],
                        version='1.59').get_json()
        self.assertNotIn('owner', body)
        self.assertError(400, self.get(
            '/v1/allocations/%s?fields=owner' % alloc['uuid'],
            version='1.59'))

    def test_allocations_api_needs_1_52(self):
        message = self.assertError(404, self.get('/v1/allocations',
                                                 version='1.51'))
        self.assertIn('requires API version 1.52 or later, and this request '
                      'asked for 1.51', message)
        self.assertError(404, self.post('/v1/allocations',
                                        {'resource_class': 'baremetal'},
                                        version='1.51'))
        self.assertNotIn('allocations',
                         self.get('/v1', version='1.51').get_json())
        self.assertIn('allocations', self.get('/v1').get_json())

    # Updating

    def test_patch_name_and_extra(self):
        alloc = self.allocate({'resource_class': 'baremetal',
                               'extra': {'a': 1}})
        resp = self.patch_json('/v1/allocations/%s' % alloc['uuid'], [
            {'op': 'add', 'path': '/name', 'value': 'renamed'},
            {'op': 'add', 'path': '/extra/b', 'value': 2},
            {'op': 'remove', 'path': '/extra/a'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('renamed', resp.get_json()['name'])
        self.assertEqual({'b': 2}, resp.get_json()['extra'])
        resp = self.patch_json('/v1/allocations/renamed', [
            {'op': 'remove', 'path': '/name'},
            {'op': 'remove', 'path': '/extra'}])
        self.assertIsNone(resp.get_json()['name'])
        self.assertEqual({}, resp.get_json()['extra'])

    def test_patch_null_extra_empties_it(self):
        alloc = self.allocate({'resource_class': 'baremetal',
                               'extra': {'k': 'v'}})
        resp = self.patch_json('/v1/allocations/%s' % alloc['uuid'], [
            {'op': 'replace', 'path': '/extra', 'value': None}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({}, resp.get_json()['extra'])
        self.assertEqual({}, self.get('/v1/allocations/%s' % alloc['uuid'])
                         .get_json()['extra'])

    def test_patch_errors(self):
        alloc = self.allocate({'resource_class': 'baremetal'})
        path = '/v1/allocations/%s' % alloc['uuid']
        self.allocate({'resource_class': 'baremetal', 'name': 'taken'})
        for ops in ([{'op': 'replace', 'path': '/resource_class',
                      'value': 'x'}],
                    [{'op': 'replace', 'path': '/state', 'value': 'active'}],
                    [{'op': 'replace', 'path': '/nothing', 'value': 1}],
                    [{'op': 'add', 'path': '/name', 'value': 'bad name'}],
                    [{'op': 'add', 'path': '/extra', 'value': 'str'}],
                    [{'op': 'remove', 'path': '/extra/missing'}],
                    [{'op': 'move', 'path': '/name', 'from': '/extra'}],
                    [{'op': 'add', 'path': '/name'}],
                    []):
            self.assertError(400, self.patch_json(path, ops))
        self.assertError(409, self.patch_json(path, [
            {'op': 'add', 'path': '/name', 'value': 'taken'}]))
        self.assertError(405, self.patch_json(path, [
            {'op': 'add', 'path': '/name', 'value': 'x'}], version='1.56'))
        self.assertError(404, self.patch_json('/v1/allocations/nope', [
            {'op': 'add', 'path': '/name', 'value': 'x'}]))

    # Deleting

    def test_delete_releases_node(self):
        node = self.create_node()
        alloc = self.allocate_and_run({'resource_class': 'baremetal'})
        resp = self.delete('/v1/allocations/%s' % alloc['uuid'])
        self.assertEqual(204, resp.status_code)
        self.assertError(404, self.get('/v1/allocations/%s'
                                       % alloc['uuid']))
        node = self.get('/v1/nodes/%s' % node.uuid).get_json()
        self.assertIsNone(node['instance_uuid'])
        self.assertIsNone(node['allocation_uuid'])

    def test_delete_of_active_node_needs_maintenance(self):
        node = self.create_node(provision_state='active')
        alloc = self.allocate({'node': node.uuid})
        path = '/v1/allocations/%s' % alloc['uuid']
        self.assertError(409, self.delete(path), 'maintenance')
        nodes_db.update_node(self.context,
                             nodes_db.get_node(self.context, node.uuid),
                             {'maintenance': True})
        self.assertEqual(204, self.delete(path).status_code)

    def test_delete_unknown_is_404(self):
        self.assertError(404, self.delete('/v1/allocations/nope'))

    def test_node_allocation_endpoints(self):
        node = self.create_node(name='n1')
        self.create_node(name='free')
        alloc = self.allocate_and_run({'resource_class': 'baremetal',
                                       'candidate_nodes': ['n1']})
        resp = self.get('/v1/nodes/n1/allocation?fields=uuid,node_uuid')
        self.assertEqual({'uuid': alloc['uuid'], 'node_uuid': node.uuid,
                          'links': alloc['links']}, resp.get_json())
        self.assertError(404, self.get('/v1/nodes/free/allocation'))
        self.assertError(404, self.get('/v1/nodes/nope/allocation'))
        self.assertEqual(204,
                         self.delete('/v1/nodes/n1/allocation').status_code)
        self.assertError(404, self.get('/v1/nodes/n1/allocation'))
        self.assertError(404, self.delete('/v1/nodes/n1/allocation'))

    def test_node_with_foreign_instance_uuid_is_400(self):
        self.create_node(name='n1', instance_uuid=str(uuid.uuid4()))
        self.assertError(400, self.get('/v1/nodes/n1/allocation'))


class ConductorChoiceTestCase(base.APITestCase):
    """The live conductor a new allocation is sent to: the same for the
    same pool and resource class, whichever API process picks it."""

    def setUp(self):
        super().setUp()
        self.alive = ['c1', 'c2', 'c3']
        # No pick is held for a cast interval.
        self.config(allocation_cast_interval=0, group='api')

    def hosts(self, resource_class: str, count: int = 1, pool=None,
              client=None) -> set[str]:
        """The conductors count allocations of the class were sent to."""
        self.casts.clear()
        body = {'resource_class': resource_class}
        if pool:
            body['pool'] = pool
        for _ in range(count):
            resp = (client or self.client).post(
                '/v1/allocations', json=body,
                headers={'X-OpenStack-Ironic-API-Version': self.version})
            self.assertEqual(201, resp.status_code, resp.get_data())
        return {host for _id, host in self.casts}

    def test_a_class_goes_to_one_conductor(self):
        self.assertEqual(1, len(self.hosts('gold', count=20)))

    def test_every_api_process_picks_the_same_conductor(self):
        # Another API process: its own application and conductor client.
        other = base.pool_app.create_app().test_client()
        for i in range(6):
            self.assertEqual(self.hosts('class-%d' % i),
                             self.hosts('class-%d' % i, client=other))

    def test_classes_and_pools_spread_over_the_conductors(self):
        self.assertEqual(set(self.alive), set().union(*(
            self.hosts('class-%d' % i) for i in range(24))))
        for i in range(24):
            self.assertEqual(201, self.post('/v1/pools', {
                'name': 'pool-%d' % i}).status_code)
        self.assertEqual(set(self.alive), set().union(*(
            self.hosts('gold', pool='pool-%d' % i) for i in range(24))))

    def test_a_dead_conductor_moves_only_its_classes(self):
        classes = ['class-%d' % i for i in range(24)]
        before = {c: self.hosts(c).pop() for c in classes}
        gone = before['class-0']
        self.alive.remove(gone)
        after = {c: self.hosts(c).pop() for c in classes}
        self.assertEqual(
            {c: h for c, h in before.items() if h != gone},
            {c: h for c, h in after.items() if before[c] != gone})
        self.assertNotIn(gone, after.values())
