"""Conductor start, allocation processing over RPC, heartbeat, takeover."""
import datetime
import time

import sqlalchemy as sa

from pool_conductor.booking import windows
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import rpc
from pool_conductor import rpcapi
from pool_conductor import service
from tests import base


def _wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


class ServiceTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(check_allocations_interval=1, heartbeat_interval=1,
                    heartbeat_timeout=3, group='conductor')
        self.addCleanup(rpc.cleanup)

    def start(self, host='test-host'):
        svc = service.ConductorService(host)
        svc.start()
        self.addCleanup(svc.stop)
        return svc

    def new_allocation(self, host='test-host', **values):
        values.setdefault('resource_class', 'baremetal')
        return allocations_db.create_allocation(
            self.context, dict(values, state='allocating',
                               conductor_affinity=host))

    def state_of(self, alloc):
        return allocations_db.get_allocation(self.context, alloc.uuid).state

    def age_conductor(self, host, seconds=60):
        with db_api.writer(self.context) as session:
            session.execute(
                sa.update(models.Conductor)
                .where(models.Conductor.hostname == host)
                .values(updated_at=db_api.utcnow()
                        - datetime.timedelta(seconds=seconds)))

    def test_allocation_cast_over_rpc_becomes_active(self):
        node = self.create_node(traits=['CUSTOM_GPU'])
        self.start()
        api = rpcapi.ConductorAPI()
        host = api.pick_conductor(self.context)
        self.assertEqual('test-host', host)
        alloc = self.new_allocation(host, traits=['CUSTOM_GPU'])
        api.create_allocation(self.context, alloc.id, host)
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))
        node = nodes_db.get_node(self.context, node.uuid)
        self.assertEqual(alloc.uuid, node.instance_uuid)
        self.assertEqual(alloc.uuid, node.allocation_uuid)
        self.assertEqual(['CUSTOM_GPU'], node.instance_info['traits'])

    def test_node_cast_in_progress_is_moved_on_over_rpc(self):
        node = self.create_node(provision_state='deploying',
                                target_provision_state='active')
        self.start()
        api = rpcapi.ConductorAPI()
        api.continue_provisioning(self.context, node.id,
                                  api.pick_conductor(self.context))
        self.assertTrue(_wait_for(lambda: nodes_db.get_node(
            self.context, node.uuid).provision_state == 'active'))
        self.assertIsNone(nodes_db.get_node(
            self.context, node.uuid).target_provision_state)

    def test_node_left_in_progress_moved_on_by_the_periodic_check(self):
        self.config(check_provisioning_interval=0.2, group='conductor')
        node = self.create_node(provision_state='deleting',
                                target_provision_state='available',
                                instance_info={'image_source': 'x'})
        self.start()
        self.assertTrue(_wait_for(lambda: nodes_db.get_node(
            self.context, node.uuid).provision_state == 'available'))
        self.assertEqual({}, nodes_db.get_node(self.context,
                                               node.uuid).instance_info)

    def test_expired_allocation_released_on_the_lifespan_interval(self):
        self.config(check_lifespans_interval=0.2, group='conductor')
        node = self.create_node()
        conductors_db.register_conductor(self.context, 'dead-host')
        self.age_conductor('dead-host')
        # Of a dead conductor; it ends once active.
        alloc = self.new_allocation('dead-host')
        self.start()
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))
        self.assertEqual(alloc.uuid, nodes_db.get_node(
            self.context, node.uuid).allocation_uuid)
        with db_api.writer(self.context) as session:
            session.execute(
                sa.update(models.Allocation)
                .where(models.Allocation.id == alloc.id)
                .values(conductor_affinity='dead-host',
                        lifespan_end=db_api.utcnow()))
        self.assertTrue(_wait_for(lambda: nodes_db.get_node(
            self.context, node.uuid).allocation_id is None))
        self.assertRaises(exception.AllocationNotFound,
                          allocations_db.get_allocation, self.context,
                          alloc.uuid)
        self.assertIsNone(nodes_db.get_node(self.context,
                                            node.uuid).instance_uuid)

    def test_allocations_cast_together_all_become_active(self):
        for _ in range(12):
            self.create_node()
        self.config(allocation_cast_interval=1.0, group='api')
        self.start()
        api = rpcapi.ConductorAPI()
        sent = []
        real_cast = api._cast
        self.patch(api, '_cast', lambda host, method, items: (
            sent.append([i for i, _ in items]),
            real_cast(host, method, items)))
        allocs = []
        for _ in range(12):
            host = api.pick_conductor(self.context)
            alloc = self.new_allocation(host)
            api.create_allocation(self.context, alloc.id, host)
            allocs.append(alloc)
            # The sender thread casts the first one before the next is
            # made, however busy the machine is.
            self.assertTrue(_wait_for(lambda: sent))
        self.assertTrue(_wait_for(lambda: all(
            self.state_of(a) == 'active' for a in allocs)))
        # The first at once, the others together in the next message.
        self.assertEqual([[allocs[0].id], [a.id for a in allocs[1:]]],
                         sent)

    def test_picked_conductor_changes_with_the_cast_interval(self):
        self.start('host-a')
        self.start('host-b')
        api = rpcapi.ConductorAPI()
        self.config(allocation_cast_interval=60, group='api')
        self.assertEqual(1, len({api.pick_conductor(self.context)
                                 for _ in range(20)}))
        self.config(allocation_cast_interval=0, group='api')
        self.assertEqual({'host-a', 'host-b'},
                         {api.pick_conductor(self.context)
                          for _ in range(50)})

    def test_start_resumes_own_allocations(self):
        self.create_node()
        alloc = self.new_allocation()
        self.start()
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))

    def sequenced(self, alloc) -> list:
        """The cursors of the allocation's events (None: not yet
        given)."""
        with db_api.reader(self.context) as session:
            return session.execute(sa.select(models.Event.seq).where(
                models.Event.object_uuid == alloc.uuid)).scalars().all()

    def test_outcome_of_an_allocation_is_sequenced_at_once(self):
        # Watchers see an outcome once its event has a cursor: the
        # conductor gives it one after its batch, not an interval later.
        self.config(sequence_interval=60, group='events')
        self.create_node()
        svc = self.start()
        alloc = self.new_allocation()
        svc.worker.submit(alloc.id)
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))
        self.assertTrue(_wait_for(lambda: self.sequenced(alloc) != []
                                  and None not in self.sequenced(alloc),
                                  timeout=5), self.sequenced(alloc))

    def test_events_are_sequenced_every_interval(self):
        self.config(sequence_interval=0.1, group='events')
        self.start()
        # Recorded by another process: no batch of this conductor tells.
        alloc = self.new_allocation('another-host')
        with db_api.writer_connection(self.context) as conn:
            events.record(conn, [events.Event(
                'allocation', alloc.uuid, 'test.event')])
        self.assertTrue(_wait_for(lambda: self.sequenced(alloc) != []
                                  and None not in self.sequenced(alloc),
                                  timeout=5))

    def test_stop_ends_the_sequencer(self):
        svc = service.ConductorService('test-host')
        svc.start()
        svc.stop()
        self.assertFalse(svc.sequencer._thread.is_alive())

    def test_start_releases_own_stale_node_locks(self):
        node = self.create_node(reservation='test-host')
        self.start()
        self.assertIsNone(
            nodes_db.get_node(self.context, node.uuid).reservation)

    def test_heartbeat_keeps_conductor_alive(self):
        svc = self.start()
        self.age_conductor('test-host')
        self.assertEqual([], conductors_db.list_alive_hostnames(
            self.context, 3))
        svc.heartbeat()
        self.assertEqual(['test-host'], conductors_db.list_alive_hostnames(
            self.context, 3))

    def test_stop_marks_conductor_offline(self):
        svc = service.ConductorService('test-host')
        svc.start()
        svc.stop()
        self.assertEqual([], conductors_db.list_alive_hostnames(
            self.context, 3))

    def test_orphaned_allocation_taken_over(self):
        self.create_node()
        conductors_db.register_conductor(self.context, 'dead-host')
        self.age_conductor('dead-host')
        alloc = self.new_allocation('dead-host')
        locked = self.create_node(reservation='dead-host')
        svc = self.start()
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))
        self.assertEqual(
            'test-host',
            allocations_db.get_allocation(self.context,
                                          alloc.uuid).conductor_affinity)
        # The locks of the dead conductor go after its allocations.
        self.assertTrue(_wait_for(lambda: nodes_db.get_node(
            self.context, locked.uuid).reservation is None))
        self.assertEqual(0, svc.take_over_orphans())

    def test_live_conductors_allocations_not_taken(self):
        conductors_db.register_conductor(self.context, 'other-host')
        alloc = self.new_allocation('other-host')
        svc = self.start()
        self.assertEqual(0, svc.take_over_orphans())
        self.assertEqual(
            'other-host',
            allocations_db.get_allocation(self.context,
                                          alloc.uuid).conductor_affinity)

    def test_no_takeover_while_own_heartbeat_is_stale(self):
        conductors_db.register_conductor(self.context, 'dead-host')
        self.age_conductor('dead-host')
        self.new_allocation('dead-host')
        self.config(check_allocations_interval=0, group='conductor')
        svc = self.start()
        self.age_conductor('test-host')
        self.assertEqual(0, svc.take_over_orphans())

    def test_takeover_is_exclusive(self):
        conductors_db.register_conductor(self.context, 'dead-host')
        alloc = self.new_allocation('dead-host')
        self.assertTrue(allocations_db.take_over(self.context, alloc.id,
                                                 'dead-host', 'a'))
        self.assertFalse(allocations_db.take_over(self.context, alloc.id,
                                                  'dead-host', 'b'))

    def test_pick_conductor_without_live_conductor(self):
        from pool_conductor import exception
        api = rpcapi.ConductorAPI()
        self.assertRaises(exception.NoValidHost, api.pick_conductor,
                          self.context)


