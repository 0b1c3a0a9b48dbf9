"""Every change of state records its event in its transaction: pools and
the other named objects, ports, claims, lifespans, conductors, AutoFill
and brokers. A change refused records none."""
import datetime

import sqlalchemy as sa

from pool_conductor import autofill
from pool_conductor import conductors
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import events as events_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import events
from pool_conductor import expiry
from pool_conductor import service
from pool_conductor import workflows
from tests.unit.api import base
from tests.unit.api import test_claims
from tests.unit.api import test_window_policy
from tests.unit.api import test_reservations
from tests.unit.api import test_maintenance_windows
from tests.unit.api import test_windows
from pool_conductor.external_managers import fake
from tests.unit.conductor import test_autofill
from tests.unit.conductor import test_external
from tests.unit import unrecorded

HOUR = datetime.timedelta(hours=1)


def recorded(context, **filters):
    events.sequence()
    return list(events_db.after(context, 0, filters, 10000))


def story(found):
    return [(e.event_type, e.prev_state, e.state) for e in found]


class Watched:
    """Fails a test whose changes (after its setUp) commit without an
    event; the test's own writes of data go in self.paused()."""

    def setUp(self):
        super().setUp()
        watch = self.useFixture(unrecorded.UnrecordedChanges(self.db.engine))
        self.paused = watch.paused
        self.addCleanup(lambda: self.assertEqual(
            [], watch.found, 'changes committed without an event'))

    def create_node(self, **values):
        with self.paused():
            return super().create_node(**values)


class NamedObjectEventsTestCase(Watched, base.APITestCase):

    def test_pool_create_update_delete(self):
        name = 'a-pool-with-a-name-longer-than-thirty-six-characters'
        self.assertEqual(201, self.post('/v1/pools', {
            'name': name, 'description': 'first'}).status_code)
        self.assertEqual(200, self.patch_json('/v1/pools/%s' % name, [
            {'op': 'replace', 'path': '/description', 'value': 'second'}
        ]).status_code)
        self.assertEqual(204, self.delete('/v1/pools/%s' % name).status_code)
        found = recorded(self.context, object_type='pool')
        self.assertEqual(['pool.pool.create.end', 'pool.pool.update.end',
                          'pool.pool.delete.end'],
                         [e.event_type for e in found])
        # Known by a UUID made of its name, which object_name holds.
        self.assertEqual({(events.name_uuid('pool', name), name)},
                         {(e.object_uuid, e.object_name) for e in found})
        self.assertEqual('Changed: description', found[1].message)
        data = found[1].payload['pool_object.data']
        self.assertEqual(('second', name), (data['description'],
                                            data['name']))
        self.assertEqual('PoolPayload', found[1].payload['pool_object.name'])

    def test_refused_delete_records_nothing(self):
        node = self.create_node(name='member')
        self.post('/v1/pools', {'name': 'busy'})
        self.post('/v1/pools/busy/addMachines',
                  {'machine_list': [node.uuid]})
        before = recorded(self.context, object_type='pool')
        self.assertError(409, self.delete('/v1/pools/busy'))
        self.assertError(409, self.post('/v1/pools', {'name': 'busy'}))
        self.assertEqual(before, recorded(self.context, object_type='pool'))

    def test_profile_secret_params_masked_broker_parameters_left_out(self):
        self.post('/v1/profiles', {'name': 'web', 'params': {
            'hostname': 'web-1', 'root_hash': 'abcdef'},
            'secret_params': ['root_hash']})
        self.post('/v1/brokers', {'name': 'cloud', 'driver': 'fake',
                                  'parameters': {'endpoint': 'e',
                                                 'login': 'admin-name'}})
        self.post('/v1/workflows', {'name': 'deploy', 'stages': ['a']})
        profile, broker, workflow = (recorded(
            self.context, object_type=kind)[0] for kind in (
            'profile', 'broker', 'workflow'))
        self.assertEqual({'hostname': 'web-1', 'root_hash': '******'},
                         profile.payload['pool_object.data']['params'])
        data = broker.payload['pool_object.data']
        self.assertNotIn('parameters', data)
        self.assertNotIn('admin-name', str(broker.payload))
        self.assertEqual(['endpoint', 'login'], data['parameter_names'])
        self.assertEqual(('pool.workflow.create.end', ['a']),
                         (workflow.event_type,
                          workflow.payload['pool_object.data']['stages']))


