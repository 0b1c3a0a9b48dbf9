"""Events: recorded with the change that makes them, cursors in commit
order."""
import threading

import sqlalchemy as sa

from pool_conductor import allocator
from pool_conductor.allocator import AllocationWorker
from pool_conductor import binding
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import events as events_db
from pool_conductor.db import models
from pool_conductor import events
from tests.unit.api import base


def all_events(context, **filters):
    events.sequence()
    return events_db.after(context, 0, filters, 10000)


class EventRecordTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'test-host')
        self.worker = AllocationWorker('test-host', 1, batch_size=8)
        self.addCleanup(self.worker.stop)

    def test_allocation_story_is_recorded_with_the_request(self):
        node = self.create_node(name='node-0')
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal'},
                         headers={'X-Openstack-Request-Id':
                                  'req-00000000-0000-0000-0000-000000000001'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        alloc = resp.get_json()
        created = all_events(self.context, object_uuid=alloc['uuid'])
        self.assertEqual(['baremetal.allocation.create.end'],
                         [e.event_type for e in created])
        request_id = created[0].request_id
        self.assertTrue(request_id.startswith('req-'), request_id)
        # The conductor's outcome names the request that asked for it.
        self.worker.process_batch(
            [a for a, _ in self.casts],
            {a: events.Actor(request_id) for a, _ in self.casts})
        story = all_events(self.context)
        self.assertEqual(
            [('allocation', 'baremetal.allocation.create.end', None,
              'allocating'),
             ('node', 'pool.node.pool_status_set.success', 'Free', 'InUse'),
             ('allocation', 'pool.allocation.state_set.success',
              'allocating', 'active')],
            [(e.object_type, e.event_type, e.prev_state, e.state)
             for e in story if e.object_uuid in (alloc['uuid'], node.uuid)
             and e.event_type != 'baremetal.node.create.end'])
        outcome = story[-1]
        self.assertEqual(request_id, outcome.request_id)
        self.assertEqual('test-host', outcome.conductor)
        self.assertEqual(node.uuid,
                         outcome.payload['ironic_object.data']['node_uuid'])
        # Deleting it frees the node: both recorded.
        self.assertEqual(204, self.delete(
            '/v1/allocations/%s' % alloc['uuid']).status_code)
        tail = [(e.object_type, e.event_type, e.prev_state, e.state)
                for e in all_events(self.context)[len(story):]]
        self.assertEqual(
            [('node', 'pool.node.pool_status_set.success', 'InUse', 'Free'),
             ('allocation', 'baremetal.allocation.delete.end', 'active',
              None)], tail)

    def test_node_events_of_an_allocation_carry_the_whole_node(self):
        # The node's events when an allocation takes and frees it carry
        # Ironic's NodePayload as any other node event does: its driver,
        # properties and own interfaces, not defaults.
        node = self.create_node(name='node-p', deploy_interface='ramdisk',
                                properties={'cpus': 8},
                                extra={'rack': 'r1'},
                                description='spare')
        alloc = self.post('/v1/allocations',
                          {'resource_class': 'baremetal'}).get_json()
        self.worker.process_batch([a for a, _ in self.casts])
        self.assertEqual(204, self.delete(
            '/v1/allocations/%s' % alloc['uuid']).status_code)
        changes = [e for e in all_events(self.context, object_uuid=node.uuid)
                   if e.event_type.startswith('pool.node.pool_status_set')]
        self.assertEqual(['InUse', 'Free'], [e.state for e in changes])
        for event in changes:
            data = event.payload['ironic_object.data']
            self.assertEqual(
                ('fake-hardware', 'ramdisk', {'cpus': 8}, {'rack': 'r1'},
                 'spare'),
                (data.get('driver'), data.get('deploy_interface'),
                 data.get('properties'), data.get('extra'),
                 data.get('description')))
            self.assertIsNotNone(data.get('created_at'))

    def test_no_node_is_an_error_event(self):
        resp = self.post('/v1/allocations', {'resource_class': 'nothing'})
        alloc = resp.get_json()
        self.worker.process_batch([a for a, _ in self.casts])
        last = all_events(self.context, object_uuid=alloc['uuid'])[-1]
        self.assertEqual('pool.allocation.state_set.error', last.event_type)
        self.assertEqual('error', last.level)
        self.assertIn('No available nodes', last.message)

    def test_a_rolled_back_change_records_nothing(self):
        for i in range(2):
            self.create_node(name='node-%d' % i)
        for _ in range(2):
            self.post('/v1/allocations', {'resource_class': 'baremetal'})
        before = len(all_events(self.context))
        real = binding.activate

        def gone(conn, grants, host):
            real(conn, grants, host)
            return False
        self.patch(binding, 'activate', gone)
        served = allocator.allocate_batch(
            self.context, [a for a, _ in self.casts], 'test-host', 10)
        self.assertEqual(set(), served)
        self.assertEqual(before, len(all_events(self.context)))

    def test_secrets_are_masked_in_payloads(self):
        node = self.create_node(name='node-s')
        self.assertEqual(200, self.patch_json(
            '/v1/nodes/%s' % node.uuid,
            [{'op': 'add', 'path': '/instance_uuid',
              'value': '6d8c7d6e-b1b3-4a61-8f0d-3a3b8f0a1c11'},
             {'op': 'add', 'path': '/instance_info/image_url',
              'value': 'http://user:hunter22@example.com/image'}]
        ).status_code)
        last = all_events(self.context, object_uuid=node.uuid)[-1]
        self.assertNotIn('hunter22', str(last.payload))


class SequenceTestCase(base.APITestCase):

    def _insert(self, conn, name):
        events.record(conn, [events.Event('node', name, 'test.event')])

    def test_cursors_follow_commit_order(self):
        """An event inserted first but committed last gets the later
        cursor: a reader of cursors above one it has seen never misses
        it."""
        engine = db_api.get_engine()
        first = engine.connect()
        tx = first.begin()
        self._insert(first, 'a' * 36)  # the lower id, not committed yet
        if engine.dialect.name == 'sqlite':
            # SQLite has one writer at a time: commit order is id order.
            tx.commit()
            first.close()
            return self.skipTest('one writer at a time on SQLite')
        with db_api.writer_connection(self.context) as conn:
            self._insert(conn, 'b' * 36)
        events.sequence()
        seen = events_db.after(self.context, 0, {}, 100)
        self.assertEqual(['b' * 36], [e.object_uuid for e in seen])
        tx.commit()
        first.close()
        events.sequence()
        later = events_db.after(self.context, seen[-1].seq, {}, 100)
        self.assertEqual(['a' * 36], [e.object_uuid for e in later])

    def test_sequence_wakes_waiters_of_the_process(self):
        with db_api.writer_connection(self.context) as conn:
            self._insert(conn, 'c' * 36)
        last, _ = events_db.cursors(self.context)
        woke = []
        waiter = threading.Thread(target=lambda: woke.append(
            events.wait_for(last, 5)))
        waiter.start()
        events.sequence()
        waiter.join()
        self.assertEqual([True], woke)
        with db_api.reader(self.context) as session:
            self.assertEqual(0, session.scalar(sa.select(sa.func.count())
                             .select_from(models.Event)
                             .where(models.Event.seq.is_(None))))
