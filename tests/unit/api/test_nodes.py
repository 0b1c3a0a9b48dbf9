"""The nodes API: /v1/nodes, node states and maintenance."""
import datetime
import uuid

from pool_api import microversion
from pool_conductor import allocations
from pool_conductor.baremetal import provisioning
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base


class NodeAPITestCase(base.APITestCase):

    def create(self, body=None, status=201, **kw):
        body = dict(body or {})
        body.setdefault('driver', 'fake-hardware')
        resp = self.post('/v1/nodes', body, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def node_db(self, ident):
        return nodes_db.get_node(self.context, ident)

    def backfill(self, node_ident):
        """Give an active node an allocation, as the conductor would."""
        node = self.node_db(node_ident)
        return allocations.backfill(self.context, {}, node)


class TestCreate(NodeAPITestCase):

    def test_create_returns_node_and_location(self):
        resp = self.post('/v1/nodes', {
            'driver': 'ipmi', 'name': 'node-1', 'description': 'rack 4',
            'resource_class': 'baremetal', 'properties': {'cpus': 8},
            'extra': {'k': 'v'}, 'driver_info': {'ipmi_address': '1.2.3.4'},
            'owner': 'proj-a', 'lessee': 'proj-b'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertTrue(uuid.UUID(body['uuid']))
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/nodes/%s' % body['uuid']))
        self.assertEqual('node-1', body['name'])
        self.assertEqual('rack 4', body['description'])
        self.assertEqual('ipmi', body['driver'])
        self.assertEqual('baremetal', body['resource_class'])
        self.assertEqual({'cpus': 8}, body['properties'])
        self.assertEqual({'k': 'v'}, body['extra'])
        self.assertEqual({'ipmi_address': '1.2.3.4'}, body['driver_info'])
        self.assertEqual({}, body['instance_info'])
        self.assertEqual('proj-a', body['owner'])
        self.assertEqual('proj-b', body['lessee'])
        self.assertEqual('enroll', body['provision_state'])
        self.assertIsNone(body['power_state'])
        self.assertIsNone(body['target_provision_state'])
        self.assertIs(False, body['maintenance'])
        self.assertIsNone(body['maintenance_reason'])
        self.assertEqual([], body['traits'])
        self.assertIsNone(body['instance_uuid'])
        self.assertIsNone(body['allocation_uuid'])
        self.assertIsNone(body['reservation'])
        self.assertIsNone(body['last_error'])
        self.assertIsNone(body['updated_at'])
        self.assertTrue(body['created_at'].endswith('+00:00'))
        self.assertEqual('self', body['links'][0]['rel'])
        self.assertTrue(body['links'][0]['href'].endswith(
            '/v1/nodes/%s' % body['uuid']))
        self.assertEqual('bookmark', body['links'][1]['rel'])

    def test_representation_has_the_ironic_and_pool_fields(self):
        body = self.create()
        self.assertEqual(
            {'uuid', 'name', 'description', 'driver', 'resource_class',
             'traits', 'properties', 'extra', 'instance_info',
             'driver_info', 'chassis_uuid', 'instance_uuid',
             'allocation_uuid',
             'provision_state', 'target_provision_state',
             'provision_updated_at', 'power_state', 'target_power_state',
             'maintenance', 'maintenance_reason', 'owner', 'lessee',
             'reservation', 'last_error', 'created_at', 'updated_at',
             'links', 'pool', 'pool_status', 'pool_allocated', 'params',
             'profiles', 'workflow', 'stage', 'runnable', 'broker',
             'broker_ref', 'broker_token', 'console_enabled',
             'raid_config', 'target_raid_config', 'clean_step',
             'deploy_step', 'driver_internal_info',
             'bios_interface', 'boot_interface', 'console_interface',
             'deploy_interface', 'inspect_interface',
             'management_interface', 'network_interface',
             'power_interface', 'raid_interface', 'rescue_interface',
             'storage_interface', 'vendor_interface', 'conductor_group',
             'conductor', 'retired', 'retired_reason', 'automated_clean',
             'protected', 'protected_reason', 'fault', 'external_manager',
             'external_ref', 'external_claim', 'external_state'},
            set(body))

    def test_create_with_given_uuid(self):
        node_uuid = str(uuid.uuid4())
        body = self.create({'uuid': node_uuid})
        self.assertEqual(node_uuid, body['uuid'])

    def test_create_below_1_11_is_available(self):
        body = self.create(version='1.10')
        self.assertEqual('available', body['provision_state'])

    def test_null_means_absent(self):
        node = self.create({'uuid': None, 'properties': None, 'extra': None,
                            'instance_info': None, 'driver_info': None,
                            'params': None, 'profiles': None,
                            'name': None, 'owner': None})
        self.assertEqual({}, node['properties'])
        self.assertEqual({}, node['instance_info'])
        self.assertEqual([], node['profiles'])
        self.assertEqual(36, len(node['uuid']))
        self.assertError(400, self.post('/v1/nodes', {'driver': None}))

    def test_null_ironic_only_and_newer_fields_are_absent(self):
        node = self.create({'chassis_uuid': None, 'instance_uuid': None,
                            'maintenance': None, 'boot_interface': None,
                            'retired': None, 'conductor_group': None,
                            'description': None, 'lessee': None},
                           version='1.50')
        self.assertIsNone(node['instance_uuid'])
        self.assertFalse(node['maintenance'])
        self.assertIsNone(node['chassis_uuid'])
        for body in ({'chassis_uuid': 'x'}, {'maintenance': True},
                     {'instance_uuid': str(uuid.uuid4())}):
            self.assertError(400, self.post('/v1/nodes', {
                'driver': 'fake-hardware', **body}))
        self.assertError(406, self.post('/v1/nodes', {
            'driver': 'fake-hardware', 'description': 'd'},
            version='1.50'))

    def test_driver_is_required(self):
        self.assertError(400, self.post('/v1/nodes', {'name': 'x'}),
                         'driver')

    def test_unknown_field_is_400(self):
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'color': 'red'}), 'color')
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'maintenance': True}), 'maintenance')

    def test_traits_on_create_are_400(self):
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'traits': ['CUSTOM_X']}), 'node traits API')

    def test_wrong_types_are_400(self):
        for body in ({'driver': 1}, {'driver': 'd', 'properties': []},
                     {'driver': 'd', 'extra': 'x'},
                     {'driver': 'd', 'name': 5},
                     {'driver': 'd', 'resource_class': ['a']},
                     {'driver': 'd', 'owner': {}}, ['driver'], 'driver'):
            self.assertError(400, self.post('/v1/nodes', body))

    def test_invalid_names_are_400(self):
        for name in ('with space', 'a/b', '', 'x' * 256,
                     str(uuid.uuid4())):
            self.assertError(400, self.post('/v1/nodes', {
                'driver': 'd', 'name': name}))

    def test_valid_names(self):
        for name in ('node-1.example.com', 'a_b~c', 'X' * 255):
            self.assertEqual(name, self.create({'name': name})['name'])

    def test_invalid_uuid_is_400(self):
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'uuid': 'not-a-uuid'}))
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'uuid': 'x' * 36}), 'not a valid UUID')

    def test_huge_strings_are_400(self):
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'resource_class': 'x' * 81}))
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd' * 256}))
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'description': 'x' * 5000}))
        self.assertError(400, self.post('/v1/nodes', {
            'driver': 'd', 'owner': 'x' * 256}))

    def test_non_json_body_is_400(self):
        self.assertError(400, self.request('POST', '/v1/nodes',
                                           raw='{not json'), 'JSON')
        self.assertError(400, self.request('POST', '/v1/nodes'),
                         'no body')

    def test_duplicate_name_is_409(self):
        self.create({'name': 'node-1'})
        self.assertError(409, self.post('/v1/nodes', {
            'driver': 'd', 'name': 'node-1'}), 'node-1')

    def test_duplicate_uuid_is_409(self):
        body = self.create()
        self.assertError(409, self.post('/v1/nodes', {
            'driver': 'd', 'uuid': body['uuid']}), body['uuid'])

    def test_fields_newer_than_the_version_are_406(self):
        for field, value, version in (('owner', 'p', '1.49'),
                                      ('description', 'd', '1.50'),
                                      ('resource_class', 'rc', '1.20'),
                                      ('lessee', 'p', '1.59')):
            self.assertError(406, self.post('/v1/nodes', {
                'driver': 'd', field: value}, version=version), field)


