"""Reservations: windowed allocations of several nodes booked together
(POST /v1/reservations), all or nothing; their start, listing, deletion,
bad requests and who may see them."""
from oslo_config import fixture as config_fixture
import sqlalchemy as sa

from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import slots as slots_db
from tests.unit.api import test_policy
from tests.unit.api import test_statement_budget
from tests.unit.api import test_windows

HOUR = test_windows.HOUR
MINUTE = test_windows.MINUTE
rfc3339 = test_windows.rfc3339
parse = test_windows.parse


def count_rows(context, model) -> int:
    with db_api.reader(context) as session:
        return session.scalar(sa.select(sa.func.count()).select_from(model))


class ReservationTestCase(test_windows.WindowBase):

    def setUp(self):
        super().setUp()
        self.nodes = [self.node] + [self.enroll(name='node-%d' % i)
                                    for i in (1, 2)]

    def reserve(self, count, start=HOUR, end=3 * HOUR, status=201, **body):
        body.setdefault('resource_class', 'baremetal')
        body['count'] = count
        body['start_at'] = rfc3339(self.now + start)
        if end is not None and 'duration' not in body:
            body['end_at'] = rfc3339(self.now + end)
        resp = self.post('/v1/reservations', body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp

    def reservation(self, ident, status=200):
        resp = self.get('/v1/reservations/%s' % ident)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def all_events(self):
        with db_api.reader(self.context) as session:
            return list(session.scalars(sa.select(models.Event.event_type)))

    # Booking

    def test_reservation_books_a_window_on_each_node(self):
        resp = self.reserve({'min': 2, 'max': 3}, name='lab',
                            extra={'team': 'a'})
        body = resp.get_json()
        self.assertTrue(resp.headers['Location'].endswith(
            '/v1/reservations/%s' % body['uuid']))
        self.assertEqual(('lab', 'scheduled', {'min': 2, 'max': 3}),
                         (body['name'], body['state'], body['count']))
        self.assertEqual((self.now + HOUR, self.now + 3 * HOUR),
                         (parse(body['start_at']), parse(body['end_at'])))
        self.assertEqual({'team': 'a'}, body['extra'])
        # All three were free: max is taken, one node each.
        self.assertEqual({n['uuid'] for n in self.nodes},
                         {a['node_uuid'] for a in body['allocations']})
        for member in body['allocations']:
            alloc = self.allocation(member['uuid'])
            self.assertEqual('scheduled', alloc['state'])
            self.assertEqual((self.now + HOUR, self.now + 3 * HOUR),
                             (parse(alloc['start_at']),
                              parse(alloc['lifespan_end'])))
            self.assertEqual(self.now + 3 * HOUR + 30 * MINUTE,
                             parse(alloc['busy_until']))
            self.assertEqual(['baremetal.allocation.create.end',
                              'pool.allocation.scheduled'],
                             self.events_of(member['uuid']))
        self.assertEqual(['pool.reservation.create.end'],
                         self.events_of(body['uuid']))
        self.assertEqual([], self.casts)
        # By name too.
        self.assertEqual(body['uuid'], self.reservation('lab')['uuid'])

    def test_as_many_as_free_up_to_max(self):
        single = self.book(HOUR, 2 * HOUR).get_json()
        body = self.reserve({'min': 1, 'max': 3}).get_json()
        self.assertEqual(2, len(body['allocations']))
        self.assertNotIn(single['node_uuid'],
                         [a['node_uuid'] for a in body['allocations']])
        # An integer is min and max at once.
        self.reserve(1, start=5 * HOUR, end=6 * HOUR)
        self.assertEqual(1, len(self.get('/v1/reservations').get_json()[
            'reservations'][1]['allocations']))

    def test_fewer_free_than_min_is_a_409_that_writes_nothing(self):
        single = self.book(2 * HOUR, 4 * HOUR).get_json()
        before = (count_rows(self.context, models.Allocation),
                  count_rows(self.context, models.NodeSlot),
                  self.all_events())
        text = self.assertError(409, self.reserve(
            {'min': 3, 'max': 3}, name='big', status=409))
        self.assertIn('Only 2 of the 3 nodes needed are free', text)
        self.assertIn('node %s is held by allocation %s'
                      % (single['node_uuid'], single['uuid']), text)
        # The third node is free again 30 min (the post margin) before
        # the other booking starts.
        self.assertIn('the latest end possible from start_at for 3 nodes '
                      'is %s' % rfc3339(self.now + 90 * MINUTE), text)
        # All or nothing: no reservation, allocation, slot or event.
        self.assertEqual(before, (count_rows(self.context, models.Allocation),
                                  count_rows(self.context, models.NodeSlot),
                                  self.all_events()))
        self.assertEqual(0, count_rows(self.context, models.Reservation))
        self.reservation('big', status=404)
        # Within that end it fits.
        self.reserve(3, end=90 * MINUTE, name='big')

    def test_caps_of_the_project_bound_how_many_are_booked(self):
        # Room for two more scheduled windows: max 3 books two, and a
        # minimum above the room is a 403 that books nothing.
        for node in self.nodes:
            self.assertEqual(200, self.patch_json(
                '/v1/nodes/%s' % node['uuid'], [
                    {'op': 'add', 'path': '/owner', 'value': 'p1'},
                    {'op': 'add', 'path': '/lessee', 'value': 'p2'}],
            ).status_code)
        self.config(max_future_per_project=3, group='windows')
        self.book(5 * HOUR, 6 * HOUR, owner='p1')
        self.assertIn('max_future_per_project', self.reserve(
            {'min': 3, 'max': 3}, owner='p1', status=403).get_data(
            as_text=True))
        body = self.reserve({'min': 1, 'max': 3}, owner='p1').get_json()
        self.assertEqual(2, len(body['allocations']))
        self.config(max_node_hours_per_project=5, group='windows')
        self.assertIn('3 windows of 2.00 hours would make', self.reserve(
            {'min': 3, 'max': 3}, start=7 * HOUR, end=9 * HOUR, owner='p2',
            status=403).get_data(as_text=True))

    def test_no_matching_node_is_a_409(self):
        text = self.assertError(409, self.reserve(
            2, resource_class='gpu', status=409))
        self.assertIn('no node of pool default matches the request', text)

    def test_more_than_the_pool_has_is_a_409(self):
        text = self.assertError(409, self.reserve(4, status=409))
        self.assertIn('Only 3 of the 4 nodes needed are free', text)
        self.assertIn('only 3 node(s) of pool default match the request',
                      text)

    def test_candidate_nodes_and_duration(self):
        body = self.reserve({'min': 1, 'max': 3}, end=None, duration='90m',
                            candidate_nodes=['node-1', 'node-2']).get_json()
        self.assertEqual({self.nodes[1]['uuid'], self.nodes[2]['uuid']},
                         {a['node_uuid'] for a in body['allocations']})
        self.assertEqual(self.now + HOUR + 90 * MINUTE,
                         parse(body['end_at']))

    def test_duplicate_name_is_a_409(self):
        self.reserve(1, name='lab')
        self.assertError(409, self.reserve(1, start=5 * HOUR, end=6 * HOUR,
                                           name='lab', status=409))
        self.assertEqual(1, count_rows(self.context, models.Allocation))

    def test_bad_requests_are_400(self):
        start = rfc3339(self.now + HOUR)
        end = rfc3339(self.now + 2 * HOUR)
        self.config(max_count=10, group='windows')
        for body in (
                {'count': {'min': 3, 'max': 2}, 'start_at': start,
                 'end_at': end},
                {'count': {'min': 0, 'max': 2}, 'start_at': start,
                 'end_at': end},
                {'count': 0, 'start_at': start, 'end_at': end},
                {'count': {'min': 1, 'max': 11}, 'start_at': start,
                 'end_at': end},
                {'count': 11, 'start_at': start, 'end_at': end},
                {'count': {'min': 1}, 'start_at': start, 'end_at': end},
                {'count': {'min': 1, 'max': 2, 'other': 3},
                 'start_at': start, 'end_at': end},
                {'count': '2', 'start_at': start, 'end_at': end},
                {'count': 2, 'start_at': start},
                {'count': 2, 'end_at': end},
                {'start_at': start, 'end_at': end},
                {'count': 2, 'start_at': start, 'end_at': end,
                 'duration': '1h'},
                {'count': 2, 'start_at': start, 'end_at': start},
                {'count': 2, 'start_at': 'tomorrow', 'duration': '1h'},
                {'count': 2, 'start_at': start, 'duration': 'soon'},
                {'count': 2, 'start_at': start, 'end_at': end,
                 'lifespan_end': end},
                {'count': 2, 'start_at': start, 'end_at': end,
                 'traits': ['bad trait']},
                {'count': 2, 'start_at': start, 'end_at': end,
                 'candidate_nodes': ['nope']}):
            self.assertError(400, self.post('/v1/reservations', body))
        self.assertEqual(0, count_rows(self.context, models.Reservation))
        self.assertError(404, self.reserve(1, pool='nope', status=404))

    def test_options_of_the_old_group_still_hold(self):
        # A configuration file written before [windows] was named so.
        self.useFixture(config_fixture.Config(CONF)).load_raw_values(
            group='reservations', max_count='3')
        start = rfc3339(self.now + HOUR)
        error = self.assertError(400, self.post(
            '/v1/reservations', {'count': 4, 'start_at': start,
                                 'duration': '1h'}))
        self.assertIn('at most 3 nodes ([windows] max_count)', error)

    # The start

    def test_members_start_at_the_window(self):
        body = self.reserve({'min': 2, 'max': 2}).get_json()
        ids = [self.make_due(a['uuid']) for a in body['allocations']]
        self.assertEqual(2, self.start_due())
        self.assertEqual(sorted(ids), sorted(self.started))
        self.assertEqual('starting', self.reservation(body['uuid'])['state'])
        self.assertEqual('allocated', self.worker.process(ids[0]))
        self.assertEqual('starting', self.reservation(body['uuid'])['state'])
        self.assertEqual('allocated', self.worker.process(ids[1]))
        shown = self.reservation(body['uuid'])
        self.assertEqual('active', shown['state'])
        for member in shown['allocations']:
            node = self.get('/v1/nodes/%s' % member['node_uuid']).get_json()
            self.assertEqual(member['uuid'], node['allocation_uuid'])

    # Deletion

    def test_delete_frees_every_slot_and_node(self):
        body = self.reserve({'min': 2, 'max': 3}).get_json()
        first = body['allocations'][0]
        # One member has started and holds its node.
        self.make_due(first['uuid'])
        self.assertEqual(1, self.start_due())
        self.worker.process(self.started[0])
        self.assertEqual(204, self.delete('/v1/reservations/%s'
                                          % body['uuid']).status_code)
        self.reservation(body['uuid'], status=404)
        for member in body['allocations']:
            self.assertEqual(404, self.get('/v1/allocations/%s'
                                           % member['uuid']).status_code)
            self.assertEqual('baremetal.allocation.delete.end',
                             self.events_of(member['uuid'])[-1])
        self.assertEqual('pool.reservation.delete.end',
                         self.events_of(body['uuid'])[-1])
        self.assertEqual(0, count_rows(self.context, models.NodeSlot))
        self.assertEqual(0, count_rows(self.context, models.Allocation))
        node = self.get('/v1/nodes/%s' % first['node_uuid']).get_json()
        self.assertIsNone(node['allocation_uuid'])
        with db_api.reader(self.context) as session:
            self.assertEqual([None] * 3, list(session.scalars(sa.select(
                models.Node.booked_from))))
        # The window is free again for all three.
        self.reserve(3)

    def test_delete_is_all_or_nothing(self):
        body = self.reserve(2).get_json()
        first = body['allocations'][0]
        self.make_due(first['uuid'])
        self.assertEqual(1, self.start_due())
        self.assertEqual('allocated', self.worker.process(self.started[0]))
        # The started member's node is locked by a conductor meanwhile.
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).where(
                models.Node.uuid == first['node_uuid']).values(
                reservation='someone'))
        before = (count_rows(self.context, models.Allocation),
                  count_rows(self.context, models.NodeSlot),
                  self.all_events())
        self.assertError(409, self.delete('/v1/reservations/%s'
                                          % body['uuid']))
        self.assertEqual(before, (count_rows(self.context, models.Allocation),
                                  count_rows(self.context, models.NodeSlot),
                                  self.all_events()))
        self.assertEqual(2, len(self.reservation(body['uuid'])[
            'allocations']))
        with self.paused(), db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).values(reservation=None))
        self.assertEqual(204, self.delete('/v1/reservations/%s'
                                          % body['uuid']).status_code)

    def test_a_window_that_has_begun_starts_at_the_next_round(self):
        body = self.reserve(2, start=-2 * MINUTE, end=HOUR).get_json()
        self.assertEqual('scheduled', body['state'])
        self.assertEqual(2, self.start_due())
        self.assertEqual('starting', self.reservation(body['uuid'])['state'])

    def test_a_deleted_member_leaves_the_rest(self):
        body = self.reserve(2).get_json()
        gone = body['allocations'][0]['uuid']
        self.assertEqual(204, self.delete('/v1/allocations/%s'
                                          % gone).status_code)
        shown = self.reservation(body['uuid'])
        self.assertEqual([body['allocations'][1]['uuid']],
                         [a['uuid'] for a in shown['allocations']])
        self.delete('/v1/allocations/%s' % body['allocations'][1]['uuid'])
        self.assertEqual('ended', self.reservation(body['uuid'])['state'])
        self.assertEqual(204, self.delete('/v1/reservations/%s'
                                          % body['uuid']).status_code)

    def test_missing_is_404(self):
        self.reservation('nope', status=404)
        self.assertError(404, self.delete('/v1/reservations/nope'))

    def test_list_filters_and_fields(self):
        a = self.reserve(1, name='a', candidate_nodes=['node-0']).get_json()
        self.post('/v1/pools', {'name': 'lab'})
        self.post('/v1/pools/lab/addMachines', {'machine_list': ['node-2']})
        b = self.reserve(1, name='b', pool='lab').get_json()
        listed = self.get('/v1/reservations').get_json()['reservations']
        self.assertEqual([a['uuid'], b['uuid']], [r['uuid'] for r in listed])
        listed = self.get('/v1/reservations?pool=lab').get_json()
        self.assertEqual([b['uuid']],
                         [r['uuid'] for r in listed['reservations']])
        listed = self.get('/v1/reservations?fields=uuid,state&limit=1'
                          ).get_json()
        self.assertEqual([(a['uuid'], 'scheduled', False)],
                         [(r['uuid'], r['state'], 'count' in r)
                          for r in listed['reservations']])
        self.assertIn('next', listed)
        self.assertError(400, self.get('/v1/reservations?state=x'))
        self.assertError(400, self.get('/v1/reservations?sort_key=count'))
        with db_api.reader(self.context) as session:
            self.assertEqual([], slots_db.overlaps(session.connection()))

    def test_listing_reads_all_members_at_once(self):
        def statements():
            with test_statement_budget.Counter() as counted:
                resp = self.get('/v1/reservations')
            self.assertEqual(200, resp.status_code)
            return counted.statements, len(resp.get_json()['reservations'])
        self.reserve(1, candidate_nodes=['node-0'])
        one, _ = statements()
        self.reserve(2, candidate_nodes=['node-1', 'node-2'])
        self.reserve(3, start=5 * HOUR, end=6 * HOUR)
        self.assertEqual((one, 3), statements())


