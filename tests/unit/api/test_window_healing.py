"""Healing of windowed allocations: a node lost before its window begins
(deleted, removed from its pool with force, failed cleaning, put into
maintenance, taken by another user of its external manager) is replaced
at once by a free node, else the allocation is flagged missing_resources;
a conductor's periodic check heals flagged ones later, or fails them at
their start."""
import datetime
import os
import tempfile

import sqlalchemy as sa

from pool_conductor.allocator import AllocationWorker
from pool_conductor.baremetal import provisioning
from pool_conductor.booking import healing
from pool_conductor.booking import windows
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from pool_conductor import events
from pool_conductor import external
from pool_conductor.external_managers import fake
from tests.unit.api import base
from tests.unit.conductor.test_change_events import Watched

HOUR = datetime.timedelta(hours=1)
MINUTE = datetime.timedelta(minutes=1)


def rfc3339(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat() + 'Z'


def parse(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=None)


class HealingTestCase(Watched, base.APITestCase):

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=1800, start_grace=300,
                    group='windows')
        with self.paused():
            conductors_db.register_conductor(self.context, 'test-host')
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)
        self.now = db_api.utcnow().replace(microsecond=0) + MINUTE
        fd, self.world = tempfile.mkstemp(prefix='pool-fake-manager-')
        os.close(fd)
        self.addCleanup(os.unlink, self.world)
        self.config(free_confirmations=2, gone_grace=0,
                    group='external_manager')

    # Helpers

    def book(self, start, end, status=201, **body):
        body.setdefault('resource_class', 'baremetal')
        body['start_at'] = rfc3339(self.now + start)
        body['end_at'] = rfc3339(self.now + end)
        resp = self.post('/v1/allocations', body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def allocation(self, uuid):
        return self.get('/v1/allocations/%s' % uuid).get_json()

    def events_of(self, uuid):
        events.sequence()
        with db_api.reader(self.context) as session:
            return [(e.event_type, e.message) for e in session.scalars(
                sa.select(models.Event).where(
                    models.Event.object_uuid == uuid)
                .order_by(models.Event.id))]

    def event_types(self, uuid):
        return [t for t, _m in self.events_of(uuid)]

    def slot_node(self, uuid):
        """The uuid of the node the allocation's slot holds, if any."""
        with db_api.reader(self.context) as session:
            alloc_id = session.scalar(sa.select(models.Allocation.id).where(
                models.Allocation.uuid == uuid))
            slot = slots_db.of_allocation(session.connection(), alloc_id)
        return slot.node_uuid if slot is not None else None

    def assertNoOverlaps(self):
        with db_api.reader(self.context) as session:
            self.assertEqual([], slots_db.overlaps(session.connection()))

    def check(self):
        return healing.check(self.context, 'test-host')

    def assertHealed(self, before, onto):
        after = self.allocation(before['uuid'])
        self.assertEqual(('scheduled', onto['uuid'], False),
                         (after['state'], after['node_uuid'],
                          after['missing_resources']))
        # The window and its slot's times are kept.
        for field in ('start_at', 'lifespan_end', 'busy_from',
                      'busy_until'):
            self.assertEqual(before[field], after[field])
        self.assertEqual(onto['uuid'], self.slot_node(before['uuid']))
        self.assertNoOverlaps()
        return after

    def assertFlagged(self, before, contains):
        after = self.allocation(before['uuid'])
        self.assertEqual(('scheduled', None, True, None, None),
                         (after['state'], after['node_uuid'],
                          after['missing_resources'], after['busy_from'],
                          after['busy_until']))
        self.assertEqual((before['start_at'], before['lifespan_end']),
                         (after['start_at'], after['lifespan_end']))
        self.assertIn(contains, after['last_error'])
        self.assertIsNone(self.slot_node(before['uuid']))
        found = self.events_of(before['uuid'])
        self.assertEqual('pool.allocation.missing_resources', found[-1][0])
        self.assertIn(contains, found[-1][1])
        self.assertNoOverlaps()
        return after

    def shared(self, name, ref):
        """A node shared with the external manager "other"."""
        fake.add(self.world, ref)
        with self.paused():
            return self.create_node(name=name, external_manager='other',
                                    external_ref=ref)

    # The loss paths: each loses a node (by uuid) as its user would.

    def lose_deleted(self, node):
        resp = self.delete('/v1/nodes/%s' % node['uuid'])
        self.assertEqual(204, resp.status_code, resp.get_data())
        return 'deleted'

    def lose_removed(self, node):
        resp = self.post('/v1/pools/bench/removeMachines',
                         {'machine_list': [node['uuid']], 'force': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        return 'removed from pool bench'

    def lose_maintenance(self, node):
        resp = self.put('/v1/nodes/%s/maintenance' % node['uuid'],
                        {'reason': 'fan broken'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        return 'put into maintenance: fan broken'

    def lose_patched_maintenance(self, node):
        resp = self.patch_json('/v1/nodes/%s' % node['uuid'], [
            {'op': 'replace', 'path': '/maintenance', 'value': True}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        return 'put into maintenance'

    def lose_reported_maintenance(self, node):
        """A stage report and maintenance in one PATCH (the binding
        writer's report)."""
        resp = self.patch_json('/v1/nodes/%s' % node['uuid'], [
            {'op': 'replace', 'path': '/stage', 'value': 'x'},
            {'op': 'replace', 'path': '/maintenance', 'value': True}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        return 'put into maintenance'

    def lose_instance_maintenance(self, node):
        """An instance and maintenance in one PATCH (the binding
        writer's set_instance)."""
        resp = self.patch_json('/v1/nodes/%s' % node['uuid'], [
            {'op': 'replace', 'path': '/instance_uuid',
             'value': '7a3d2f1e-0c4b-4f6a-9e8d-1b2c3d4e5f60'},
            {'op': 'replace', 'path': '/maintenance', 'value': True}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        return 'put into maintenance'

    def lose_clean_failed(self, node):
        """The node's previous allocation ends, and the cleaning after it
        fails."""
        resp = self.put('/v1/nodes/%s/params' % node['uuid'],
                        {provisioning.FAIL_STATE_PARAM: 'cleaning'})
        self.assertEqual(200, resp.status_code, resp.get_data())
        for target in ('active', 'deleted'):
            resp = self.put('/v1/nodes/%s/states/provision' % node['uuid'],
                            {'target': target})
            self.assertEqual(202, resp.status_code, resp.get_data())
            self.finish_provisioning()
        self.assertEqual('clean failed', self.get(
            '/v1/nodes/%s' % node['uuid']).get_json()['provision_state'])
        return 'its cleaning failed'

    def lose_taken(self, node):
        fake.take(self.world, node['name'])
        with self.paused():
            external.Reconciler('test-host').check(self.context, force=True)
        self.assertEqual('external hold', self.get(
            '/v1/nodes/%s' % node['uuid'],
            headers={'X-OpenStack-Ironic-API-Version': '1.42'}
        ).get_json()['fault'])
        return 'taken by another user of external manager other'

    def lose_gone(self, node):
        fake.remove(self.world, node['name'])
        with self.paused():
            external.Reconciler('test-host').check(self.context, force=True)
        return 'gone from external manager other'

    def setup_path(self, path):
        """The node of a loss path, and a spare node to enroll later:
        functions making the node and the spare; the pool to book in."""
        if path == 'removed':
            self.assertEqual(201, self.post('/v1/pools',
                                            {'name': 'bench'}).status_code)

            def member(name):
                node = self.enroll(name=name)
                resp = self.post('/v1/pools/bench/addMachines',
                                 {'machine_list': [name]})
                self.assertEqual(200, resp.status_code, resp.get_data())
                return node
            return member, 'bench'
        if path in ('taken', 'gone'):
            self.assertEqual(201, self.post('/v1/external_managers', {
                'name': 'other', 'driver': 'fake',
                'parameters': {'path': self.world}}).status_code)
            return (lambda name: self.get(
                '/v1/nodes/%s' % self.shared(name, name).uuid).get_json(),
                None)
        return (lambda name: self.enroll(name=name)), None

    def booked(self, path):
        """A window on the node of a loss path, before its loss."""
        make, pool = self.setup_path(path)
        node = make('lost')
        extra = {'pool': pool} if pool else {}
        if path == 'clean_failed':
            # The node's allocation now ends before the window.
            now = self.post('/v1/allocations', {
                'resource_class': 'baremetal', 'candidate_nodes': ['lost'],
                'lifespan_end': rfc3339(self.now + 30 * MINUTE)}).get_json()
            casts, self.casts = self.casts, []
            for alloc_id, _host in casts:
                self.worker.process(alloc_id)
            self.assertEqual('active', self.allocation(now['uuid'])['state'])
        alloc = self.book(2 * HOUR, 3 * HOUR, **extra)
        self.assertEqual(node['uuid'], alloc['node_uuid'])
        return node, make, alloc

    def replaced(self, path):
        node, make, alloc = self.booked(path)
        spare = make('spare')
        why = getattr(self, 'lose_' + path)(node)
        self.assertHealed(alloc, spare)
        found = self.events_of(alloc['uuid'])
        self.assertEqual('pool.allocation.healed', found[-1][0])
        for text in (node['uuid'], spare['uuid'], why):
            self.assertIn(text, found[-1][1])

    def flagged(self, path):
        node, make, alloc = self.booked(path)
        why = getattr(self, 'lose_' + path)(node)
        self.assertFlagged(alloc, why)
        # The periodic check does not start it, nor give it the lost
        # node back.
        self.assertEqual(0, self.check())
        self.assertEqual([], self.started_now())
        return alloc, make

    def started_now(self):
        started = []
        windows.start_due(self.context, 'test-host', started.append)
        return started

    # Each loss path: replaced where a node is free, else flagged.

    def test_deleted_node_is_replaced(self):
        self.replaced('deleted')

    def test_deleted_node_flags_the_window(self):
        self.flagged('deleted')

    def test_node_removed_from_the_pool_with_force_is_replaced(self):
        self.replaced('removed')

    def test_node_removed_from_the_pool_with_force_flags_the_window(self):
        self.flagged('removed')

    def test_node_put_into_maintenance_is_replaced(self):
        self.replaced('maintenance')

    def test_node_put_into_maintenance_flags_the_window(self):
        self.flagged('maintenance')

    def test_node_patched_into_maintenance_is_replaced(self):
        self.replaced('patched_maintenance')

    def test_node_patched_into_maintenance_flags_the_window(self):
        self.flagged('patched_maintenance')

    def test_node_reported_into_maintenance_is_replaced(self):
        self.replaced('reported_maintenance')

    def test_node_given_an_instance_into_maintenance_is_replaced(self):
        self.replaced('instance_maintenance')

    def test_node_whose_cleaning_failed_is_replaced(self):
        self.replaced('clean_failed')

    def test_node_whose_cleaning_failed_flags_the_window(self):
        self.flagged('clean_failed')

    def test_node_taken_by_an_external_manager_is_replaced(self):
        self.replaced('taken')

    def test_node_taken_by_an_external_manager_flags_the_window(self):
        self.flagged('taken')

    def test_node_gone_from_its_external_manager_is_replaced(self):
        self.replaced('gone')

    def test_node_gone_from_its_external_manager_flags_the_window(self):
        self.flagged('gone')

    # Flagged allocations later

    def test_flagged_window_is_healed_when_a_node_is_free(self):
        alloc, make = self.flagged('deleted')
        # A node of another class is no use to it.
        self.enroll(name='gpu', resource_class='gpu')
        self.assertEqual(0, self.check())
        self.assertTrue(self.allocation(alloc['uuid'])['missing_resources'])
        spare = make('spare')
        self.assertEqual(1, self.check())
        after = self.allocation(alloc['uuid'])
        self.assertEqual(('scheduled', spare['uuid'], False, None),
                         (after['state'], after['node_uuid'],
                          after['missing_resources'], after['last_error']))
        self.assertEqual((rfc3339(self.now + 2 * HOUR),
                          rfc3339(self.now + 3 * HOUR + 30 * MINUTE)),
                         (rfc3339(parse(after['busy_from'])),
                          rfc3339(parse(after['busy_until']))))
        self.assertEqual('pool.allocation.healed',
                         self.event_types(alloc['uuid'])[-1])
        self.assertEqual(0, self.check())
        self.assertNoOverlaps()

    def test_flagged_window_takes_no_node_held_over_it(self):
        alloc, make = self.flagged('deleted')
        make('spare')
        # The spare is booked over the window meanwhile.
        other = self.book(150 * MINUTE, 4 * HOUR)
        self.assertEqual(0, self.check())
        self.assertTrue(self.allocation(alloc['uuid'])['missing_resources'])
        self.assertEqual('scheduled', self.allocation(other['uuid'])['state'])
        self.assertNoOverlaps()

    def test_flagged_window_fails_at_its_start(self):
        alloc, _make = self.flagged('deleted')
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.uuid == alloc['uuid']).values(
                start_at=db_api.utcnow() - datetime.timedelta(seconds=1)))
        # A node free now comes too late: its window began without one.
        self.enroll(name='late')
        self.assertEqual(1, self.check())
        after = self.allocation(alloc['uuid'])
        self.assertEqual(('error', None), (after['state'],
                                           after['node_uuid']))
        self.assertIn('No node was free for the window when it began',
                      after['last_error'])
        self.assertIn('deleted', after['last_error'])
        self.assertEqual('pool.allocation.state_set.error',
                         self.event_types(alloc['uuid'])[-1])
        self.assertEqual(0, self.check())
        self.assertEqual([], self.started_now())

    def test_scheduled_window_without_a_slot_is_not_left_scheduled(self):
        # Whatever took its slot, the periodic check gives it a node.
        node = self.enroll(name='node')
        alloc = self.book(2 * HOUR, 3 * HOUR)
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.delete(models.NodeSlot))
        self.assertEqual(1, self.check())
        after = self.allocation(alloc['uuid'])
        self.assertEqual(('scheduled', False, node['uuid']),
                         (after['state'], after['missing_resources'],
                          after['node_uuid']))

    def test_periodic_check_never_raises(self):
        self.flagged('deleted')
        self.patch(slots_db, 'flagged', lambda conn, limit: 1 / 0)
        self.assertEqual(0, self.check())

    def test_conductor_periodic_heals_and_starts(self):
        from pool_conductor import service
        alloc, make = self.flagged('deleted')
        make('spare')
        conductor = service.ConductorService.__new__(
            service.ConductorService)
        conductor.context, conductor.host = self.context, 'test-host'
        conductor.worker = self.worker
        conductor.check_windows()
        self.assertFalse(self.allocation(alloc['uuid'])['missing_resources'])

    # Several windows, several nodes

    def test_every_window_of_a_lost_node_moves(self):
        node = self.enroll(name='lost')
        first = self.book(HOUR, 2 * HOUR)
        second = self.book(4 * HOUR, 5 * HOUR)
        spare = self.enroll(name='spare')
        self.lose_deleted(node)
        self.assertHealed(first, spare)
        self.assertHealed(second, spare)

    def test_a_window_does_not_move_to_another_lost_node(self):
        self.setup_path('removed')
        self.enroll(name='a')
        self.enroll(name='b')
        for name in ('a', 'b'):
            self.post('/v1/pools/bench/addMachines', {'machine_list': [name]})
        a = self.book(HOUR, 2 * HOUR, pool='bench')
        b = self.book(HOUR, 2 * HOUR, pool='bench')
        resp = self.post('/v1/pools/bench/removeMachines',
                         {'machine_list': ['a', 'b'], 'force': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertFlagged(a, 'removed from pool bench')
        self.assertFlagged(b, 'removed from pool bench')

    def test_removing_a_booked_node_without_force_is_a_409(self):
        self.setup_path('removed')
        node = self.enroll(name='booked')
        self.enroll(name='idle')
        self.post('/v1/pools/bench/addMachines',
                  {'machine_list': ['booked', 'idle']})
        alloc = self.book(HOUR, 2 * HOUR, pool='bench',
                          candidate_nodes=['booked'])
        text = self.assertError(409, self.post(
            '/v1/pools/bench/removeMachines',
            {'machine_list': ['booked']}))
        self.assertIn(alloc['uuid'], text)
        self.assertIn(node['uuid'], text)
        # All machines: the booked one stays.
        resp = self.post('/v1/pools/bench/removeMachines',
                         {'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(['idle'], [r['name'] for r in resp.get_json()])
        self.assertEqual('bench', self.get('/v1/nodes/booked').get_json()[
            'pool'])
        self.assertEqual(node['uuid'],
                         self.allocation(alloc['uuid'])['node_uuid'])

    def test_a_node_without_windows_is_lost_without_healing(self):
        node = self.enroll(name='idle')
        self.lose_deleted(node)
        self.assertEqual(0, self.check())

    def test_flagged_window_keeps_an_end(self):
        alloc, _make = self.flagged('deleted')
        path = '/v1/allocations/%s' % alloc['uuid']
        self.assertError(400, self.patch_json(path, [
            {'op': 'remove', 'path': '/lifespan_end'}]))
        resp = self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(self.now + 4 * HOUR)}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertTrue(resp.get_json()['missing_resources'])

    def test_deleting_a_flagged_window(self):
        alloc, _make = self.flagged('deleted')
        self.assertEqual(204, self.delete(
            '/v1/allocations/%s' % alloc['uuid']).status_code)
        self.assertEqual(0, self.check())

    def test_adding_a_booked_node_to_a_pool(self):
        self.assertEqual(201, self.post('/v1/pools',
                                        {'name': 'child'}).status_code)
        node = self.enroll(name='booked')
        alloc = self.book(HOUR, 2 * HOUR)
        spare = self.enroll(name='spare')
        self.assertError(409, self.post('/v1/pools/child/addMachines',
                                        {'machine_list': ['booked']}))
        resp = self.post('/v1/pools/child/addMachines',
                         {'machine_list': ['booked'], 'force': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('child', self.get('/v1/nodes/%s' % node['uuid'])
                         .get_json()['pool'])
        self.assertHealed(alloc, spare)
        self.assertIn('removed from pool default',
                      self.events_of(alloc['uuid'])[-1][1])