class TestGet(NodeAPITestCase):

    def test_get_by_uuid_and_name(self):
        body = self.create({'name': 'node-1'})
        by_uuid = self.get('/v1/nodes/%s' % body['uuid'])
        self.assertEqual(200, by_uuid.status_code)
        self.assertEqual(body, by_uuid.get_json())
        self.assertEqual(body, self.get('/v1/nodes/node-1').get_json())

    def test_unknown_node_is_404(self):
        self.assertError(404, self.get('/v1/nodes/missing'), 'missing')
        self.assertError(404, self.get('/v1/nodes/%s' % uuid.uuid4()))

    def test_fields(self):
        body = self.create({'name': 'node-1'})
        resp = self.get('/v1/nodes/node-1?fields=name,provision_state')
        self.assertEqual(200, resp.status_code)
        self.assertEqual({'name': 'node-1', 'provision_state': 'enroll',
                          'links': body['links']}, resp.get_json())

    def test_invalid_field_is_400(self):
        self.create({'name': 'node-1'})
        self.assertError(400, self.get('/v1/nodes/node-1?fields=foo'),
                         'foo')

    def test_field_hidden_by_version_is_400(self):
        self.create({'name': 'node-1'})
        self.assertError(400, self.get('/v1/nodes/node-1?fields=owner',
                                       version='1.49'), 'owner')

    def test_fields_needs_1_8(self):
        self.create({'name': 'node-1'})
        self.assertError(406, self.get('/v1/nodes/node-1?fields=name',
                                       version='1.7'))

    def test_fields_hidden_by_version(self):
        self.create({'name': 'node-1'})
        cases = (('1.20', {'resource_class', 'traits', 'owner',
                           'description', 'allocation_uuid', 'lessee'}),
                 ('1.36', {'traits', 'owner', 'description',
                           'allocation_uuid', 'lessee'}),
                 ('1.49', {'owner', 'description', 'allocation_uuid',
                           'lessee'}),
                 ('1.50', {'description', 'allocation_uuid', 'lessee'}),
                 ('1.51', {'allocation_uuid', 'lessee'}),
                 ('1.59', {'lessee'}),
                 # Ironic's lessee came with 1.65; pool shows it from
                 # 1.60, as it did when 1.60 was its highest version.
                 ('1.%d' % microversion.LESSEE, set()))
        for version, hidden in cases:
            body = self.get('/v1/nodes/node-1', version=version).get_json()
            self.assertEqual(set(), hidden & set(body), version)
            self.assertIn('instance_uuid', body)

    def test_timestamps_are_iso8601_utc(self):
        node = self.create_node(name='node-1')
        nodes_db.update_node(self.context, node, {
            'provision_updated_at': datetime.datetime(2024, 5, 1, 12, 0, 1)})
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('2024-05-01T12:00:01+00:00',
                         body['provision_updated_at'])
        for key in ('created_at', 'updated_at'):
            self.assertTrue(body[key].endswith('+00:00'))
            datetime.datetime.fromisoformat(body[key])


