"""Rebuild, rescue and unrescue, manual cleaning, the console, NMI and
RAID configuration of nodes, through the API and the conductor."""
import sqlalchemy as sa

from pool_conductor.baremetal import provisioning
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base


class NodeActionsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.enroll(name='node-1')
        self.url = '/v1/nodes/node-1/states'

    def provision(self, target, status=202, **body):
        resp = self.put(self.url + '/provision', {'target': target, **body})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def states(self) -> tuple:
        body = self.get('/v1/nodes/node-1').get_json()
        return body['provision_state'], body['target_provision_state']

    def deploy(self):
        self.provision('active')
        self.finish_provisioning()
        self.assertEqual(('active', None), self.states())

    def events(self, prefix: str = 'baremetal.node.') -> list:
        with db_api.reader(self.context) as session:
            rows = session.execute(
                sa.select(models.Event.event_type, models.Event.prev_state,
                          models.Event.state, models.Event.payload)
                .where(models.Event.object_uuid == self.node['uuid'])
                .order_by(models.Event.id)).all()
        return [r for r in rows if r.event_type.startswith(prefix)]


class TestRebuild(NodeActionsTestCase):

    def test_rebuild_redeploys_an_active_node(self):
        self.deploy()
        self.provision('rebuild')
        self.assertEqual(('deploying', 'active'), self.states())
        self.assertEqual(1, len(self.provision_casts))
        self.finish_provisioning()
        self.assertEqual(('active', None), self.states())
        rebuild = [e for e in self.events('baremetal.node.provision_set')
                   if e.prev_state == 'active'][-1]
        self.assertEqual('baremetal.node.provision_set.start',
                         rebuild.event_type)
        data = rebuild.payload['ironic_object.data']
        self.assertEqual('rebuild', data['event'])
        self.assertEqual('deploying', data['provision_state'])

    def test_rebuild_is_refused_from_available(self):
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'rebuild'}), 'available')

    def test_rebuild_with_a_configdrive_needs_1_35(self):
        self.deploy()
        resp = self.put(self.url + '/provision',
                        {'target': 'rebuild', 'configdrive': 'H4sI'},
                        version='1.34')
        self.assertError(400, resp, 'only supported when setting '
                                    'provision state to active')
        self.assertEqual(('active', None), self.states())
        self.provision('rebuild', configdrive='H4sIZZ')
        info = nodes_db.get_node(self.context, 'node-1').instance_info
        self.assertEqual('H4sIZZ', info['configdrive'])

    def test_rebuild_in_maintenance_is_refused(self):
        self.deploy()
        self.put('/v1/nodes/node-1/maintenance')
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'rebuild'}),
                         'maintenance')

    def test_a_failed_deployment_is_rebuilt_or_undeployed(self):
        self.put('/v1/nodes/node-1/params',
                 {provisioning.FAIL_STATE_PARAM: 'deploying'})
        self.provision('active')
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('deploy failed', body['provision_state'])
        self.assertIn('deploying', body['last_error'])
        failed = self.events('baremetal.node.provision_set')[-1]
        self.assertEqual('baremetal.node.provision_set.error',
                         failed.event_type)
        self.assertEqual('fail',
                         failed.payload['ironic_object.data']['event'])
        self.put('/v1/nodes/node-1/params', {})
        self.provision('rebuild')
        self.finish_provisioning()
        self.assertEqual(('active', None), self.states())


