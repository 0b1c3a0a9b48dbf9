"""The allocation preview: /v1/allocation_candidates."""
import datetime
import random

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pool_api import auth
from pool_conductor import allocator
from pool_conductor.allocator import AllocationWorker
from pool_conductor.booking import windows
from pool_conductor import candidates
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import free_nodes
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import slots as slots_db
from pool_conductor import exception
from tests.unit.api import base

PREVIEW = '/v1/allocation_candidates'
PROJECT = 'project-a'
MEMBER = {'X-Roles': 'member,reader', 'X-Project-Id': PROJECT}


class PreviewAPITestCase(base.APITestCase):

    def preview(self, body, status=200, **kw):
        resp = self.post(PREVIEW, body, **kw)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def test_counts_each_node_once_under_the_first_filter(self):
        match = self.create_node(name='match', traits=['CUSTOM_GPU'])
        self.create_node(name='other-class', resource_class='other')
        self.create_node(name='no-trait')
        self.create_node(name='maint', traits=['CUSTOM_GPU'],
                         maintenance=True)
        self.create_node(name='manageable', traits=['CUSTOM_GPU'],
                         provision_state='manageable')
        self.create_node(name='taken', traits=['CUSTOM_GPU'],
                         instance_uuid='0d9f4c43-8a1e-4a64-9b43-6f2b0e4a1c11')
        self.create_node(name='no-power', traits=['CUSTOM_GPU'],
                         power_state=None)
        # In maintenance and of another class: counted as the class only.
        self.create_node(name='both', resource_class='other',
                         maintenance=True)
        answer = self.preview({'resource_class': 'baremetal',
                               'traits': ['CUSTOM_GPU']})
        self.assertEqual([match.uuid],
                         [c['uuid'] for c in answer['candidates']])
        self.assertEqual(['CUSTOM_GPU'], answer['candidates'][0]['traits'])
        self.assertEqual(1, answer['total_matching'])
        self.assertEqual(match.uuid, answer['would_pick'])
        self.assertEqual({'pool': 0, 'resource_class': 2, 'traits': 1,
                          'candidate_nodes': 0, 'owner': 0,
                          'maintenance': 1, 'provision_state': 1,
                          'allocated': 1, 'reserved': 0, 'pool_status': 0,
                          'power_state': 1, 'overlapping_window': 0,
                          'external_state': 0},
                         answer['rejected'])
        self.assertEqual(8, answer['fleet'])

    def test_an_external_managers_unknown_node_is_passed_over(self):
        # The allocator passes over a node whose external manager's state
        # is unknown ([external_manager] unknown_blocks_allocation).
        unknown = self.create_node(name='unknown', external_manager='lab',
                                   external_ref='r1', external_state='unknown')
        answer = self.preview({'resource_class': 'baremetal', 'seed': 1})
        self.assertIsNone(answer['would_pick'])
        self.assertEqual(1, answer['rejected']['external_state'])
        known = self.create_node(name='known')
        for seed in range(5):
            answer = self.preview({'resource_class': 'baremetal',
                                   'seed': seed})
            self.assertEqual(known.uuid, answer['would_pick'])
        self.config(unknown_blocks_allocation=False, group='external_manager')
        answer = self.preview({'resource_class': 'baremetal'})
        self.assertEqual(0, answer['rejected']['external_state'])
        self.assertIn(unknown.uuid,
                      [c['uuid'] for c in answer['candidates']])

    def test_nothing_matches_and_nothing_is_reserved(self):
        node = self.create_node(name='busy', maintenance=True)
        answer = self.preview({'resource_class': 'baremetal'})
        self.assertEqual([], answer['candidates'])
        self.assertIsNone(answer['would_pick'])
        self.assertEqual(1, answer['rejected']['maintenance'])
        # A preview of a free node leaves it free and records nothing.
        free = self.create_node(name='free')
        answer = self.preview({'resource_class': 'baremetal'})
        self.assertEqual(free.uuid, answer['would_pick'])
        self.assertIsNone(nodes_db.get_node(self.context, 'free').reservation)
        self.assertEqual([], self.casts)
        self.assertEqual(node.uuid, nodes_db.get_node(self.context,
                                                      'busy').uuid)

    def test_other_pools_and_candidates(self):
        self.post('/v1/pools', {'name': 'ci'})
        inside = self.create_node(name='in-ci', pool='ci')
        self.create_node(name='in-default')
        answer = self.preview({'resource_class': 'baremetal', 'pool': 'ci'})
        self.assertEqual(inside.uuid, answer['would_pick'])
        self.assertEqual(1, answer['rejected']['pool'])
        other = self.create_node(name='second', pool='ci')
        answer = self.preview({'resource_class': 'baremetal', 'pool': 'ci',
                               'candidate_nodes': ['second']})
        self.assertEqual(other.uuid, answer['would_pick'])
        self.assertEqual(1, answer['rejected']['candidate_nodes'])

    def test_a_free_node_named_as_the_request_is_picked(self):
        for i in range(5):
            self.create_node(name='n%d' % i)
        for seed in range(10):
            answer = self.preview({'resource_class': 'baremetal',
                                   'name': 'n3', 'seed': seed})
            self.assertEqual(
                nodes_db.get_node(self.context, 'n3').uuid,
                answer['would_pick'])

    def test_limit_lists_fewer_and_counts_all(self):
        for i in range(5):
            self.create_node(name='n%d' % i)
        answer = self.preview({'resource_class': 'baremetal', 'limit': 2})
        self.assertEqual(2, len(answer['candidates']))
        self.assertEqual(5, answer['total_matching'])
        self.config(max_allocation_candidates=3, group='api')
        answer = self.preview({'resource_class': 'baremetal', 'limit': 4})
        self.assertEqual(3, len(answer['candidates']))

    def test_query_form(self):
        node = self.create_node(name='gpu', traits=['CUSTOM_GPU', 'CUSTOM_B'])
        self.create_node(name='plain')
        resp = self.get(PREVIEW + '?resource_class=baremetal'
                        '&traits=CUSTOM_GPU,CUSTOM_B&seed=3&limit=5')
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(node.uuid, resp.get_json()['would_pick'])
        self.assertEqual(1, resp.get_json()['rejected']['traits'])

    def test_bad_requests(self):
        self.assertError(400, self.post(PREVIEW, {'seed': -1}))
        self.assertError(400, self.post(PREVIEW, {'limit': 0}))
        self.assertError(400, self.post(PREVIEW, {'seed': 2 ** 64}))
        self.assertError(400, self.post(PREVIEW, {'bogus': 1}))
        self.assertError(400, self.post(PREVIEW, {'traits': ['gpu']}),
                         'Invalid trait')
        self.assertError(400, self.post(PREVIEW, {'candidate_nodes':
                                                  ['missing']}))
        self.assertError(400, self.get(PREVIEW + '?seed=x'), 'seed')
        self.assertError(400, self.get(PREVIEW + '?unknown=1'))
        self.assertError(404, self.post(PREVIEW, {'pool': 'missing'}))


