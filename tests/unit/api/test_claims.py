"""Providers and claims: the API, binding by a conductor (all or none),
changes within update filters, deletion and expiry."""
import datetime

import sqlalchemy as sa

from pool_api import app as pool_app
from pool_api import auth
from pool_conductor import claim_release
from pool_conductor import claims
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor import expiry
from pool_conductor import states
from tests.unit.api import base as api_base

HOUR = datetime.timedelta(hours=1)
PROJECT = '5a5b1b9f0f3c4f0c8a1a1a1a1a1a1a1a'
OTHER = '6b6c2c0a1a4d4a1d9b2b2b2b2b2b2b2b'
MEMBER = {'X-Roles': 'member,reader', 'X-Project-Id': PROJECT}
OTHER_MEMBER = {'X-Roles': 'member,reader', 'X-Project-Id': OTHER}
READER = {'X-Roles': 'reader', 'X-Project-Id': PROJECT}
ADMIN = {'X-Roles': 'admin,member,reader', 'OpenStack-System-Scope': 'all'}


def _parse(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=None)


class ClaimTestBase(api_base.APITestCase):

    nodes = 3

    def setUp(self):
        # The identity comes from the headers, as behind auth_token.
        self.patch(auth, 'wrap', lambda app: app)
        super().setUp()
        self.config(auth_strategy='keystone')
        self.app = pool_app.create_app()
        self.client = self.app.test_client()
        self.config(heartbeat_timeout=60, group='conductor')
        conductors_db.register_conductor(self.context, 'test-host')
        self.ok(self.post('/v1/pools', {'name': 'lab'}), 201)
        for i in range(self.nodes):
            self.enroll(name='node-%d' % i)
        self.ok(self.post('/v1/pools/lab/addMachines', {
            'machine_list': ['node-%d' % i for i in range(self.nodes)]}))
        self.ok(self.post('/v1/workflows', {'name': 'deploy',
                                            'stages': ['install']}), 201)
        self.ok(self.post('/v1/profiles', {'name': 'web'}), 201)

    def request(self, method, path, body=None, version=None, headers=None,
                raw=None):
        return super().request(method, path, body, version,
                               headers or ADMIN, raw)

    def ok(self, resp, status=200):
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def provider(self, name='small', **fields):
        fields.setdefault('pool', 'lab')
        return self.ok(self.post('/v1/providers', {'name': name, **fields}),
                       201)

    def claim(self, *templates, provider='small', headers=None, **body):
        body.setdefault('resources', [{'provider': provider, 'template': t}
                                      for t in templates])
        return self.post('/v1/claims', body, headers=headers)

    def bind(self):
        return claims.bind_pending(self.context, 'test-host')

    def node(self, name):
        return self.get('/v1/nodes/%s' % name).get_json()

    def set_params(self, name, params):
        self.ok(self.put('/v1/nodes/%s/params' % name, params))


