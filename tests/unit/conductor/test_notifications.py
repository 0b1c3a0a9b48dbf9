"""Notifications: events published through oslo.messaging's notifier
drivers at least once, in cursor order, in Ironic's shapes; retention."""
import datetime
import json
import os

from oslo_messaging.notify import _impl_test
import sqlalchemy as sa

from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import events as events_db
from pool_conductor.db import models
from pool_conductor import events
from pool_conductor.manager import ConductorManager
from pool_conductor import notifications
from pool_conductor import service
from tests.unit.api import base

NODE_UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
ALLOCATION_UUID = '5344a3e2-978a-444e-990a-cbf47c62ef88'
SAMPLES = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'doc',
                       'source', 'samples')
# Set to write the samples of the documentation from what is sent.
WRITE_SAMPLES = 'POOL_WRITE_SAMPLES'
# The fields whose values change from run to run, and what the samples
# show instead.
VOLATILE = {'created_at': '2026-11-25T10:00:00+00:00',
            'updated_at': '2026-11-25T10:00:05+00:00',
            'provision_updated_at': '2026-11-25T10:00:05+00:00',
            'timestamp': '2026-11-25 10:00:05.123456'}
# The story of a node, from enrollment to deletion, as notified.
STORY = [
    'baremetal.node.create.end',
    'baremetal.node.power_set.end',
    'baremetal.node.provision_set.success',    # enroll -> manageable
    'baremetal.node.provision_set.success',    # manageable -> available
    'baremetal.node.update.end',
    'baremetal.node.maintenance_set.end',
    'baremetal.node.maintenance_set.end',
    'baremetal.allocation.create.end',
    'pool.node.pool_status_set.success',
    'pool.allocation.state_set.success',
    'baremetal.node.provision_set.start',      # available -> deploying
    'baremetal.node.provision_set.end',        # deploying -> active
    'baremetal.node.provision_set.start',      # active -> deleting
    'baremetal.node.provision_set.success',    # deleting -> cleaning
    'pool.node.pool_status_set.success',
    'baremetal.allocation.delete.end',
    'baremetal.node.provision_set.end',        # cleaning -> available
    'baremetal.node.delete.end',
]


class NotificationTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.config(driver=['test'], group='oslo_messaging_notifications')
        self.config(notification_level='info')
        _impl_test.reset()
        self.publisher = notifications.Publisher('test-host')
        self.addCleanup(self.publisher.cleanup)

    def publish(self) -> list[dict]:
        """Sequence and publish; the messages sent."""
        events.sequence()
        before = len(_impl_test.NOTIFICATIONS)
        self.publisher.publish()
        return [msg for _ctxt, msg, _prio, _retry
                in _impl_test.NOTIFICATIONS[before:]]

    def record(self, *names, level='info'):
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event('node', name, 'test.%s' % name,
                                              level=level)
                                 for name in names])

    def unpublished(self) -> int:
        with db_api.reader(self.context) as session:
            return session.scalar(sa.select(sa.func.count()).select_from(
                models.Event).where(models.Event.published_at.is_(None)))

    def story(self) -> list[dict]:
        """Enroll, manage, provide, change, allocate, deploy, undeploy and
        delete a node through the API and a conductor; what was sent."""
        conductors_db.register_conductor(self.context, 'test-host')
        worker = AllocationWorker('test-host', 1, batch_size=8)
        self.addCleanup(worker.stop)
        manager = ConductorManager(worker)
        path = '/v1/nodes/%s' % NODE_UUID

        def ok(resp, status):
            self.assertEqual(status, resp.status_code, resp.get_data())

        def provision(target):
            ok(self.put(path + '/states/provision', {'target': target}),
               202)
            # The conductor moves the node on, for the request that cast
            # it (as the cast carries it).
            events.sequence()
            request_ids = {e.object_uuid: e.request_id for e in
                           events_db.after(self.context, 0, {}, 1000)}
            casts, self.provision_casts = self.provision_casts, []
            if casts:
                manager.continue_provisioning(
                    self.context, [n for n, _h in casts],
                    {str(n): [request_ids[NODE_UUID], None, None]
                     for n, _h in casts})

        ok(self.post('/v1/nodes', {
            'uuid': NODE_UUID, 'name': 'node-0', 'driver': 'fake-hardware',
            'resource_class': 'baremetal',
            'driver_info': {'ipmi_address': '192.0.2.10',
                            'ipmi_password': 'hunter22'}}), 201)
        ok(self.put(path + '/states/power', {'target': 'power off'}), 202)
        provision('manage')
        provision('provide')
        ok(self.patch_json(path, [{'op': 'add', 'path': '/extra/rack',
                                   'value': 'r1'}]), 200)
        ok(self.put(path + '/maintenance', {'reason': 'hw upgrade'}), 202)
        ok(self.delete(path + '/maintenance'), 202)
        ok(self.post('/v1/allocations', {'uuid': ALLOCATION_UUID,
                                         'resource_class': 'baremetal'}),
           201)
        worker.process_batch([a for a, _ in self.casts])
        provision('active')
        provision('deleted')
        ok(self.delete(path), 204)
        return self.publish()

    def test_story_is_notified_in_order_once(self):
        sent = self.story()
        self.assertEqual(STORY, [m['event_type'] for m in sent])
        # Each message's id is its event's uuid; the events are published.
        recorded = events_db.after(self.context, 0, {}, 1000)
        self.assertEqual([e.uuid for e in recorded],
                         [m['message_id'] for m in sent])
        self.assertEqual(0, self.unpublished())
        self.assertEqual([], self.publish())

    def test_envelope_and_payloads_are_ironics(self):
        sent = self.story()
        by_type = {}
        for msg in sent:
            by_type.setdefault(msg['event_type'], msg)
        payload_kinds = {
            t: (m['payload']['ironic_object.name'],
                m['payload']['ironic_object.version'])
            for t, m in by_type.items() if t.startswith('baremetal.')}
        self.assertEqual({
            'baremetal.node.create.end': ('NodeCRUDPayload', '1.15'),
            'baremetal.node.update.end': ('NodeCRUDPayload', '1.15'),
            'baremetal.node.delete.end': ('NodeCRUDPayload', '1.15'),
            'baremetal.node.power_set.end': ('NodeSetPowerStatePayload',
                                             '1.17'),
            'baremetal.node.maintenance_set.end': ('NodePayload', '1.17'),
            'baremetal.node.provision_set.success': (
                'NodeSetProvisionStatePayload', '1.18'),
            'baremetal.node.provision_set.start': (
                'NodeSetProvisionStatePayload', '1.18'),
            'baremetal.node.provision_set.end': (
                'NodeSetProvisionStatePayload', '1.18'),
            'baremetal.allocation.create.end': ('AllocationCRUDPayload',
                                                '1.1'),
            'baremetal.allocation.delete.end': ('AllocationCRUDPayload',
                                                '1.1'),
        }, payload_kinds)
        create = by_type['baremetal.node.create.end']
        self.assertEqual('INFO', create['priority'])
        self.assertEqual('pool-api.test-host', create['publisher_id'])
        data = create['payload']['ironic_object.data']
        self.assertEqual('******', data['driver_info']['ipmi_password'])
        self.assertEqual('enroll', data['provision_state'])
        self.assertEqual([], data['traits'])
        self.assertFalse(data['console_enabled'])
        self.assertIsNone(data['chassis_uuid'])
        provisions = [m['payload']['ironic_object.data'] for m in sent
                      if 'provision_set' in m['event_type']]
        self.assertEqual(
            [('enroll', 'manageable', 'manage'),
             ('manageable', 'available', 'provide'),
             ('available', 'deploying', 'deploy'),
             ('deploying', 'active', 'done'),
             ('active', 'deleting', 'delete'),
             ('deleting', 'cleaning', 'clean'),
             ('cleaning', 'available', 'done')],
            [(d['previous_provision_state'], d['provision_state'],
              d['event']) for d in provisions])
        self.assertEqual('active', provisions[2]['target_provision_state'])
        self.assertEqual('power off', by_type[
            'baremetal.node.power_set.end']['payload'][
            'ironic_object.data']['to_power'])
        # The conductor's transitions are the conductor's, caused by the
        # request that cast them.
        deployed = [e for e in events_db.after(self.context, 0, {}, 1000)
                    if e.event_type.startswith('baremetal.node.provision')]
        self.assertEqual('pool-conductor.test-host', [
            m for m in sent
            if m['message_id'] == deployed[3].uuid][0]['publisher_id'])
        self.assertEqual('test-host', deployed[3].conductor)
        self.assertIsNotNone(deployed[2].request_id)
        self.assertEqual(deployed[2].request_id, deployed[3].request_id)
        self.assertEqual(deployed[4].request_id, deployed[6].request_id)

    def test_samples_in_the_docs_are_what_is_sent(self):
        """doc/source/samples holds the first notification of each type
        of the story, its changing values fixed; POOL_WRITE_SAMPLES=1
        writes them."""
        samples = {}
        for msg in self.story():
            samples.setdefault(msg['event_type'], _fixed(msg))
        if os.environ.get(WRITE_SAMPLES):
            os.makedirs(SAMPLES, exist_ok=True)
            for event_type, msg in samples.items():
                with open(os.path.join(SAMPLES, event_type + '.json'),
                          'w') as f:
                    json.dump(msg, f, indent=4, sort_keys=True)
                    f.write('\n')
        self.assertEqual(sorted(t + '.json' for t in samples),
                         sorted(os.listdir(SAMPLES)))
        for event_type, msg in samples.items():
            with open(os.path.join(SAMPLES, event_type + '.json')) as f:
                self.assertEqual(msg, json.load(f), event_type)

    def test_messages_follow_cursor_order_with_the_event_uuid(self):
        self.record('a', 'b', 'c')
        sent = self.publish()
        self.assertEqual(['test.a', 'test.b', 'test.c'],
                         [m['event_type'] for m in sent])
        rows = events_db.after(self.context, 0, {}, 10)
        self.assertEqual([r.uuid for r in rows],
                         [m['message_id'] for m in sent])
        self.assertEqual([str(r.created_at) for r in rows],
                         [m['timestamp'] for m in sent])

    def test_unsequenced_events_wait(self):
        self.record('a')
        self.publisher.publish()
        self.assertEqual([], _impl_test.NOTIFICATIONS)
        self.assertEqual(1, self.unpublished())
        self.assertEqual(['test.a'], [m['event_type']
                                      for m in self.publish()])

    def test_unset_level_sends_nothing_and_marks_published(self):
        self.config(notification_level=None)
        self.record('a', 'b')
        self.assertEqual([], self.publish())
        self.assertEqual(0, self.unpublished())

    def sequenced_by_a_conductor(self) -> list:
        """(seq, published) of the events after a conductor's sequencing
        pass."""
        service.ConductorService('test-host').sequence_events()
        with db_api.reader(self.context) as session:
            return [tuple(r) for r in session.execute(sa.select(
                models.Event.seq, models.Event.published_at.is_not(None)
            ).order_by(models.Event.id))]

    def test_without_notifications_a_conductor_publishes_as_it_sequences(
            self):
        self.config(notification_level=None)
        self.record('a', 'b')
        sequenced = self.sequenced_by_a_conductor()
        self.assertEqual([True, True], [published for _s, published
                                        in sequenced])
        self.assertNotIn(None, [seq for seq, _p in sequenced])
        self.assertEqual([], self.publish())

    def test_with_notifications_a_conductor_leaves_them_to_publish(self):
        self.record('a', 'b')
        self.assertEqual([False, False], [published for _s, published
                                          in self.sequenced_by_a_conductor()])
        self.assertEqual(['test.a', 'test.b'],
                         [m['event_type'] for m in self.publish()])
        self.assertEqual(0, self.unpublished())

    def test_level_is_a_threshold(self):
        self.config(notification_level='warning')
        self.record('a')
        self.record('b', level='warning')
        self.record('c', level='error')
        sent = self.publish()
        self.assertEqual([('test.b', 'WARN'), ('test.c', 'ERROR')],
                         [(m['event_type'], m['priority']) for m in sent])
        self.assertEqual(0, self.unpublished())

    def test_batches_until_none_left(self):
        self.config(publish_batch=2, group='events')
        self.record(*'abcde')
        self.assertEqual(5, len(self.publish()))
        self.assertEqual(0, self.unpublished())

    def test_killed_before_commit_sends_again(self):
        """A publisher that dies after its sends and before its commit
        leaves them unpublished: the next pass sends them again, and
        deduping on message_id gives each event once, in order."""
        self.record('a', 'b', 'c')
        events.sequence()
        real = db_api.utcnow

        def die():
            raise RuntimeError('killed')
        # The UPDATE that marks the batch published reads the time.
        self.patch(events_db.api, 'utcnow', die)
        self.assertEqual(0, self.publisher.publish())
        self.patch(events_db.api, 'utcnow', real)
        self.publisher.publish()
        sent = [m for _c, m, _p, _r in _impl_test.NOTIFICATIONS]
        self.assertEqual(6, len(sent))
        unique = list({m['message_id']: m for m in sent}.values())
        self.assertEqual(['test.a', 'test.b', 'test.c'],
                         [m['event_type'] for m in unique])
        self.assertEqual(0, self.unpublished())

    def test_a_failed_send_stops_the_batch_and_keeps_the_rest(self):
        self.record('a', 'b', 'c')
        events.sequence()
        real = self.publisher.send

        def send(row):
            if row.object_uuid == 'b':
                raise RuntimeError('bus gone')
            real(row)
        self.patch(self.publisher, 'send', send)
        self.publisher.publish()
        self.assertEqual(2, self.unpublished())
        self.patch(self.publisher, 'send', real)
        self.publisher.publish()
        self.assertEqual(['test.a', 'test.b', 'test.c'],
                         [m['event_type'] for _c, m, _p, _r
                          in _impl_test.NOTIFICATIONS])


