"""The OpenAPI document: valid, complete, and true to the API."""
import json
import os
import re

import jsonschema
import openapi_spec_validator
import referencing
import referencing.jsonschema

from pool_api import app as pool_app
from pool_api.handlers import allocations as allocation_handlers
from pool_api.handlers import brokers as broker_handlers
from pool_api.handlers import claims as claim_handlers
from pool_api.handlers import node_fields
from pool_api.handlers import nodes as node_handlers
from pool_api.handlers import pools as pool_handlers
from pool_api.handlers import portgroups as portgroup_handlers
from pool_api.handlers import ports as port_handlers
from pool_api.handlers import profiles as profile_handlers
from pool_api.handlers import providers as provider_handlers
from pool_api.handlers import workflows as workflow_handlers
from pool_api import openapi
from pool_api import routes
from pool_api.schemas import allocations as allocation_schemas
from pool_api.schemas import brokers as broker_schemas
from pool_api.schemas import chassis as chassis_schemas
from pool_api.schemas import claims as claim_schemas
from pool_api.schemas import deploy_templates as template_schemas
from pool_api.schemas import content as content_schemas
from pool_api.schemas import external_managers as \
    external_manager_schemas
from pool_api.schemas import nodes as node_schemas
from pool_api.schemas import pools as pool_schemas
from pool_api.schemas import reservations as reservation_schemas
from pool_api.schemas import portgroups as portgroup_schemas
from pool_api.schemas import ports as port_schemas
from pool_api.schemas import volumes as volume_schemas
from pool_api import validation
from tests.unit.api import base

DOC_URI = 'urn:pool:openapi'
METHODS = ('get', 'put', 'post', 'delete', 'patch')


def _resolve(document: dict, ref: dict) -> dict:
    """The object a local $ref points at (or the object itself)."""
    target = ref.get('$ref')
    if target is None:
        return ref
    node = document
    for part in target.lstrip('#/').split('/'):
        node = node[part]
    return node