class ProjectPreviewTestCase(base.APITestCase):
    """Requests carry the identity headers of keystonemiddleware."""

    def setUp(self):
        self.patch(auth, 'wrap', lambda app: app)
        super().setUp()
        self.config(auth_strategy='keystone')

    def test_a_project_sees_only_its_nodes(self):
        mine = self.create_node(name='mine', owner=PROJECT)
        self.create_node(name='theirs', owner='project-b')
        self.create_node(name='nobodys')
        resp = self.post(PREVIEW, {'resource_class': 'baremetal'},
                         headers=MEMBER)
        self.assertEqual(200, resp.status_code, resp.get_data())
        answer = resp.get_json()
        self.assertEqual(mine.uuid, answer['would_pick'])
        # The other nodes are not counted, not even as left out.
        self.assertEqual(1, answer['fleet'])
        self.assertError(403, self.post(
            PREVIEW, {'resource_class': 'baremetal', 'owner': 'project-b'},
            headers=MEMBER))


_NODE = st.fixed_dictionaries({
    'resource_class': st.sampled_from(['baremetal', 'gpu']),
    'traits': st.lists(st.sampled_from(['CUSTOM_A', 'CUSTOM_B']),
                       unique=True),
    'maintenance': st.booleans(),
    'provision_state': st.sampled_from(['available', 'available',
                                        'manageable']),
    'power_state': st.sampled_from(['power off', 'power on', None]),
    'owner': st.sampled_from([None, 'p1', 'p2']),
    # The earliest slot of the node, in hours from now.
    'booked_from': st.sampled_from([None, None, 1, 5]),
    # Passed over by the allocator before it asks the manager.
    'external_state': st.sampled_from([None, None, 'unknown']),
})