def _fixed(msg: dict) -> dict:
    """A message with its run-to-run values fixed."""
    def fix(value):
        if isinstance(value, dict):
            return {k: VOLATILE[k] if k in VOLATILE and v is not None
                    else fix(v) for k, v in value.items()}
        return value
    msg = fix(msg)
    msg['message_id'] = '9d0e7f1c-2b2e-4a65-8b0e-4b1f0c6a2d%02x' % (
        STORY.index(msg['event_type']))
    return msg


class RetentionTestCase(base.APITestCase):

    def record(self, uuid: str, count: int, age_days: float = 0):
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event('node', uuid, 'test.e')
                                 for _ in range(count)])
            if age_days:
                conn.execute(sa.update(models.Event).where(
                    models.Event.object_uuid == uuid).values(
                    created_at=db_api.utcnow()
                    - datetime.timedelta(days=age_days)))
        events.sequence()

    def publish_all(self):
        events_db.publish(10000, lambda row: None)

    def left(self, uuid: str) -> list[int]:
        return [e.seq for e in events_db.after(
            self.context, 0, {'object_uuid': uuid}, 10000)]

    def test_old_events_go_unpublished_ones_stay(self):
        self.config(retention_days=30, group='events')
        self.record('old', 3, age_days=31)
        self.record('new', 2)
        self.publish_all()
        self.record('old-unpublished', 2, age_days=40)
        old = self.left('old')
        self.assertEqual(3, events.prune())
        self.assertEqual([], self.left('old'))
        self.assertEqual(2, len(self.left('new')))
        self.assertEqual(2, len(self.left('old-unpublished')))
        self.assertEqual(max(old), events_db.cursors(self.context)[1])

    def test_beyond_the_newest_per_object_go(self):
        self.config(max_per_object=3, cleanup_batch=2, group='events')
        self.record('busy', 7)
        self.record('quiet', 2)
        self.publish_all()
        self.record('busy', 2)  # unpublished: kept, and among the newest
        seqs = self.left('busy')
        self.assertEqual(6, events.prune())
        self.assertEqual(seqs[-3:], self.left('busy'))
        self.assertEqual(2, len(self.left('quiet')))
        self.assertEqual(seqs[5], events_db.cursors(self.context)[1])
        self.assertEqual(0, events.prune())

    def test_an_object_is_counted_again_when_it_gains_events(self):
        # A pass counts the objects of at most cleanup_batch events at a
        # time: busy's new events come after 15 such windows of others.
        self.config(max_per_object=3, cleanup_batch=2, group='events')
        self.record('busy', 3)
        self.publish_all()
        self.assertEqual(0, events.prune())
        for i in range(30):
            self.record('other-%d' % i, 1)
        self.record('busy', 2)
        self.publish_all()
        seqs = self.left('busy')
        self.assertEqual(2, events.prune())
        self.assertEqual(seqs[-3:], self.left('busy'))
        self.assertEqual(0, events.prune())

    def test_events_waiting_for_the_publisher_are_counted_later(self):
        self.config(max_per_object=3, group='events')
        self.record('busy', 5)
        self.assertEqual(0, events.prune())   # none published yet
        self.publish_all()
        seqs = self.left('busy')
        self.assertEqual(2, events.prune())
        self.assertEqual(seqs[-3:], self.left('busy'))

    def test_nothing_to_delete_keeps_the_pruned_cursor(self):
        self.record('a', 2)
        self.assertEqual(0, events.prune())
        self.assertEqual(0, events_db.cursors(self.context)[1])