class TestRescue(NodeActionsTestCase):

    def test_rescue_and_unrescue(self):
        self.deploy()
        self.provision('rescue', rescue_password='s3cret')
        self.assertEqual(('rescuing', 'rescue'), self.states())
        body = self.get('/v1/nodes/node-1').get_json()
        # The password is kept for the rescue system, and masked.
        self.assertEqual('******', body['instance_info']['rescue_password'])
        self.assertEqual('s3cret', nodes_db.get_node(
            self.context, 'node-1').instance_info['rescue_password'])
        self.finish_provisioning()
        self.assertEqual(('rescue', None), self.states())
        self.provision('unrescue')
        self.assertEqual(('unrescuing', 'active'), self.states())
        self.assertNotIn('rescue_password', nodes_db.get_node(
            self.context, 'node-1').instance_info)
        self.finish_provisioning()
        self.assertEqual(('active', None), self.states())
        story = [(e.event_type.rsplit('.', 1)[1], e.prev_state, e.state,
                  e.payload['ironic_object.data']['event'])
                 for e in self.events('baremetal.node.provision_set')
                 if e.prev_state in ('active', 'rescuing', 'rescue',
                                     'unrescuing')]
        self.assertEqual([('start', 'active', 'rescuing', 'rescue'),
                          ('end', 'rescuing', 'rescue', 'done'),
                          ('start', 'rescue', 'unrescuing', 'unrescue'),
                          ('end', 'unrescuing', 'active', 'done')], story)

    def test_rescue_needs_1_38(self):
        self.deploy()
        resp = self.put(self.url + '/provision',
                        {'target': 'rescue', 'rescue_password': 'p'},
                        version='1.37')
        self.assertError(406, resp)

    def test_rescue_needs_a_password(self):
        self.deploy()
        for body in ({}, {'rescue_password': ''},
                     {'rescue_password': '  '}):
            resp = self.put(self.url + '/provision',
                            {'target': 'rescue', **body})
            self.assertError(400, resp, 'non-empty "rescue_password"')
        self.assertEqual(('active', None), self.states())

    def test_a_password_without_rescue_is_400(self):
        self.deploy()
        resp = self.put(self.url + '/provision',
                        {'target': 'rebuild', 'rescue_password': 'p'})
        self.assertError(400, resp, 'only valid when setting target '
                                    'provision state to rescue')

    def test_rescue_only_from_active_and_rescue_states(self):
        resp = self.put(self.url + '/provision',
                        {'target': 'rescue', 'rescue_password': 'p'})
        self.assertError(400, resp, 'available')
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'unrescue'}), 'available')
        self.deploy()
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'unrescue'}), 'active')

    def test_a_rescued_node_is_rescued_again_or_undeployed(self):
        self.deploy()
        self.provision('rescue', rescue_password='p')
        self.finish_provisioning()
        self.provision('rescue', rescue_password='q')
        self.finish_provisioning()
        self.assertEqual(('rescue', None), self.states())
        self.provision('deleted')
        self.finish_provisioning()
        self.assertEqual(('available', None), self.states())
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual({}, body['instance_info'])

    def test_failed_rescue_and_unrescue(self):
        self.deploy()
        self.put('/v1/nodes/node-1/params',
                 {provisioning.FAIL_STATE_PARAM: 'rescuing'})
        self.provision('rescue', rescue_password='p')
        self.finish_provisioning()
        self.assertEqual(('rescue failed', None), self.states())
        self.put('/v1/nodes/node-1/params',
                 {provisioning.FAIL_STATE_PARAM: 'unrescuing'})
        self.provision('unrescue')
        self.finish_provisioning()
        self.assertEqual(('unrescue failed', None), self.states())
        failed = self.events('baremetal.node.provision_set')[-1]
        self.assertEqual(('baremetal.node.provision_set.error',
                          'unrescuing', 'unrescue failed'),
                         failed[:3])
        # From unrescue failed: rescue again, or unrescue once it works.
        self.put('/v1/nodes/node-1/params', {})
        self.provision('unrescue')
        self.finish_provisioning()
        self.assertEqual(('active', None), self.states())

    def test_rescue_in_maintenance_is_refused(self):
        self.deploy()
        self.put('/v1/nodes/node-1/maintenance')
        resp = self.put(self.url + '/provision',
                        {'target': 'rescue', 'rescue_password': 'p'})
        self.assertError(400, resp, 'maintenance')

    def test_a_lost_cast_is_moved_on_by_the_periodic_check(self):
        self.deploy()
        self.provision('rescue', rescue_password='p')
        self.provision_casts = []
        self.assertEqual(1, provisioning.check(self.context))
        self.assertEqual(('rescue', None), self.states())