class PortEventsTestCase(Watched, base.APITestCase):

    def test_port_create_update_delete_in_ironic_shape(self):
        node = self.create_node(name='n', owner='p1', lessee='p2')
        resp = self.post('/v1/ports', {'node_uuid': node.uuid,
                                       'address': '52:54:00:00:00:01'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        port = resp.get_json()['uuid']
        # The same address again is refused: nothing recorded for it.
        self.assertError(409, self.post('/v1/ports', {
            'node_uuid': node.uuid, 'address': '52:54:00:00:00:01'}))
        self.assertEqual(200, self.patch_json('/v1/ports/%s' % port, [
            {'op': 'replace', 'path': '/pxe_enabled', 'value': False}
        ]).status_code)
        self.assertEqual(204, self.delete('/v1/ports/%s' % port).status_code)
        found = recorded(self.context, object_type='port')
        self.assertEqual(['baremetal.port.create.end',
                          'baremetal.port.update.end',
                          'baremetal.port.delete.end'],
                         [e.event_type for e in found])
        self.assertEqual({port}, {e.object_uuid for e in found})
        self.assertEqual({('p1', 'p2')}, {(e.owner, e.lessee)
                                          for e in found})
        payload = found[1].payload
        self.assertEqual(('PortCRUDPayload', 'ironic', '1.8'), (
            payload['ironic_object.name'],
            payload['ironic_object.namespace'],
            payload['ironic_object.version']))
        data = payload['ironic_object.data']
        self.assertEqual(
            {'uuid', 'address', 'extra', 'local_link_connection',
             'pxe_enabled', 'node_uuid', 'portgroup_uuid',
             'physical_network', 'is_smartnic', 'name', 'description',
             'vendor', 'category', 'available_for_dynamic_portgroup',
             'created_at', 'updated_at'}, set(data))
        self.assertEqual((False, node.uuid, '52:54:00:00:00:01'),
                         (data['pxe_enabled'], data['node_uuid'],
                          data['address']))


    def test_portgroup_create_update_delete_and_vifs(self):
        node = self.create_node(name='n', owner='p1', lessee='p2',
                                provision_state='manageable')
        resp = self.post('/v1/portgroups', {'node_uuid': node.uuid,
                                            'name': 'bond0'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        pg = resp.get_json()['uuid']
        self.assertError(409, self.post('/v1/portgroups', {
            'node_uuid': node.uuid, 'name': 'bond0'}))
        self.assertEqual(200, self.patch_json('/v1/portgroups/bond0', [
            {'op': 'replace', 'path': '/mode', 'value': '802.3ad'}
        ]).status_code)
        resp = self.post('/v1/ports', {'node_uuid': node.uuid,
                                       'address': '52:54:00:00:00:02',
                                       'portgroup_uuid': pg})
        self.assertEqual(201, resp.status_code, resp.get_data())
        port = resp.get_json()['uuid']
        self.assertEqual(204, self.post('/v1/nodes/n/vifs',
                                        {'id': 'vif-1'}).status_code)
        self.assertEqual(204, self.delete('/v1/nodes/n/vifs/vif-1')
                         .status_code)
        self.assertError(400, self.delete('/v1/portgroups/bond0'))
        self.assertEqual(200, self.patch_json('/v1/ports/%s' % port, [
            {'op': 'remove', 'path': '/portgroup_uuid'}]).status_code)
        self.assertEqual(204, self.delete('/v1/portgroups/bond0')
                         .status_code)
        found = recorded(self.context, object_type='portgroup')
        self.assertEqual(['baremetal.portgroup.create.end',
                          'baremetal.portgroup.update.end',
                          'baremetal.portgroup.update.end',
                          'baremetal.portgroup.update.end',
                          'baremetal.portgroup.delete.end'],
                         [e.event_type for e in found])
        self.assertEqual(['VIF vif-1 attached', 'VIF vif-1 detached'],
                         [e.message for e in found[2:4]])
        self.assertEqual({('p1', 'p2', pg, 'bond0')},
                         {(e.owner, e.lessee, e.object_uuid, e.object_name)
                          for e in found})
        payload = found[1].payload
        self.assertEqual(('PortgroupCRUDPayload', '1.3'), (
            payload['ironic_object.name'],
            payload['ironic_object.version']))
        data = payload['ironic_object.data']
        self.assertEqual(
            {'uuid', 'address', 'node_uuid', 'name', 'extra', 'mode',
             'properties', 'standalone_ports_supported', 'physical_network',
             'category', 'dynamic_portgroup', 'created_at', 'updated_at'},
            set(data))
        self.assertEqual(('802.3ad', node.uuid), (data['mode'],
                                                  data['node_uuid']))
        ports_found = recorded(self.context, object_type='port')
        self.assertEqual(pg, ports_found[0].payload[
            'ironic_object.data']['portgroup_uuid'])
        self.assertIsNone(ports_found[-1].payload[
            'ironic_object.data']['portgroup_uuid'])


    def test_volume_connector_and_target_create_update_delete(self):
        node = self.create_node(name='n', owner='p1', lessee='p2')
        for collection, body, change in (
                ('connectors', {'type': 'iqn', 'connector_id': 'iqn.1'},
                 '/connector_id'),
                ('targets', {'volume_type': 'iscsi', 'volume_id': 'v1',
                             'boot_index': 0}, '/volume_id')):
            resp = self.post('/v1/volume/' + collection,
                             {'node_uuid': node.uuid, **body})
            self.assertEqual(201, resp.status_code, resp.get_data())
            url = '/v1/volume/%s/%s' % (collection, resp.get_json()['uuid'])
            # A duplicate is refused: nothing recorded for it.
            self.assertError(409, self.post('/v1/volume/' + collection,
                                            {'node_uuid': node.uuid,
                                             **body}))
            self.assertEqual(200, self.patch_json(url, [
                {'op': 'replace', 'path': change, 'value': 'x'}
            ]).status_code)
            self.assertEqual(204, self.delete(url).status_code)
        for name, kind, version in (
                ('volumeconnector', 'VolumeConnectorCRUDPayload', '1.0'),
                ('volumetarget', 'VolumeTargetCRUDPayload', '1.0')):
            found = recorded(self.context, object_type=name)
            self.assertEqual(['baremetal.%s.%s.end' % (name, action)
                              for action in ('create', 'update', 'delete')],
                             [e.event_type for e in found])
            self.assertEqual({('p1', 'p2')}, {(e.owner, e.lessee)
                                              for e in found})
            payload = found[1].payload
            self.assertEqual((kind, version), (
                payload['ironic_object.name'],
                payload['ironic_object.version']))
            self.assertEqual(node.uuid,
                             payload['ironic_object.data']['node_uuid'])


    def test_chassis_create_update_delete_and_nodes_joining(self):
        resp = self.post('/v1/chassis', {'description': 'rack'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        chassis = resp.get_json()['uuid']
        url = '/v1/chassis/%s' % chassis
        self.assertEqual(200, self.patch_json(url, [
            {'op': 'add', 'path': '/extra/a', 'value': 1}]).status_code)
        self.create_node(name='n')
        self.assertEqual(200, self.patch_json('/v1/nodes/n', [
            {'op': 'add', 'path': '/chassis_uuid', 'value': chassis}
        ]).status_code)
        self.assertError(400, self.delete(url))
        self.assertEqual(200, self.patch_json('/v1/nodes/n', [
            {'op': 'remove', 'path': '/chassis_uuid'}]).status_code)
        self.assertEqual(204, self.delete(url).status_code)
        found = recorded(self.context, object_type='chassis')
        self.assertEqual(['baremetal.chassis.%s.end' % action
                          for action in ('create', 'update', 'delete')],
                         [e.event_type for e in found])
        self.assertEqual({(None, None)}, {(e.owner, e.lessee)
                                          for e in found})
        payload = found[1].payload
        self.assertEqual(('ChassisCRUDPayload', '1.0'), (
            payload['ironic_object.name'],
            payload['ironic_object.version']))
        self.assertEqual({'a': 1}, payload['ironic_object.data']['extra'])
        updates = [e for e in recorded(self.context, object_type='node')
                   if e.event_type == 'baremetal.node.update.end']
        self.assertEqual([chassis, None], [
            e.payload['ironic_object.data']['chassis_uuid']
            for e in updates])


class ClaimEventsTestCase(Watched, test_claims.ClaimTestBase):

    def test_claim_bound_then_deleted(self):
        self.provider()
        claim = self.ok(self.claim({'resource_class': 'baremetal'}), 201)
        self.bind()
        self.ok(self.delete('/v1/claims/%s' % claim['uuid']), 204)
        found = recorded(self.context, object_uuid=claim['uuid'])
        self.assertEqual([('pool.claim.create.end', None, 'pending'),
                          ('pool.claim.bound', 'pending', 'bound'),
                          ('pool.claim.deleted', 'bound', None)],
                         story(found))
        self.assertEqual('test-host', found[1].conductor)
        # The machine it bound was recorded with it.
        allocated = recorded(self.context,
                             event_type='baremetal.allocation.create.end')
        self.assertEqual(1, len(allocated))
        self.assertEqual(['small'],
                         found[1].payload['pool_object.data']['providers'])

    def test_unmatched_claim_is_an_error_event(self):
        self.provider()
        claim = self.ok(self.claim({'resource_class': 'nothing'}), 201)
        self.bind()
        last = recorded(self.context, object_uuid=claim['uuid'])[-1]
        self.assertEqual(('pool.claim.error', 'pending', 'error', 'error'),
                         (last.event_type, last.prev_state, last.state,
                          last.level))
        self.assertIn('No Free machine', last.message)
        self.assertEqual(
            'error', last.payload['pool_object.data']['state'])


    def test_lost_machine_replaced(self):
        """A claim's machine deleted in maintenance: the claim, its
        allocation and the node record the loss; the replacement the
        binding."""
        self.provider(defaults={'params': {'role': 'web'}},
                      match_ignore=['/params'])
        claim = self.ok(self.claim({}), 201)
        self.bind()
        node = self.ok(self.get('/v1/claims/%s' % claim['uuid']))[
            'handles'][0]
        self.ok(self.put('/v1/nodes/%s/maintenance' % node['node_uuid']),
                202)
        self.ok(self.delete('/v1/nodes/%s' % node['node_uuid']), 204)
        self.assertEqual(1, self.bind())
        self.assertEqual(
            [('pool.claim.create.end', None, 'pending'),
             ('pool.claim.bound', 'pending', 'bound'),
             ('pool.claim.handle.lost', 'bound', 'pending'),
             ('pool.claim.bound', 'pending', 'bound')],
            story(recorded(self.context, object_uuid=claim['uuid'])))
        self.assertEqual(
            [('baremetal.allocation.create.end', None, None),
             ('pool.allocation.lost', 'active', 'error')],
            story(recorded(self.context, object_uuid=node['uuid'])))
        self.assertEqual('baremetal.node.delete.end', recorded(
            self.context, object_uuid=node['node_uuid'])[-1].event_type)

    def test_keep_params_and_match_changes_recorded(self):
        self.provider(match={'params': {'size': 's'}},
                      match_ignore=['/params'])
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/keep_params', 'value': True}]))
        self.ok(self.patch_json('/v1/providers/small', [
            {'op': 'add', 'path': '/keep_params', 'value': True}]))
        claim = self.ok(self.post('/v1/claims', {'resources': [
            {'template': {'params': {'size': 's'}}}]}), 201)
        self.assertEqual(1, self.bind())
        self.ok(self.delete('/v1/claims/%s' % claim['uuid']), 204)


class LifespanEventsTestCase(Watched, base.APITestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'test-host')
        self.node = self.create_node(name='node-0')
        self.post('/v1/pools', {'name': 'short', 'lifespan': {
            'default': '1h', 'maximum': '1d'}})
        self.post('/v1/pools/short/addMachines',
                  {'machine_list': [self.node.uuid]})
        resp = self.post('/v1/pools/short/allocateMachines', {'count': 1})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.alloc = self.get('/v1/allocations').get_json()[
            'allocations'][0]

    def test_patch_of_lifespan_end_is_extended(self):
        wanted = (db_api.utcnow() + 5 * HOUR).replace(microsecond=0)
        self.assertEqual(200, self.patch_json(
            '/v1/allocations/%s' % self.alloc['uuid'],
            [{'op': 'replace', 'path': '/lifespan_end',
              'value': wanted.isoformat()}]).status_code)
        found = recorded(self.context, object_uuid=self.alloc['uuid'])
        self.assertEqual(['baremetal.allocation.create.end',
                          'baremetal.allocation.update.end',
                          'pool.lifespan.extended'],
                         [e.event_type for e in found])
        self.assertEqual(wanted.isoformat(), found[-1].state)
        self.assertIsNotNone(found[-1].prev_state)

    def test_expiry_recorded_with_the_release(self):
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).values(
                lifespan_end=db_api.utcnow() - HOUR))
        self.assertEqual(1, expiry.expire(self.context, 'test-host'))
        found = recorded(self.context, object_uuid=self.alloc['uuid'])
        self.assertEqual([('pool.lifespan.expired', 'active', None),
                          ('baremetal.allocation.delete.end', 'active',
                           None)], story(found[-2:]))
        freed = recorded(self.context, object_uuid=self.node.uuid)[-1]
        self.assertEqual(('pool.node.pool_status_set.success', 'InUse',
                          'Free'), (freed.event_type, freed.prev_state,
                                    freed.state))


class ConductorEventsTestCase(Watched, base.APITestCase):

    def heartbeat_at(self, host, when):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == host).values(updated_at=when))

    def test_registered_dead_back(self):
        self.config(heartbeat_timeout=60, group='conductor')
        conductors.register(self.context, 'c1', start=True)
        conductors.register(self.context, 'c2', start=True)
        # Heartbeats of a conductor online record nothing.
        conductors.register(self.context, 'c1')
        self.heartbeat_at('c1', db_api.utcnow() - HOUR)
        # Noticed once, whoever notices it.
        self.assertEqual(['c1'], conductors.mark_dead(self.context, 'c2'))
        self.assertEqual([], conductors.mark_dead(self.context, 'c2'))
        conductors.register(self.context, 'c1')
        conductors.unregister(self.context, 'c2')
        found = recorded(self.context, object_type='conductor')
        self.assertEqual(
            [('c1', 'pool.conductor.registered', None, 'online'),
             ('c2', 'pool.conductor.registered', None, 'online'),
             ('c1', 'pool.conductor.dead', 'online', 'offline'),
             ('c1', 'pool.conductor.registered', 'offline', 'online'),
             ('c2', 'pool.conductor.unregistered', 'online', 'offline')],
            [(e.object_name, e.event_type, e.prev_state, e.state)
             for e in found])
        dead = found[2]
        self.assertEqual(('warning', 'c2'), (dead.level, dead.conductor))
        self.assertEqual(events.name_uuid('conductor', 'c1'),
                         dead.object_uuid)
        # A dead conductor keeps its last heartbeat.
        self.assertTrue(conductors_db.get_conductor(
            self.context, 'c1').online)

    def test_allocation_taken_over(self):
        self.config(heartbeat_timeout=60, group='conductor')
        conductors.register(self.context, 'gone', start=True)
        conductors.register(self.context, 'test-host', start=True)
        resp = self.post('/v1/allocations', {'resource_class': 'x'})
        alloc = resp.get_json()
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).values(
                conductor_affinity='gone'))
        self.heartbeat_at('gone', db_api.utcnow() - HOUR)
        svc = service.ConductorService('test-host')
        svc.worker = self
        self.assertEqual(1, svc.take_over_orphans())
        found = recorded(self.context, object_type='conductor')
        self.assertEqual(['pool.conductor.registered',
                          'pool.conductor.registered',
                          'pool.conductor.dead',
                          'pool.conductor.takeover'],
                         [e.event_type for e in found])
        taken = found[-1]
        self.assertEqual(('gone', 'test-host', alloc['uuid']),
                         (taken.object_name, taken.conductor,
                          taken.payload['pool_object.data']['taken_uuid']))

    def submit(self, alloc_id):
        """The worker of the service under test: nothing runs."""
        return True