class ProviderAPITestCase(ClaimTestBase):

    def test_create_show_list_update_delete(self):
        body = self.provider(
            description='Small machines',
            defaults={'resource_class': 'baremetal',
                      'params': {'size': 'small'}},
            validation={'type': 'object', 'properties': {'params': {
                'type': 'object', 'properties': {
                    'hostname': {'type': 'string',
                                 'pattern': '^[a-z0-9-]+$'}}}}},
            match_ignore=['/params/hostname'],
            update_filters=[{'path_match': '/params/state',
                             'allowed_ops': ['replace']}],
            lifespan={'default': '4h', 'maximum': '7d'})
        self.assertEqual('lab', body['pool'])
        self.assertEqual({'enable': False} if False else {},
                         body['template'])
        self.assertEqual(body, self.get('/v1/providers/small').get_json())
        self.assertEqual(['small'], [p['name'] for p in self.get(
            '/v1/providers').get_json()['providers']])
        body = self.ok(self.patch_json('/v1/providers/small', [
            {'op': 'replace', 'path': '/lifespan/default', 'value': '1h'},
            {'op': 'add', 'path': '/template', 'value': {'enable': True}}]))
        self.assertEqual('1h', body['lifespan']['default'])
        self.assertEqual({'enable': True}, body['template'])
        self.assertError(400, self.patch_json('/v1/providers/small', [
            {'op': 'replace', 'path': '/name', 'value': 'big'}]))
        self.ok(self.delete('/v1/providers/small'), 204)
        self.assertError(404, self.get('/v1/providers/small'))

    def test_refused_fields(self):
        self.assertError(404, self.post('/v1/providers', {
            'name': 'p', 'pool': 'nowhere'}), 'Pool nowhere')
        self.assertError(400, self.post('/v1/providers', {'name': 'p'}),
                         'pool')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'validation': {'type': 'no-such-type'}}),
            'Provider p: validation is not a valid JSON schema')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'validation': {'properties': {'a': {'pattern': '(?=a)'}}}}),
            "Provider p: validation has the pattern '(?=a)'")
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'validation': {'properties': {'a': {'pattern': '(a'}}}}),
            'Provider p: validation is not a valid JSON schema')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'validation': {'$ref': 'http://169.254.169.254/latest'}}),
            "Provider p: validation refers to 'http://169.254.169.254/"
            "latest'")
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'validation': {'description': 'x' * 70000}}),
            'larger than 65536')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'match_ignore': ['/params/a~2']}),
            'match_ignore/0')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'match_ignore': ['params']}),
            'match_ignore')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'update_filters': [{'path_match': '/params/(x'}]}),
            'update_filters/0/path_match')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab',
            'update_filters': [{'path_match': '/a',
                                'allowed_ops': ['move']}]}))
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'lifespan': {'default': 'soon'}}),
            'lifespan')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'defaults': {'cpus': 4}}))
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'template': {'enable': True},
            'defaults': {'params': {'a': '{{ unclosed'}}}),
            'Provider p defaults: the template at /params/a')
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'template': {'enable': True},
            'defaults': {'params': {'a': '{% macro m() %}{% endmacro %}'}}}),
            'macro')
        self.provider('p')
        self.assertError(409, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab'}))
        self.assertError(400, self.patch_json('/v1/providers/p', [
            {'op': 'add', 'path': '/validation', 'value': {'type': 7}}]),
            'not a valid JSON schema')
        self.assertError(404, self.patch_json('/v1/providers/p', [
            {'op': 'replace', 'path': '/pool', 'value': 'nowhere'}]))
        self.assertEqual('lab', self.get('/v1/providers/p').get_json()[
            'pool'])

    def test_policy(self):
        self.provider()
        self.ok(self.get('/v1/providers/small', headers=READER))
        self.ok(self.get('/v1/providers', headers=READER))
        self.assertError(403, self.post('/v1/providers', {
            'name': 'mine', 'pool': 'lab'}, headers=MEMBER))
        self.assertError(403, self.patch_json('/v1/providers/small', [
            {'op': 'remove', 'path': '/lifespan'}], headers=MEMBER))
        self.assertError(403, self.delete('/v1/providers/small',
                                          headers=MEMBER))

    def test_provider_in_use_not_deleted(self):
        self.provider()
        self.ok(self.claim({}), 201)
        self.assertError(409, self.delete('/v1/providers/small'),
                         'Provider small cannot be deleted: claim')


class ClaimAPITestCase(ClaimTestBase):

    def test_claim_bound_all_resources(self):
        # The role is not matched but given to the machines.
        self.provider(defaults={'resource_class': 'baremetal',
                                'profiles': ['web'],
                                'params': {'role': 'web'}},
                      match_ignore=['/params/role'])
        claim = self.ok(self.claim({}, {}, {'workflow': 'deploy'},
                                   name='three'), 201)
        self.assertEqual('pending', claim['state'])
        self.assertEqual([], claim['allocations'])
        self.assertEqual({'resource_class': 'baremetal',
                          'profiles': ['web'], 'params': {'role': 'web'}},
                         claim['resources'][0]['template'])
        self.assertEqual(1, self.bind())
        claim = self.ok(self.get('/v1/claims/three'))
        self.assertEqual(3, len(claim['allocations']))
        nodes = {}
        for uuid in claim['allocations']:
            alloc = self.ok(self.get('/v1/allocations/%s' % uuid))
            self.assertEqual('active', alloc['state'])
            self.assertEqual(('lab', {}), (alloc['pool'], alloc['extra']))
            nodes[alloc['node_uuid']] = self.node(alloc['node_uuid'])
        self.assertEqual(3, len(nodes))
        for node in nodes.values():
            self.assertEqual(['web'], node['profiles'])
            self.assertEqual('web', node['params']['role'])
        # No allocate action waits for a stage: all are InUse at once.
        self.assertEqual({'InUse'}, {n['pool_status']
                                     for n in nodes.values()})
        self.assertEqual('ready', claim['state'])
        self.assertEqual(['deploy'], [n['workflow'] for n in nodes.values()
                                      if n['workflow']])

    def test_released_machines_lose_what_the_claim_set(self):
        """Deleting a claim takes off the params and profiles its
        templates gave the machines, and leaves the node's own."""
        self.provider(defaults={'resource_class': 'baremetal',
                                'profiles': ['web'],
                                'params': {'role': 'web'}},
                      match_ignore=['/params/role', '/params/tier',
                                    '/params/rack'])
        self.set_params('node-0', {'rack': 'r1'})
        self.set_params('node-1', {'rack': 'r1'})
        self.set_params('node-2', {'rack': 'r1'})
        claim = self.ok(self.claim({'params': {'tier': 'front'}},
                                   name='temp'), 201)
        self.assertEqual(1, self.bind())
        alloc = self.ok(self.get('/v1/allocations/%s' % self.ok(
            self.get('/v1/claims/temp'))['allocations'][0]))
        node = self.node(alloc['node_uuid'])
        self.assertEqual(({'rack': 'r1', 'role': 'web', 'tier': 'front'},
                          ['web']), (node['params'], node['profiles']))
        self.assertEqual(204, self.delete('/v1/claims/%s'
                                          % claim['uuid']).status_code)
        node = self.node(alloc['node_uuid'])
        self.assertEqual(({'rack': 'r1'}, [], 'Free'),
                         (node['params'], node['profiles'],
                          node['pool_status']))

    def test_bound_until_machines_are_in_use(self):
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/allocate_actions',
             'value': {'workflow': 'deploy',
                       'wait_for_stage': 'install'}}]))
        self.provider()
        claim = self.ok(self.claim({}), 201)
        self.bind()
        claim = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('bound', claim['state'])
        node = self.node(self.ok(self.get('/v1/allocations/%s' % claim[
            'allocations'][0]))['node_uuid'])
        self.assertEqual('Building', node['pool_status'])
        self.assertEqual([claim['uuid']], [c['uuid'] for c in self.get(
            '/v1/claims?state=bound').get_json()['claims']])
        self.assertEqual([], self.get('/v1/claims?state=ready').get_json()[
            'claims'])

    def test_all_or_nothing(self):
        self.provider()
        claim = self.ok(self.claim({}, {}, {}, {}), 201)
        self.assertEqual(0, self.bind())
        claim = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('error', claim['state'])
        self.assertIn('No Free machine of pool lab (provider small) '
                      'matches resource 3', claim['last_error'])
        self.assertEqual([], claim['allocations'])
        self.assertEqual([], self.get('/v1/allocations').get_json()[
            'allocations'])
        for i in range(3):
            self.assertEqual('Free', self.node('node-%d' % i)[
                'pool_status'])
        self.assertError(400, self.patch_json(
            '/v1/claims/%s' % claim['uuid'], [
                {'op': 'add', 'path': '/resources/0/template/params',
                 'value': {'a': 1}}]), 'it is error, not bound')

    def test_match_on_class_traits_and_params(self):
        self.provider(match_ignore=['/params/hostname',
                                    '/params/disk/serial'])
        self.set_params('node-0', {'rack': 'a', 'disk': {'size': 1,
                                                         'serial': 'x'}})
        self.set_params('node-1', {'rack': 'c', 'disk': {'size': 2,
                                                         'serial': 'y'}})
        self.set_params('node-2', {'rack': 'b', 'disk': {'size': 1,
                                                         'serial': 'z'}})
        self.ok(self.put('/v1/nodes/node-1/traits/CUSTOM_GPU'), 204)
        claim = self.ok(self.claim(
            {'params': {'rack': 'b', 'hostname': 'web-1'}},
            {'params': {'disk': {'size': 1, 'serial': 'other'}},
             'resource_class': 'baremetal'},
            {'traits': ['CUSTOM_GPU']}), 201)
        self.bind()
        claim = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('ready', claim['state'], claim['last_error'])
        names = [self.node(self.ok(self.get('/v1/allocations/%s' % a))[
            'node_uuid'])['name'] for a in claim['allocations']]
        # The GPU machine is node-1, so the rack b resource gets node-2
        # and the disk of size 1 node-0.
        self.assertEqual(['node-2', 'node-0', 'node-1'], names)
        self.assertEqual('web-1', self.node('node-2')['params']['hostname'])
        self.assertEqual(['CUSTOM_GPU'], self.ok(self.get(
            '/v1/allocations/%s' % claim['allocations'][2]))['traits'])

    def test_unmatched_params_error(self):
        self.provider()
        self.set_params('node-0', {'rack': 'a'})
        claim = self.ok(self.claim({'params': {'rack': 'c'}},
                                   {'resource_class': 'gpu'}), 201)
        self.bind()
        claim = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('error', claim['state'])
        self.assertIn('resource 0: params {"rack": "c"}',
                      claim['last_error'])

    def test_templates_rendered_into_defaults(self):
        self.provider(template={'enable': True}, defaults={'params': {
            'hostname': '{{ resource_claim.name }}-{{ resource_index }}',
            'provider': '{{ resource_provider.name }}',
            'until': '{{ timestamp("2026-01-01T00:00:00Z").add("1d") }}'}},
            match_ignore=['/params'])
        claim = self.ok(self.claim({}, {'params': {'hostname': 'mine'}},
                                   name='web'), 201)
        self.assertEqual(
            [{'hostname': 'web-0', 'provider': 'small',
              'until': '2026-01-02T00:00:00Z'},
             {'hostname': 'mine', 'provider': 'small',
              'until': '2026-01-02T00:00:00Z'}],
            [r['template']['params'] for r in claim['resources']])

    def test_template_error_names_provider_and_field(self):
        self.provider(template={'enable': True}, defaults={'params': {
            'x': '{% for i in range(1000) %}{% for j in range(1000) %}'
                 '{% for k in range(1000) %}{% endfor %}{% endfor %}'
                 '{% endfor %}'}})
        self.assertError(400, self.claim({}),
                         'Provider small defaults (resources/0): rendering '
                         'the templates took more than 0.5 s of CPU time.')
        self.assertEqual([], self.get('/v1/claims').get_json()['claims'])

    def test_validation_refusals(self):
        self.provider(validation={
            'type': 'object', 'required': ['params'],
            'properties': {'params': {'type': 'object', 'properties': {
                'size': {'enum': ['small', 'large']}}}}})
        self.assertError(400, self.claim({'params': {'size': 'small'}}, {}),
                         "resources/1/template/: 'params' is a required "
                         "property (validation of provider small)")
        self.assertError(400, self.claim({'params': {'size': 'huge'}}),
                         'resources/0/template/params/size')
        self.assertError(400, self.claim({'cpus': 4}),
                         'resources/0/template')
        self.assertError(400, self.claim({'traits': ['gpu'], 'params': {}}),
                         'Invalid trait')
        self.assertError(400, self.claim({'workflow': 'nope',
                                          'params': {}}),
                         'resources/0/template: Workflow nope')
        self.assertError(404, self.claim({}, provider='nope'),
                         'Provider nope')
        self.assertError(400, self.post('/v1/claims', {'resources': []}))
        self.assertError(400, self.post('/v1/claims', {
            'resources': [{'provider': 'small'}] * 101}))
        self.assertError(400, self.post('/v1/claims', {
            'resources': [{'provider': 'small', 'extra': 1}]}))
        self.assertEqual([], self.get('/v1/claims').get_json()['claims'])

    def test_lifespan_from_the_providers_minimum(self):
        self.provider('a', lifespan={'default': '4h', 'maximum': '1d'})
        self.provider('b', lifespan={'default': '2h', 'maximum': '3d'})
        before = db_api.utcnow()
        claim = self.ok(self.post('/v1/claims', {'resources': [
            {'provider': 'a'}, {'provider': 'b'}]}), 201)
        end = _parse(claim['lifespan_end'])
        # Rounded up to the second.
        self.assertEqual(0, end.microsecond)
        self.assertTrue(before + 2 * HOUR <= end
                        <= db_api.utcnow() + 2 * HOUR
                        + datetime.timedelta(seconds=1))
        self.assertError(400, self.post('/v1/claims', {
            'resources': [{'provider': 'a'}, {'provider': 'b'}],
            'lifespan_end': (before + 30 * HOUR).isoformat()}),
            'latest end allowed is')
        self.bind()
        claim = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        for uuid in claim['allocations']:
            self.assertEqual(claim['lifespan_end'], self.ok(self.get(
                '/v1/allocations/%s' % uuid))['lifespan_end'])

    def test_owner_scoping(self):
        self.provider()
        # A member's claim binds only its project's machines.
        for i in range(self.nodes):
            self.ok(self.patch_json('/v1/nodes/node-%d' % i, [
                {'op': 'add', 'path': '/owner', 'value': PROJECT}]))
        mine = self.ok(self.claim({}, headers=MEMBER), 201)
        self.assertEqual(PROJECT, mine['owner'])
        path = '/v1/claims/%s' % mine['uuid']
        self.ok(self.get(path, headers=READER))
        self.assertError(404, self.get(path, headers=OTHER_MEMBER))
        self.assertError(404, self.delete(path, headers=OTHER_MEMBER))
        self.assertError(403, self.delete(path, headers=READER))
        self.assertEqual([], self.get('/v1/claims',
                                      headers=OTHER_MEMBER).get_json()[
            'claims'])
        self.assertEqual([mine['uuid']], [c['uuid'] for c in self.get(
            '/v1/claims', headers=MEMBER).get_json()['claims']])
        self.assertError(403, self.get('/v1/claims?owner=%s' % OTHER,
                                       headers=MEMBER))
        self.bind()
        alloc = self.get(path).get_json()['allocations'][0]
        self.assertEqual(PROJECT, self.ok(self.get(
            '/v1/allocations/%s' % alloc, headers=MEMBER))['owner'])

    def test_list_filters_and_fields(self):
        self.provider()
        self.ok(self.claim({}, name='one'), 201)
        self.ok(self.claim({}, {}, {}, {}, name='two'), 201)
        self.bind()
        self.assertEqual(['two'], [c['name'] for c in self.get(
            '/v1/claims?state=error').get_json()['claims']])
        self.assertEqual([('one', 'ready'), ('two', 'error')],
                         [(c['name'], c['state']) for c in self.get(
                             '/v1/claims?fields=name,state').get_json()[
                             'claims']])
        self.assertNotIn('resources', self.get(
            '/v1/claims?fields=name').get_json()['claims'][0])
        self.assertError(400, self.get('/v1/claims?state=happy'))
        self.assertError(409, self.claim({}, name='one'))