class ReservationPolicyTestCase(test_policy.PolicyTestCase):

    def reserve(self, persona, **body):
        start = db_api.utcnow().replace(microsecond=0) + HOUR
        body = {'count': {'min': 1, 'max': 2}, 'start_at': rfc3339(start),
                'duration': '1h', **body}
        return self.as_persona(persona, 'POST', '/v1/reservations', body)

    def test_a_project_reserves_its_own_nodes_and_sees_its_own(self):
        mine = self.create_node(owner=test_policy.PROJECT)
        self.create_node(owner=test_policy.OTHER)
        resp = self.reserve('project_member')
        self.assertEqual(201, resp.status_code, resp.get_data())
        body = resp.get_json()
        self.assertEqual(test_policy.PROJECT, body['owner'])
        self.assertEqual([mine.uuid],
                         [a['node_uuid'] for a in body['allocations']])
        # Not for another project.
        self.assertEqual(403, self.reserve(
            'project_member', owner=test_policy.OTHER).status_code)
        self.assertEqual(403, self.reserve('project_reader').status_code)
        path = '/v1/reservations/%s' % body['uuid']
        self.assertEqual(404, self.as_persona('other_member', 'GET',
                                              path).status_code)
        self.assertEqual(404, self.as_persona('other_member', 'DELETE',
                                              path).status_code)
        listed = self.as_persona('other_member', 'GET', '/v1/reservations')
        self.assertEqual([], listed.get_json()['reservations'])
        self.assertEqual(403, self.as_persona(
            'other_member', 'GET', '/v1/reservations?owner=%s'
            % test_policy.PROJECT).status_code)
        listed = self.as_persona('project_reader', 'GET', '/v1/reservations')
        self.assertEqual([body['uuid']],
                         [r['uuid'] for r in listed.get_json()[
                             'reservations']])
        self.assertEqual(403, self.as_persona('project_reader', 'DELETE',
                                              path).status_code)
        self.assertEqual(204, self.as_persona('project_member', 'DELETE',
                                              path).status_code)