class AutoFillEventsTestCase(Watched, test_autofill.AutoFillTestCase):

    def pool(self, *args, **fill):
        with self.paused():
            return super().pool(*args, **fill)

    def set_pool(self, *args, **values):
        with self.paused():
            super().set_pool(*args, **values)

    def set_broker(self, **parameters):
        with self.paused():
            super().set_broker(**parameters)

    def test_scale_up_and_down(self):
        self.pool(min_free=2)
        self.filler.check(self.context)
        self.set_pool(autofill={'use_autofill': True, 'max_free': 0})
        self.filler.check(self.context)
        found = recorded(self.context, object_uuid=events.name_uuid(
            'pool', 'web'))
        self.assertEqual(['pool.pool.autofill.scale_up.start',
                          'pool.pool.autofill.scale_up.end',
                          'pool.pool.autofill.scale_down.start',
                          'pool.pool.autofill.scale_down.end'],
                         [e.event_type for e in found
                          if '.autofill.' in e.event_type])
        end = [e for e in found if e.event_type.endswith('up.end')][0]
        self.assertEqual(
            {'pool': 'web', 'requested': 2, 'created': 2},
            {k: v for k, v in end.payload['pool_object.data'].items() if v})
        self.assertEqual('c1', end.conductor)
        brokers = recorded(self.context, object_type='broker')
        self.assertEqual(['pool.broker.create.end'] * 2
                         + ['pool.broker.destroy.end'] * 2,
                         [e.event_type for e in brokers])
        self.assertEqual({'cloud'}, {e.object_name for e in brokers})

    def test_broker_failure(self):
        self.pool(min_free=1)
        self.set_broker(fail=1)
        self.filler.check(self.context)
        failed = recorded(self.context, levels=['error'])
        self.assertEqual(['pool.broker.create.error',
                          'pool.pool.autofill.scale_up.error'],
                         [e.event_type for e in failed])
        for event in failed:
            self.assertIn('Broker cloud failed', event.message)
        # The pool's last_error is set with the round's end.
        self.assertEqual(failed[1].message, pools_db.get(
            self.context, models.Pool, 'web').last_error)

    def test_pool_taken_over_from_a_dead_conductor(self):
        self.pool(min_free=1)
        self.filler.check(self.context)
        with self.paused():
            self.kill('c1')
        self.assertIn('web', autofill.AutoFiller('c2').check(
            self.context))
        taken = recorded(self.context,
                         event_type='pool.conductor.takeover')
        self.assertEqual([('c1', 'c2', 'pool', 'web')], [
            (e.object_name, e.conductor,
             e.payload['pool_object.data']['taken_type'],
             e.payload['pool_object.data']['taken_uuid']) for e in taken])

    def test_failed_round_recorded_once(self):
        self.pool(min_free=1)
        self.filler._pool_error(self.context, 'web', 'It failed')
        self.filler._pool_error(self.context, 'web', 'It failed')
        found = recorded(self.context,
                         event_type='pool.pool.autofill.error')
        self.assertEqual(['It failed'], [e.message for e in found])


