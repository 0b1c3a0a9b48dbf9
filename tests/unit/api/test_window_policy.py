"""The operators' policy for windows: bounds of a booking, caps per
project, extension within them, idle reclaim, the notice before the end
and the event of the end."""
import datetime

import sqlalchemy as sa

from pool_conductor.booking import window_policy
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor import expiry
from pool_conductor import service
from tests.unit.api import test_windows

HOUR = test_windows.HOUR
MINUTE = test_windows.MINUTE
rfc3339 = test_windows.rfc3339


class WindowPolicyTestCase(test_windows.WindowBase):

    def setUp(self):
        super().setUp()
        for name in ('node-1', 'node-2', 'node-3'):
            self.enroll(name=name)
        # Projects p1 (owner) and p2 (lessee) may both have every node.
        for name in ('node-0', 'node-1', 'node-2', 'node-3'):
            resp = self.patch_json('/v1/nodes/%s' % name, [
                {'op': 'add', 'path': '/owner', 'value': 'p1'},
                {'op': 'add', 'path': '/lessee', 'value': 'p2'}])
            self.assertEqual(200, resp.status_code, resp.get_data())
        # On the grid of whole hours from here on, when a test sets one.
        self.hour = (self.now.replace(minute=0, second=0) + 2 * HOUR)

    def book_at(self, start, end, status=201, **body):
        body.setdefault('resource_class', 'baremetal')
        body['start_at'] = rfc3339(start)
        body['end_at'] = rfc3339(end)
        resp = self.post('/v1/allocations', body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def extend(self, uuid, end, status=200):
        resp = self.patch_json('/v1/allocations/%s' % uuid, [
            {'op': 'replace', 'path': '/lifespan_end',
             'value': rfc3339(end)}])
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    # Bounds

    def test_max_advance(self):
        self.config(max_advance=86400, group='windows')
        text = self.assertError(400, self.book(
            25 * HOUR, 26 * HOUR, status=400), 'max_advance')
        self.assertIn('the latest start allowed now is', text)
        self.assertIn('1d', text)
        # Within it, up to the last second.
        self.book(23 * HOUR, 24 * HOUR)
        self.config(max_advance=0, group='windows')
        self.book(25 * HOUR, 26 * HOUR)

    def test_min_and_max_duration(self):
        self.config(min_duration=600, max_duration=2 * 3600,
                    group='windows')
        text = self.assertError(400, self.book(
            HOUR, HOUR + 9 * MINUTE, status=400), 'min_duration')
        self.assertIn('lasts 9m, less than the 10m', text)
        self.book(HOUR, HOUR + 10 * MINUTE)
        text = self.assertError(400, self.book(
            3 * HOUR, 5 * HOUR + MINUTE, status=400), 'max_duration')
        self.assertIn('the latest end allowed is %s'
                      % rfc3339(self.now + 5 * HOUR), text)
        self.book(3 * HOUR, 5 * HOUR)

    def test_a_window_that_began_is_not_bounded(self):
        self.config(max_duration=3600, granularity=900,
                    group='windows')
        body = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'start_at': rfc3339(self.now - 2 * MINUTE),
            'end_at': rfc3339(self.now + 2 * HOUR)}).get_json()
        self.assertEqual('allocating', body['state'])

    def test_bounds_are_off_by_default(self):
        self.book(HOUR, HOUR + MINUTE)
        self.book(24 * 365 * HOUR, 24 * 366 * HOUR)

    def test_granularity_names_the_nearest_times_and_does_not_round(self):
        self.config(granularity=900, group='windows')
        start = self.hour + 7 * MINUTE
        text = self.assertError(400, self.book_at(
            start, self.hour + HOUR, status=400), 'granularity')
        self.assertIn('start_at %s' % rfc3339(start), text)
        self.assertIn('the nearest valid times are %s and %s' % (
            rfc3339(self.hour), rfc3339(self.hour + 15 * MINUTE)), text)
        text = self.assertError(400, self.book_at(
            self.hour, self.hour + HOUR + 1 * MINUTE, status=400),
            'end_at')
        self.assertIn('%s and %s' % (rfc3339(self.hour + HOUR),
                                     rfc3339(self.hour + 75 * MINUTE)), text)
        body = self.book_at(self.hour + 15 * MINUTE,
                            self.hour + HOUR).get_json()
        self.assertEqual(rfc3339(self.hour + 15 * MINUTE),
                         rfc3339(test_windows.parse(body['start_at'])))
        # An extension stays on the grid too.
        self.assertError(400, self.extend(
            body['uuid'], self.hour + 70 * MINUTE, status=400),
            'granularity')
        self.extend(body['uuid'], self.hour + 75 * MINUTE)

    def test_max_duration_holds_for_an_extension(self):
        self.config(max_duration=2 * 3600, group='windows')
        a = self.book(HOUR, 2 * HOUR).get_json()
        text = self.assertError(400, self.extend(
            a['uuid'], self.now + 3 * HOUR + MINUTE, status=400),
            'max_duration')
        self.assertIn('the latest end allowed is %s'
                      % rfc3339(self.now + 3 * HOUR), text)
        self.extend(a['uuid'], self.now + 3 * HOUR)

    # Caps per project

    def test_max_future_per_project(self):
        self.config(max_future_per_project=2, group='windows')
        self.book(HOUR, 2 * HOUR, owner='p1')
        self.book(3 * HOUR, 4 * HOUR, owner='p1')
        text = self.assertError(403, self.book(
            5 * HOUR, 6 * HOUR, owner='p1', status=403),
            'max_future_per_project')
        self.assertIn('Project p1 has 2 scheduled windows', text)
        # Another project counts its own.
        self.book(5 * HOUR, 6 * HOUR, owner='p2')
        self.book(7 * HOUR, 8 * HOUR, owner='p2')
        # A window that started no longer counts as scheduled.
        first = self.get('/v1/allocations?owner=p1').get_json()[
            'allocations'][0]
        alloc_id = self.make_due(first['uuid'])
        self.start_due()
        self.assertEqual('allocated', self.worker.process(alloc_id))
        self.book(5 * HOUR, 6 * HOUR, owner='p1')

    def test_max_active_per_project_counts_windows_at_once(self):
        self.config(max_active_per_project=2, group='windows')
        a = self.book(HOUR, 3 * HOUR, owner='p1').get_json()
        self.book(2 * HOUR, 4 * HOUR, owner='p1')
        text = self.assertError(403, self.book(
            150 * MINUTE, 5 * HOUR, owner='p1', status=403),
            'max_active_per_project')
        self.assertIn('Project p1 would hold 3 windows at once', text)
        self.assertIn(a['uuid'], text)
        # Touching its windows is not overlapping them.
        self.book(4 * HOUR, 5 * HOUR, owner='p1')
        self.book(150 * MINUTE, 5 * HOUR, owner='p2')
        # Windows that overlap the new one but not each other are one at
        # a time.
        self.book(6 * HOUR, 7 * HOUR, owner='p1')
        self.book(6 * HOUR, 7 * HOUR, owner='p1')
        # An extension into two at once is refused as well.
        self.assertError(403, self.extend(
            a['uuid'], self.now + 390 * MINUTE, status=403),
            'max_active_per_project')
        resp = self.extend(a['uuid'], self.now + 210 * MINUTE)
        self.assertEqual(rfc3339(self.now + 210 * MINUTE), rfc3339(
            test_windows.parse(resp.get_json()['lifespan_end'])))

    def test_max_node_hours_per_project(self):
        self.config(max_node_hours_per_project=5, group='windows')
        a = self.book(HOUR, 3 * HOUR, owner='p1').get_json()
        self.book(HOUR, 3 * HOUR, owner='p1')
        text = self.assertError(403, self.book(
            4 * HOUR, 6 * HOUR, owner='p1', status=403),
            'max_node_hours_per_project')
        self.assertIn('Project p1 holds 4.00 machine-hours', text)
        self.assertIn('would make 6.00, more than the 5.00 allowed', text)
        # Up to the cap exactly.
        self.book(4 * HOUR, 5 * HOUR, owner='p1')
        self.book(4 * HOUR, 9 * HOUR, owner='p2')
        # An extension counts its new length.
        self.assertError(403, self.extend(a['uuid'], self.now + 4 * HOUR,
                                          status=403),
                         'max_node_hours_per_project')
        # Shortening is allowed over a cap lowered since.
        self.config(max_node_hours_per_project=1, group='windows')
        self.extend(a['uuid'], self.now + 150 * MINUTE)
        self.config(max_node_hours_per_project=5, group='windows')
        self.delete('/v1/allocations/%s' % a['uuid'])
        self.book(6 * HOUR, 8 * HOUR, owner='p1')

    def test_allocations_without_an_owner_are_not_capped(self):
        self.config(max_future_per_project=1, group='windows')
        self.book(HOUR, 2 * HOUR)
        self.book(3 * HOUR, 4 * HOUR)

    def test_caps_lock_the_project_row(self):
        self.config(max_future_per_project=5, group='windows')
        self.book(HOUR, 2 * HOUR, owner='p1')
        self.book(3 * HOUR, 4 * HOUR, owner='p1')
        with db_api.reader(self.context) as session:
            rows = session.execute(sa.select(
                models.ProjectWindows.project,
                models.ProjectWindows.generation)).all()
        # One row, taken by each booking.
        self.assertEqual([('p1', 2)], [tuple(r) for r in rows])

    # Idle reclaim

    def started_window(self):
        """A window that started, given its node by a conductor; its node
        was last provisioned before the start."""
        a = self.book(HOUR, 4 * HOUR, owner='p1').get_json()
        alloc_id = self.make_due(a['uuid'])
        self.start_due()
        self.assertEqual('allocated', self.worker.process(alloc_id))
        self.set_start(a['uuid'], MINUTE)
        return a

    def set_start(self, uuid, ago):
        now = db_api.utcnow()
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.uuid == uuid).values(start_at=now - ago))
            session.execute(sa.update(models.Node).values(
                provision_updated_at=now - ago - HOUR))

    def test_idle_window_is_warned_then_reclaimed(self):
        self.config(idle_reclaim_after=3600, group='windows')
        a = self.started_window()
        self.assertEqual((0, 0), expiry.reclaim_idle(self.context))
        self.set_start(a['uuid'], 31 * MINUTE)
        self.assertEqual((1, 0), expiry.reclaim_idle(self.context))
        # Warned once.
        self.assertEqual((0, 0), expiry.reclaim_idle(self.context))
        self.assertEqual('active', self.allocation(a['uuid'])['state'])
        self.set_start(a['uuid'], 61 * MINUTE)
        self.assertEqual((0, 1), expiry.reclaim_idle(self.context))
        self.assertEqual(404, self.get('/v1/allocations/%s'
                                       % a['uuid']).status_code)
        node = self.get('/v1/nodes/%s' % a['node_uuid']).get_json()
        self.assertIsNone(node['allocation_uuid'])
        found = self.events_of(a['uuid'])
        self.assertEqual(['pool.allocation.idle_warning',
                          'pool.allocation.reclaimed',
                          'baremetal.allocation.delete.end'],
                         found[found.index('pool.allocation.started') + 1:])
        with db_api.reader(self.context) as session:
            self.assertEqual(0, session.scalar(
                sa.select(sa.func.count()).select_from(models.NodeSlot)))

    def test_deployed_window_is_not_reclaimed(self):
        self.config(idle_reclaim_after=3600, group='windows')
        a = self.started_window()
        resp = self.put('/v1/nodes/%s/states/provision' % a['node_uuid'],
                        {'target': 'active'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.finish_provisioning()
        self.set_start(a['uuid'], 2 * HOUR)
        # Deployed (active), whatever its provision_updated_at says.
        self.assertEqual((0, 0), expiry.reclaim_idle(self.context))
        self.assertEqual('active', self.allocation(a['uuid'])['state'])
        # A deployment since the start counts, even undeployed since.
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).values(
                provision_state='available',
                provision_updated_at=db_api.utcnow()))
        self.assertEqual((0, 0), expiry.reclaim_idle(self.context))
        self.assertEqual('active', self.allocation(a['uuid'])['state'])

    def test_deployed_windows_do_not_hide_idle_ones(self):
        self.config(idle_reclaim_after=3600, group='windows')
        self.patch(window_policy, 'BATCH', 1)
        busy = self.started_window()
        idle = self.started_window()
        self.set_start(busy['uuid'], 50 * MINUTE)
        self.set_start(idle['uuid'], 40 * MINUTE)
        resp = self.put('/v1/nodes/%s/states/provision' % busy['node_uuid'],
                        {'target': 'active'})
        self.assertEqual(202, resp.status_code, resp.get_data())
        self.finish_provisioning()
        self.assertEqual((1, 0), expiry.reclaim_idle(self.context))
        self.assertIn('pool.allocation.idle_warning',
                      self.events_of(idle['uuid']))
        self.assertNotIn('pool.allocation.idle_warning',
                         self.events_of(busy['uuid']))

    def test_idle_reclaim_is_off_by_default(self):
        a = self.started_window()
        self.set_start(a['uuid'], 100 * HOUR)
        self.assertEqual((0, 0), expiry.reclaim_idle(self.context))
        self.assertEqual('active', self.allocation(a['uuid'])['state'])

    # The notice before the end, and the end

    def test_before_end_is_emitted_once_per_end(self):
        self.config(before_end=3600, group='windows')
        a = self.started_window()
        self.assertEqual(0, expiry.notify_before_end(self.context))
        self.set_end(a['uuid'], 59 * MINUTE)
        self.assertEqual(1, expiry.notify_before_end(self.context))
        self.assertEqual(0, expiry.notify_before_end(self.context))
        self.assertEqual(1, self.events_of(a['uuid']).count(
            'pool.allocation.before_end'))
        # An extension announces its new end again, once.
        self.extend(a['uuid'], db_api.utcnow().replace(microsecond=0)
                    + 2 * HOUR)
        self.assertEqual(0, expiry.notify_before_end(self.context))
        self.set_end(a['uuid'], 30 * MINUTE)
        self.assertEqual(1, expiry.notify_before_end(self.context))
        self.assertEqual(0, expiry.notify_before_end(self.context))
        self.assertEqual(2, self.events_of(a['uuid']).count(
            'pool.allocation.before_end'))
        self.config(before_end=0, group='windows')
        self.set_end(a['uuid'], 10 * MINUTE)
        self.assertEqual(0, expiry.notify_before_end(self.context))

    def set_end(self, uuid, ahead):
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.uuid == uuid).values(
                lifespan_end=db_api.utcnow() + ahead))

    def test_window_end_records_ended(self):
        a = self.started_window()
        self.set_end(a['uuid'], -MINUTE)
        self.assertEqual(1, expiry.expire(self.context, 'test-host'))
        found = self.events_of(a['uuid'])
        self.assertIn('pool.lifespan.expired', found)
        self.assertIn('pool.allocation.ended', found)
        # An allocation without a window only expires.
        now = self.post('/v1/allocations', {
            'resource_class': 'baremetal',
            'lifespan_end': rfc3339(self.now + HOUR)}).get_json()
        self.run_casts()
        self.set_end(now['uuid'], -MINUTE)
        self.assertEqual(1, expiry.expire(self.context, 'test-host'))
        found = self.events_of(now['uuid'])
        self.assertIn('pool.lifespan.expired', found)
        self.assertNotIn('pool.allocation.ended', found)

    def test_the_conductor_round_warns_and_announces(self):
        self.config(idle_reclaim_after=3600, before_end=3600,
                    group='windows')
        a = self.started_window()
        self.set_start(a['uuid'], 40 * MINUTE)
        self.set_end(a['uuid'], 30 * MINUTE)
        conductor = service.ConductorService('test-host')
        conductor.worker = self.worker
        conductor.check_windows()
        found = self.events_of(a['uuid'])
        self.assertIn('pool.allocation.idle_warning', found)
        self.assertIn('pool.allocation.before_end', found)

    def test_periodics_never_raise(self):
        self.config(idle_reclaim_after=3600, before_end=3600,
                    group='windows')
        self.patch(expiry.policy_db, 'idle_candidates',
                   lambda *a: 1 / 0)
        self.patch(expiry.policy_db, 'ending', lambda *a: 1 / 0)
        self.assertEqual((0, 0), expiry.reclaim_idle(self.context))
        self.assertEqual(0, expiry.notify_before_end(self.context))


class NowTestCase(test_windows.WindowBase):
    """The bounds are counted from the database's clock."""

    def test_max_advance_from_now(self):
        self.config(max_advance=3600, group='windows')
        later = db_api.utcnow() + datetime.timedelta(hours=2)
        self.patch(db_api, 'utcnow', lambda: later)
        self.book(2 * HOUR, 3 * HOUR)
