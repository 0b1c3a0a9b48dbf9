"""Lifespans: the arithmetic of a pool's policy, the API of lifespan_end,
and conductors releasing allocations whose lifespan has ended."""
import datetime

import sqlalchemy as sa

from pool_conductor.baremetal import provisioning
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import expiry
from pool_conductor import lifespans
from tests import base
from tests.unit.api import base as api_base

T0 = datetime.datetime(2026, 11, 24, 12, 0, 0)
HOUR = datetime.timedelta(hours=1)


def _parse(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=None)


class ArithmeticTestCase(base.TestCase):
    """The seed's rules: default, maximum (from creation), relative
    maximum (from now), the earlier of both, requests within them."""

    def end(self, policy, created=T0, now=T0, requested=None):
        return lifespans.end(policy, created, now, requested)

    def test_durations(self):
        self.assertEqual(datetime.timedelta(days=1, hours=12),
                         lifespans.duration('1d12h'))
        self.assertEqual(datetime.timedelta(weeks=2, seconds=30),
                         lifespans.duration('2w30s'))
        for bad in ('', '4', 'h', '4 h', '-4h', '4H', '0s', '36501d',
                    '9999999w', 4):
            self.assertRaises(exception.InvalidParameterValue,
                              lifespans.duration, bad)

    def test_no_policy_no_end(self):
        self.assertIsNone(self.end(None))
        self.assertIsNone(self.end({}))
        self.assertEqual(T0 + 100 * HOUR,
                         self.end({}, requested=T0 + 100 * HOUR))

    def test_default(self):
        self.assertEqual(T0 + 4 * HOUR, self.end({'default': '4h'}))

    def test_maximum_counts_from_creation_and_caps_the_default(self):
        policy = {'default': '4h', 'maximum': '2h'}
        self.assertEqual(T0 + 2 * HOUR, self.end(policy))
        # An hour later the default would reach 5 h after creation.
        self.assertEqual(T0 + 2 * HOUR, self.end(policy, now=T0 + HOUR))
        # Without a default the allocation ends at its maximum.
        self.assertEqual(T0 + 2 * HOUR, self.end({'maximum': '2h'}))

    def test_relative_maximum_counts_from_now(self):
        policy = {'relative_maximum': '3h'}
        self.assertEqual(T0 + 3 * HOUR, self.end(policy))
        self.assertEqual(T0 + 13 * HOUR,
                         self.end(policy, now=T0 + 10 * HOUR,
                                  requested=T0 + 13 * HOUR))

    def test_with_both_maximums_the_earlier_holds(self):
        policy = {'maximum': '1d', 'relative_maximum': '3h'}
        self.assertEqual(T0 + 3 * HOUR, self.end(policy))
        late = T0 + 22 * HOUR
        self.assertEqual(T0 + 24 * HOUR, self.end(policy, now=late))
        self.assertEqual(datetime.datetime(2026, 11, 25, 12, 0),
                         lifespans.latest_end(policy, T0, late))

    def test_request_beyond_the_limit_names_the_latest_end(self):
        policy = {'maximum': '1d', 'relative_maximum': '3h'}
        error = self.assertRaises(
            exception.InvalidParameterValue, self.end, policy,
            requested=T0 + 4 * HOUR)
        self.assertIn('the latest end allowed is 2026-11-24T15:00:00+00:00',
                      str(error))
        self.assertEqual(T0 + 3 * HOUR,
                         self.end(policy, requested=T0 + 3 * HOUR))

    def test_request_in_the_past_refused(self):
        self.assertRaises(exception.InvalidParameterValue, self.end, {},
                          requested=T0)