class PoolActionEventsTestCase(Watched, base.APITestCase):

    def test_pool_actions_record_their_nodes_changes(self):
        nodes = [self.create_node(name='node-%d' % i) for i in range(2)]
        names = [n.name for n in nodes]
        self.post('/v1/pools', {'name': 'lab'})
        for action, body in (
                ('addMachines', {'machine_list': names}),
                ('allocateMachines', {'count': 2}),
                ('returnMachines', {'machine_list': names}),
                ('removeMachines', {'machine_list': names[:1]})):
            resp = self.post('/v1/pools/lab/%s' % action, body)
            self.assertEqual(200, resp.status_code, resp.get_data())
        found = recorded(self.context, object_uuid=nodes[0].uuid)
        self.assertEqual(
            [('Free', 'Free'), ('Free', 'InUse'), ('InUse', 'Free'),
             ('Free', 'Free')],
            [(e.prev_state, e.state) for e in found
             if e.event_type == 'pool.node.pool_status_set.success'])
        self.assertEqual(['lab', 'default'], [
            e.payload['ironic_object.data']['pool'] for e in found
            if e.event_type == 'pool.node.pool_status_set.success'][2:])
        allocations = recorded(self.context, object_type='allocation')
        self.assertEqual(['baremetal.allocation.create.end'] * 2
                         + ['baremetal.allocation.delete.end'] * 2,
                         [e.event_type for e in allocations])
        # No pool event of its own: the pool did not change.
        self.assertEqual(['pool.pool.create.end'], [
            e.event_type for e in recorded(self.context,
                                           object_type='pool')])