class TestList(NodeAPITestCase):

    def test_short_list(self):
        body = self.create({'name': 'node-1', 'extra': {'a': 1}})
        resp = self.get('/v1/nodes')
        self.assertEqual(200, resp.status_code)
        self.assertEqual({'nodes': [{
            'uuid': body['uuid'], 'name': 'node-1', 'instance_uuid': None,
            'power_state': None, 'provision_state': 'enroll',
            'maintenance': False, 'links': body['links']}]},
            resp.get_json())

    def test_detail_list(self):
        self.create_node(name='node-1', traits=['CUSTOM_A'])
        resp = self.get('/v1/nodes/detail')
        self.assertEqual(200, resp.status_code)
        node = resp.get_json()['nodes'][0]
        self.assertEqual(['CUSTOM_A'], node['traits'])
        self.assertEqual(self.get('/v1/nodes/node-1').get_json(), node)
        self.assertNotIn('next', resp.get_json())

    def test_detail_hides_fields_by_version(self):
        self.create_node(name='node-1')
        node = self.get('/v1/nodes/detail',
                        version='1.36').get_json()['nodes'][0]
        self.assertNotIn('traits', node)
        self.assertNotIn('owner', node)
        self.assertIn('resource_class', node)

    def test_detail_parameter(self):
        self.create_node(name='node-1')
        node = self.get('/v1/nodes?detail=true').get_json()['nodes'][0]
        self.assertIn('driver', node)
        self.assertError(406, self.get('/v1/nodes?detail=true',
                                       version='1.42'))

    def test_fields_on_short_list(self):
        self.create_node(name='node-1', owner='p')
        resp = self.get('/v1/nodes?fields=name,owner,driver')
        node = resp.get_json()['nodes'][0]
        self.assertEqual({'name', 'owner', 'driver', 'links'}, set(node))

    def test_fields_with_detail_is_400(self):
        self.assertError(400, self.get('/v1/nodes/detail?fields=name'),
                         'fields')

    def test_filters(self):
        a = self.create_node(name='a', resource_class='gpu', owner='p1',
                             provision_state='active', maintenance=True,
                             instance_uuid=str(uuid.uuid4()))
        b = self.create_node(name='b', lessee='p2', driver='ipmi')
        self.create_node(name='c', provision_state='manageable')

        def names(query):
            resp = self.get('/v1/nodes?' + query)
            self.assertEqual(200, resp.status_code, resp.get_data())
            return [n['name'] for n in resp.get_json()['nodes']]

        self.assertEqual(['a'], names('provision_state=active'))
        self.assertEqual([], names('provision_state=no-such-state'))
        self.assertEqual(['a'], names('resource_class=gpu'))
        self.assertEqual(['a'], names('maintenance=true'))
        self.assertEqual(['b', 'c'], names('maintenance=false'))
        self.assertEqual(['a'], names('associated=True'))
        self.assertEqual(['b', 'c'], names('associated=0'))
        self.assertEqual(['a'], names('owner=p1'))
        self.assertEqual(['b'], names('lessee=p2'))
        self.assertEqual(['b'], names('driver=ipmi'))
        self.assertEqual(['a'], names('instance_uuid=' + a.instance_uuid))
        self.assertEqual(['b'], names('driver=ipmi&maintenance=false'))
        self.assertEqual(b.uuid, self.get('/v1/nodes/detail?driver=ipmi')
                         .get_json()['nodes'][0]['uuid'])

    def test_invalid_filters_are_400(self):
        for query in ('maintenance=maybe', 'associated=2',
                      'instance_uuid=nope', 'resource_class=' + 'x' * 81,
                      'owner=' + 'x' * 256):
            self.assertError(400, self.get('/v1/nodes?' + query))

    def test_filters_newer_than_the_version_are_406(self):
        for query, version in (('owner=p', '1.49'), ('lessee=p', '1.59'),
                               ('resource_class=rc', '1.20'),
                               ('driver=d', '1.15'),
                               ('provision_state=active', '1.8')):
            self.assertError(406, self.get('/v1/nodes?' + query,
                                           version=version))

    def test_pages_with_limit_marker_and_next(self):
        uuids = [self.create_node(name='n%d' % i).uuid for i in range(5)]
        resp = self.get('/v1/nodes?limit=2&maintenance=false')
        body = resp.get_json()
        self.assertEqual(uuids[:2], [n['uuid'] for n in body['nodes']])
        self.assertIn('limit=2', body['next'])
        self.assertIn('marker=%s' % uuids[1], body['next'])
        self.assertIn('maintenance=false', body['next'])
        self.assertIn('/v1/nodes?', body['next'])
        seen = []
        url = '/v1/nodes?limit=2'
        while url:
            body = self.get(url).get_json()
            seen += [n['uuid'] for n in body['nodes']]
            url = body.get('next', '').replace('http://localhost', '')
        self.assertEqual(uuids, seen)

    def test_detail_next_link_stays_on_detail(self):
        for i in range(3):
            self.create_node(name='n%d' % i)
        body = self.get('/v1/nodes/detail?limit=1').get_json()
        self.assertIn('/v1/nodes/detail?', body['next'])

    def test_marker_by_name(self):
        uuids = [self.create_node(name='n%d' % i).uuid for i in range(3)]
        body = self.get('/v1/nodes?marker=n0').get_json()
        self.assertEqual(uuids[1:], [n['uuid'] for n in body['nodes']])

    def test_unknown_marker_is_404(self):
        self.assertError(404, self.get('/v1/nodes?marker=missing'))
        self.assertError(404, self.get('/v1/nodes?marker=%s'
                                       % uuid.uuid4()))

    def test_invalid_limit_is_400(self):
        self.assertError(400, self.get('/v1/nodes?limit=abc'))
        self.assertError(400, self.get('/v1/nodes?limit=-1'))

    def test_sort(self):
        for name, rc in (('b', 'z'), ('c', 'x'), ('a', 'y')):
            self.create_node(name=name, resource_class=rc)

        def names(query):
            return [n['name'] for n in
                    self.get('/v1/nodes?' + query).get_json()['nodes']]

        self.assertEqual(['a', 'b', 'c'], names('sort_key=name'))
        self.assertEqual(['c', 'b', 'a'],
                         names('sort_key=name&sort_dir=desc'))
        self.assertEqual(['c', 'a', 'b'], names('sort_key=resource_class'))
        self.assertEqual(['b', 'c', 'a'], names('sort_dir=asc'))
        self.assertEqual(['b'], names('sort_key=name&limit=1&marker=a'))

    def test_pages_sorted_by_a_boolean(self):
        self.create_node(name='a', maintenance=True)
        self.create_node(name='b')
        self.create_node(name='c', maintenance=True)
        seen = []
        url = '/v1/nodes?sort_key=maintenance&sort_dir=desc&limit=1'
        while url:
            resp = self.get(url)
            self.assertEqual(200, resp.status_code, resp.get_data())
            body = resp.get_json()
            seen += [n['name'] for n in body['nodes']]
            url = body.get('next', '').replace('http://localhost', '')
        self.assertEqual(['c', 'a', 'b'], seen)

    def test_invalid_sort_is_400(self):
        for query in ('sort_key=properties', 'sort_key=traits',
                      'sort_key=extra', 'sort_key=nope',
                      'sort_dir=sideways'):
            self.assertError(400, self.get('/v1/nodes?' + query))
        self.assertError(400, self.get('/v1/nodes?sort_key=owner',
                                       version='1.49'))