class LifespanAPITestCase(api_base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.enroll(name='node-0')

    def create_pool(self, lifespan, name='short', **fields):
        resp = self.post('/v1/pools', {'name': name, 'lifespan': lifespan,
                                       **fields})
        self.assertEqual(201, resp.status_code, resp.get_data())
        return resp.get_json()

    def join(self, pool, node=None):
        resp = self.post('/v1/pools/%s/addMachines' % pool,
                         {'machine_list': [(node or self.node)['uuid']]})
        self.assertEqual(200, resp.status_code, resp.get_data())

    def allocate(self, **body):
        body.setdefault('resource_class', 'baremetal')
        return self.post('/v1/allocations', body)

    def test_pool_lifespan_shown_and_validated(self):
        pool = self.create_pool({'default': '4h', 'maximum': '7d'})
        self.assertEqual({'default': '4h', 'maximum': '7d'},
                         pool['lifespan'])
        self.assertEqual({}, self.get('/v1/pools/default').get_json()[
            'lifespan'])
        self.assertError(400, self.post('/v1/pools', {
            'name': 'bad', 'lifespan': {'default': 'four hours'}}),
            'lifespan')
        self.assertError(400, self.post('/v1/pools', {
            'name': 'bad', 'lifespan': {'maximum': '40000d'}}),
            'lifespan.maximum')
        self.assertError(400, self.post('/v1/pools', {
            'name': 'bad', 'lifespan': {'forever': '1d'}}))
        resp = self.patch_json('/v1/pools/short', [
            {'op': 'replace', 'path': '/lifespan/default', 'value': '1h'}])
        self.assertEqual({'default': '1h', 'maximum': '7d'},
                         resp.get_json()['lifespan'])
        self.assertError(400, self.patch_json('/v1/pools/short', [
            {'op': 'add', 'path': '/lifespan/relative_maximum',
             'value': '0s'}]), 'lifespan.relative_maximum')

    def test_allocation_without_policy_has_no_end(self):
        resp = self.allocate()
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertIsNone(resp.get_json()['lifespan_end'])
        # Shown at every version that has allocations.
        alloc = self.get('/v1/allocations/%s' % resp.get_json()['uuid'],
                         version='1.52').get_json()
        self.assertIn('lifespan_end', alloc)

    def test_allocation_gets_the_pool_default(self):
        self.create_pool({'default': '4h', 'maximum': '1d'})
        before = db_api.utcnow()
        resp = self.allocate(pool='short')
        self.assertEqual(201, resp.status_code, resp.get_data())
        end = _parse(resp.get_json()['lifespan_end'])
        self.assertTrue(before + 4 * HOUR <= end
                        <= db_api.utcnow() + 4 * HOUR, end)
        # What the 201 shows is what was stored.
        self.assertEqual(resp.get_json()['lifespan_end'], self.get(
            '/v1/allocations/%s' % resp.get_json()['uuid']).get_json()[
            'lifespan_end'])

    def test_requested_end_within_and_beyond_the_maximum(self):
        self.create_pool({'maximum': '1d'})
        wanted = (db_api.utcnow() + 20 * HOUR).replace(microsecond=0)
        resp = self.allocate(pool='short',
                             lifespan_end=wanted.isoformat() + 'Z')
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual(wanted, _parse(resp.get_json()['lifespan_end']))
        # An offset is honoured: 23:00+02:00 is 21:00 UTC.
        local = (wanted + HOUR).replace(
            tzinfo=datetime.timezone(datetime.timedelta(hours=2))) + \
            2 * HOUR
        resp = self.allocate(pool='short', lifespan_end=local.isoformat())
        self.assertEqual(wanted + HOUR,
                         _parse(resp.get_json()['lifespan_end']))
        text = self.assertError(400, self.allocate(
            pool='short', lifespan_end=(wanted + 5 * HOUR).isoformat()),
            'latest end allowed is')
        self.assertIn(str(wanted.year), text)
        self.assertError(400, self.allocate(
            pool='short', lifespan_end='tomorrow'), 'ISO 8601')
        self.assertError(400, self.allocate(
            pool='short', lifespan_end='2020-01-01T00:00:00'),
            'not in the future')
        self.assertError(400, self.allocate(
            pool='short', lifespan_end='9999-12-31T23:59:59-23:59'),
            'lifespan_end')
        # Nothing was stored by the refused requests.
        self.assertEqual(2, len(self.get('/v1/allocations').get_json()[
            'allocations']))

    def test_patch_extends_within_the_limits(self):
        self.create_pool({'default': '1h', 'maximum': '1d',
                          'relative_maximum': '6h'})
        alloc = self.allocate(pool='short').get_json()
        path = '/v1/allocations/%s' % alloc['uuid']
        wanted = (db_api.utcnow() + 5 * HOUR).replace(microsecond=0)
        resp = self.patch_json(path, [{'op': 'replace',
                                       'path': '/lifespan_end',
                                       'value': wanted.isoformat()}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(wanted, _parse(resp.get_json()['lifespan_end']))
        self.assertError(400, self.patch_json(path, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': (wanted + 2 * HOUR).isoformat()}]),
            'latest end allowed is')
        self.assertError(400, self.patch_json(path, [
            {'op': 'remove', 'path': '/lifespan_end'}]),
            'cannot be removed')
        self.assertEqual(wanted, _parse(self.get(path).get_json()[
            'lifespan_end']))

    def test_patch_may_remove_an_end_nothing_limits(self):
        self.create_pool({'default': '1h'})
        alloc = self.allocate(pool='short').get_json()
        resp = self.patch_json('/v1/allocations/%s' % alloc['uuid'], [
            {'op': 'remove', 'path': '/lifespan_end'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIsNone(resp.get_json()['lifespan_end'])

    def test_allocate_machines_gets_the_pool_lifespan(self):
        self.create_pool({'default': '2h', 'maximum': '3h'})
        self.join('short')
        resp = self.post('/v1/pools/short/allocateMachines', {'count': 1})
        self.assertEqual(200, resp.status_code, resp.get_data())
        alloc = self.get('/v1/nodes/node-0/allocation').get_json()
        end = _parse(alloc['lifespan_end'])
        self.assertTrue(end - db_api.utcnow() <= 2 * HOUR, end)
        self.assertError(400, self.post(
            '/v1/pools/short/allocateMachines',
            {'count': 1, 'lifespan_end': (
                db_api.utcnow() + 4 * HOUR).isoformat()}),
            'latest end allowed is')


class ExpiryTestCase(api_base.APITestCase):
    """A conductor releases expired allocations: its own, those of no
    conductor and those of dead conductors, not those of live others."""

    def setUp(self):
        super().setUp()
        self.config(heartbeat_timeout=60, group='conductor')
        for host in ('test-host', 'other-host'):
            conductors_db.register_conductor(self.context, host)
        self.node = self.enroll(name='node-0')
        resp = self.post('/v1/profiles', {'name': 'leased'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/pools', {
            'name': 'leases', 'lifespan': {'default': '1h'},
            'allocate_actions': {'add_profiles': ['leased']},
            'release_actions': {'remove_profiles': ['leased']}})
        self.assertEqual(201, resp.status_code, resp.get_data())
        resp = self.post('/v1/pools/leases/addMachines',
                         {'machine_list': ['node-0']})
        self.assertEqual(200, resp.status_code, resp.get_data())
        resp = self.post('/v1/pools/leases/allocateMachines', {'count': 1})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.alloc = self.get('/v1/nodes/node-0/allocation').get_json()

    def set_allocation(self, **values):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.uuid == self.alloc['uuid']).values(
                **values))

    def expire_now(self, host='test-host'):
        self.set_allocation(lifespan_end=db_api.utcnow()
                            - datetime.timedelta(seconds=1))
        return expiry.expire(self.context, host)

    def assertReleased(self):
        self.assertError(404, self.get('/v1/allocations/%s'
                                       % self.alloc['uuid']))
        node = self.get('/v1/nodes/node-0').get_json()
        self.assertEqual((None, None, 'Free', []),
                         (node['instance_uuid'], node['allocation_uuid'],
                          node['pool_status'], node['profiles']))
        return node

    def test_not_before_its_end(self):
        self.assertEqual(0, expiry.expire(self.context, 'test-host'))
        node = self.get('/v1/nodes/node-0').get_json()
        self.assertEqual(('InUse', ['leased']),
                         (node['pool_status'], node['profiles']))

    def test_expired_allocation_released_with_release_actions(self):
        self.assertEqual(1, self.expire_now())
        self.assertReleased()

    def test_deployed_node_is_undeployed(self):
        resp = self.put('/v1/nodes/node-0/states/provision',
                        {'target': 'active'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.finish_provisioning()
        self.assertEqual(1, self.expire_now())
        node = self.assertReleased()
        self.assertEqual(('deleting', {}),
                         (node['provision_state'], node['instance_info']))
        # The conductor's provisioning check moves it on.
        self.assertEqual(1, provisioning.check(self.context))
        self.assertEqual('available', self.get('/v1/nodes/node-0')
                         .get_json()['provision_state'])

    def test_allocation_of_a_live_conductor_left_to_it(self):
        self.set_allocation(conductor_affinity='other-host')
        self.assertEqual(0, self.expire_now())
        self.assertEqual(1, expiry.expire(self.context, 'other-host'))
        self.assertReleased()

    def test_allocation_of_a_dead_conductor_taken_over(self):
        self.set_allocation(conductor_affinity='other-host')
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == 'other-host').values(
                updated_at=db_api.utcnow() - datetime.timedelta(hours=1)))
        self.assertEqual(1, self.expire_now())
        self.assertReleased()

    def test_extended_allocation_stays(self):
        later = db_api.utcnow() + datetime.timedelta(minutes=30)
        self.set_allocation(lifespan_end=db_api.utcnow()
                            - datetime.timedelta(seconds=1))
        # The extension commits between the listing and the release.
        real = expiry.allocations_db.list_expired

        def listed_then_extended(*args):
            found = real(*args)
            self.set_allocation(lifespan_end=later)
            return found

        self.patch(expiry.allocations_db, 'list_expired',
                   listed_then_extended)
        self.assertEqual(0, expiry.expire(self.context, 'test-host'))
        self.assertEqual('InUse', self.get('/v1/nodes/node-0').get_json()[
            'pool_status'])

    def test_locked_node_waits_for_the_next_round(self):
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).where(
                models.Node.uuid == self.node['uuid']).values(
                reservation='other-host'))
        self.assertEqual(0, self.expire_now())
        self.assertEqual(200, self.get('/v1/allocations/%s'
                                       % self.alloc['uuid']).status_code)
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).where(
                models.Node.uuid == self.node['uuid']).values(
                reservation=None))
        self.assertEqual(1, expiry.expire(self.context, 'test-host'))
        self.assertReleased()