class PeriodicTableTestCase(base.TestCase):
    """The periodic tasks a conductor starts: one per row of the table,
    each every its option's interval, and none for an interval of 0."""

    def started(self) -> dict[str, float]:
        found = {}

        class Worker:
            def __init__(self, tasks, executor_factory):
                pass

            def start(self):
                pass

        self.patch(service, '_periodic', lambda method, spacing: found.
                   setdefault(method.__name__, spacing))
        self.patch(service.periodics, 'PeriodicWorker', Worker)
        service.ConductorService('test-host')._start_periodics()
        return found

    def test_every_row_names_a_method_and_an_option(self):
        for task in service.PERIODICS:
            self.assertTrue(callable(getattr(service.ConductorService,
                                             task.method)), task)
            self.assertIsInstance(getattr(getattr(service.CONF, task.group),
                                          task.option), (int, float), task)

    def test_an_interval_of_zero_turns_a_task_off(self):
        self.config(check_claims_interval=0.5, group='conductor')
        self.config(check_interval=0, group='windows')
        self.config(sync_interval=60, group='external_manager')
        found = self.started()
        self.assertEqual(0.5, found['check_claims'])
        self.assertNotIn('check_windows', found)
        # The reconciler looks every 10 s at most.
        self.assertEqual(10, found['check_external'])
        self.assertEqual({t.method for t in service.PERIODICS}
                         - {'check_windows'}, set(found))