class TestPatch(NodeAPITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create({'name': 'node-1', 'extra': {'a': 1},
                                 'properties': {'cpus': 4}})
        self.url = '/v1/nodes/%s' % self.node['uuid']

    def patch_ok(self, ops, **kw):
        resp = self.patch_json(self.url, ops, **kw)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()

    def test_null_maps_become_empty(self):
        self.patch_ok([{'op': 'add', 'path': '/instance_info',
                        'value': {'image_source': 'x'}}])
        body = self.patch_ok([
            {'op': 'replace', 'path': '/%s' % field, 'value': None}
            for field in ('properties', 'extra', 'instance_info',
                          'driver_info')])
        for field in ('properties', 'extra', 'instance_info', 'driver_info'):
            self.assertEqual({}, body[field], field)
        self.assertEqual({}, self.node_db('node-1').properties)
        self.assertError(400, self.patch_json(self.url, [
            {'op': 'replace', 'path': '/params', 'value': None}]))

    def test_replace_add_and_remove(self):
        body = self.patch_ok([
            {'op': 'replace', 'path': '/name', 'value': 'node-2'},
            {'op': 'add', 'path': '/description', 'value': 'desc'},
            {'op': 'replace', 'path': '/driver', 'value': 'ipmi'},
            {'op': 'add', 'path': '/resource_class', 'value': 'gpu'},
            {'op': 'add', 'path': '/owner', 'value': 'p1'},
            {'op': 'add', 'path': '/lessee', 'value': 'p2'},
            {'op': 'add', 'path': '/driver_info',
             'value': {'addr': '1.2.3.4'}},
            {'op': 'add', 'path': '/instance_info', 'value': {'x': 1}},
            {'op': 'remove', 'path': '/properties'}])
        self.assertEqual('node-2', body['name'])
        self.assertEqual('desc', body['description'])
        self.assertEqual('ipmi', body['driver'])
        self.assertEqual('gpu', body['resource_class'])
        self.assertEqual('p1', body['owner'])
        self.assertEqual('p2', body['lessee'])
        self.assertEqual({'addr': '1.2.3.4'}, body['driver_info'])
        self.assertEqual({'x': 1}, body['instance_info'])
        self.assertEqual({}, body['properties'])
        self.assertIsNotNone(body['updated_at'])
        self.assertEqual(body, self.get(self.url).get_json())

    def test_remove_name(self):
        body = self.patch_ok([{'op': 'remove', 'path': '/name'}])
        self.assertIsNone(body['name'])

    def test_nested_paths(self):
        body = self.patch_ok([
            {'op': 'add', 'path': '/extra/foo', 'value': 'bar'},
            {'op': 'remove', 'path': '/extra/a'},
            {'op': 'replace', 'path': '/properties/cpus', 'value': 8},
            {'op': 'add', 'path': '/properties/capabilities',
             'value': 'boot_mode:uefi'}])
        self.assertEqual({'foo': 'bar'}, body['extra'])
        self.assertEqual({'cpus': 8, 'capabilities': 'boot_mode:uefi'},
                         body['properties'])

    def test_missing_nested_path_is_400(self):
        self.assertError(400, self.patch_json(self.url, [
            {'op': 'remove', 'path': '/extra/missing'}]))
        self.assertError(400, self.patch_json(self.url, [
            {'op': 'replace', 'path': '/extra/x/y', 'value': 1}]))

    def test_read_only_paths_are_400(self):
        for path in ('/uuid', '/provision_state', '/power_state',
                     '/allocation_uuid', '/reservation', '/created_at',
                     '/updated_at', '/last_error', '/links',
                     '/target_provision_state', '/maintenance',
                     '/maintenance_reason'):
            self.assertError(400, self.patch_json(self.url, [
                {'op': 'replace', 'path': path, 'value': 'x'}]))
        self.assertError(400, self.patch_json(self.url, [
            {'op': 'add', 'path': '/nonexistent', 'value': 'x'}]))

    def test_traits_path_is_400(self):
        self.assertError(400, self.patch_json(self.url, [
            {'op': 'add', 'path': '/traits', 'value': ['CUSTOM_A']}]),
            'Cannot update node traits via node patch')

    def test_maintenance_reason_path_points_to_the_maintenance_api(self):
        self.assertError(400, self.patch_json(self.url, [
            {'op': 'replace', 'path': '/maintenance_reason',
             'value': 'x'}]), 'maintenance')

    def test_patched_values_are_validated(self):
        for op in ({'op': 'replace', 'path': '/name', 'value': 'a b'},
                   {'op': 'replace', 'path': '/name',
                    'value': str(uuid.uuid4())},
                   {'op': 'replace', 'path': '/properties', 'value': []},
                   {'op': 'remove', 'path': '/driver'},
                   {'op': 'replace', 'path': '/driver', 'value': 5},
                   {'op': 'add', 'path': '/resource_class',
                    'value': 'x' * 81},
                   {'op': 'add', 'path': '/instance_uuid',
                    'value': 'not-a-uuid'},
                   {'op': 'add', 'path': '/instance_uuid', 'value': 42}):
            self.assertError(400, self.patch_json(self.url, [op]))
        self.assertEqual(self.node['name'],
                         self.get(self.url).get_json()['name'])

    def test_malformed_patches_are_400(self):
        for patch in ({'op': 'add'}, [], [{'op': 'move', 'path': '/name'}],
                      [{'op': 'add', 'path': '/name'}],
                      [{'path': '/name', 'value': 'x'}],
                      [{'op': 'add', 'path': 'name', 'value': 'x'}]):
            self.assertError(400, self.patch_json(self.url, patch))
        self.assertError(400, self.request('PATCH', self.url, raw='nope'))

    def test_fields_newer_than_the_version_are_406(self):
        for path, version in (('/owner', '1.49'), ('/description', '1.50'),
                              ('/resource_class', '1.20'),
                              ('/lessee', '1.59')):
            self.assertError(406, self.patch_json(self.url, [
                {'op': 'add', 'path': path, 'value': 'x'}],
                version=version))

    def test_unknown_node_is_404(self):
        self.assertError(404, self.patch_json('/v1/nodes/missing', [
            {'op': 'add', 'path': '/extra/a', 'value': 1}]))

    def test_duplicate_name_is_409(self):
        self.create({'name': 'other'})
        self.assertError(409, self.patch_json(self.url, [
            {'op': 'replace', 'path': '/name', 'value': 'other'}]))

    def test_no_change_keeps_the_node(self):
        before = self.get(self.url).get_json()
        body = self.patch_ok([{'op': 'replace', 'path': '/name',
                               'value': 'node-1'}])
        self.assertEqual(before, body)

    def test_set_and_remove_instance_uuid(self):
        instance = str(uuid.uuid4())
        body = self.patch_ok([{'op': 'add', 'path': '/instance_uuid',
                               'value': instance}])
        self.assertEqual(instance, body['instance_uuid'])
        self.assertIsNone(body['allocation_uuid'])
        self.assertError(409, self.patch_json(self.url, [
            {'op': 'replace', 'path': '/instance_uuid',
             'value': str(uuid.uuid4())}]), instance)
        body = self.patch_ok([{'op': 'remove', 'path': '/instance_uuid'}])
        self.assertIsNone(body['instance_uuid'])

    def test_instance_uuid_used_by_another_node_is_409(self):
        instance = str(uuid.uuid4())
        self.create_node(instance_uuid=instance)
        self.assertError(409, self.patch_json(self.url, [
            {'op': 'add', 'path': '/instance_uuid', 'value': instance}]))

    def _active_node_with_allocation(self, maintenance=False):
        node = self.create_node(name='active-1', provision_state='active',
                                maintenance=maintenance)
        alloc = self.backfill(node.uuid)
        return node, alloc

    def test_removing_instance_uuid_deletes_the_allocation(self):
        node, alloc = self._active_node_with_allocation(maintenance=True)
        url = '/v1/nodes/%s' % node.uuid
        self.assertEqual(alloc.uuid,
                         self.get(url).get_json()['allocation_uuid'])
        resp = self.patch_json(url, [
            {'op': 'remove', 'path': '/instance_uuid'},
            {'op': 'add', 'path': '/extra/released', 'value': True}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertIsNone(body['instance_uuid'])
        self.assertIsNone(body['allocation_uuid'])
        self.assertEqual({'released': True}, body['extra'])
        self.assertEqual(404, self.get('/v1/allocations/%s'
                                       % alloc.uuid).status_code)

    def test_removing_instance_uuid_of_available_node_with_allocation(self):
        node, alloc = self._active_node_with_allocation()
        db_node = self.node_db(node.uuid)
        nodes_db.update_node(self.context, db_node,
                             {'provision_state': 'available'})
        resp = self.patch_json('/v1/nodes/%s' % node.uuid, [
            {'op': 'replace', 'path': '/instance_uuid', 'value': None}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIsNone(resp.get_json()['allocation_uuid'])
        self.assertEqual([], self.get('/v1/allocations')
                         .get_json()['allocations'])

    def test_removing_instance_uuid_of_active_node_is_409(self):
        node, alloc = self._active_node_with_allocation()
        url = '/v1/nodes/%s' % node.uuid
        self.assertError(409, self.patch_json(url, [
            {'op': 'remove', 'path': '/instance_uuid'}]), 'active')
        body = self.get(url).get_json()
        self.assertEqual(alloc.uuid, body['allocation_uuid'])
        self.assertEqual(alloc.uuid, body['instance_uuid'])

    def test_setting_instance_uuid_with_allocation_is_400(self):
        node, alloc = self._active_node_with_allocation(maintenance=True)
        self.assertError(400, self.patch_json('/v1/nodes/%s' % node.uuid, [
            {'op': 'replace', 'path': '/instance_uuid',
             'value': str(uuid.uuid4())}]),
            'Cannot set the instance_uuid of node %s: it has allocation %s'
            % (node.uuid, alloc.uuid))

    def test_locked_node_is_409(self):
        nodes_db.update_node(self.context, self.node_db(self.node['uuid']),
                             {'reservation': 'other-host'})
        self.assertError(409, self.patch_json(self.url, [
            {'op': 'add', 'path': '/extra/b', 'value': 2}]), 'locked')


class TestDelete(NodeAPITestCase):

    def test_delete(self):
        node = self.create_node(name='node-1', traits=['CUSTOM_A'])
        resp = self.delete('/v1/nodes/node-1')
        self.assertEqual(204, resp.status_code)
        self.assertEqual(b'', resp.get_data())
        self.assertError(404, self.get('/v1/nodes/%s' % node.uuid))

    def test_unknown_node_is_404(self):
        self.assertError(404, self.delete('/v1/nodes/missing'))

    def test_node_with_instance_is_409(self):
        instance = str(uuid.uuid4())
        self.create_node(name='node-1', instance_uuid=instance)
        self.assertError(409, self.delete('/v1/nodes/node-1'), instance)

    def test_node_with_allocation_in_maintenance_goes_with_it(self):
        self.create_node(name='node-1', provision_state='active')
        alloc = self.post('/v1/allocations', {'node': 'node-1'}).get_json()
        self.assertError(409, self.delete('/v1/nodes/node-1'))
        self.put('/v1/nodes/node-1/maintenance')
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertError(404, self.get('/v1/allocations/%s'
                                       % alloc['uuid']))

    def test_active_node_is_409_unless_in_maintenance(self):
        self.create_node(name='node-1', provision_state='active')
        self.assertError(409, self.delete('/v1/nodes/node-1'), 'active')
        self.put('/v1/nodes/node-1/maintenance')
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)


class TestStates(NodeAPITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create({'name': 'node-1'})
        self.url = '/v1/nodes/node-1/states'

    def provision(self, target, status=202, **kw):
        resp = self.put(self.url + '/provision', {'target': target}, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def test_get_states(self):
        resp = self.get(self.url)
        self.assertEqual(200, resp.status_code)
        self.assertEqual({
            'console_enabled': False, 'last_error': None,
            'power_state': None, 'provision_state': 'enroll',
            'provision_updated_at': None, 'target_power_state': None,
            'target_provision_state': None, 'raid_config': {},
            'target_raid_config': {}}, resp.get_json())

    def test_manage_records_power_state_once(self):
        self.provision('manage')
        self.assertEqual('power off',
                         self.get(self.url).get_json()['power_state'])
        self.put(self.url + '/power', {'target': 'power on'})
        self.provision('provide')
        self.provision('manage')
        self.assertEqual('power on',
                         self.get(self.url).get_json()['power_state'])

    def test_get_states_unknown_node_is_404(self):
        self.assertError(404, self.get('/v1/nodes/missing/states'))

    def test_power(self):
        for target, expected in (('power on', 'power on'),
                                 ('power off', 'power off'),
                                 ('rebooting', 'power on'),
                                 ('soft power off', 'power off'),
                                 ('soft rebooting', 'power on')):
            resp = self.put(self.url + '/power', {'target': target})
            self.assertEqual(202, resp.status_code, resp.get_data())
            self.assertTrue(resp.headers['Location'].endswith(
                '/v1/nodes/%s/states' % self.node['uuid']))
            body = self.get(self.url).get_json()
            self.assertEqual(expected, body['power_state'])
            self.assertIsNone(body['target_power_state'])

    def test_invalid_power_target_is_400(self):
        for body in ({'target': 'sideways'}, {}, {'target': 1},
                     {'target': 'power on', 'color': 'red'}):
            self.assertError(400, self.put(self.url + '/power', body))
        self.assertError(400, self.request('PUT', self.url + '/power',
                                           raw='x'))

    def test_soft_power_and_timeout_need_1_27(self):
        for body in ({'target': 'soft power off'},
                     {'target': 'soft rebooting'},
                     {'target': 'power off', 'timeout': 10}):
            self.assertError(406, self.put(self.url + '/power', body,
                                           version='1.26'), '1.27')
        self.assertIsNone(self.get(self.url).get_json()['power_state'])
        resp = self.put(self.url + '/power', {'target': 'power off',
                                              'timeout': 10},
                        version='1.27')
        self.assertEqual(202, resp.status_code, resp.get_data())

    def test_power_unknown_node_is_404(self):
        self.assertError(404, self.put('/v1/nodes/missing/states/power',
                                       {'target': 'power on'}))

    def test_provision_lifecycle(self):
        resp = self.provision('manage')
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/nodes/%s/states' % self.node['uuid']))
        body = self.get(self.url).get_json()
        self.assertEqual('manageable', body['provision_state'])
        self.assertIsNone(body['target_provision_state'])
        self.assertTrue(body['provision_updated_at'].endswith('+00:00'))
        self.provision('provide')
        self.assertEqual('available',
                         self.get(self.url).get_json()['provision_state'])
        # A deployment passes through deploying, moved on by the conductor
        # the node is cast to.
        self.provision('active')
        body = self.get(self.url).get_json()
        self.assertEqual(('deploying', 'active'),
                         (body['provision_state'],
                          body['target_provision_state']))
        self.assertEqual([(self.node_db('node-1').id, 'test-host')],
                         self.provision_casts)
        self.finish_provisioning()
        body = self.get(self.url).get_json()
        self.assertEqual(('active', None),
                         (body['provision_state'],
                          body['target_provision_state']))
        self.provision('deleted')
        body = self.get(self.url).get_json()
        self.assertEqual(('deleting', 'available'),
                         (body['provision_state'],
                          body['target_provision_state']))
        self.finish_provisioning()
        body = self.get(self.url).get_json()
        self.assertEqual(('available', None),
                         (body['provision_state'],
                          body['target_provision_state']))
        self.provision('deploy')
        self.finish_provisioning()
        self.provision('undeploy')
        self.finish_provisioning()
        self.provision('manage')
        self.assertEqual('manageable',
                         self.get(self.url).get_json()['provision_state'])

    def test_provision_clears_last_error(self):
        nodes_db.update_node(self.context, self.node_db('node-1'),
                             {'last_error': 'boom'})
        self.provision('manage')
        self.assertIsNone(self.get(self.url).get_json()['last_error'])

    def test_deploy_records_the_configdrive(self):
        # Responses mask it (test_policy.TestSecrets).
        self.enroll(name='node-2')
        url = '/v1/nodes/node-2/states/provision'
        resp = self.put(url, {'target': 'active', 'configdrive': 'H4sI'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.assertEqual('H4sI',
                         self.node_db('node-2').instance_info['configdrive'])
        self.finish_provisioning()
        # Undeploying forgets it, with the rest of instance_info.
        self.assertEqual(202, self.put(url, {'target': 'deleted'})
                         .status_code)
        self.finish_provisioning()
        self.assertEqual({}, self.node_db('node-2').instance_info)
        drive = {'meta_data': {'hostname': 'h'}, 'user_data': '#!/bin/sh'}
        resp = self.put(url, {'target': 'deploy', 'configdrive': drive})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.assertEqual(drive,
                         self.node_db('node-2').instance_info['configdrive'])

    def test_configdrive_errors_are_400(self):
        self.enroll(name='node-2')
        url = '/v1/nodes/node-2/states/provision'
        drive = {'meta_data': {'hostname': 'h'}}
        self.assertError(400, self.put(url, {'target': 'active',
                                             'configdrive': drive},
                                       version='1.55'), '1.56')
        self.assertError(400, self.put(url, {
            'target': 'active', 'configdrive': {'vendor_data': {}}},
            version='1.58'), '1.59')
        self.assertError(400, self.put(url, {
            'target': 'active', 'configdrive': {'color': 'red'}}))
        self.assertError(400, self.put(url, {'target': 'active',
                                             'configdrive': 5}))
        self.assertError(400, self.put(url, {'target': 'manage',
                                             'configdrive': 'H4sI'}),
                         'only supported when setting provision state '
                         'to active')
        self.assertEqual('available',
                         self.get('/v1/nodes/node-2').get_json()
                         ['provision_state'])

    def test_null_fields_of_other_verbs_are_accepted(self):
        self.enroll(name='node-2')
        url = '/v1/nodes/node-2/states/provision'
        resp = self.put(url, {'target': 'active', 'configdrive': None,
                              'clean_steps': None, 'rescue_password': None})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.finish_provisioning()
        self.assertError(400, self.put(url, {
            'target': 'deleted', 'clean_steps': [{'step': 'x'}]}),
            'clean_steps')
        self.assertError(400, self.put(url, {
            'target': 'deleted', 'rescue_password': 'pw'}),
            'rescue_password')
        self.assertEqual('active', self.get('/v1/nodes/node-2').get_json()
                         ['provision_state'])

    def test_deploy_needs_instance_traits_the_node_has(self):
        self.enroll(name='node-2')
        self.put('/v1/nodes/node-2/traits', {'traits': ['CUSTOM_GPU']})
        url = '/v1/nodes/node-2/states/provision'
        for traits, error in ((['CUSTOM_GPU', 'CUSTOM_SSD'],
                               'is missing traits CUSTOM_SSD'),
                              ('CUSTOM_GPU', 'A list of strings')):
            self.patch_json('/v1/nodes/node-2', [{
                'op': 'add', 'path': '/instance_info/traits',
                'value': traits}])
            self.assertError(400, self.put(url, {'target': 'active'}),
                             error)
        self.patch_json('/v1/nodes/node-2', [{
            'op': 'add', 'path': '/instance_info/traits',
            'value': ['CUSTOM_GPU']}])
        self.assertEqual(202, self.put(url, {'target': 'active'})
                         .status_code)

    def test_validate_as_fake_hardware(self):
        uuid = self.enroll(name='node-2',
                           instance_info={'image_source': 'x'})['uuid']
        resp = self.get('/v1/nodes/node-2/validate')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(
            {name: {'result': True}
             for name in ('bios', 'boot', 'console', 'deploy', 'inspect',
                          'management', 'network', 'power', 'raid',
                          'rescue', 'storage')},
            resp.get_json())
        self.patch_json('/v1/nodes/node-2', [{
            'op': 'add', 'path': '/instance_info/traits',
            'value': ['CUSTOM_GPU']}])
        body = self.get('/v1/nodes/node-2/validate').get_json()
        self.assertEqual({'result': False,
                          'reason': 'Cannot specify instance traits that '
                                    'are not also set on the node. Node %s '
                                    'is missing traits CUSTOM_GPU' % uuid},
                         body['deploy'])
        self.assertEqual({'result': True}, body['power'])
        self.assertError(404, self.get('/v1/nodes/missing/validate'))

    def test_unknown_verb_is_400(self):
        for body in ({'target': 'inspect'}, {'target': 'fly'}, {},
                     {'target': None}, {'target': 'manage', 'x': 1}):
            self.assertError(400, self.put(self.url + '/provision', body))

    def test_verb_from_wrong_state_is_400(self):
        # Ironic's InvalidStateRequested: python-ironicclient and
        # openstacksdk retry a 409 for seconds, but not a 400.
        resp = self.put(self.url + '/provision', {'target': 'provide'})
        self.assertError(
            400, resp, 'The requested action "provide" can not be '
            'performed on node "%s" while it is in state "enroll".'
            % self.node['uuid'])
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'active'}))
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'deleted'}))

    def test_verb_from_wrong_state_on_locked_node_is_409(self):
        nodes_db.update_node(self.context, self.node_db('node-1'),
                             {'reservation': 'conductor-1'})
        resp = self.put(self.url + '/provision', {'target': 'provide'})
        self.assertError(409, resp, 'Node %s is locked by host conductor-1'
                         % self.node['uuid'])

    def test_management_verbs_need_1_4(self):
        self.create({'name': 'old'}, version='1.3')
        self.assertError(406, self.put('/v1/nodes/old/states/provision',
                                       {'target': 'manage'},
                                       version='1.3'))

    def test_maintenance_refuses_deploy_and_undeploy(self):
        self.enroll(name='node-2')
        url = '/v1/nodes/node-2/states/provision'
        self.put('/v1/nodes/node-2/maintenance')
        for verb in ('active', 'deploy'):
            self.assertError(400, self.put(url, {'target': verb}),
                             'maintenance')
        self.put('/v1/nodes/node-2/maintenance', {})
        nodes_db.update_node(self.context, self.node_db('node-2'),
                             {'provision_state': 'active'})
        for verb in ('deleted', 'undeploy'):
            self.assertError(400, self.put(url, {'target': verb}),
                             'maintenance')
        self.assertEqual('active', self.get('/v1/nodes/node-2')
                         .get_json()['provision_state'])

    def test_undeploy_releases_the_instance_and_allocation(self):
        node = self.create_node(name='active-1', provision_state='active',
                                instance_info={'image_source': 'x'})
        alloc = self.backfill(node.uuid)
        for verb in ('deleted', 'undeploy'):
            resp = self.put('/v1/nodes/active-1/states/provision',
                            {'target': verb})
            self.assertEqual(202, resp.status_code, resp.get_data())
            # As in Ironic, the node keeps them while it is deleting.
            body = self.get('/v1/nodes/active-1').get_json()
            self.assertEqual(('deleting', alloc.uuid),
                             (body['provision_state'],
                              body['allocation_uuid']))
            self.finish_provisioning()
            body = self.get('/v1/nodes/active-1').get_json()
            self.assertEqual('available', body['provision_state'])
            self.assertIsNone(body['instance_uuid'])
            self.assertIsNone(body['allocation_uuid'])
            self.assertEqual({}, body['instance_info'])
            self.assertEqual(404, self.get('/v1/allocations/%s'
                                           % alloc.uuid).status_code)
            nodes_db.update_node(self.context, self.node_db('active-1'),
                                 {'provision_state': 'active'})
            alloc = self.backfill(node.uuid)

    def test_node_in_progress_refuses_verbs_and_deletion(self):
        self.enroll(name='node-2')
        url = '/v1/nodes/node-2/states/provision'
        self.assertEqual(202, self.put(url, {'target': 'active'})
                         .status_code)
        for verb in ('deleted', 'active', 'manage'):
            self.assertError(400, self.put(url, {'target': verb}),
                             'while it is in state "deploying"')
        self.assertError(409, self.delete('/v1/nodes/node-2'), 'deploying')
        self.finish_provisioning()
        self.assertEqual(202, self.put(url, {'target': 'deleted'})
                         .status_code)
        self.assertError(400, self.put(url, {'target': 'active'}),
                         'while it is in state "deleting"')

    def test_node_whose_cast_was_lost_is_moved_on_by_the_check(self):
        self.enroll(name='node-2')
        url = '/v1/nodes/node-2/states/provision'
        self.assertEqual(202, self.put(url, {'target': 'active'})
                         .status_code)
        self.provision_casts = []
        # A node another conductor holds is left to it.
        nodes_db.reserve(self.context, self.node_db('node-2').id, 'other')
        self.assertEqual(0, provisioning.check(self.context))
        nodes_db.unreserve(self.context, self.node_db('node-2').id, 'other')
        self.assertEqual(1, provisioning.check(self.context))
        self.assertEqual('active', self.get('/v1/nodes/node-2').get_json()
                         ['provision_state'])
        self.assertEqual(202, self.put(url, {'target': 'deleted'})
                         .status_code)
        # Deleting, then cleaning, then available, in one check.
        self.assertEqual(1, provisioning.check(self.context))
        self.assertEqual(0, provisioning.check(self.context))
        self.assertEqual('available', self.get('/v1/nodes/node-2')
                         .get_json()['provision_state'])

    def test_deploy_without_a_live_conductor_is_503_and_changes_nothing(self):
        self.enroll(name='node-2')
        self.alive = []
        self.assertError(503, self.put('/v1/nodes/node-2/states/provision',
                                       {'target': 'active'}))
        self.assertEqual('available', self.get('/v1/nodes/node-2')
                         .get_json()['provision_state'])

    def test_provision_unknown_node_is_404(self):
        self.assertError(404, self.put('/v1/nodes/missing/states/provision',
                                       {'target': 'manage'}))

    def test_locked_node_is_409(self):
        nodes_db.update_node(self.context, self.node_db('node-1'),
                             {'reservation': 'other-host'})
        self.assertError(409, self.put(self.url + '/provision',
                                       {'target': 'manage'}), 'locked')


class TestMaintenance(NodeAPITestCase):

    def setUp(self):
        super().setUp()
        self.create({'name': 'node-1'})
        self.url = '/v1/nodes/node-1/maintenance'

    def test_set_with_reason_and_unset(self):
        resp = self.put(self.url, {'reason': 'broken disk'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertIs(True, body['maintenance'])
        self.assertEqual('broken disk', body['maintenance_reason'])
        resp = self.delete(self.url)
        self.assertEqual(202, resp.status_code)
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertIs(False, body['maintenance'])
        self.assertIsNone(body['maintenance_reason'])

    def test_set_without_body(self):
        self.assertEqual(202, self.put(self.url).status_code)
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertIs(True, body['maintenance'])
        self.assertIsNone(body['maintenance_reason'])

    def test_reason_as_query_parameter(self):
        self.assertEqual(202, self.put(self.url + '?reason=rma').status_code)
        self.assertEqual('rma', self.get('/v1/nodes/node-1')
                         .get_json()['maintenance_reason'])

    def test_invalid_body_is_400(self):
        for body in ({'reason': 5}, {'why': 'x'}, ['x'],
                     {'reason': 'x' * 5000}):
            self.assertError(400, self.put(self.url, body))
        self.assertError(400, self.request('PUT', self.url, raw='{'))

    def test_unknown_node_is_404(self):
        self.assertError(404, self.put('/v1/nodes/missing/maintenance'))
        self.assertError(404, self.delete('/v1/nodes/missing/maintenance'))

    def test_filter_by_maintenance(self):
        self.create({'name': 'node-2'})
        self.put(self.url)
        nodes = self.get('/v1/nodes?maintenance=true').get_json()['nodes']
        self.assertEqual(['node-1'], [n['name'] for n in nodes])