class NodeActionEventsTestCase(Watched, base.APITestCase):
    """Rebuild, rescue, unrescue, the console and RAID: each change with
    its event."""

    def test_node_actions_are_recorded(self):
        with self.paused():
            node = self.enroll(name='acted')
        url = '/v1/nodes/acted/states'
        for target, extra in (('active', {}), ('rebuild', {}),
                              ('rescue', {'rescue_password': 'p'}),
                              ('unrescue', {})):
            resp = self.put(url + '/provision', {'target': target, **extra})
            self.assertEqual(202, resp.status_code, resp.get_data())
            self.finish_provisioning()
        for enabled in (True, False):
            self.assertEqual(202, self.put(url + '/console',
                                           {'enabled': enabled}).status_code)
        self.assertEqual(204, self.put(url + '/raid', {'logical_disks': [
            {'size_gb': 10, 'raid_level': '1'}]}).status_code)
        found = recorded(self.context, object_uuid=node['uuid'])
        self.assertEqual([
            ('baremetal.node.provision_set.start', 'available', 'deploying'),
            ('baremetal.node.provision_set.end', 'deploying', 'active'),
            ('baremetal.node.provision_set.start', 'active', 'deploying'),
            ('baremetal.node.provision_set.end', 'deploying', 'active'),
            ('baremetal.node.provision_set.start', 'active', 'rescuing'),
            ('baremetal.node.provision_set.end', 'rescuing', 'rescue'),
            ('baremetal.node.provision_set.start', 'rescue', 'unrescuing'),
            ('baremetal.node.provision_set.end', 'unrescuing', 'active'),
            ('baremetal.node.console_set.end', None, None),
            ('baremetal.node.console_set.end', None, None),
            ('baremetal.node.update.end', None, None),
        ], story(found)[-11:])

    def test_cleaning_and_deploy_steps_are_recorded(self):
        with self.paused():
            node = self.enroll(name='stepped')
        url = '/v1/nodes/stepped'
        self.assertEqual(204, self.put(url + '/traits/CUSTOM_R1')
                         .status_code)
        resp = self.post('/v1/deploy_templates', {
            'name': 'CUSTOM_R1', 'steps': [{
                'interface': 'bios', 'step': 'factory_reset', 'args': {},
                'priority': 90}]})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual(200, self.patch_json('/v1/deploy_templates/'
                                              'CUSTOM_R1', [
            {'op': 'add', 'path': '/extra/a', 'value': 1}]).status_code)
        self.put(url + '/states/raid', {'logical_disks': [
            {'size_gb': 10, 'raid_level': '1'}]})
        self.put(url + '/states/provision', {'target': 'manage'})
        self.put(url + '/states/provision', {
            'target': 'clean', 'clean_steps': [
                {'interface': 'raid', 'step': 'create_configuration'}]})
        self.finish_provisioning()
        self.put(url + '/states/provision', {'target': 'provide'})
        self.patch_json(url, [{'op': 'add', 'path': '/instance_info/traits',
                               'value': ['CUSTOM_R1']}])
        self.put(url + '/states/provision', {'target': 'active'})
        self.finish_provisioning()
        self.assertEqual(204, self.delete('/v1/deploy_templates/CUSTOM_R1')
                         .status_code)
        self.assertEqual('active', self.get(url).get_json()[
            'provision_state'])
        found = recorded(self.context, object_type='deploy_template')
        self.assertEqual(['baremetal.deploy_template.create.end',
                          'baremetal.deploy_template.update.end',
                          'baremetal.deploy_template.delete.end'],
                         [e.event_type for e in found])
        steps = [e.payload['ironic_object.data'].get('deploy_step') or
                 e.payload['ironic_object.data'].get('clean_step')
                 for e in recorded(self.context, object_uuid=node['uuid'])
                 if e.event_type == 'baremetal.node.update.end']
        # The deploy step (priority 100) before the template's (90).
        self.assertEqual(['create_configuration', 'deploy',
                          'factory_reset'], [s['step'] for s in steps if s])