class OpenAPIChecker:
    """Checks a response against the document, as a fuzzer's response
    conformance checks do: status code, required headers, media type and
    body schema."""

    def __init__(self, document: dict):
        self.document = document
        resource = referencing.Resource.from_contents(
            document, default_specification=referencing.jsonschema.DRAFT202012)
        self.registry = referencing.Registry().with_resource(DOC_URI,
                                                             resource)
        self.paths = [
            (re.compile('^%s$' % re.sub(r'\\\{[^}]+\\\}', '[^/]+',
                                        re.escape(path))), path)
            for path in document['paths']]

    def operation(self, method: str, path: str) -> dict:
        path = path.split('?')[0].rstrip('/') or '/'
        # Literal paths win over templated ones, as in the route table.
        matches = sorted((template.count('{'), template)
                         for regex, template in self.paths
                         if regex.match(path))
        if not matches:
            raise AssertionError('%s is not in the document' % path)
        return self.document['paths'][matches[0][1]][method.lower()]

    def validate_schema(self, schema: dict, instance) -> None:
        validator = jsonschema.Draft202012Validator(
            schema, registry=self.registry,
            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        validator.validate(instance)

    def validate_component(self, name: str, instance) -> None:
        self.validate_schema(
            {'$ref': '%s#/components/schemas/%s' % (DOC_URI, name)},
            instance)

    def check(self, method: str, path: str, response) -> None:
        operation = self.operation(method, path)
        responses = operation['responses']
        documented = responses.get(str(response.status_code),
                                   responses['default'])
        documented = _resolve(self.document, documented)
        for name, header in documented.get('headers', {}).items():
            header = _resolve(self.document, header)
            if header.get('required'):
                assert name in response.headers, (
                    '%s %s: header %s missing' % (method, path, name))
        content = documented.get('content')
        if not content:
            assert not response.get_data(), (
                '%s %s: %s has a body' % (method, path,
                                          response.status_code))
            return
        assert response.mimetype in content, response.mimetype
        schema = _resolve(self.document, content[response.mimetype])
        inline = schema['schema']
        self.validate_schema({'$ref': DOC_URI + inline['$ref']}
                             if '$ref' in inline else inline,
                             json.loads(response.get_data()))


class OpenAPIDocumentTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.document = openapi.build(routes.ROUTES)

    def test_valid_openapi_31(self):
        self.assertEqual('3.1.0', self.document['openapi'])
        openapi_spec_validator.validate(self.document)

    def test_served_document_is_valid(self):
        resp = self.client.get(openapi.PATH)
        self.assertEqual(200, resp.status_code)
        self.assertEqual('application/json', resp.mimetype)
        served = resp.get_json()
        openapi_spec_validator.validate(served)
        self.assertEqual([{'url': 'http://localhost'}], served['servers'])
        self.assertEqual('pool', served['info']['title'])
        self.assertEqual(base.LATEST, served['info']['version'])
        served.pop('servers')
        expected = json.loads(json.dumps(self.document))
        expected.pop('servers')
        self.assertEqual(expected, served)

    def test_served_document_ignores_version_headers(self):
        for value in ('1.99', 'garbage', '1.0'):
            resp = self.client.get(
                openapi.PATH, headers={'X-OpenStack-Ironic-API-Version':
                                       value})
            self.assertEqual(200, resp.status_code, value)
            self.assertNotIn('X-OpenStack-Ironic-API-Version', resp.headers)
            self.assertEqual(base.LATEST, resp.headers[
                'X-OpenStack-Ironic-API-Maximum-Version'])

    def test_every_route_is_documented(self):
        documented = {(path, method)
                      for path, item in self.document['paths'].items()
                      for method in item}
        tags = {tag['name'] for tag in self.document['tags']}
        for route in routes.ROUTES:
            where = '%s %s' % (route.method, route.rule)
            self.assertIsInstance(route.doc, openapi.Doc, where)
            self.assertTrue(route.doc.summary, where)
            self.assertIn(route.doc.tag, tags, where)
            path, params = openapi.openapi_path(route.rule)
            self.assertIn((path, route.method.lower()), documented, where)
            operation = self.document['paths'][path][route.method.lower()]
            self.assertEqual(route.handler.__name__, operation['operationId'])
            path_params = [p['name'] for p in operation.get('parameters', ())
                           if p.get('in') == 'path']
            self.assertEqual(params, path_params)
        self.assertEqual(len(routes.ROUTES), len(documented))

    def test_undocumented_route_is_refused(self):
        route = routes.Route('/v1/nodes/<node_ident>/bios', 'GET',
                             node_handlers.get_node, None)
        self.assertRaisesRegex(ValueError,
                               'GET /v1/nodes/<node_ident>/bios has no '
                               'documentation',
                               openapi.build, [*routes.ROUTES, route])

    def test_operation_ids_are_unique(self):
        ids = [op['operationId'] for item in self.document['paths'].values()
               for op in item.values()]
        self.assertEqual(len(ids), len(set(ids)))

    def test_created_resources_link_to_their_operations(self):
        ids = {op['operationId']: (path, op)
               for path, item in self.document['paths'].items()
               for op in item.values()}
        links = (self.document['paths']['/v1/nodes']['post']['responses']
                 ['201']['links'])
        self.assertIn('get_node', links)
        self.assertIn('set_provision_state', links)
        self.assertNotIn('add_trait', links)
        for link in links.values():
            path, _op = ids[link['operationId']]
            self.assertEqual({'node_ident': '$response.body#/uuid'},
                             link['parameters'])
            self.assertIn('{node_ident}', path)
        links = (self.document['paths']['/v1/allocations']['post']
                 ['responses']['201']['links'])
        self.assertEqual({'get_allocation', 'update_allocation',
                          'delete_allocation', 'list_allocation_history'},
                         set(links))

    def test_openapi_path(self):
        self.assertEqual(
            ('/v1/nodes/{node_ident}/traits/{trait}',
             ['node_ident', 'trait']),
            openapi.openapi_path('/v1/nodes/<node_ident>/traits/<trait>'))
        self.assertEqual(('/v1/x/{n}', ['n']),
                         openapi.openapi_path('/v1/x/<int:n>'))

    def _body_schema(self, path, method):
        operation = self.document['paths'][path][method]
        ref = operation['requestBody']['content']['application/json']
        return _resolve(self.document, ref['schema'])

    def test_request_schemas_are_the_validation_schemas(self):
        expected = {
            ('/v1/nodes', 'post'): node_schemas.CREATE,
            ('/v1/nodes/{node_ident}', 'patch'): validation.PATCH_SCHEMA,
            ('/v1/nodes/{node_ident}/states/power', 'put'):
                node_schemas.POWER,
            ('/v1/nodes/{node_ident}/states/provision', 'put'):
                node_schemas.PROVISION,
            ('/v1/nodes/{node_ident}/maintenance', 'put'):
                node_schemas.MAINTENANCE,
            ('/v1/nodes/{node_ident}/maintenance_windows', 'post'):
                node_schemas.MAINTENANCE_WINDOW,
            ('/v1/nodes/{node_ident}/states/console', 'put'):
                node_schemas.CONSOLE,
            ('/v1/nodes/{node_ident}/states/raid', 'put'):
                node_schemas.RAID_CONFIG_BODY,
            ('/v1/deploy_templates', 'post'): template_schemas.CREATE,
            ('/v1/deploy_templates/{template_ident}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/nodes/{node_ident}/traits', 'put'): node_schemas.TRAITS,
            ('/v1/nodes/{node_ident}/management/indicators/{indicator}',
             'put'): node_schemas.INDICATOR_STATE,
            ('/v1/allocations', 'post'): allocation_schemas.CREATE,
            ('/v1/reservations', 'post'): reservation_schemas.CREATE,
            ('/v1/allocations/{allocation_ident}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/nodes/{node_ident}/params', 'put'):
                pool_schemas.NODE_PARAMS,
            ('/v1/nodes/{node_ident}/params', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/pools', 'post'): pool_schemas.POOL_CREATE,
            ('/v1/pools/{pool_name}', 'patch'): validation.PATCH_SCHEMA,
            ('/v1/profiles', 'post'): pool_schemas.PROFILE_CREATE,
            ('/v1/profiles/{profile_name}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/workflows', 'post'): pool_schemas.WORKFLOW_CREATE,
            ('/v1/workflows/{workflow_name}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/brokers', 'post'): broker_schemas.BROKER_CREATE,
            ('/v1/brokers/{broker_name}', 'patch'): validation.PATCH_SCHEMA,
            ('/v1/external_managers', 'post'):
                external_manager_schemas.EXTERNAL_MANAGER_CREATE,
            ('/v1/external_managers/{manager_name}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/nodes/{node_ident}/returnToPool', 'post'):
                pool_schemas.ACTION,
            ('/v1/ports', 'post'): port_schemas.CREATE,
            ('/v1/ports/{port_uuid}', 'patch'): validation.PATCH_SCHEMA,
            ('/v1/nodes/{node_ident}/vifs', 'post'): port_schemas.VIF,
            ('/v1/portgroups', 'post'): portgroup_schemas.CREATE,
            ('/v1/portgroups/{portgroup_ident}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/chassis', 'post'): chassis_schemas.CREATE,
            ('/v1/chassis/{chassis_uuid}', 'patch'): validation.PATCH_SCHEMA,
            ('/v1/volume/connectors', 'post'):
                volume_schemas.CONNECTOR_CREATE,
            ('/v1/volume/connectors/{connector_uuid}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/volume/targets', 'post'): volume_schemas.TARGET_CREATE,
            ('/v1/volume/targets/{target_uuid}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/providers', 'post'): claim_schemas.PROVIDER_CREATE,
            ('/v1/providers/{provider_name}', 'patch'):
                validation.PATCH_SCHEMA,
            ('/v1/claims', 'post'): claim_schemas.CLAIM_CREATE,
            ('/v1/claims/{claim_ident}', 'patch'): validation.PATCH_SCHEMA,
            ('/v1/allocation_candidates', 'post'): allocation_schemas.PREVIEW,
            ('/v1/content', 'post'): content_schemas.CONTENT,
            **{('/v1/pools/{pool_name}/%s' % action, 'post'):
               pool_schemas.ACTION
               for action in ('addMachines', 'removeMachines',
                              'allocateMachines', 'returnMachines')},
        }
        for (path, method), schema in expected.items():
            self.assertIs(schema, self._body_schema(path, method),
                          (path, method))
        with_body = {(path, method)
                     for path, item in self.document['paths'].items()
                     for method, op in item.items() if 'requestBody' in op}
        self.assertEqual(set(expected), with_body)
        components = self.document['components']['schemas']
        self.assertIs(node_schemas.UPDATE, components['NodeUpdate'])
        self.assertIs(allocation_schemas.UPDATE,
                      components['AllocationUpdate'])

    def test_served_request_schemas_equal_the_validation_schemas(self):
        served = self.client.get(openapi.PATH).get_json()
        schemas = served['components']['schemas']
        self.assertEqual(node_schemas.CREATE, schemas['NodeCreate'])
        self.assertEqual(allocation_schemas.CREATE,
                         schemas['AllocationCreate'])
        self.assertEqual(validation.PATCH_SCHEMA, schemas['JSONPatch'])

    def test_filters_are_the_handlers_schemas(self):
        params = {p['name']: p for p in
                  self.document['paths']['/v1/nodes/detail']['get']
                  ['parameters'] if 'name' in p}
        for name, schema in node_schemas.FILTERS.items():
            self.assertIs(schema, params[name]['schema'])
        params = {p['name']: p for p in
                  self.document['paths']['/v1/allocations']['get']
                  ['parameters'] if 'name' in p}
        for name, schema in allocation_schemas.FILTERS.items():
            self.assertIs(schema, params[name]['schema'])
        self.assertEqual(list(allocation_handlers.SORT_KEYS),
                         params['sort_key']['schema']['enum'])

    def test_response_fields_are_the_handlers_fields(self):
        schemas = self.document['components']['schemas']
        self.assertEqual(list(node_fields.FIELDS),
                         list(schemas['Node']['properties']))
        self.assertEqual(list(allocation_handlers.FIELDS),
                         list(schemas['Allocation']['properties']))
        self.assertEqual(list(claim_handlers.FIELDS),
                         list(schemas['Claim']['properties']))
        self.assertEqual(list(port_handlers.FIELDS),
                         list(schemas['Port']['properties']))
        self.assertEqual(list(portgroup_handlers.FIELDS),
                         list(schemas['Portgroup']['properties']))
        for schema, handlers in (('Pool', pool_handlers),
                                 ('Profile', profile_handlers),
                                 ('Workflow', workflow_handlers),
                                 ('Broker', broker_handlers),
                                 ('Provider', provider_handlers)):
            self.assertEqual(
                [*handlers.FIELDS, 'created_at', 'updated_at', 'links'],
                list(schemas[schema]['properties']))

    def test_microversion_headers(self):
        params = self.document['components']['parameters']
        header = params['Microversion']
        self.assertEqual('X-OpenStack-Ironic-API-Version', header['name'])
        self.assertEqual('header', header['in'])
        self.assertIn('1.1', header['schema']['enum'])
        self.assertIn(base.LATEST, header['schema']['enum'])
        self.assertIn('latest', header['schema']['enum'])
        get_node = self.document['paths']['/v1/nodes/{node_ident}']['get']
        self.assertIn({'$ref': '#/components/parameters/Microversion'},
                      get_node['parameters'])
        headers = get_node['responses']['200']['headers']
        for name in ('X-OpenStack-Ironic-API-Minimum-Version',
                     'X-OpenStack-Ironic-API-Maximum-Version',
                     'X-OpenStack-Ironic-API-Version'):
            self.assertIn(name, headers)
        root = self.document['paths']['/']['get']
        self.assertNotIn('parameters', root)

    def test_error_schema(self):
        error = self.document['components']['schemas']['Error']
        self.assertEqual(['error_message'], error['required'])
        self.assertEqual({'type': 'string'},
                         {'type': error['properties']['error_message']
                          ['type']})


class OpenAPIResponsesTestCase(base.APITestCase):
    """Real responses of the API validate against the document."""

    def setUp(self):
        super().setUp()
        self.checker = OpenAPIChecker(openapi.build(routes.ROUTES))

    def call(self, method, path, body=None, status=None, **kw):
        resp = self.request(method, path, body, **kw)
        if status is not None:
            self.assertEqual(status, resp.status_code, resp.get_data())
        self.checker.check(method, path, resp)
        return resp

    def run_casts(self):
        from pool_conductor.allocator import AllocationWorker
        worker = AllocationWorker('test-host', 1)
        self.addCleanup(worker.stop)
        casts, self.casts = self.casts, []
        for alloc_id, _host in casts:
            worker.process(alloc_id)

    def test_checker_rejects_what_the_document_does_not_allow(self):
        for body in ({'links': [], 'bogus': 1}, {'links': [], 'name': 5},
                     {'links': [], 'created_at': 'yesterday'},
                     {'uuid': 'x'}):
            self.assertRaises(jsonschema.ValidationError,
                              self.checker.validate_component, 'Node', body)
        self.assertRaises(jsonschema.ValidationError,
                          self.checker.validate_component, 'Error',
                          {'message': 'x'})

    def test_node_create_get_list(self):
        resp = self.call('POST', '/v1/nodes',
                         {'driver': 'fake-hardware', 'name': 'node-1',
                          'resource_class': 'baremetal',
                          'extra': {'a': 1}}, status=201)
        node = resp.get_json()
        self.checker.validate_component('Node', node)
        self.assertIsNone(node['updated_at'])
        uuid = node['uuid']
        self.call('GET', '/v1/nodes/%s' % uuid, status=200)
        self.call('GET', '/v1/nodes/node-1?fields=name,extra', status=200)
        self.call('GET', '/v1/nodes', status=200)
        self.call('GET', '/v1/nodes/detail', status=200)
        self.call('GET', '/v1/nodes?detail=true', status=200)
        self.call('GET', '/v1/nodes?fields=uuid,traits', status=200)
        for version in ('1.1', '1.20', '1.45'):
            self.call('GET', '/v1/nodes/%s' % uuid, status=200,
                      version=version)
            self.call('GET', '/v1/nodes/detail', status=200,
                      version=version)
        self.call('POST', '/v1/nodes', {'driver': 'fake-hardware'},
                  status=201)
        resp = self.call('GET', '/v1/nodes?limit=1', status=200)
        self.assertIn('next', resp.get_json())

    def test_node_operations(self):
        node = self.call('POST', '/v1/nodes',
                         {'driver': 'fake-hardware', 'name': 'node-1',
                          'resource_class': 'baremetal'},
                         status=201).get_json()
        path = '/v1/nodes/%s' % node['uuid']
        self.call('PATCH', path, [{'op': 'add', 'path': '/extra/x',
                                   'value': 'y'}], status=200)
        self.call('GET', path + '/states', status=200)
        self.call('GET', path + '/states', status=200, version='1.5')
        for verb in ('manage', 'provide'):
            self.call('PUT', path + '/states/provision', {'target': verb},
                      status=202)
        self.call('PUT', path + '/states/power', {'target': 'power on'},
                  status=202)
        self.call('GET', path + '/states', status=200)
        self.call('PUT', path + '/states/console', {'enabled': True},
                  status=202)
        self.call('GET', path + '/states/console', status=200)
        self.call('PUT', path + '/management/inject_nmi', status=204)
        self.call('PUT', path + '/states/raid', {'logical_disks': [
            {'size_gb': 'MAX', 'raid_level': '1'}]}, status=204)
        self.call('PUT', path + '/maintenance', {'reason': 'r'},
                  status=202)
        self.call('PUT', path + '/maintenance?reason=x', status=202)
        self.call('DELETE', path + '/maintenance', status=202)
        self.call('PUT', path + '/traits', {'traits': ['CUSTOM_A']},
                  status=204)
        self.call('PUT', path + '/traits/CUSTOM_B', status=204)
        resp = self.call('GET', path + '/traits', status=200)
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], resp.get_json()['traits'])
        self.call('DELETE', path + '/traits/CUSTOM_B', status=204)
        self.call('DELETE', path + '/traits', status=204)
        self.call('GET', path, status=200)
        self.call('DELETE', path, status=204)

    def test_allocation_create_get_list(self):
        self.enroll(name='node-1', resource_class='baremetal')
        resp = self.call('POST', '/v1/allocations',
                         {'resource_class': 'baremetal', 'name': 'alloc-1',
                          'extra': {'k': 'v'}}, status=201)
        alloc = resp.get_json()
        self.checker.validate_component('Allocation', alloc)
        self.assertEqual('allocating', alloc['state'])
        self.run_casts()
        path = '/v1/allocations/%s' % alloc['uuid']
        resp = self.call('GET', path, status=200)
        self.assertEqual('active', resp.get_json()['state'])
        self.call('GET', '/v1/allocations/alloc-1?fields=uuid,state',
                  status=200)
        self.call('GET', '/v1/allocations', status=200)
        self.call('GET', '/v1/allocations?state=active&fields=uuid',
                  status=200)
        self.call('GET', path, status=200, version='1.52')
        self.call('GET', '/v1/nodes/node-1', status=200)
        self.call('GET', '/v1/nodes/node-1/allocation', status=200)
        self.call('PATCH', path, [{'op': 'replace', 'path': '/name',
                                   'value': 'alloc-2'}], status=200)
        self.call('DELETE', path, status=204)

    def test_pools_profiles_workflows_params(self):
        self.call('POST', '/v1/workflows', {'name': 'wf', 'stages': ['a']},
                  status=201)
        self.call('POST', '/v1/profiles', {'name': 'p', 'params': {'k': 1}},
                  status=201)
        self.call('POST', '/v1/pools', {
            'name': 'web', 'allocate_actions': {'workflow': 'wf'}},
            status=201)
        for collection in ('pools', 'profiles', 'workflows'):
            self.call('GET', '/v1/' + collection, status=200)
        self.call('GET', '/v1/pools/web', status=200)
        self.call('GET', '/v1/pools/web/status', status=200)
        self.call('PATCH', '/v1/pools/web', [
            {'op': 'add', 'path': '/description', 'value': 'd'}],
            status=200)
        self.call('PATCH', '/v1/profiles/p', [
            {'op': 'add', 'path': '/params/j', 'value': 2}], status=200)
        self.call('PATCH', '/v1/workflows/wf', [
            {'op': 'add', 'path': '/stages/-', 'value': 'b'}], status=200)
        node = self.enroll(name='node-1')
        self.checker.validate_component('Node', node)
        path = '/v1/nodes/node-1/params'
        self.call('PUT', path, {'a/b': 1}, status=200)
        self.call('PATCH', path, [{'op': 'add', 'path': '/c', 'value': 2}],
                  status=200)
        self.call('GET', path + '?aggregate=true', status=200)
        self.call('POST', '/v1/pools/web/addMachines',
                  {'machine_list': ['node-1']}, status=200)
        self.call('POST', '/v1/pools/web/allocateMachines', {},
                  status=200)
        self.call('POST', '/v1/nodes/node-1/returnToPool', None, status=200)
        self.call('POST', '/v1/pools/web/allocateMachines', {'count': 2},
                  status=409)
        self.call('POST', '/v1/pools/web/removeMachines',
                  {'machine_list': ['node-1']}, status=200)
        self.call('DELETE', '/v1/pools/default', status=409)
        self.call('DELETE', '/v1/pools/web', status=204)
        self.call('DELETE', '/v1/profiles/p', status=204)
        # The node runs the workflow its pool's allocate actions set.
        self.call('DELETE', '/v1/workflows/wf', status=409)
        self.call('GET', '/v1/profiles/p', status=404)

    def test_failed_allocation(self):
        alloc = self.call('POST', '/v1/allocations',
                          {'resource_class': 'missing'},
                          status=201).get_json()
        self.run_casts()
        resp = self.call('GET', '/v1/allocations/%s' % alloc['uuid'],
                         status=200)
        self.assertEqual('error', resp.get_json()['state'])
        self.assertTrue(resp.get_json()['last_error'])

    def test_events_and_history(self):
        self.create_node(name='n1')
        alloc = self.call('POST', '/v1/allocations',
                          {'resource_class': 'baremetal'},
                          status=201).get_json()
        self.run_casts()
        for query in ('', '?since=0', '?since=0&detail=true&limit=1',
                      '?wait=0.1&object_type=node'):
            self.call('GET', '/v1/events' + query, status=200)
        self.call('GET', '/v1/events?since=99', status=410)
        self.call('GET', '/v1/events?wait=-1', status=400)
        path = '/v1/allocations/%s/history' % alloc['uuid']
        history = self.call('GET', path + '?limit=1', status=200).get_json()
        self.assertIn('next', history)
        self.call('GET', path + '?detail=true', status=200)
        self.call('GET', path + '/' + history['history'][0]['uuid'],
                  status=200)
        self.call('GET', path + '/' + alloc['uuid'], status=404)

    def test_errors(self):
        resp = self.call('GET', '/v1/nodes/missing', status=404)
        self.checker.validate_component('Error', resp.get_json())
        self.call('GET', '/v1/allocations/missing', status=404)
        self.call('POST', '/v1/nodes', {'name': 'no-driver'}, status=400)
        self.call('POST', '/v1/nodes', {'driver': 'd'}, status=406,
                  version='1.99')
        self.call('GET', '/v1/nodes', status=400, version='garbage')
        self.call('GET', '/v1/allocations', status=404, version='1.51')
        self.call('GET', '/v1/nodes?sort_key=bogus', status=400)
        self.call('GET', '/v1/nodes?fields=uuid', status=406,
                  version='1.7')
        self.call('PUT', '/v1/nodes/missing/traits/CUSTOM_A', status=404)
        self.call('PATCH', '/v1/allocations/x', [], status=405,
                  version='1.56')
        node = self.create_node(name='n1')
        self.call('POST', '/v1/nodes',
                  {'driver': 'fake-hardware', 'name': 'n1'}, status=409)
        self.call('PUT', '/v1/nodes/%s/states/provision' % node.uuid,
                  {'target': 'provide'}, status=400)
        self.create_node(name='n2', provision_state='active',
                         instance_uuid='c5b2e5d6-3c4f-4f4e-9c59-2a4b0f0e8a11')
        self.call('DELETE', '/v1/nodes/n2', status=409)

    def test_version_documents(self):
        resp = self.client.get('/')
        self.checker.check('GET', '/', resp)
        self.call('GET', '/v1', status=200)
        self.call('GET', '/v1', status=200, version='1.1')
        resp = self.client.get(openapi.PATH)
        self.checker.check('GET', openapi.PATH, resp)

    def test_security_schemes_and_auth_errors(self):
        document = openapi.build(routes.ROUTES)
        self.assertEqual({'keystoneToken', 'httpBasic'},
                         set(document['components']['securitySchemes']))
        for path, item in document['paths'].items():
            for method, operation in item.items():
                where = '%s %s' % (method, path)
                if path in ('/', '/v1', '/v1/openapi.json'):
                    self.assertEqual([], operation['security'], where)
                    self.assertNotIn('401', operation['responses'], where)
                else:
                    self.assertNotIn('security', operation, where)
                    self.assertIn('401', operation['responses'], where)
                    self.assertIn('403', operation['responses'], where)

    def test_401_matches_the_document(self):
        self.config(auth_strategy='http_basic',
                    http_basic_auth_user_file=os.devnull)
        self.app = pool_app.create_app()
        resp = self.app.test_client().get(
            '/v1/nodes', headers={'X-OpenStack-Ironic-API-Version': '1.60'})
        self.checker.check('GET', '/v1/nodes', resp)
        self.assertEqual(401, resp.status_code)