class PreviewParityTestCase(base.APITestCase):
    """For random fleets, the preview's pick is the allocator's with the
    same seed, its matches are the allocator's search, and its counts
    add up to the fleet."""

    @settings(max_examples=25, deadline=None)
    @given(fleet=st.lists(_NODE, min_size=1, max_size=12),
           resource_class=st.sampled_from(['baremetal', 'gpu']),
           traits=st.lists(st.sampled_from(['CUSTOM_A', 'CUSTOM_B']),
                           unique=True),
           owner=st.sampled_from([None, 'p1']),
           lifespan=st.sampled_from([None, 1, 3]),
           seed=st.integers(min_value=0, max_value=2 ** 32))
    def test_preview_is_the_allocator(self, fleet, resource_class, traits,
                                      owner, lifespan, seed):
        with db_api.writer(self.context) as session:
            session.execute(models.Node.__table__.update().values(
                allocation_id=None))
            session.execute(models.Allocation.__table__.delete())
            session.execute(models.NodeTrait.__table__.delete())
            session.execute(models.Node.__table__.delete())
        now = db_api.utcnow().replace(microsecond=0)
        hour = datetime.timedelta(hours=1)
        for i, values in enumerate(fleet):
            values = dict(values)
            booked = values.pop('booked_from')
            if values['external_state']:
                values.update(external_manager='lab',
                              external_ref='ref-%d' % i)
            node = self.create_node(**values)
            if booked is not None:
                with db_api.writer(self.context) as session:
                    session.execute(models.Node.__table__.update().where(
                        models.Node.id == node.id).values(
                        booked_from=now + booked * hour))
        end = now + lifespan * hour if lifespan else None
        request = candidates.Request(resource_class=resource_class,
                                     traits=tuple(traits), owner=owner,
                                     lifespan_end=end)
        answer = candidates.preview(self.context, request, seed=seed)
        self.assertEqual(len(fleet), answer.fleet)
        with db_api.reader(self.context) as session:
            found = free_nodes.for_allocation(
                session.connection(), request, models.DEFAULT_POOL,
                free_nodes.ANYWHERE, count=100, lock=False,
                hold_until=request.hold_until)
        self.assertEqual(sorted(r.uuid for r in found
                                if r.external_state is None),
                         sorted(r.uuid for r, _t in answer.candidates))
        # The allocator, seeded alike, gives the node the preview picked.
        body = {'resource_class': resource_class, 'traits': traits}
        if end:
            body['lifespan_end'] = end.isoformat() + 'Z'
        if owner:
            body['owner'] = owner
        resp = self.post('/v1/allocations', body)
        self.assertEqual(201, resp.status_code, resp.get_data())
        alloc = allocations_db.get_allocation(self.context,
                                              resp.get_json()['uuid'])
        random.seed(seed)
        allocator.allocate_one(self.context, alloc.id, 'test-host',
                               allocations_db.max_node_id(self.context))
        alloc = allocations_db.get_allocation(self.context, alloc.uuid)
        self.assertEqual(answer.would_pick, alloc.node_uuid)
        self.casts = []


class PreviewWorkerTestCase(base.APITestCase):
    """The worker still allocates through the shared choice."""

    def test_worker_allocates(self):
        node = self.create_node(name='only')
        worker = AllocationWorker('test-host', 1)
        self.addCleanup(worker.stop)
        alloc = self.post('/v1/allocations',
                          {'resource_class': 'baremetal'}).get_json()
        for alloc_id, _host in self.casts:
            worker.process(alloc_id)
        self.assertEqual(node.uuid, self.get(
            '/v1/allocations/%s' % alloc['uuid']).get_json()['node_uuid'])


HOUR = datetime.timedelta(hours=1)


