"""AutoFill: conductors keep pools within min_free and max_free."""
import datetime
import os
import sys
import threading

import fixtures
import sqlalchemy as sa

from pool_conductor import autofill
from pool_conductor import binding
from pool_conductor import machines
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import service
from tests import base

SCRIPT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                      'brokers', 'machines.py')


class AutoFillTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(broker_retry_interval=0, group='conductor')
        self.config(program=['machines:%s %s' % (sys.executable, SCRIPT)],
                    group='exec_broker')
        for host in ('c1', 'c2'):
            conductors_db.register_conductor(self.context, host)
        self.filler = autofill.AutoFiller('c1')
        pools_db.create(self.context, models.Broker, {
            'name': 'cloud', 'driver': 'fake',
            'parameters': {'resource_class': 'vm'}})

    def pool(self, name='web', broker='cloud', **fill):
        fill.setdefault('use_autofill', True)
        return pools_db.create(self.context, models.Pool, {
            'name': name, 'broker': broker, 'autofill': fill})

    def set_pool(self, name='web', **values):
        pools_db.update(self.context, models.Pool, name, values)

    def set_broker(self, **parameters):
        pools_db.update(self.context, models.Broker, 'cloud',
                        {'parameters': parameters})

    def members(self, pool='web'):
        with db_api.reader(self.context) as session:
            return list(session.scalars(
                sa.select(models.Node).where(models.Node.pool == pool)
                .order_by(models.Node.id)))

    def statuses(self, pool='web'):
        return sorted(n.pool_status for n in self.members(pool))

    def kill(self, host):
        """Make a conductor's last heartbeat older than the timeout."""
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == host).values(
                updated_at=db_api.utcnow() - datetime.timedelta(hours=1)))


class TestFill(AutoFillTestCase):

    def test_broker_fills_to_min_free_once(self):
        self.pool(min_free=3)
        done = self.filler.check(self.context)['web']
        self.assertEqual((3, 3), (done.requested, done.created))
        nodes = self.members()
        self.assertEqual(['Free'] * 3, [n.pool_status for n in nodes])
        for node in nodes:
            self.assertEqual('cloud', node.broker)
            self.assertEqual(node.broker_token, node.broker_ref)
            self.assertEqual('fake-' + node.broker_token, node.name)
            self.assertEqual(('available', 'power off', 'vm', None),
                             (node.provision_state, node.power_state,
                              node.resource_class, node.reservation))
        self.assertEqual(3, len({n.broker_token for n in nodes}))
        # Filled: another round makes nothing.
        done = self.filler.check(self.context)['web']
        self.assertEqual(0, done.requested)
        self.assertEqual(3, len(self.members()))

    def test_disabled_or_no_autofill_does_nothing(self):
        self.pool(min_free=3, use_autofill=False)
        pools_db.create(self.context, models.Pool, {'name': 'plain'})
        self.assertEqual({}, self.filler.check(self.context))
        self.assertEqual([], self.members())

    def test_acquire_pool_first_with_its_actions(self):
        pools_db.create(self.context, models.Profile, {'name': 'web-prof'})
        pools_db.create(self.context, models.Pool, {
            'name': 'spare', 'exit_actions': {'add_parameters': {'x': 1}}})
        for _ in range(2):
            self.create_node(pool='spare')
        self.pool(min_free=3, acquire_pool='spare')
        self.set_pool(enter_actions={'add_profiles': ['web-prof']})
        done = self.filler.check(self.context)['web']
        self.assertEqual((2, 1, 1), (done.acquired, done.requested,
                                     done.created))
        nodes = self.members()
        self.assertEqual(['Free'] * 3, [n.pool_status for n in nodes])
        self.assertEqual([None, None, 'cloud'], [n.broker for n in nodes])
        for node in nodes:
            self.assertEqual(['web-prof'], node.profiles)
        self.assertEqual({'x': 1}, nodes[0].params)
        self.assertEqual([], self.members('spare'))

    def test_joining_members_count(self):
        pools_db.create(self.context, models.Workflow,
                        {'name': 'burn-in', 'stages': ['a', 'ready']})
        self.pool(min_free=2)
        self.set_pool(enter_actions={'workflow': 'burn-in',
                                     'wait_for_stage': 'ready'})
        self.filler.check(self.context)
        self.assertEqual(['Joining', 'Joining'], self.statuses())
        self.filler.check(self.context)
        self.assertEqual(2, len(self.members()))

    def test_max_unready_limits_machines_in_flight(self):
        self.set_broker(fail=1)
        self.pool(min_free=5, max_unready=2)
        done = self.filler.check(self.context)['web']
        self.assertEqual((2, 2, 0), (done.requested, done.failed,
                                     done.created))
        self.assertEqual(['Creating'] * 2, self.statuses())
        nodes = self.members()
        self.assertIn('Broker cloud failed', nodes[0].last_error)
        self.assertIn('Broker cloud failed', pools_db.get(
            self.context, models.Pool, 'web').last_error)
        # Still failing: the same two are asked for again, no more.
        self.filler.check(self.context)
        self.assertEqual(['Creating'] * 2, self.statuses())
        tokens = {n.broker_token for n in nodes}
        self.set_broker()
        for _ in range(3):
            self.filler.check(self.context)
        nodes = self.members()
        self.assertEqual(['Free'] * 5, [n.pool_status for n in nodes])
        # The failed requests were made with their first token.
        self.assertEqual(tokens, {n.broker_token for n in nodes[:2]})
        self.assertIsNone(pools_db.get(self.context, models.Pool,
                                       'web').last_error)

    def test_a_retry_asks_with_the_pools_create_parameters(self):
        self.set_broker(fail=1)
        self.pool(min_free=1, create_parameters={'resource_class': 'big'})
        self.filler.check(self.context)
        self.set_broker(resource_class='vm')
        # This round asks for nothing new, only again.
        done = self.filler.check(self.context)['web']
        self.assertEqual((0, 1), (done.requested, done.created))
        self.assertEqual('big', self.members()[0].resource_class)

    def test_a_request_recorded_on_the_node_is_asked_as_recorded(self):
        # A claim's request, that no conductor holds.
        self.pool(min_free=1, create_parameters={'resource_class': 'big'})
        with db_api.writer_connection(self.context) as conn:
            binding.begin_creation(conn, 'web', 'cloud', None, 1, 'small',
                                   request={'resource_class': 'small'})
        done = self.filler.check(self.context)['web']
        self.assertEqual((0, 1), (done.requested, done.created))
        self.assertEqual(['small'],
                         [n.resource_class for n in self.members()])

    def test_failed_creation_waits_its_back_off(self):
        self.config(broker_retry_interval=3600, group='conductor')
        self.set_broker(fail=1)
        self.pool(min_free=1)
        self.filler.check(self.context)
        self.set_broker()
        self.filler.check(self.context)
        self.assertEqual(['Creating'], self.statuses())
        # Another conductor (no back-off of its own) resumes it.
        self.kill('c1')
        autofill.AutoFiller('c2').check(self.context)
        self.assertEqual(['Free'], self.statuses())