class WindowStartTestCase(base.TestCase):
    """A running conductor starts a window when its slot begins; one that
    died after claiming the start is taken over by a peer."""

    start = ServiceTestCase.start
    state_of = ServiceTestCase.state_of
    age_conductor = ServiceTestCase.age_conductor

    def setUp(self):
        super().setUp()
        self.config(check_allocations_interval=1, heartbeat_interval=1,
                    heartbeat_timeout=3, group='conductor')
        self.config(check_interval=0.1, pre_margin=0, group='windows')
        self.addCleanup(rpc.cleanup)

    def book(self, seconds):
        start = db_api.utcnow() + datetime.timedelta(seconds=seconds)
        return windows.book(self.context, {'resource_class': 'baremetal'},
                            None, start, start + datetime.timedelta(hours=1))

    def test_window_starts_on_its_node(self):
        node = self.create_node()
        alloc = self.book(1.5)
        self.assertEqual('scheduled', alloc.state)
        self.start()
        self.assertEqual('scheduled', self.state_of(alloc))
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))
        self.assertEqual(alloc.uuid, nodes_db.get_node(
            self.context, node.uuid).allocation_uuid)

    def test_start_of_a_dead_conductor_taken_over(self):
        self.create_node()
        alloc = self.book(0)
        conductors_db.register_conductor(self.context, 'dead-host')
        # dead-host claims the start, then dies before giving the node.
        self.assertEqual(1, windows.start_due(self.context, 'dead-host',
                                              lambda alloc_id: None))
        self.assertEqual('allocating', self.state_of(alloc))
        self.age_conductor('dead-host')
        self.start()
        self.assertTrue(_wait_for(lambda: self.state_of(alloc) == 'active'))
        self.assertEqual('test-host', allocations_db.get_allocation(
            self.context, alloc.uuid).conductor_affinity)

