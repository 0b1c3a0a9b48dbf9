"""The SQL statements and transactions of the hot paths, counted: a change
that adds one to them fails here, where throughput alone would hide it
(one extra read per request once cost 30% of the API's CPU)."""
import sqlalchemy as sa

from pool_conductor import allocator
from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor import workflows
from tests.unit.api import base

# What each path may cost on SQLite (where BEGIN is a statement of its
# own): (statements, transactions). POST /v1/allocations is one INSERT,
# which reads its pool's lifespan policy too. Every write records its
# events with one statement more.
POST_ALLOCATION = (3, 1)
GET_ALLOCATION = (2, 1)
ALLOCATE_BATCH = (7, 1)
# A batch of eight for four free nodes: four given, four failed in the same
# transaction (locked, then one UPDATE; their events in one INSERT).
ALLOCATE_BATCH_SHORT = (11, 1)
# DELETE of an active allocation: the allocation read, then in one
# transaction the node locked, its pool's release actions, the UPDATE, the
# events of the node and of the allocation in one INSERT, the DELETE.
DELETE_ALLOCATION = (9, 2)
ALLOCATE_MACHINES = (8, 1)
# addMachines and removeMachines of four machines named in the body: the
# pool and its parent, a lookup per name, the machines, the pools' actions,
# one UPDATE, the events, the answer.
ADD_MACHINES = (12, 1)
REMOVE_MACHINES = (12, 1)
# A conductor's workflow round (every second) while no node waits for a
# stage: the one read that tells so.
IDLE_WORKFLOW_ROUND = (2, 1)


class Counter:
    """The statements sent to the database and the transactions begun,
    while it is entered."""

    def __init__(self):
        self.statements = 0
        self.transactions = 0

    def _statement(self, *args):
        self.statements += 1

    def _begin(self, *args):
        self.transactions += 1

    def __enter__(self):
        engine = db_api.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', self._statement)
        sa.event.listen(engine, 'begin', self._begin)
        return self

    def __exit__(self, *exc):
        engine = db_api.get_engine()
        sa.event.remove(engine, 'before_cursor_execute', self._statement)
        sa.event.remove(engine, 'begin', self._begin)


class StatementBudgetTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'test-host')
        for i in range(8):
            self.create_node(name='node-%d' % i)
        self.worker = AllocationWorker('test-host', 1, batch_size=8)
        self.addCleanup(self.worker.stop)

    def allocation(self) -> dict:
        resp = self.post('/v1/allocations', {'resource_class': 'baremetal'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        return resp.get_json()

    def assertWithin(self, budget: tuple[int, int], counter: Counter):
        self.assertLessEqual(counter.statements, budget[0],
                             'statements over the budget')
        self.assertLessEqual(counter.transactions, budget[1],
                             'transactions over the budget')

    def test_post_allocation(self):
        self.allocation()   # The first one warms the caches.
        with Counter() as counter:
            self.allocation()
        self.assertWithin(POST_ALLOCATION, counter)

    def test_get_allocation(self):
        uuid = self.allocation()['uuid']
        with Counter() as counter:
            self.assertEqual(200, self.get('/v1/allocations/%s'
                                           % uuid).status_code)
        self.assertWithin(GET_ALLOCATION, counter)

    def test_delete_allocation(self):
        uuid = self.allocation()['uuid']
        self.worker.process_batch([i for i, _h in self.casts])
        with Counter() as counter:
            self.assertEqual(204, self.delete('/v1/allocations/%s'
                                              % uuid).status_code)
        self.assertWithin(DELETE_ALLOCATION, counter)

    def test_conductor_allocates_a_batch(self):
        # The search starts at the last node, so that it wraps around:
        # the most it costs.
        self.patch(allocator.random, 'randint', lambda low, high: high)
        self.allocation()
        self.worker.process_batch([i for i, _h in self.casts])
        self.casts.clear()
        for _ in range(4):
            self.allocation()
        with Counter() as counter:
            self.worker.process_batch([i for i, _h in self.casts])
        self.assertWithin(ALLOCATE_BATCH, counter)
        self.assertEqual(5, len(self.get(
            '/v1/allocations?state=active').get_json()['allocations']))

    def test_conductor_fails_what_a_batch_cannot_serve(self):
        self.patch(allocator.random, 'randint', lambda low, high: high)
        for _ in range(4):
            self.allocation()
        self.worker.process_batch([i for i, _h in self.casts])
        self.casts.clear()
        for _ in range(8):
            self.allocation()
        with Counter() as counter:
            self.worker.process_batch([i for i, _h in self.casts])
        self.assertWithin(ALLOCATE_BATCH_SHORT, counter)
        allocs = self.get('/v1/allocations').get_json()['allocations']
        self.assertEqual({'active': 8, 'error': 4}, {
            state: sum(a['state'] == state for a in allocs)
            for state in ('active', 'error')})

    def test_allocate_machines(self):
        self.assertEqual(201, self.post('/v1/pools',
                                        {'name': 'web'}).status_code)
        self.assertEqual(200, self.post('/v1/pools/web/addMachines', {
            'all_machines': True}).status_code)
        with Counter() as counter:
            resp = self.post('/v1/pools/web/allocateMachines', {'count': 4})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertWithin(ALLOCATE_MACHINES, counter)

    def test_pool_actions(self):
        self.assertEqual(201, self.post('/v1/pools',
                                        {'name': 'web'}).status_code)
        with Counter() as counter:
            resp = self.post('/v1/pools/web/addMachines', {
                'machine_list': ['node-%d' % i for i in range(4)]})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertWithin(ADD_MACHINES, counter)
        with Counter() as counter:
            resp = self.post('/v1/pools/web/removeMachines', {
                'machine_list': ['node-%d' % i for i in range(4)]})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertWithin(REMOVE_MACHINES, counter)
        self.assertEqual(['default'] * 8, [n['pool'] for n in self.get(
            '/v1/nodes?fields=pool').get_json()['nodes']])

    def test_idle_workflow_round(self):
        with Counter() as counter:
            workflows.check_workflows(self.context, 'test-host')
        self.assertWithin(IDLE_WORKFLOW_ROUND, counter)