class TestConsole(NodeActionsTestCase):

    def test_enable_and_disable(self):
        console = self.url + '/console'
        self.assertEqual({'console_enabled': False, 'console_info': None},
                         self.get(console).get_json())
        resp = self.put(console, {'enabled': True})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/nodes/%s/states/console' % self.node['uuid']))
        body = self.get(console).get_json()
        self.assertTrue(body['console_enabled'])
        self.assertEqual('socat', body['console_info']['type'])
        self.assertRegex(body['console_info']['url'],
                         r'^tcp://127\.0\.0\.1:[0-9]+$')
        self.assertTrue(self.get(self.url).get_json()['console_enabled'])
        self.assertTrue(
            self.get('/v1/nodes/node-1').get_json()['console_enabled'])
        # Enabling it again changes nothing.
        self.put(console, {'enabled': 'true'})
        self.assertEqual(202, self.put(console, {'enabled': False})
                         .status_code)
        self.assertEqual({'console_enabled': False, 'console_info': None},
                         self.get(console).get_json())
        events = self.events('baremetal.node.console_set')
        self.assertEqual(['baremetal.node.console_set.end'] * 2,
                         [e.event_type for e in events])
        self.assertEqual(
            [True, False],
            [e.payload['ironic_object.data']['console_enabled']
             for e in events])

    def test_console_address_and_ports_are_configured(self):
        self.config(socat_address='192.0.2.7', port_range='4000:4000',
                    group='console')
        self.put(self.url + '/console', {'enabled': True})
        self.assertEqual(
            'tcp://192.0.2.7:4000',
            self.get(self.url + '/console').get_json()['console_info']['url'])

    def test_bad_enabled_is_400(self):
        for body in ({}, {'enabled': 'maybe'}, {'enabled': None},
                     {'enabled': True, 'x': 1}):
            self.assertError(400, self.put(self.url + '/console', body))
        self.assertFalse(
            self.get('/v1/nodes/node-1').get_json()['console_enabled'])

    def test_unknown_node_is_404(self):
        self.assertError(404, self.get('/v1/nodes/nope/states/console'))
        self.assertError(404, self.put('/v1/nodes/nope/states/console',
                                       {'enabled': True}))


class TestInjectNMI(NodeActionsTestCase):

    def test_a_powered_on_node_takes_an_nmi(self):
        url = '/v1/nodes/node-1/management/inject_nmi'
        self.assertError(400, self.put(url), 'not powered on')
        self.put(self.url + '/power', {'target': 'power on'})
        resp = self.put(url)
        self.assertEqual(204, resp.status_code, resp.get_data())

    def test_needs_1_29(self):
        self.put(self.url + '/power', {'target': 'power on'})
        url = '/v1/nodes/node-1/management/inject_nmi'
        self.assertError(404, self.put(url, version='1.28'))
        self.assertEqual(204, self.put(url, version='1.29').status_code)

    def test_a_locked_node_is_409(self):
        self.put(self.url + '/power', {'target': 'power on'})
        node = nodes_db.get_node(self.context, 'node-1')
        nodes_db.update_node(self.context, node, {'reservation': 'other'})
        self.assertError(409, self.put(
            '/v1/nodes/node-1/management/inject_nmi'))


RAID = {'logical_disks': [
    {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True},
    {'size_gb': 'MAX', 'raid_level': '5', 'controller': 'RAID.1',
     'physical_disks': ['d1', 'd2', 'd3']}]}