class TestDrain(AutoFillTestCase):

    def test_excess_goes_to_the_return_pool(self):
        pools_db.create(self.context, models.Pool, {
            'name': 'spare', 'enter_actions': {'add_parameters': {'y': 2}}})
        self.pool(broker=None, max_free=1, return_pool='spare')
        for _ in range(3):
            self.create_node(pool='web')
        done = self.filler.check(self.context)['web']
        self.assertEqual(2, done.returned)
        self.assertEqual(['Free'], self.statuses())
        self.assertEqual([{'y': 2}] * 2,
                         [n.params for n in self.members('spare')])

    def test_excess_broker_machines_are_destroyed(self):
        state = self.useFixture(fixtures.TempDir()).path
        pools_db.update(self.context, models.Broker, 'cloud', {
            'driver': 'exec',
            'parameters': {'program': 'machines', 'state_dir': state}})
        self.pool(min_free=3)
        self.filler.check(self.context)
        self.assertEqual(3, len(os.listdir(state)))
        # A node of another origin is not destroyed.
        self.create_node(pool='web')
        self.set_pool(autofill={'use_autofill': True, 'min_free': 0,
                                'max_free': 2})
        done = self.filler.check(self.context)['web']
        self.assertEqual(2, done.destroyed)
        nodes = self.members()
        self.assertEqual(2, len(nodes))
        self.assertEqual(1, len(os.listdir(state)))
        self.assertEqual({None, 'cloud'}, {n.broker for n in nodes})

    def test_failed_destroy_keeps_the_node(self):
        self.pool(min_free=2)
        self.filler.check(self.context)
        self.set_broker(fail=1)
        self.set_pool(autofill={'use_autofill': True, 'max_free': 0})
        done = self.filler.check(self.context)['web']
        self.assertEqual((0, 2), (done.destroyed, done.failed))
        nodes = self.members()
        self.assertEqual(['Free'] * 2, [n.pool_status for n in nodes])
        self.assertEqual([None] * 2, [n.reservation for n in nodes])
        self.assertIn('Broker cloud failed', nodes[0].last_error)