class ClaimStateFilterTestCase(ClaimTestBase):
    """?state= selects claims by the state shown, in the database before
    the page is cut: ready and bound claims are both stored bound."""

    nodes = 6

    def bound_claim(self, ready: bool, resources: int = 1) -> str:
        """A claim bound now, ready or waiting for its machines'
        workflow."""
        actions = {} if ready else {'workflow': 'deploy',
                                    'wait_for_stage': 'install'}
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/allocate_actions', 'value': actions}]))
        uuid = self.ok(self.claim(*[{}] * resources), 201)['uuid']
        self.assertEqual(1, self.bind())
        self.assertEqual('ready' if ready else 'bound',
                         self.ok(self.get('/v1/claims/%s' % uuid))['state'])
        return uuid

    def change_allocation(self, claim_uuid: str, index: int, **values):
        uuid = self.ok(self.get('/v1/claims/%s' % claim_uuid))[
            'allocations'][index]
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.uuid == uuid).values(**values))

    def pages(self, query: str) -> list[list[str]]:
        """The claim UUIDs of each page of GET /v1/claims?<query>,
        following the next links."""
        pages = []
        url = '/v1/claims?' + query
        while url:
            body = self.ok(self.get(url))
            pages.append([c['uuid'] for c in body['claims']])
            url = body.get('next')
            if url:
                url = url[len('http://localhost'):]
        return pages

    def test_limited_pages_are_full(self):
        self.provider()
        shown = {'ready': [], 'bound': []}
        for i in range(6):
            ready = i % 2 == 0
            shown['ready' if ready else 'bound'].append(
                self.bound_claim(ready))
        for state, expected in shown.items():
            for limit in (1, 2):
                for sort_dir, order in (('asc', expected),
                                        ('desc', expected[::-1])):
                    pages = self.pages('state=%s&limit=%d&sort_dir=%s'
                                       % (state, limit, sort_dir))
                    for page in pages[:-1]:
                        self.assertEqual(limit, len(page), pages)
                    self.assertLess(len(pages[-1]), limit, pages)
                    self.assertEqual(order, sum(pages, []))

    def test_each_state_selects_the_claims_shown_in_it(self):
        self.provider()
        shown = {self.bound_claim(True): 'ready',
                 self.bound_claim(False): 'bound'}
        # A machine for each resource is needed, and each with a node
        # InUse: a claim missing an allocation, or whose allocation has
        # no node, is bound although the others are InUse.
        missing = self.bound_claim(True, resources=2)
        self.change_allocation(missing, 1, claim_id=None)
        none = self.bound_claim(True)
        self.change_allocation(none, 0, claim_id=None)
        nodeless = self.bound_claim(True)
        self.change_allocation(nodeless, 0, node_id=None)
        shown.update(dict.fromkeys((missing, none, nodeless), 'bound'))
        shown[self.ok(self.claim(*[{}] * 7), 201)['uuid']] = 'error'
        self.assertEqual(0, self.bind())
        shown[self.ok(self.claim({}), 201)['uuid']] = 'pending'
        expired = self.ok(self.claim({}), 201)['uuid']
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Claim).where(
                models.Claim.uuid == expired).values(state='expired'))
        shown[expired] = 'expired'
        self.assertEqual(shown, {c['uuid']: c['state'] for c in self.ok(
            self.get('/v1/claims'))['claims']})
        for state in states.CLAIM_STATES:
            self.assertEqual(
                [u for u, s in shown.items() if s == state],
                [c['uuid'] for c in self.ok(self.get(
                    '/v1/claims?state=%s' % state))['claims']], state)