class TestRAID(NodeActionsTestCase):

    def set_raid(self, config, status=204, **kw):
        resp = self.put(self.url + '/raid', config, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def test_target_is_recorded_and_shown(self):
        self.set_raid(RAID)
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(RAID, body['target_raid_config'])
        self.assertEqual({}, body['raid_config'])
        self.assertEqual(RAID, self.get(self.url).get_json()
                         ['target_raid_config'])
        # {} forgets it.
        self.set_raid({})
        self.assertEqual({}, self.get(self.url).get_json()
                         ['target_raid_config'])

    def test_needs_1_12(self):
        self.assertError(406, self.put(self.url + '/raid', RAID,
                                       version='1.11'))
        body = self.get('/v1/nodes/node-1', version='1.11').get_json()
        self.assertNotIn('target_raid_config', body)
        self.assertNotIn('raid_config',
                         self.get(self.url, version='1.11').get_json())

    def test_invalid_configurations_are_400(self):
        disk = {'size_gb': 10, 'raid_level': '1'}
        for config in (
                {'logical_disks': []},
                {'logical_disks': [{'size_gb': 10}]},
                {'logical_disks': [{**disk, 'raid_level': '7'}]},
                {'logical_disks': [{**disk, 'size_gb': 'HALF'}]},
                {'logical_disks': [{**disk, 'size_gb': -1}]},
                {'logical_disks': [{**disk, 'size_gb': 10 ** 30}]},
                {'logical_disks': [{**disk, 'unknown': 1}]},
                {'logical_disks': [{**disk, 'physical_disks': ['a']}]},
                {'logical_disks': [{**disk, 'disk_type': 'tape'}]},
                {'logical_disks': [{**disk, 'number_of_physical_disks': 0}]},
                {'logical_disks': [disk], 'other': 1},
                {'other': 1}, [disk], 'x'):
            self.assertError(400, self.put(self.url + '/raid', config))
        self.assertError(400, self.put(self.url + '/raid', raw='{"a": NaN}'))
        self.assertEqual({}, self.get(self.url).get_json()
                         ['target_raid_config'])

    def test_one_root_volume_at_most(self):
        disk = {'size_gb': 10, 'raid_level': '1', 'is_root_volume': True}
        self.assertError(400, self.put(self.url + '/raid', {
            'logical_disks': [disk, disk]}), 'more than one root volume')

    def test_unknown_node_is_404(self):
        self.assertError(404, self.put('/v1/nodes/nope/states/raid', RAID))


class TestManualClean(NodeActionsTestCase):

    def setUp(self):
        super().setUp()
        self.provision('manage')

    def clean(self, *steps, status=202):
        return self.provision('clean', status=status, clean_steps=[
            {'interface': i, 'step': s} for i, s in steps])

    def test_create_configuration_applies_the_target(self):
        self.put(self.url + '/raid', RAID)
        self.clean(('raid', 'delete_configuration'),
                   ('raid', 'create_configuration'))
        self.assertEqual(('cleaning', 'manageable'), self.states())
        node = nodes_db.get_node(self.context, 'node-1')
        self.assertFalse(node.clean_step)
        self.assertEqual(2, len(node.provision_steps))
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(('manageable', None), self.states())
        self.assertEqual({}, body['clean_step'])
        config = dict(body['raid_config'])
        self.assertTrue(config.pop('last_updated'))
        self.assertEqual(RAID, config)
        # Each step ran in turn, shown as the node's clean_step.
        shown = [e.payload['ironic_object.data']['clean_step']
                 for e in self.events('baremetal.node.update.end')]
        self.assertEqual(['delete_configuration', 'create_configuration'],
                         [s['step'] for s in shown if s])
        end = self.events('baremetal.node.provision_set')[-1]
        self.assertEqual(('baremetal.node.provision_set.end', 'cleaning',
                          'manageable'), end[:3])
        # delete_configuration empties it again.
        self.clean(('raid', 'delete_configuration'))
        self.finish_provisioning()
        self.assertEqual({}, self.get('/v1/nodes/node-1').get_json()
                         ['raid_config'])

    def test_create_without_a_target_fails_the_cleaning(self):
        self.clean(('raid', 'create_configuration'))
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('clean failed', body['provision_state'])
        self.assertIn('no target RAID configuration', body['last_error'])
        self.assertEqual({}, body['clean_step'])
        self.provision('manage')
        self.assertEqual(('manageable', None), self.states())

    def test_an_unknown_step_fails_the_cleaning(self):
        self.clean(('raid', 'make_coffee'))
        self.finish_provisioning()
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('clean failed', body['provision_state'])
        self.assertIn('raid.make_coffee is not a clean step',
                      body['last_error'])

    def test_clean_steps_are_required_and_only_for_clean(self):
        self.assertError(400, self.put(self.url + '/provision',
                                       {'target': 'clean'}),
                         '"clean_steps" is required')
        self.provision('provide')
        resp = self.put(self.url + '/provision', {
            'target': 'manage', 'clean_steps': [
                {'interface': 'raid', 'step': 'create_configuration'}]})
        self.assertError(400, resp, 'only valid when setting target '
                                    'provision state to clean')

    def test_malformed_steps_are_400(self):
        for steps in ([{'interface': 'raid'}],
                      [{'interface': 'disk', 'step': 'x'}],
                      [{'interface': 'raid', 'step': 'x', 'args': []}],
                      [{'interface': 'raid', 'step': 'x', 'y': 1}]):
            self.assertError(400, self.put(self.url + '/provision', {
                'target': 'clean', 'clean_steps': steps}))
        self.assertEqual(('manageable', None), self.states())

    def test_clean_needs_1_15_and_manageable(self):
        resp = self.put(self.url + '/provision', {
            'target': 'clean', 'clean_steps': [
                {'interface': 'raid', 'step': 'delete_configuration'}]},
            version='1.14')
        self.assertError(406, resp)
        self.provision('provide')
        self.clean(('raid', 'delete_configuration'), status=400)
