"""Tenancy on PostgreSQL and MariaDB: what one project may see and change of
another's nodes, through the in-process API."""
import json
from unittest import mock

import fixtures
from oslo_policy import opts as policy_opts

from pool_api import app as pool_app
from pool_conductor import claims
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import rpcapi
from tests.functional import db_fixtures

PROJECT = 'project-a'
OTHER = 'project-b'
MISSING = '0f2d4f5e-8d8e-4b1c-9d2a-3c6f1e0b7a55'
# Requests on one project's claims, ports and VIFs; %(claim)s, %(port)s
# and %(node)s are theirs or missing ones.
_PATCH = [{'op': 'add', 'path': '/extra/k', 'value': 1}]
ISOLATION_ROWS = [
    ('GET', '/v1/claims/%(claim)s', None),
    ('GET', '/v1/claims/%(claim_name)s', None),
    ('PATCH', '/v1/claims/%(claim)s',
     [{'op': 'add', 'path': '/lifespan_end',
       'value': '2999-01-01T00:00:00+00:00'}]),
    ('DELETE', '/v1/claims/%(claim)s', None),
    ('DELETE', '/v1/claims/%(claim_name)s', None),
    ('GET', '/v1/ports/%(port)s', None),
    ('PATCH', '/v1/ports/%(port)s', _PATCH),
    ('DELETE', '/v1/ports/%(port)s', None),
    ('POST', '/v1/ports', {'node_uuid': '%(node)s',
                           'address': '52:54:00:00:00:09'}),
    ('GET', '/v1/nodes/%(node)s/ports', None),
    ('GET', '/v1/nodes/%(node)s/ports/detail', None),
    ('GET', '/v1/nodes/%(node)s/vifs', None),
    ('POST', '/v1/nodes/%(node)s/vifs', {'id': 'vif-2'}),
    ('DELETE', '/v1/nodes/%(node)s/vifs/vif-1', None),
]

# The headers keystonemiddleware sets for each persona.
PERSONAS = {
    'system_admin': {'X-Roles': 'admin,member,reader',
                     'OpenStack-System-Scope': 'all'},
    'system_reader': {'X-Roles': 'reader', 'OpenStack-System-Scope': 'all'},
    'project_admin': {'X-Roles': 'admin,member,reader',
                      'X-Project-Id': PROJECT},
    'project_reader': {'X-Roles': 'reader', 'X-Project-Id': PROJECT},
    'other_admin': {'X-Roles': 'admin,member,reader', 'X-Project-Id': OTHER},
}