def rfc3339(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat() + 'Z'


def parse(window: dict) -> dict:
    return {k: datetime.datetime.fromisoformat(v).replace(tzinfo=None)
            for k, v in window.items()}


class WindowPreviewTestCase(base.APITestCase):
    """A request with a window answers what booking it would do."""

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=1800, group='windows')
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)
        self.now = db_api.utcnow().replace(microsecond=0)

    def preview(self, body, status=200):
        resp = self.post(PREVIEW, body)
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def allocate(self, node, end=None):
        """node is given now to an allocation that ends at end."""
        body = {'resource_class': 'baremetal', 'candidate_nodes': [node]}
        if end is not None:
            body['lifespan_end'] = rfc3339(self.now + end)
        resp = self.post('/v1/allocations', body)
        self.assertEqual(201, resp.status_code, resp.get_data())
        casts, self.casts = self.casts, []
        for alloc_id, _host in casts:
            self.worker.process(alloc_id)
        alloc = self.get('/v1/allocations/%s' % resp.get_json()['uuid'])
        self.assertEqual('active', alloc.get_json()['state'])

    def book(self, node, start, end, status=201):
        resp = self.post('/v1/allocations', {
            'resource_class': 'baremetal', 'candidate_nodes': [node],
            'start_at': rfc3339(self.now + start),
            'end_at': rfc3339(self.now + end)})
        self.assertEqual(status, resp.status_code, resp.get_data())
        return resp.get_json()

    def test_a_node_held_now_is_a_candidate_for_a_later_window(self):
        ending = self.create_node(name='ending')
        self.create_node(name='held')
        self.create_node(name='forever')
        self.create_node(name='booked')
        self.create_node(name='manageable', provision_state='manageable')
        # Held until 1 h (+30 min of cleaning): free for a window at 2 h.
        self.allocate('ending', end=HOUR)
        # Held until 3 h (+30 min): not free for a window at 2 h.
        self.allocate('held', end=3 * HOUR)
        self.allocate('forever')
        self.book('booked', 2 * HOUR + HOUR / 2, 5 * HOUR)
        window = {'resource_class': 'baremetal', 'seed': 3,
                  'start_at': rfc3339(self.now + 2 * HOUR),
                  'end_at': rfc3339(self.now + 3 * HOUR)}
        answer = self.preview(window)
        self.assertEqual([ending.uuid],
                         [c['uuid'] for c in answer['candidates']])
        self.assertEqual(ending.uuid, answer['would_pick'])
        self.assertEqual(1, answer['total_matching'])
        self.assertEqual({'allocated': 2, 'overlapping_window': 1,
                          'provision_state': 1},
                         {k: v for k, v in answer['rejected'].items() if v})
        self.assertEqual(5, answer['fleet'])
        self.assertEqual({'start_at': self.now + 2 * HOUR,
                          'end_at': self.now + 3 * HOUR,
                          'busy_from': self.now + 2 * HOUR,
                          'busy_until': self.now + 3.5 * HOUR},
                         parse(answer['window']))
        # Booking the window takes that node; then none is left.
        taken = self.book('ending', 2 * HOUR, 3 * HOUR)
        self.assertEqual(ending.uuid, taken['node_uuid'])
        answer = self.preview(window)
        self.assertIsNone(answer['would_pick'])
        self.assertEqual(2, answer['rejected']['overlapping_window'])
        # The preview of the same request now (no window) takes nothing
        # held, and has no window.
        answer = self.preview({'resource_class': 'baremetal'})
        self.assertIsNone(answer['window'])
        self.assertEqual(3, answer['rejected']['allocated'])

    def test_duration_query_form_and_the_pools_margins(self):
        self.post('/v1/pools', {'name': 'lab', 'reservation_pre_margin': 600,
                                'reservation_post_margin': 0})
        node = self.create_node(name='n', pool='lab')
        # Held until 1 h: the slot of a window at 1 h 5 min would begin
        # at 55 min with the pool's pre margin.
        start = rfc3339(self.now + HOUR + HOUR / 12)
        resp = self.get(PREVIEW + '?pool=lab&duration=2h&start_at=%s'
                        % start.replace('+', '%2B'))
        self.assertEqual(200, resp.status_code, resp.get_data())
        answer = resp.get_json()
        self.assertEqual(node.uuid, answer['would_pick'])
        self.assertEqual(self.now + HOUR - HOUR / 12,
                         parse(answer['window'])['busy_from'])
        self.assertEqual(self.now + 3 * HOUR + HOUR / 12,
                         parse(answer['window'])['busy_until'])

    def test_a_window_that_has_begun_is_an_allocation_that_starts_now(self):
        self.create_node(name='held')
        self.allocate('held', end=HOUR)
        answer = self.preview({
            'resource_class': 'baremetal',
            'start_at': rfc3339(self.now - HOUR),
            'end_at': rfc3339(self.now + HOUR)})
        self.assertIsNone(answer['window'])
        self.assertEqual(1, answer['rejected']['allocated'])

    def test_bad_windows_are_rejected_as_booking_rejects_them(self):
        start = rfc3339(self.now + HOUR)
        for body, text in (
                ({'start_at': start}, 'either end_at or duration'),
                ({'end_at': start}, 'need start_at'),
                ({'start_at': start, 'duration': '1h',
                  'end_at': rfc3339(self.now + 2 * HOUR)},
                 'either end_at or duration'),
                ({'start_at': start, 'duration': '1h',
                  'lifespan_end': rfc3339(self.now + 2 * HOUR)},
                 'lifespan_end cannot be given'),
                ({'start_at': '2030-01-01T00:00:00', 'duration': '1h'},
                 'offset'),
                ({'start_at': start, 'end_at': rfc3339(self.now)},
                 'must be later'),
                ({'start_at': start, 'duration': 'soon'}, 'duration')):
            self.assertError(400, self.post(PREVIEW, body), text)
        self.post('/v1/pools', {'name': 'short',
                                'lifespan': {'maximum': '1h'}})
        self.assertError(400, self.post(PREVIEW, {
            'pool': 'short', 'start_at': start, 'duration': '2h'}))