class NodePatchEventsTestCase(Watched, base.APITestCase):
    """The node fields a PATCH may change: interfaces, conductor group,
    maintenance, protection and retirement."""

    def patch_node(self, ops):
        resp = self.patch_json('/v1/nodes/n1', ops)
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_each_patch_is_recorded(self):
        resp = self.post('/v1/nodes', {'driver': 'fake-hardware',
                                       'name': 'n1'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        uuid = resp.get_json()['uuid']
        self.patch_node([
            {'op': 'replace', 'path': '/boot_interface', 'value': 'pxe'},
            {'op': 'add', 'path': '/conductor_group', 'value': 'g'}])
        self.patch_node([{'op': 'replace', 'path': '/maintenance',
                          'value': True}])
        self.patch_node([{'op': 'replace', 'path': '/retired',
                          'value': True},
                         {'op': 'add', 'path': '/automated_clean',
                          'value': False}])
        # A refused change records nothing.
        resp = self.patch_json('/v1/nodes/n1', [
            {'op': 'replace', 'path': '/protected', 'value': True}])
        self.assertEqual(409, resp.status_code, resp.get_data())
        found = recorded(self.context, object_uuid=uuid)
        self.assertEqual(['baremetal.node.create.end',
                          'baremetal.node.update.end',
                          'baremetal.node.maintenance_set.end',
                          'baremetal.node.update.end'],
                         [e.event_type for e in found])
        data = found[1].payload['ironic_object.data']
        self.assertEqual(('pxe', 'g'), (data['boot_interface'],
                                        data['conductor_group']))
        self.assertIs(True, found[3].payload['ironic_object.data'][
            'retired'])


class ReservationEventsTestCase(Watched,
                                test_reservations.ReservationTestCase):
    """Booking, starting and deleting a reservation record their events
    in their transactions; a refused one records none."""


class WindowEventsTestCase(Watched, test_windows.WindowTestCase):
    """Booking, extending, starting, failing to start and deleting a
    window record their events in their transactions."""

    def test_wait_timeout_recorded_with_its_event(self):
        node = self.create_node(name='slow')
        self.post('/v1/pools', {'name': 'lab'})
        self.post('/v1/pools/lab/addMachines', {'machine_list': ['slow']})
        resp = self.post('/v1/pools/lab/allocateMachines', {
            'wait_for_stage': 'done', 'wait_timeout': 0})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(1, workflows.time_out_waits(self.context))
        found = recorded(self.context, object_uuid=node.uuid,
                         event_type='pool.node.wait_timeout.error')
        self.assertEqual([('Building', 'timeout')],
                         [(e.prev_state, e.state) for e in found])
        # Once: a second round finds nothing more to time out.
        self.assertEqual(0, workflows.time_out_waits(self.context))


class ContentEventsTestCase(Watched, base.APITestCase):

    def test_import_records_each_object_it_changes(self):
        document = {'sections': {
            'workflows': {'deploy': {'stages': ['a']}},
            'profiles': {'base': {'params': {'x': 1}}},
            'brokers': {'cloud': {'driver': 'fake'}},
            'pools': {'web': {'broker': 'cloud', 'meta': {'color': 'red'},
                              'autofill': {'min_free': 1}}},
            'providers': {'small': {'pool': 'web'}}}}
        resp = self.post('/v1/content', document)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(
            [('workflow', 'pool.workflow.create.end'),
             ('profile', 'pool.profile.create.end'),
             ('broker', 'pool.broker.create.end'),
             ('pool', 'pool.pool.create.end'),
             ('pool', 'pool.pool.update.end'),
             ('provider', 'pool.provider.create.end')],
            [(e.object_type, e.event_type) for e in recorded(self.context)])
        # The same document again changes nothing, and records nothing.
        self.post('/v1/content', document)
        self.assertEqual(6, len(recorded(self.context)))


class ExternalManagerEventsTestCase(Watched, test_external.ExternalTestBase):
    """The allocation path and the reconciler of shared hardware record
    an event with each write."""

    def test_claims_holds_frees_conflicts_and_outages(self):
        node = self.shared_node('sh-1')
        other = self.shared_node('sh-2')
        fake.take(self.world, 'sh-2')
        _, alloc = self.allocate(candidate_nodes=[other.uuid, node.uuid])
        self.assertEqual(node.uuid, alloc.node_uuid)
        self.put('/v1/nodes/%s/states/provision' % node.uuid,
                 {'target': 'active'})
        self.finish_provisioning()
        fake.take(self.world, 'sh-1')
        self.round()
        fake.free(self.world, 'sh-2')
        self.round()
        self.round()
        fake.set_failing(self.world, True)
        for _ in range(3):
            self.round()
        found = {e.event_type for e in recorded(self.context)}
        self.assertLessEqual({
            'pool.node.external.acquire.success', 'pool.node.external.taken',
            'pool.node.external.conflict', 'pool.node.external.freed',
            'pool.node.external.unknown', 'pool.external_manager.sync.error',
        }, found)

    def test_release_records_its_event(self):
        self.shared_node('sh-1')
        _, alloc = self.allocate()
        self.delete('/v1/allocations/%s' % alloc.uuid)
        self.assertTrue(recorded(
            self.context, event_type='pool.node.external.release.success'))


class WindowPolicyEventsTestCase(Watched,
                                 test_window_policy.WindowPolicyTestCase):
    """Bookings under the caps, idle warnings and reclaims, the notice
    before the end and the end record their events in their
    transactions."""


class MaintenanceWindowEventsTestCase(
        Watched, test_maintenance_windows.MaintenanceWindowTestCase):
    """Booking, beginning, ending and deleting maintenance windows record
    their events in their transactions."""