class TenancyMixin:

    VERSION = {'X-OpenStack-Ironic-API-Version': '1.60'}

    def setUp(self):
        super().setUp()
        # The identity comes from the headers, as behind auth_token.
        self.useFixture(fixtures.MonkeyPatch(
            'pool_api.auth.wrap', lambda app: app))
        CONF([], project='pool', default_config_files=[],
             default_config_dirs=[])
        self.config(auth_strategy='keystone')
        # An operator lets project admins run pool actions on the nodes
        # of their project.
        path = self.useFixture(fixtures.TempDir()).join('policy.yaml')
        with open(path, 'w') as f:
            json.dump({'pool:pool:action': 'role:admin',
                       'pool:pool:get': 'role:admin'}, f)
        policy_opts.set_defaults(CONF)
        self.config(policy_file=path, group='oslo_policy')
        self.app = pool_app.create_app()
        alive = mock.patch.object(rpcapi.ConductorAPI, 'alive_with_groups',
                                  lambda _self, _ctx: [('test-host', '')])
        alive.start()
        self.addCleanup(alive.stop)
        self.context = pool_context.get_admin_context()
        pools_db.create(self.context, models.Pool, {'name': 'web'})
        self.mine = self.create_node(owner=PROJECT, name='mine')
        self.leased = self.create_node(owner=PROJECT, lessee=OTHER,
                                       name='leased')
        self.theirs = self.create_node(owner=OTHER, name='theirs')
        self.create_node(owner=PROJECT, lessee='project-c', name='lent')

    def create_node(self, **values):
        values.update(driver='fake-hardware', resource_class='baremetal',
                      provision_state='available', power_state='power off')
        return nodes_db.create_node(self.context, values)

    def call(self, persona: str, method: str, path: str, body=None):
        """A request as a persona: (status, decoded body)."""
        resp = self.app.test_client().open(
            path, method=method, json=body,
            headers={**self.VERSION, **PERSONAS[persona]})
        return resp.status_code, resp.get_json()

    def fault(self, answer: tuple, status: int) -> str:
        """The message of an error answer of this status."""
        self.assertEqual(status, answer[0], answer[1])
        return json.loads(answer[1]['error_message'])['faultstring']

    def act(self, persona: str, action: str, body: dict):
        return self.call(persona, 'POST', '/v1/pools/web/' + action, body)

    def node(self, node) -> dict:
        status, body = self.call('system_admin', 'GET',
                                 '/v1/nodes/' + node.uuid)
        self.assertEqual(200, status, body)
        return body

    def test_pool_actions_of_another_project_do_not_find_its_node(self):
        for action in ('addMachines', 'allocateMachines'):
            mine, nothing = [
                self.fault(self.act('other_admin', action,
                                    {'machine_list': [name]}), 404)
                for name in ('mine', 'nothing')]
            self.assertEqual(nothing.replace('nothing', 'mine'), mine)
        node = self.node(self.mine)
        self.assertEqual(('default', False),
                         (node['pool'], node['pool_allocated']))

    def test_all_machines_are_the_projects_owned_or_leased(self):
        status, body = self.act('other_admin', 'addMachines',
                                {'all_machines': True})
        self.assertEqual(200, status, body)
        self.assertEqual({'leased', 'theirs'}, {r['name'] for r in body})
        self.assertEqual('default', self.node(self.mine)['pool'])
        status, body = self.act('system_admin', 'addMachines',
                                {'machine_list': ['mine']})
        self.assertEqual(200, status, body)
        status, body = self.act('other_admin', 'allocateMachines',
                                {'all_machines': True})
        self.assertEqual(200, status, body)
        self.assertEqual({'leased', 'theirs'}, {r['name'] for r in body})
        self.assertFalse(self.node(self.mine)['pool_allocated'])
        status, body = self.call('other_admin', 'GET', '/v1/allocations')
        self.assertEqual(2, len(body['allocations']), body)

    def test_return_of_another_projects_node_is_not_found(self):
        self.act('system_admin', 'addMachines', {'machine_list': ['mine']})
        status, body = self.act('system_admin', 'allocateMachines',
                                {'machine_list': ['mine']})
        self.assertEqual(200, status, body)
        allocation = self.node(self.mine)['allocation_uuid']
        self.assertIsNotNone(allocation)
        self.fault(self.act('other_admin', 'returnMachines',
                            {'machine_list': ['mine']}), 404)
        missing = '0f2d4f5e-8d8e-4b1c-9d2a-3c6f1e0b7a55'
        answers = [self.fault(self.call('other_admin', 'POST',
                                        '/v1/nodes/%s/returnToPool' % ident,
                                        {}), 404)
                   for ident in (self.mine.uuid, missing)]
        self.assertEqual(answers[1].replace(missing, self.mine.uuid),
                         answers[0])
        node = self.node(self.mine)
        self.assertEqual(('InUse', True, allocation),
                         (node['pool_status'], node['pool_allocated'],
                          node['allocation_uuid']))
        status, body = self.call('project_admin', 'POST',
                                 '/v1/nodes/%s/returnToPool'
                                 % self.mine.uuid, {})
        self.assertEqual(200, status, body)
        self.assertIsNone(self.node(self.mine)['allocation_uuid'])

    def project_objects(self) -> dict:
        """A claim, a port and a VIF of PROJECT, on its node mine."""
        status, body = self.call('system_admin', 'POST', '/v1/providers',
                                 {'name': 'pv', 'pool': 'web'})
        self.assertEqual(201, status, body)
        status, claim = self.call('project_admin', 'POST', '/v1/claims', {
            'name': 'c-mine', 'resources': [{'provider': 'pv'}]})
        self.assertEqual((201, PROJECT), (status, claim.get('owner')), claim)
        status, port = self.call('project_admin', 'POST', '/v1/ports', {
            'node_uuid': self.mine.uuid, 'address': '52:54:00:00:00:01'})
        self.assertEqual(201, status, port)
        status, body = self.call('project_admin', 'POST',
                                 '/v1/nodes/%s/vifs' % self.mine.uuid,
                                 {'id': 'vif-1'})
        self.assertEqual(204, status, body)
        return {'claim': claim['uuid'], 'claim_name': 'c-mine',
                'port': port['uuid'], 'node': self.mine.uuid}

    def test_claims_ports_and_vifs_of_another_project_answer_as_missing(self):
        mine = self.project_objects()
        missing = {'claim': MISSING, 'claim_name': 'c-missing',
                   'port': MISSING.replace('0f', '1f', 1),
                   'node': MISSING.replace('0f', '2f', 1)}

        def answer(values: dict, method: str, path: str, body):
            body = json.loads(json.dumps(body) % values)
            status, answer = self.call('other_admin', method, path % values,
                                       body)
            message = json.loads(answer['error_message'])['faultstring']
            for key, value in values.items():
                message = message.replace(value, '<%s>' % key)
            return status, message

        for method, path, body in ISOLATION_ROWS:
            theirs = answer(mine, method, path, body)
            self.assertEqual(answer(missing, method, path, body), theirs,
                             (method, path))
            # A port's node is a field of the body: a bad one is a 400.
            self.assertEqual(400 if path == '/v1/ports' else 404, theirs[0],
                             (method, path))
        for collection in ('claims', 'ports'):
            status, body = self.call('other_admin', 'GET',
                                     '/v1/%s?fields=uuid' % collection)
            self.assertEqual(200, status, body)
            self.assertNotIn(mine[collection[:-1]],
                             [o['uuid'] for o in body[collection]])
        # Nothing changed.
        status, vifs = self.call('project_admin', 'GET',
                                 '/v1/nodes/%s/vifs' % self.mine.uuid)
        self.assertEqual((200, ['vif-1']), (status, [v['id'] for v in
                                                     vifs['vifs']]))
        for path in ('/v1/claims/c-mine', '/v1/ports/' + mine['port']):
            status, body = self.call('project_admin', 'GET', path)
            self.assertEqual(200, status, body)
            self.assertNotIn('k', body.get('extra') or {})
            self.assertIsNone(body.get('lifespan_end'))

    def test_project_reader_sees_passwords_masked(self):
        node = self.create_node(owner=PROJECT, name='bmc', driver_info={
            'ipmi_address': '10.0.0.1', 'ipmi_password': 'hunter2',
            'redfish': {'redfish_password': 'hunter3'}})
        masked = {'ipmi_address': '10.0.0.1', 'ipmi_password': '******',
                  'redfish': {'redfish_password': '******'}}
        _status, one = self.call('project_reader', 'GET',
                                 '/v1/nodes/' + node.uuid)
        _status, detail = self.call('project_reader', 'GET',
                                    '/v1/nodes/detail')
        _status, fields = self.call('project_reader', 'GET',
                                    '/v1/nodes?fields=name,driver_info')
        shown = [one] + [n for n in detail['nodes'] + fields['nodes']
                         if n['name'] == 'bmc']
        self.assertEqual([masked] * 3, [n['driver_info'] for n in shown])
        # The project sees its own and leased nodes, not the other's.
        self.assertEqual({'mine', 'leased', 'lent', 'bmc'},
                         {n['name'] for n in detail['nodes']})

    def test_secret_profile_params_are_masked(self):
        status, body = self.call('system_admin', 'POST', '/v1/profiles', {
            'name': 'admins', 'secret_params': ['root_pw'],
            'params': {'root_pw': 's3cret', 'ntp': 'ntp.example'}})
        self.assertEqual(201, status, body)
        status, body = self.call('system_admin', 'PATCH',
                                 '/v1/nodes/' + self.mine.uuid, [
                                     {'op': 'add', 'path': '/profiles/-',
                                      'value': 'admins'}])
        self.assertEqual(200, status, body)
        url = '/v1/nodes/%s/params?aggregate=true' % self.mine.uuid
        _status, masked = self.call('project_reader', 'GET', url)
        # With the pool params Digital Rebar keeps on every machine.
        self.assertEqual({'root_pw': '******', 'ntp': 'ntp.example',
                          'pool/name': 'default', 'pool/allocated': False,
                          'pool/status': 'unallocated'}, masked)
        # Readers of the profile too (pool:profile:show_secrets).
        for persona in ('system_reader', 'system_admin'):
            _status, shown = self.call(persona, 'GET', url)
            self.assertEqual(masked, shown)

    # Claims bind only the nodes their project may use -----------------------

    def claim(self, persona: str, provider: str) -> dict:
        status, body = self.call(persona, 'POST', '/v1/claims', {
            'resources': [{'provider': provider,
                           'template': {'resource_class': 'baremetal'}}]})
        self.assertEqual(201, status, body)
        return body

    def bind(self, claim: dict) -> dict:
        """The claim once this conductor's round has bound it (or not)."""
        claims.bind_pending(self.context, 'test-host')
        status, body = self.call('system_admin', 'GET',
                                 '/v1/claims/' + claim['uuid'])
        self.assertEqual(200, status, body)
        return body

    def claimed_node(self, claim: dict, persona: str) -> dict:
        """The node of a claim's one allocation, as persona reads it."""
        _, alloc = self.call(persona, 'GET',
                             '/v1/allocations/' + claim['allocations'][0])
        status, node = self.call(persona, 'GET',
                                 '/v1/nodes/' + alloc['node_uuid'])
        self.assertEqual(200, status, node)
        return node

    def shared_provider(self, pool: str, nodes: list[str]) -> None:
        """A provider named as its pool, which holds nodes."""
        conductors_db.register_conductor(self.context, 'test-host')
        providers_db.create(self.context, {'name': pool, 'pool': pool})
        status, body = self.call('system_admin', 'POST',
                                 '/v1/pools/%s/addMachines' % pool,
                                 {'machine_list': nodes})
        self.assertEqual(200, status, body)

    def test_claim_binds_only_the_projects_nodes(self):
        self.shared_provider('web', ['mine', 'theirs'])
        # 'mine' (project-a's) comes first in id order: the claim of
        # project-b passes over it.
        claim = self.bind(self.claim('other_admin', 'web'))
        self.assertEqual('ready', claim['state'], claim['last_error'])
        self.assertEqual('theirs', self.claimed_node(claim,
                                                     'other_admin')['name'])
        claim = self.bind(self.claim('other_admin', 'web'))
        self.assertEqual('error', claim['state'])
        self.assertIn('owned or leased by project %s' % OTHER,
                      claim['last_error'])
        self.assertFalse(self.node(self.mine)['pool_allocated'])
        # A caller who may give out any node binds it.
        claim = self.bind(self.claim('system_admin', 'web'))
        self.assertEqual('ready', claim['state'], claim['last_error'])
        self.assertEqual('mine', self.claimed_node(claim,
                                                   'system_admin')['name'])

    def test_machine_made_for_a_claim_is_leased_to_its_project(self):
        pools_db.create(self.context, models.Broker,
                        {'name': 'cloud', 'driver': 'fake'})
        pools_db.create(self.context, models.Pool,
                        {'name': 'made', 'broker': 'cloud'})
        # Free in the pool but project-a's: not the claim's to bind.
        self.shared_provider('made', ['mine'])
        claim = self.claim('other_admin', 'made')
        self.assertEqual('pending', self.bind(claim)['state'])
        claim = self.bind(claim)
        self.assertEqual('ready', claim['state'], claim['last_error'])
        node = self.claimed_node(claim, 'other_admin')
        self.assertEqual(OTHER, node['lessee'])
        self.assertNotEqual(self.mine.uuid, node['uuid'])
        self.assertFalse(self.node(self.mine)['pool_allocated'])


class PostgreSQLTenancyTestCase(TenancyMixin, db_fixtures.PostgreSQLTestCase):
    pass


class MySQLTenancyTestCase(TenancyMixin, db_fixtures.MySQLTestCase):
    pass