_WINDOW_NODE = st.fixed_dictionaries({
    'provision_state': st.sampled_from(['available', 'available',
                                        'manageable']),
    'maintenance': st.sampled_from([False, False, True]),
    'resource_class': st.sampled_from(['baremetal', 'baremetal', 'gpu']),
    # Given now to an allocation ending after so many hours (0: never).
    'held': st.sampled_from([None, None, 0, 1, 2, 4]),
    # Slots booked on it: (start, end) in hours from now.
    'slots': st.lists(st.tuples(st.integers(1, 8), st.integers(1, 3)),
                      max_size=2),
})


class WindowPreviewParityTestCase(base.APITestCase):
    """For random fleets with allocations and slots, the candidates of a
    window's preview are the nodes booking it takes one after the other,
    booking seeded alike takes the preview's pick first, and the counts
    add up to the fleet."""

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=1800, group='windows')
        self.worker = AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)

    def _empty(self):
        with db_api.writer(self.context) as session:
            session.execute(models.Node.__table__.update().values(
                allocation_id=None))
            session.execute(models.NodeSlot.__table__.delete())
            session.execute(models.Allocation.__table__.delete())
            session.execute(models.NodeTrait.__table__.delete())
            session.execute(models.Node.__table__.delete())

    def _fleet(self, fleet, now):
        for i, values in enumerate(fleet):
            values = dict(values)
            held, slots = values.pop('held'), values.pop('slots')
            node = self.create_node(name='n%d' % i, **values)
            if held is not None:
                body = {'candidate_nodes': [node.uuid]}
                if held:
                    body['lifespan_end'] = rfc3339(now + held * HOUR)
                self.post('/v1/allocations', body)
            casts, self.casts = self.casts, []
            for alloc_id, _host in casts:
                self.worker.process(alloc_id)
            for start, length in slots:
                # Booked where booking allows it (a 409 otherwise).
                self.post('/v1/allocations', {
                    'candidate_nodes': [node.uuid],
                    'start_at': rfc3339(now + start * HOUR),
                    'end_at': rfc3339(now + (start + length) * HOUR)})

    @settings(max_examples=25, deadline=None)
    @given(fleet=st.lists(_WINDOW_NODE, min_size=1, max_size=6),
           start=st.integers(1, 8), length=st.integers(1, 3),
           seed=st.integers(min_value=0, max_value=2 ** 32))
    def test_preview_is_booking(self, fleet, start, length, seed):
        self._empty()
        now = db_api.utcnow().replace(microsecond=0) + datetime.timedelta(
            minutes=1)
        self._fleet(fleet, now)
        begin, end = now + start * HOUR, now + (start + length) * HOUR
        request = candidates.Request(resource_class='baremetal',
                                     start_at=begin, end_at=end)
        answer = candidates.preview(self.context, request, seed=seed)
        self.assertEqual(len(fleet), answer.fleet)
        self.assertEqual(answer.total_matching, len(answer.candidates))
        # Booking the window again and again takes each candidate once,
        # the preview's pick first when seeded alike, then none is left.
        rng = random.Random(seed)
        taken = []
        for _ in range(answer.total_matching):
            alloc = windows.book(self.context,
                                 {'resource_class': 'baremetal'}, None,
                                 begin, end, rng=rng)
            with db_api.reader(self.context) as session:
                taken.append(slots_db.of_allocation(
                    session.connection(), alloc.id).node_uuid)
            if len(taken) == 1:
                self.assertEqual(answer.would_pick, taken[0])
        self.assertRaises(exception.WindowConflict, windows.book,
                          self.context, {'resource_class': 'baremetal'},
                          None, begin, end)
        self.assertEqual(sorted(r.uuid for r, _t in answer.candidates),
                         sorted(taken))