class ClaimChangeTestCase(ClaimTestBase):

    def setUp(self):
        super().setUp()
        self.provider(
            defaults={'params': {'state': 'started', 'owner_email': 'a@b'}},
            update_filters=[
                {'path_match': '/params/state',
                 'allowed_ops': ['replace']},
                {'path_match': '/params/extra_.*'},
                {'path_match': '/profiles(/.*)?'}],
            validation={'properties': {'params': {'properties': {
                'state': {'enum': ['started', 'stopped']}}}}},
            match_ignore=['/params'],
            lifespan={'default': '1h', 'maximum': '1d',
                      'relative_maximum': '6h'})
        self.claim_body = self.ok(self.claim({}, {}, name='c'), 201)
        self.path = '/v1/claims/c'
        self.bind()
        self.alloc_nodes = [
            self.ok(self.get('/v1/allocations/%s' % a))['node_uuid']
            for a in self.get(self.path).get_json()['allocations']]

    def test_extend_lifespan_within_limits(self):
        wanted = (db_api.utcnow() + 5 * HOUR).replace(microsecond=0)
        claim = self.ok(self.patch_json(self.path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': wanted.isoformat()}]))
        self.assertEqual(wanted, _parse(claim['lifespan_end']))
        for uuid in claim['allocations']:
            self.assertEqual(wanted, _parse(self.ok(self.get(
                '/v1/allocations/%s' % uuid))['lifespan_end']))
        self.assertError(400, self.patch_json(self.path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': (wanted + 2 * HOUR).isoformat()}]),
            "is later than its providers' lifespan allows: the latest end "
            "allowed is")
        self.assertError(400, self.patch_json(self.path, [
            {'op': 'remove', 'path': '/lifespan_end'}]), 'cannot be removed')
        # A claim's machine is extended with its claim only.
        self.assertError(409, self.patch_json(
            '/v1/allocations/%s' % claim['allocations'][0], [
                {'op': 'replace', 'path': '/lifespan_end',
                 'value': wanted.isoformat()}]), 'claim %s' % claim['uuid'])

    def test_template_change_within_filters_applied_to_machine(self):
        claim = self.ok(self.patch_json(self.path, [
            {'op': 'replace', 'path': '/resources/1/template/params/state',
             'value': 'stopped'},
            {'op': 'add', 'path': '/resources/1/template/params/extra_tag',
             'value': 'blue'},
            {'op': 'add', 'path': '/resources/1/template/profiles',
             'value': ['web']}]))
        self.assertEqual({'state': 'stopped', 'owner_email': 'a@b',
                          'extra_tag': 'blue'},
                         claim['resources'][1]['template']['params'])
        node = self.node(self.alloc_nodes[1])
        self.assertEqual(('stopped', 'blue', ['web']),
                         (node['params']['state'],
                          node['params']['extra_tag'], node['profiles']))
        self.assertEqual('started',
                         self.node(self.alloc_nodes[0])['params']['state'])
        claim = self.ok(self.patch_json(self.path, [
            {'op': 'remove',
             'path': '/resources/1/template/params/extra_tag'}]))
        self.assertNotIn('extra_tag', self.node(self.alloc_nodes[1])[
            'params'])

    def test_template_change_waits_for_a_machine_a_conductor_holds(self):
        self.config(node_locked_retry_attempts=50,
                    node_locked_retry_interval=0.05, group='conductor')
        self.lock_for_a_moment(self.alloc_nodes[1])
        self.ok(self.patch_json(self.path, [
            {'op': 'replace', 'path': '/resources/1/template/params/state',
             'value': 'stopped'}]))
        self.assertEqual('stopped', self.node(self.alloc_nodes[1])[
            'params']['state'])

    def test_template_change_outside_filters_refused(self):
        for ops, message in (
                ([{'op': 'replace',
                   'path': '/resources/0/template/params/owner_email',
                   'value': 'c@d'}],
                 'resources/0/template/params/owner_email: the '
                 'update_filters of provider small do not allow the '
                 'operation replace'),
                ([{'op': 'remove',
                   'path': '/resources/0/template/params/state'}],
                 'do not allow the operation remove'),
                ([{'op': 'replace',
                   'path': '/resources/0/template/params/state',
                   'value': 'exploded'}],
                 'resources/0/template/params/state'),
                ([{'op': 'add', 'path': '/resources/0/template/'
                   'resource_class', 'value': 'gpu'}],
                 'cannot change'),
                ([{'op': 'add', 'path': '/resources/-',
                   'value': {'provider': 'small'}}],
                 'cannot be added')):
            self.assertError(400, self.patch_json(self.path, ops), message)
        self.assertEqual('a@b', self.node(self.alloc_nodes[0])['params'][
            'owner_email'])
        self.assertEqual(self.claim_body['resources'],
                         self.get(self.path).get_json()['resources'])

    def test_delete_releases_machines(self):
        claim = self.get(self.path).get_json()
        self.assertError(409, self.delete('/v1/allocations/%s'
                                          % claim['allocations'][0]),
                         'is a machine of claim')
        self.assertError(409, self.delete('/v1/nodes/%s/allocation'
                                          % self.alloc_nodes[0]))
        self.ok(self.delete(self.path), 204)
        self.assertError(404, self.get(self.path))
        self.assertEqual([], self.get('/v1/allocations').get_json()[
            'allocations'])
        for uuid in self.alloc_nodes:
            node = self.node(uuid)
            self.assertEqual(('Free', None), (node['pool_status'],
                                              node['instance_uuid']))

    def test_delete_waits_for_a_machine_a_conductor_holds(self):
        self.config(node_locked_retry_attempts=50,
                    node_locked_retry_interval=0.05, group='conductor')
        self.lock_for_a_moment(self.alloc_nodes[0])
        self.ok(self.delete(self.path), 204)
        self.assertEqual([('Free', None)] * 2, [
            (n['pool_status'], n['instance_uuid'])
            for n in map(self.node, self.alloc_nodes)])

    def test_machines_are_released_only_by_their_claim(self):
        machine = self.alloc_nodes[0]
        for force in (False, True):
            self.assertError(409, self.post('/v1/pools/lab/returnMachines', {
                'machine_list': [machine], 'force': force}),
                'is a machine of claim %s' % self.claim_body['uuid'])
        self.assertError(409, self.patch_json('/v1/nodes/%s' % machine, [
            {'op': 'remove', 'path': '/instance_uuid'}]),
            'delete the claim to release it')
        # Deleting it is refused as Ironic refuses a node with an
        # instance out of maintenance (in maintenance it is lost to the
        # claim: test_lost_handles).
        self.assertError(409, self.delete('/v1/nodes/%s' % machine),
                         'associated with instance')
        # All the pool's machines: those of the claim stay with it.
        self.ok(self.post('/v1/pools/lab/returnMachines',
                          {'all_machines': True, 'force': True}))
        claim = self.get(self.path).get_json()
        self.assertEqual(2, len(claim['allocations']))
        for uuid in self.alloc_nodes:
            self.assertEqual('InUse', self.node(uuid)['pool_status'])

    def test_undeployed_machine_stays_the_claims(self):
        machine = self.alloc_nodes[0]
        url = '/v1/nodes/%s/states/provision' % machine
        self.ok(self.put(url, {'target': 'active'}), 202)
        self.finish_provisioning()
        self.ok(self.put(url, {'target': 'deleted'}), 202)
        self.finish_provisioning()
        node = self.node(machine)
        self.assertEqual(('available', {}, 'InUse'),
                         (node['provision_state'], node['instance_info'],
                          node['pool_status']))
        claim = self.get(self.path).get_json()
        self.assertIn(node['allocation_uuid'], claim['allocations'])
        self.assertEqual(2, len(claim['allocations']))

    def test_delete_undeploys_a_deployed_machine(self):
        deployed = self.alloc_nodes[0]
        self.ok(self.put('/v1/nodes/%s/states/provision' % deployed,
                         {'target': 'active'}), 202)
        self.finish_provisioning()
        self.assertEqual('active', self.node(deployed)['provision_state'])
        self.ok(self.delete(self.path), 204)
        node = self.node(deployed)
        self.assertEqual(('deleting', 'Free', None),
                         (node['provision_state'], node['pool_status'],
                          node['instance_uuid']))
        # Cast to a conductor, which moves it on.
        self.assertEqual([nodes_db.get_node(self.context, deployed).id],
                         [n for n, _host in self.provision_casts])
        self.finish_provisioning()
        self.assertEqual('available', self.node(deployed)['provision_state'])

    def expire_now(self):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Claim).values(
                lifespan_end=db_api.utcnow()
                - datetime.timedelta(seconds=1)))
        return claim_release.expire(self.context, 'test-host')

    def test_not_before_its_end(self):
        self.assertEqual(0, claim_release.expire(self.context, 'test-host'))
        self.assertEqual('ready', self.get(self.path).get_json()['state'])

    def test_expiry_releases_machines(self):
        self.assertEqual(1, self.expire_now())
        claim = self.get(self.path).get_json()
        self.assertEqual(('expired', []), (claim['state'],
                                           claim['allocations']))
        for uuid in self.alloc_nodes:
            self.assertEqual('Free', self.node(uuid)['pool_status'])
        # Once.
        self.assertEqual(0, self.expire_now())
        self.ok(self.delete(self.path), 204)

    def test_claim_allocations_not_expired_one_by_one(self):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).values(
                lifespan_end=db_api.utcnow()
                - datetime.timedelta(seconds=1)))
        self.assertEqual(0, expiry.expire(self.context, 'test-host'))
        self.assertEqual(2, len(self.get(self.path).get_json()[
            'allocations']))

