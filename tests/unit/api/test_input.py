"""The input boundary: every body and query string is checked before SQL."""
import io
import json
import re

import sqlalchemy as sa

from pool_api import openapi
from pool_api import routes
from pool_api import validation
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from tests.unit.api import base

# A value the boundary refuses, and a word of the message that names it.
# Each is placed where the route's body would otherwise take any value.
_DEEP = '[' * (validation.MAX_DEPTH + 5) + ']' * (validation.MAX_DEPTH + 5)
_VERY_DEEP = '[' * 50000 + ']' * 50000
BAD_VALUES = [
    ('deep nesting', _DEEP, 'deeper than'),
    ('nesting past the recursion limit', _VERY_DEEP, 'deeper than'),
    ('NaN', 'NaN', 'NaN'),
    ('Infinity', 'Infinity', 'Infinity'),
    ('-Infinity', '-Infinity', 'Infinity'),
    ('a float too large for a double', '1e999', 'out of range'),
    ('a float beyond the integers', '1e19', 'out of range'),
    ('a huge integer', str(2 ** 63), 'out of range'),
    ('a huge negative integer', str(-2 ** 63), 'out of range'),
    ('an integer beyond a double', '9' * 401, 'out of range'),
    ('an integer past int()\'s limit', '9' * 5000, 'out of range'),
    ('NUL in a value', '"a\\u0000b"', 'NUL'),
    ('a lone surrogate in a value', '"\\ud800"', 'lone surrogate'),
]
# The same problems in a key of a map.
BAD_KEYS = [
    ('NUL in a key', '"a\\u0000b"', 'NUL'),
    ('a lone surrogate in a key', '"x\\udfff"', 'lone surrogate'),
]

# A body each route accepts, with {} where a bad value or key goes: free
# maps (extra, params, properties) where the route has one.
NODE_UUID = '3d0f5c1e-8b2a-4f6d-9c7e-1a2b3c4d5e6f'
_PATCH = '[{"op": "add", "path": "/extra/k", "value": %s}]'
_OBJECT = '{"target": %s}'
BODIES = {
    'NodeCreate': '{"driver": "fake-hardware", "extra": {"k": %s}}',
    'NodeParams': '{"k": %s}',
    'NodeIndicatorState': '{"state": %s}',
    'AllocationCreate': '{"resource_class": "rc", "extra": {"k": %s}}',
    'PoolCreate': '{"name": "p2", "params": {"k": %s}}',
    'ProfileCreate': '{"name": "pr2", "params": {"k": %s}}',
    'WorkflowCreate': '{"name": "wf2", "stages": [], "extra": {"k": %s}}',
    'PoolAction': '{"count": 1, "extra": {"k": %s}}',
    'PortCreate': '{"address": "52:54:00:00:00:09", "node_uuid": "%s", '
                  '"extra": {"k": %%s}}' % NODE_UUID,
    'VIF': '{"id": "vif-1", "extra": {"k": %s}}',
    'PortgroupCreate': '{"node_uuid": "%s", "extra": {"k": %%s}}'
                       % NODE_UUID,
    'ChassisCreate': '{"description": "c", "extra": {"k": %s}}',
    'VolumeConnectorCreate': '{"node_uuid": "%s", "type": "iqn", '
                             '"connector_id": "iqn.new", "extra": {"k": %%s}}'
                             % NODE_UUID,
    'VolumeTargetCreate': '{"node_uuid": "%s", "volume_type": "iscsi", '
                          '"volume_id": "v", "boot_index": 5, '
                          '"properties": {"k": %%s}}' % NODE_UUID,
    'BrokerCreate': '{"name": "b2", "driver": "fake", "parameters": '
                    '{"k": %s}}',
    'ExternalManagerCreate': '{"name": "m2", "driver": "fake", '
                             '"parameters": {"path": "/x", "k": %s}}',
    'ProviderCreate': '{"name": "pv2", "pool": "web", '
                      '"defaults": {"params": {"k": %s}}}',
    'ClaimCreate': '{"resources": [{"provider": "pv", '
                   '"template": {"params": {"k": %s}}}]}',
    'DeployTemplateCreate': '{"name": "CUSTOM_B", "steps": [{"interface": '
                            '"deploy", "step": "deploy", "priority": 1, '
                            '"args": {"k": %s}}]}',
    'NodeRAIDConfig': '{"logical_disks": [{"size_gb": 1, "raid_level": '
                      '"1", "controller": %s}]}',
    'ContentImport': '{"sections": {"profiles": {"pr3": {"params": '
                     '{"k": %s}}}}}',
    'MaintenanceWindowCreate': '{"start_at": "2030-01-01T00:00:00Z", '
                               '"end_at": "2030-01-01T01:00:00Z", '
                               '"reason": %s}',
}
PATCH_ROOTS = {
    '/v1/nodes/<node_ident>/params': '/k',
    '/v1/pools/<pool_name>': '/params/k',
    '/v1/profiles/<profile_name>': '/params/k',
    '/v1/workflows/<workflow_name>': '/description',
    '/v1/brokers/<broker_name>': '/parameters/k',
    '/v1/external_managers/<manager_name>': '/parameters/k',
    '/v1/providers/<provider_name>': '/defaults/params/k',
    '/v1/claims/<claim_ident>': '/resources/0/template/params/k',
    '/v1/deploy_templates/<template_ident>': '/extra/k',
}


