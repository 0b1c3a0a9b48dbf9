"""Deploy templates: /v1/deploy_templates, and the steps they add to a
deployment."""
import sqlalchemy as sa

from pool_api import microversion
from pool_conductor.baremetal import provisioning
from pool_conductor import binding
from pool_conductor.db import api as db_api
from pool_conductor.db import deploy_templates as templates_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from tests.unit.api import base

RAID = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1',
                           'is_root_volume': True}]}
STEPS = [
    {'interface': 'raid', 'step': 'apply_configuration',
     'args': {'raid_config': RAID}, 'priority': 150},
    {'interface': 'bios', 'step': 'apply_configuration',
     'args': {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}],
              'password': 'hunter2'}, 'priority': '50'},
]


class DeployTemplateTestCase(base.APITestCase):

    def create(self, name='CUSTOM_RAID1', steps=None, status=201, **kw):
        body = {'name': name, 'steps': STEPS if steps is None else steps,
                **kw}
        resp = self.post('/v1/deploy_templates', body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def events(self, object_uuid: str) -> list:
        with db_api.reader(self.context) as session:
            return session.execute(
                sa.select(models.Event.event_type, models.Event.payload)
                .where(models.Event.object_uuid == object_uuid)
                .order_by(models.Event.id)).all()


class TestCRUD(DeployTemplateTestCase):

    def test_create_show_list_update_delete(self):
        template = self.create(extra={'team': 'storage'})
        self.assertEqual('CUSTOM_RAID1', template['name'])
        self.assertEqual({'team': 'storage'}, template['extra'])
        # Priorities are integers; secrets in args are masked.
        self.assertEqual([150, 50],
                         [s['priority'] for s in template['steps']])
        self.assertEqual('******', template['steps'][1]['args']['password'])
        self.assertEqual(RAID, template['steps'][0]['args']['raid_config'])
        url = '/v1/deploy_templates/%s' % template['uuid']
        self.assertEqual(template, self.get(url).get_json())
        self.assertEqual(template['uuid'], self.get(
            '/v1/deploy_templates/CUSTOM_RAID1').get_json()['uuid'])
        listed = self.get('/v1/deploy_templates').get_json()
        self.assertEqual([{'uuid': template['uuid'], 'name': 'CUSTOM_RAID1',
                           'links': template['links']}],
                         listed['deploy_templates'])
        detailed = self.get('/v1/deploy_templates?detail=true').get_json()
        self.assertEqual([template], detailed['deploy_templates'])
        self.assertEqual(['steps'], list(self.get(
            url + '?fields=steps').get_json().keys() - {'links'}))
        resp = self.patch_json(url, [
            {'op': 'replace', 'path': '/name', 'value': 'CUSTOM_MIRROR'},
            {'op': 'remove', 'path': '/steps/1'},
            {'op': 'add', 'path': '/extra/owner', 'value': 'ops'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertEqual('CUSTOM_MIRROR', body['name'])
        self.assertEqual(['raid'], [s['interface'] for s in body['steps']])
        self.assertEqual({'team': 'storage', 'owner': 'ops'}, body['extra'])
        self.assertEqual(204, self.delete(url).status_code)
        self.assertError(404, self.get(url))
        self.assertEqual(
            ['baremetal.deploy_template.create.end',
             'baremetal.deploy_template.update.end',
             'baremetal.deploy_template.delete.end'],
            [e.event_type for e in self.events(template['uuid'])])
        payload = self.events(template['uuid'])[0].payload
        self.assertEqual('DeployTemplateCRUDPayload',
                         payload['ironic_object.name'])
        self.assertEqual('******', payload['ironic_object.data']['steps'][1]
                         ['args']['password'])

    def test_patch_keeps_the_secrets_of_the_steps(self):
        template = self.create()
        url = '/v1/deploy_templates/%s' % template['uuid']
        self.patch_json(url, [{'op': 'replace', 'path': '/steps/1/priority',
                               'value': 60}])
        stored = templates_db.get(self.context, template['uuid'])
        self.assertEqual('hunter2', stored.steps[1]['args']['password'])
        self.assertEqual(60, stored.steps[1]['priority'])

    def test_needs_1_55(self):
        self.assertError(404, self.get('/v1/deploy_templates',
                                       version='1.54'))
        resp = self.post('/v1/deploy_templates',
                         {'name': 'CUSTOM_A', 'steps': STEPS},
                         version='1.54')
        self.assertError(405, resp)
        self.assertEqual([], self.get('/v1/deploy_templates').get_json()
                         ['deploy_templates'])

    def test_invalid_templates_are_400(self):
        step = {'interface': 'deploy', 'step': 'deploy', 'args': {},
                'priority': 100}
        for body in (
                {'name': 'RAID1', 'steps': [step]},
                {'name': 'CUSTOM_lower', 'steps': [step]},
                {'name': 'CUSTOM_A', 'steps': []},
                {'name': 'CUSTOM_A'},
                {'name': 'CUSTOM_A', 'steps': [{**step, 'priority': -1}]},
                {'name': 'CUSTOM_A', 'steps': [{**step, 'priority': 'x'}]},
                {'name': 'CUSTOM_A', 'steps': [{**step, 'interface': 'x'}]},
                {'name': 'CUSTOM_A', 'steps': [{'interface': 'deploy',
                                                'step': 'deploy'}]},
                {'name': 'CUSTOM_A', 'steps': [step, step]},
                {'name': 'CUSTOM_A', 'steps': [{**step, 'step': 'dance'}]},
                {'name': 'CUSTOM_A', 'steps': [{
                    'interface': 'raid', 'step': 'apply_configuration',
                    'args': {}, 'priority': 10}]},
                {'name': 'CUSTOM_A', 'steps': [{
                    'interface': 'raid', 'step': 'apply_configuration',
                    'args': {'raid_config': {'logical_disks': [{}]}},
                    'priority': 10}]},
                {'name': 'CUSTOM_A', 'steps': [step], 'uuid': 'nope'},
                {'name': 'CUSTOM_A', 'steps': [step], 'other': 1}):
            self.assertError(400, self.post('/v1/deploy_templates', body))
        self.assertEqual([], self.get('/v1/deploy_templates').get_json()
                         ['deploy_templates'])

    def test_a_standard_trait_is_a_name(self):
        self.create(name='HW_CPU_X86_AVX2')

    def test_duplicate_name_or_uuid_is_409(self):
        template = self.create()
        self.assertError(409, self.post('/v1/deploy_templates', {
            'name': 'CUSTOM_RAID1', 'steps': STEPS}))
        self.assertError(409, self.post('/v1/deploy_templates', {
            'name': 'CUSTOM_OTHER', 'steps': STEPS,
            'uuid': template['uuid']}))
        self.create(name='CUSTOM_OTHER')
        resp = self.patch_json('/v1/deploy_templates/CUSTOM_OTHER', [
            {'op': 'replace', 'path': '/name', 'value': 'CUSTOM_RAID1'}])
        self.assertError(409, resp)

    def test_a_patch_that_breaks_the_template_is_400(self):
        self.create()
        for patch in ([{'op': 'remove', 'path': '/steps/0'},
                       {'op': 'remove', 'path': '/steps/0'}],
                      [{'op': 'replace', 'path': '/name', 'value': 'x'}],
                      [{'op': 'replace', 'path': '/uuid', 'value': 'x'}],
                      [{'op': 'add', 'path': '/steps/-',
                        'value': STEPS[0]}]):
            self.assertError(400, self.patch_json(
                '/v1/deploy_templates/CUSTOM_RAID1', patch))

    def test_update_is_a_compare_and_swap(self):
        self.create()
        stale = templates_db.get(self.context, 'CUSTOM_RAID1')
        templates_db.update(self.context, stale, {'extra': {'a': 1}})
        self.assertRaises(exception.ConcurrentUpdate, templates_db.update,
                          self.context, stale, {'extra': {'b': 2}})
        self.assertRaises(exception.ConcurrentUpdate, templates_db.delete,
                          self.context, stale)
        self.assertEqual({'a': 1}, templates_db.get(
            self.context, 'CUSTOM_RAID1').extra)


class TestDeployWithTemplates(DeployTemplateTestCase):

    def setUp(self):
        super().setUp()
        self.create()
        self.node = self.enroll(name='node-1')
        self.put('/v1/nodes/node-1/traits/CUSTOM_RAID1')
        nodes_db.update_node(
            self.context, nodes_db.get_node(self.context, 'node-1'),
            {'instance_info': {'traits': ['CUSTOM_RAID1']}})

    def test_the_templates_steps_run_in_priority_order(self):
        resp = self.put('/v1/nodes/node-1/states/provision',
                        {'target': 'active'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        node = nodes_db.get_node(self.context, 'node-1')
        self.assertEqual(
            ['raid.apply_configuration', 'deploy.deploy',
             'bios.apply_configuration'],
            ['%s.%s' % (s['interface'], s['step'])
             for s in node.provision_steps])
        # One step at a time, each shown as the node's deploy_step.
        shown = []
        while True:
            body = self.get('/v1/nodes/node-1').get_json()
            shown.append((body['provision_state'],
                          body['deploy_step'].get('step'),
                          bool(body['raid_config'])))
            if not binding.provision_step(self.context, node.id,
                                          provisioning.step):
                break
        self.assertEqual([
            ('deploying', None, False),
            ('deploying', 'apply_configuration', False),
            ('deploying', 'deploy', True),
            ('deploying', 'apply_configuration', True),
            ('active', None, True)], shown)
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(RAID, body['target_raid_config'])
        self.assertEqual(RAID['logical_disks'],
                         body['raid_config']['logical_disks'])
        self.assertIsNone(nodes_db.get_node(self.context,
                                            'node-1').provision_steps)
        # The deploy steps are the node's history.
        steps = [e.payload['ironic_object.data']['deploy_step']
                 for e in self.events(self.node['uuid'])
                 if e.event_type == 'baremetal.node.update.end']
        self.assertEqual(['raid', 'deploy', 'bios'],
                         [s['interface'] for s in steps if s])

    def test_rebuild_runs_them_again(self):
        self.put('/v1/nodes/node-1/states/provision', {'target': 'active'})
        self.finish_provisioning()
        self.put('/v1/nodes/node-1/states/raid', {})
        self.put('/v1/nodes/node-1/states/provision', {'target': 'rebuild'})
        self.assertEqual(3, len(nodes_db.get_node(
            self.context, 'node-1').provision_steps))
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(('active', RAID),
                         (body['provision_state'],
                          body['target_raid_config']))

    def test_no_matching_template_deploys_at_once(self):
        nodes_db.update_node(
            self.context, nodes_db.get_node(self.context, 'node-1'),
            {'instance_info': {}})
        self.put('/v1/nodes/node-1/states/provision', {'target': 'active'})
        self.assertIsNone(nodes_db.get_node(self.context,
                                            'node-1').provision_steps)
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(('active', {}), (body['provision_state'],
                                          body['raid_config']))

    def test_a_failing_step_fails_the_deployment(self):
        bad = {'logical_disks': [{'size_gb': 1, 'raid_level': '1',
                                  'is_root_volume': True}] * 2}
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.DeployTemplate).values(
                steps=[{'interface': 'raid', 'step': 'apply_configuration',
                        'args': {'raid_config': bad}, 'priority': 10}]))
        self.put('/v1/nodes/node-1/states/provision', {'target': 'active'})
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('deploy failed', body['provision_state'])
        self.assertIn('more than one root volume', body['last_error'])
        self.assertEqual({}, body['deploy_step'])

    def test_deploy_steps_of_the_request_need_1_69(self):
        steps = [{'interface': 'bios', 'step': 'factory_reset', 'args': {},
                  'priority': 200}]
        resp = self.put('/v1/nodes/node-1/states/provision',
                        {'target': 'active', 'deploy_steps': steps})
        self.assertError(406, resp, '1.69')
        # Pool serves up to its MAX_VERSION; raised here as it will be.
        self.patch(microversion, 'MAX_VERSION', (1, 69))
        resp = self.put('/v1/nodes/node-1/states/provision',
                        {'target': 'active', 'deploy_steps': steps},
                        version='1.69')
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.assertEqual(
            ['bios.factory_reset', 'raid.apply_configuration',
             'deploy.deploy', 'bios.apply_configuration'],
            ['%s.%s' % (s['interface'], s['step']) for s in nodes_db.get_node(
                self.context, 'node-1').provision_steps])

    def test_unknown_requested_steps_are_400(self):
        self.patch(microversion, 'MAX_VERSION', (1, 69))
        for steps in ([{'interface': 'bios', 'step': 'overclock',
                        'args': {}, 'priority': 1}],
                      [{'interface': 'bios', 'step': 'factory_reset'}]):
            resp = self.put('/v1/nodes/node-1/states/provision',
                            {'target': 'active', 'deploy_steps': steps},
                            version='1.69')
            self.assertError(400, resp)
        self.assertEqual('available', self.get('/v1/nodes/node-1')
                         .get_json()['provision_state'])