class NodeEventTestCase(base.APITestCase):
    """The events of node changes through the API, with the change."""

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-e')
        self.path = '/v1/nodes/%s' % self.node.uuid

    def recorded(self) -> list:
        events.sequence()
        return events_db.after(self.context, 0,
                               {'object_uuid': self.node.uuid}, 100)

    def test_traits_are_an_update(self):
        self.assertEqual(204, self.put(self.path + '/traits', {
            'traits': ['CUSTOM_B', 'CUSTOM_A']}).status_code)
        # A trait the node has already changes nothing.
        self.assertEqual(204, self.put(
            self.path + '/traits/CUSTOM_A').status_code)
        self.assertEqual(204, self.delete(
            self.path + '/traits/CUSTOM_B').status_code)
        got = self.recorded()
        self.assertEqual(['baremetal.node.update.end'] * 2,
                         [e.event_type for e in got])
        self.assertEqual([['CUSTOM_A', 'CUSTOM_B'], ['CUSTOM_A']],
                         [e.payload['ironic_object.data']['traits']
                          for e in got])

    def test_params_are_an_update(self):
        self.assertEqual(200, self.put(self.path + '/params', {
            'rack': 'r1'}).status_code)
        got = self.recorded()
        self.assertEqual(['baremetal.node.update.end'],
                         [e.event_type for e in got])
        self.assertEqual({'rack': 'r1'},
                         got[0].payload['ironic_object.data']['params'])

    def test_a_refused_change_records_nothing(self):
        self.assertEqual(200, self.patch_json(self.path, [
            {'op': 'add', 'path': '/name', 'value': 'node-f'}]).status_code)
        resp = self.patch_json('/v1/nodes/node-f', [
            {'op': 'add', 'path': '/name', 'value': 'taken'}])
        self.assertEqual(200, resp.status_code)
        other = self.create_node(name='other')
        self.assertEqual(409, self.patch_json(
            '/v1/nodes/%s' % other.uuid,
            [{'op': 'add', 'path': '/name', 'value': 'taken'}]).status_code)
        self.assertEqual(['node-f', 'taken'],
                         [e.object_name for e in self.recorded()])
        events.sequence()
        self.assertEqual([], events_db.after(
            self.context, 0, {'object_uuid': other.uuid}, 10))