def body_routes():
    """The routes of the route table that take a body."""
    return [r for r in routes.ROUTES if r.doc.body]


class TestBodyBoundary(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.enroll(name='n1', uuid=NODE_UUID, extra={'a': 1})
        for collection, body in (
                ('pools', {'name': 'web'}),
                ('profiles', {'name': 'big', 'params': {'a': 1}}),
                ('workflows', {'name': 'wf', 'stages': []}),
                ('brokers', {'name': 'cloud', 'driver': 'fake'}),
                ('external_managers', {'name': 'lab', 'driver': 'fake',
                                       'parameters': {'path': '/x'}})):
            resp = self.post('/v1/' + collection, body)
            self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/allocations', {'resource_class': 'rc',
                                             'name': 'a1'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/ports', {'node_uuid': NODE_UUID,
                                       'address': '52:54:00:00:00:01'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        port_uuid = resp.get_json()['uuid']
        resp = self.post('/v1/portgroups', {'node_uuid': NODE_UUID,
                                            'name': 'pg1'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/volume/connectors', {
            'node_uuid': NODE_UUID, 'type': 'iqn', 'connector_id': 'iqn.1'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        connector_uuid = resp.get_json()['uuid']
        resp = self.post('/v1/volume/targets', {
            'node_uuid': NODE_UUID, 'volume_type': 'iscsi',
            'volume_id': 'v', 'boot_index': 0})
        self.assertEqual(201, resp.status_code, resp.get_data())
        target_uuid = resp.get_json()['uuid']
        resp = self.post('/v1/chassis', {})
        self.assertEqual(201, resp.status_code, resp.get_data())
        chassis_uuid = resp.get_json()['uuid']
        resp = self.post('/v1/providers', {'name': 'pv', 'pool': 'web'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/deploy_templates', {
            'name': 'CUSTOM_A', 'steps': [{
                'interface': 'deploy', 'step': 'deploy', 'args': {},
                'priority': 100}]})
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/claims', {'name': 'c1',
                                        'resources': [{'provider': 'pv'}]})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.path_values = {'node_ident': 'n1', 'allocation_ident': 'a1',
                            'pool_name': 'web', 'profile_name': 'big',
                            'workflow_name': 'wf', 'port_uuid': port_uuid,
                            'broker_name': 'cloud', 'provider_name': 'pv',
                            'claim_ident': 'c1',
                            'template_ident': 'CUSTOM_A',
                            'indicator': 'led@system',
                            'portgroup_ident': 'pg1',
                            'connector_uuid': connector_uuid,
                            'target_uuid': target_uuid,
                            'chassis_uuid': chassis_uuid,
                            'manager_name': 'lab',
                            'window_uuid': NODE_UUID}

    def path(self, route) -> str:
        return re.sub(r'<(\w+)>', lambda m: self.path_values[m.group(1)],
                      route.rule)

    def template(self, route) -> str:
        """The route's body with %s where a value goes."""
        if route.doc.body == 'JSONPatch':
            root = PATCH_ROOTS.get(route.rule)
            if root is None:
                return _PATCH
            return _PATCH.replace('/extra/k', root)
        return BODIES.get(route.doc.body, _OBJECT)

    def snapshot(self) -> dict:
        """Every row of every table."""
        with db_api.get_engine().connect() as conn:
            return {t.name: sorted(map(repr, conn.execute(sa.select(t))))
                    for t in models.Base.metadata.sorted_tables}

    def test_the_table_covers_every_body(self):
        self.assertEqual(49, len(body_routes()))

    def test_bad_values_are_400_and_store_nothing(self):
        before = self.snapshot()
        for route in body_routes():
            template = self.template(route)
            for name, value, word in BAD_VALUES:
                raw = (template % value).encode()
                resp = self.request(route.method, self.path(route), raw=raw)
                message = self.assertError(400, resp)
                self.assertIn(word, message,
                              '%s %s: %s' % (route.method, route.rule, name))
        self.assertEqual(before, self.snapshot())

    def test_bad_keys_are_400_and_store_nothing(self):
        before = self.snapshot()
        for route in body_routes():
            template = self.template(route)
            for name, key, word in BAD_KEYS:
                raw = (template % ('{%s: 1}' % key)).encode()
                resp = self.request(route.method, self.path(route), raw=raw)
                message = self.assertError(400, resp)
                self.assertIn(word, message,
                              '%s %s: %s' % (route.method, route.rule, name))
        self.assertEqual(before, self.snapshot())

    def test_values_at_the_limits_are_stored(self):
        deep = '[' * (validation.MAX_DEPTH - 2) + ']' * (
            validation.MAX_DEPTH - 2)
        raw = ('{"big": %d, "small": %d, "float": 9.2e18, "deep": %s, '
               '"emoji": "\\ud83d\\ude00"}'
               % (2 ** 63 - 1, -2 ** 63 + 1, deep)).encode()
        resp = self.request('PUT', '/v1/nodes/n1/params', raw=raw)
        self.assertEqual(200, resp.status_code, resp.get_data())
        params = self.get('/v1/nodes/n1/params').get_json()
        self.assertEqual(2 ** 63 - 1, params['big'])
        self.assertEqual('\U0001f600', params['emoji'])

    def test_nan_param_does_not_poison_filters(self):
        resp = self.request('PUT', '/v1/nodes/n1/params',
                            raw=b'{"cpus": NaN}')
        self.assertError(400, resp, 'NaN')
        resp = self.get('/v1/nodes?cpus=Gte(4)')
        self.assertEqual(200, resp.status_code, resp.get_data())
        json.loads(resp.get_data())

    def test_patch_deeper_than_the_limit_is_400(self):
        # Each part of the patch is within the limit; the path adds depth.
        half = validation.MAX_DEPTH - 3
        value = '[' * half + ']' * half
        path = '/k' + '/k' * half
        nested = '{"k": ' * half + '1' + '}' * half
        self.assertEqual(200, self.request(
            'PUT', '/v1/nodes/n1/params',
            raw=('{"k": %s}' % nested).encode()).status_code)
        raw = ('[{"op": "add", "path": "%s", "value": %s}]'
               % (path, value)).encode()
        resp = self.request('PATCH', '/v1/nodes/n1/params', raw=raw)
        self.assertError(400, resp, 'deeper than')

    def test_malformed_chunked_body_is_400(self):
        for error in (ValueError('Bad chunked transfer size'),
                      OSError('Invalid chunk size')):

            class Broken(io.BytesIO):
                def read(self, *args, error=error):
                    raise error

                readline = readinto = read

            resp = self.client.open(
                '/v1/nodes', method='POST', input_stream=Broken(),
                # As the servers pass a chunked body: no length, and a
                # stream that ends where the body does.
                environ_overrides={'CONTENT_LENGTH': '',
                                   'wsgi.input_terminated': True},
                headers={'X-OpenStack-Ironic-API-Version': base.LATEST,
                         'Content-Type': 'application/json',
                         'Transfer-Encoding': 'chunked'})
            self.assertError(400, resp, 'could not be read')


class TestContentLength(base.APITestCase):

    def test_negative_content_length_is_400(self):
        resp = self.client.open(
            '/v1/nodes', method='POST', data=b'{"driver": "fake-hardware"}',
            environ_overrides={'CONTENT_LENGTH': '-1'},
            headers={'X-OpenStack-Ironic-API-Version': base.LATEST,
                     'Content-Type': 'application/json'})
        self.assertError(400, resp, 'Content-Length')


class TestQueryBoundary(base.APITestCase):

    def test_nul_in_a_query_value_is_400(self):
        self.assertError(400, self.get('/v1/nodes?name=a%00b'), 'NUL')
        self.assertError(400, self.get('/v1/allocations?owner=%00'), 'NUL')

    def test_nul_in_a_query_name_is_400(self):
        self.assertError(400, self.get('/v1/nodes?a%00b=Eq(1)'), 'NUL')

    def test_nul_in_a_path_is_400(self):
        self.assertError(400, self.get('/v1/nodes/a%00b'), 'NUL')

    def test_too_many_filters_is_400(self):
        self.config(max_filters=3, group='api')
        resp = self.get('/v1/nodes?a=Eq(1)&b=Eq(1)&c=Eq(1)')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertError(400, self.get('/v1/nodes?a=Eq(1)&b=Eq(1)&c=Eq(1)'
                                       '&d=Eq(1)'), 'max_filters')

    def test_filter_numbers_out_of_range_are_400(self):
        nines = '9' * 5000
        for value in ('cpus=Gte(%d)' % 2 ** 63, 'cpus=Lt(-%d)' % 2 ** 63,
                      'cpus=In(1,%d)' % 2 ** 64, 'cpus=Gt(1e999)',
                      'cpus=Eq(1e19)', 'cpus=Gte(%s)' % nines,
                      'cpus=Gte(9%s.5)' % nines, 'name=Eq(%s)' % nines,
                      'name=In(a,-%s)' % nines):
            self.assertError(400, self.get('/v1/nodes?' + value),
                             'out of range')
        resp = self.get('/v1/nodes?cpus=Lte(%d)' % (2 ** 63 - 1))
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_integer_parameters_are_ascii_digits_in_range(self):
        for value in ('9' * 5000, str(2 ** 63), '\u0663', ' 5', '1_0'):
            self.assertError(400, self.get('/v1/allocations?limit=' + value),
                             'the limit parameter')
        resp = self.get('/v1/allocations?limit=%d' % (2 ** 63 - 1))
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_version_numbers_are_ascii_digits_of_bounded_length(self):
        for version in ('1.' + '9' * 5000, '9' * 5000 + '.1',
                        '\u0661.\u0663'):
            self.assertError(400, self.get('/v1/nodes', version=version),
                             'X.Y')

    def test_default_filter_cap(self):
        query = '&'.join('p%d=Eq(1)' % i for i in range(1000))
        self.assertError(400, self.get('/v1/nodes?' + query), 'at most 64')


class TestQueryNames(base.APITestCase):
    """Query parameters a route does not document are refused, as Ironic
    refuses them; so are documented ones given twice."""

    def setUp(self):
        super().setUp()
        self.document = openapi.build(routes.ROUTES)

    def test_typos_are_400_naming_them(self):
        for method, path, name in (
                ('GET', '/v1/allocations?stat=active', 'stat'),
                ('GET', '/v1/ports?adress=52:54:00:00:00:01', 'adress'),
                ('POST', '/v1/pools/web/addMachines?cont=2', 'cont'),
                ('GET', '/v1/nodes/n1?field=name', 'field'),
                ('DELETE', '/v1/nodes/n1?node_uuid=' + NODE_UUID, 'node_uuid'),
                ('GET', '/v1/pools?limit=1', 'limit'),
                ('GET', '/v1/nodes/detail?detail=true', 'detail')):
            self.assertError(400, self.request(method, path),
                             'Unknown argument: "%s"' % name)

    def test_repeated_parameters_are_400_naming_them(self):
        for path, name in (
                ('/v1/allocations?limit=1&limit=2', 'limit'),
                ('/v1/nodes?limit=1&limit=1', 'limit'),
                ('/v1/nodes?fields=name&cpus=Gte(1)&fields=uuid', 'fields')):
            self.assertError(400, self.get(path),
                             'Repeated argument: "%s"' % name)

    def test_bad_names_are_checked_before_unknown_ones(self):
        self.assertError(400, self.get('/v1/allocations?a%00b=1'), 'NUL')

    def test_unknown_routes_keep_their_404(self):
        self.assertError(404, self.get('/v1/nowhere?x=1'))
        # Every route the application has is in the route table.
        for path in ('/static/x', '/static/x?x=1'):
            self.assertError(404, self.get(path))

    def documented(self, route) -> set[str]:
        """The query parameters the OpenAPI document lists for route."""
        path, path_params = openapi.openapi_path(route.rule)
        operation = self.document['paths'][path][route.method.lower()]
        names = {p['name'] if 'name' in p else p['$ref'].rsplit('/', 1)[1]
                 for p in operation.get('parameters', ())}
        return names - {'Microversion', *path_params}

    def test_every_documented_parameter_is_taken(self):
        for route in routes.ROUTES:
            path = re.sub(r'<\w+>', 'x', route.rule)
            query = '&'.join('%s=1' % name
                             for name in sorted(self.documented(route)))
            resp = self.request(route.method, path + '?' + query)
            if resp.status_code == 400:
                self.assertNotRegex(self.assertError(400, resp),
                                    '(Unknown|Repeated) argument',
                                    '%s %s' % (route.method, route.rule))

    def test_the_check_takes_what_the_document_lists(self):
        for route in routes.ROUTES:
            self.assertEqual(self.documented(route),
                             set(route.doc.query_names),
                             '%s %s' % (route.method, route.rule))


class TestCheckDocument(base.APITestCase):

    def test_lone_surrogates_anywhere(self):
        for document in ('\udc00', {'\ud800': 1}, [['a\udfffb']]):
            self.assertRaisesRegex(Exception, 'lone surrogate',
                                   validation.check_document, document)

    def test_places_are_named(self):
        self.assertRaisesRegex(Exception, '/extra/k~1x/1',
                               validation.check_document,
                               {'extra': {'k/x': [0, 2 ** 64]}})


class TestCount(base.APITestCase):

    def test_huge_count_is_400(self):
        self.post('/v1/pools', {'name': 'web'})
        for count in ('9' * 401, '9' * 5000, str(2 ** 63)):
            resp = self.request('POST', '/v1/pools/web/allocateMachines',
                                raw=('{"count": %s}' % count).encode())
            self.assertError(400, resp, 'out of range')
        resp = self.post('/v1/pools/web/allocateMachines',
                         {'count': 2 ** 63 - 1})
        self.assertError(400, resp, 'count must be at most')


class TestDateBounds(base.APITestCase):
    """A point in time of a request is before 9999-12-31: later ones, once
    rounded up to the second or moved to UTC, would not be dates."""

    LATE = ('9999-12-31T23:59:59.5+00:00', '9999-12-31T23:59:59.999999',
            '9999-12-31T00:00:00', '9999-12-31T12:00:00-12:00',
            '0001-01-01T00:00:00+01:00')

    def setUp(self):
        super().setUp()
        self.enroll(name='n1')
        self.post('/v1/pools', {'name': 'web'})
        self.post('/v1/pools/web/addMachines', {'machine_list': ['n1']})
        self.post('/v1/providers', {'name': 'pv', 'pool': 'web'})
        self.post('/v1/claims', {'name': 'c1',
                                 'resources': [{'provider': 'pv'}]})
        self.post('/v1/allocations', {'name': 'a1', 'resource_class': 'rc'})

    def requests(self, end: str):
        patch = [{'op': 'add', 'path': '/lifespan_end', 'value': end}]
        yield self.post('/v1/claims', {'resources': [{'provider': 'pv'}],
                                       'lifespan_end': end})
        yield self.patch_json('/v1/claims/c1', patch)
        yield self.post('/v1/allocations', {'resource_class': 'rc',
                                            'lifespan_end': end})
        yield self.patch_json('/v1/allocations/a1', patch)
        yield self.post('/v1/pools/web/allocateMachines',
                        {'machine_list': ['n1'], 'lifespan_end': end})

    def test_dates_past_the_bound_are_400_naming_the_field(self):
        for end in self.LATE:
            for resp in self.requests(end):
                self.assertError(400, resp, 'lifespan_end is out of range')

    def test_the_latest_date_is_stored_whole(self):
        resp = self.post('/v1/claims', {
            'resources': [{'provider': 'pv'}],
            'lifespan_end': '9999-12-30T23:59:59.5+00:00'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual('9999-12-31T00:00:00+00:00',
                         resp.get_json()['lifespan_end'])