class TestConductors(AutoFillTestCase):

    def test_one_conductor_fills_a_pool(self):
        self.pool(min_free=1)
        self.filler.check(self.context)
        self.assertEqual({}, autofill.AutoFiller('c2').check(self.context))
        self.assertEqual('c1', pools_db.get(
            self.context, models.Pool, 'web').autofill_conductor)

    def test_takeover_resumes_creation_with_the_same_token(self):
        state = self.useFixture(fixtures.TempDir()).path
        pools_db.update(self.context, models.Broker, 'cloud', {
            'driver': 'exec',
            'parameters': {'program': 'machines', 'state_dir': state}})
        self.pool(min_free=2)
        # c1 records the requests and asks the broker, then dies before it
        # records the machines.
        self.filler.check(self.context)
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).values(
                pool_status='Creating', reservation='c1', name=None,
                broker_ref=None))
        tokens = {n.broker_token for n in self.members()}
        self.kill('c1')
        done = autofill.AutoFiller('c2').check(self.context)['web']
        self.assertEqual((0, 2), (done.requested, done.created))
        nodes = self.members()
        self.assertEqual(['Free'] * 2, [n.pool_status for n in nodes])
        self.assertEqual(tokens, {n.broker_token for n in nodes})
        self.assertEqual({'vm-' + t for t in tokens},
                         {n.broker_ref for n in nodes})
        # Nothing lost, nothing made twice.
        self.assertEqual(2, len(os.listdir(state)))
        self.assertEqual('c2', pools_db.get(
            self.context, models.Pool, 'web').autofill_conductor)

    def test_a_live_conductor_keeps_its_creations(self):
        self.pool(min_free=1)
        with db_api.writer_connection(self.context) as conn:
            binding.begin_creation(conn, 'web', 'cloud', 'c2', 1)
        self.filler.check(self.context)
        self.assertEqual(['Creating'], self.statuses())

    def test_errors_are_recorded_not_raised(self):
        self.pool(broker=None, max_free=0, return_pool='gone')
        self.create_node(pool='web')
        self.assertEqual({}, self.filler.check(self.context))
        self.assertIn('Pool gone could not be found', pools_db.get(
            self.context, models.Pool, 'web').last_error)


class TestService(AutoFillTestCase):

    def test_periodic_task_fills_and_never_raises(self):
        svc = service.ConductorService('c1')
        self.pool(min_free=2)
        svc.check_autofill()
        self.assertEqual(['Free'] * 2, self.statuses())
        self.patch(autofill.autofill_db, 'list_pools',
                   lambda _ctx: 1 / 0)
        svc.check_autofill()


class TestDeleteUnhealthy(AutoFillTestCase):

    def test_failed_creation_is_replaced(self):
        self.set_broker(fail=1)
        self.pool(min_free=2, delete_unhealthy=True)
        done = self.filler.check(self.context)['web']
        self.assertEqual((2, 2, 0), (done.failed, done.abandoned,
                                     len(self.members())))
        self.assertIn('Broker cloud failed', pools_db.get(
            self.context, models.Pool, 'web').last_error)
        self.set_broker()
        done = self.filler.check(self.context)['web']
        self.assertEqual((2, 2), (done.requested, done.created))
        self.assertEqual(['Free'] * 2, self.statuses())

    def test_without_it_the_request_is_kept(self):
        self.set_broker(fail=1)
        self.pool(min_free=2)
        done = self.filler.check(self.context)['web']
        self.assertEqual((2, 0), (done.failed, done.abandoned))
        self.assertEqual(['Creating'] * 2, self.statuses())


class TestUnclaimed(AutoFillTestCase):

    def age(self, hours, **where):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).filter_by(**where).values(
                created_at=db_api.utcnow() - datetime.timedelta(
                    hours=hours)))

    def test_old_free_machines_are_destroyed_and_replaced(self):
        self.pool(min_free=3)
        self.set_pool(lifespan={'unclaimed': '1h'})
        self.filler.check(self.context)
        first = [n.id for n in self.members()]
        self.age(2, id=first[0])
        self.age(2, id=first[1])
        # One of the old ones is in use: it stays.
        self.set_node(first[1], pool_status='InUse', pool_allocated=True)
        # The round replaces the node in use, and destroys the old Free
        # one.
        done = self.filler.check(self.context)['web']
        self.assertEqual((1, 1, 1), (done.created, done.expired,
                                     done.destroyed))
        self.assertNotIn(first[0], [n.id for n in self.members()])
        # The next round replaces the destroyed one.
        done = self.filler.check(self.context)['web']
        self.assertEqual((1, 0), (done.created, done.destroyed))
        self.assertEqual(['Free'] * 3 + ['InUse'], self.statuses())

    def test_young_machines_stay(self):
        self.pool(min_free=2)
        self.set_pool(lifespan={'unclaimed': '1h'})
        self.filler.check(self.context)
        done = self.filler.check(self.context)['web']
        self.assertEqual((0, 0), (done.expired, done.destroyed))

    def set_node(self, node_id, **values):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).where(
                models.Node.id == node_id).values(**values))


class _MeetingBroker:
    """A broker whose calls return only once three are under way."""

    def __init__(self):
        self.meeting = threading.Barrier(3, timeout=10)

    def create(self, token, parameters):
        self.meeting.wait()
        return {'ref': token}

    def destroy(self, ref, parameters):
        self.meeting.wait()


class TestParallelCalls(AutoFillTestCase):

    def test_broker_calls_run_at_once(self):
        self.config(broker_workers=3, group='conductor')
        meeting = _MeetingBroker()
        self.patch(machines.brokers, 'get_driver', lambda name: meeting)
        self.pool(min_free=3)
        done = self.filler.check(self.context)['web']
        # One at a time, the first call would wait for the others in vain.
        self.assertEqual((3, 0), (done.created, done.failed))
        self.set_pool(autofill={'use_autofill': True, 'max_free': 0})
        done = self.filler.check(self.context)['web']
        self.assertEqual((3, 0), (done.destroyed, done.failed))
