"""Pool actions and pool changes racing each other on real databases."""
import json
import threading

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import events as events_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import pool_actions
from pool_conductor import workflows
from tests.functional import db_fixtures
from tests.functional import test_allocation_races
from tests import base


class PoolRaceMixin(test_allocation_races.AllocationRaceHelpers):

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        pools_db.create(self.context, models.Pool, {'name': 'race'})

    def fill_pool(self, count: int) -> None:
        pool_actions.add_machines(self.context, 'race', pool_actions.Request(
            machine_list=self.enroll(count)))

    def bulk(self, results: list, count: int, partial: bool,
             start: threading.Barrier) -> None:
        start.wait()
        try:
            results.append(pool_actions.allocate_machines(
                self.context, 'race', pool_actions.Request(
                    count=count, partial_success=partial)))
        except exception.InsufficientNodes:
            results.append([])

    def test_bulk_and_single_allocations_never_share_a_node(self):
        self.fill_pool(40)
        results: list = []
        start = threading.Barrier(3)
        bulks = [threading.Thread(target=self.bulk,
                                  args=(results, 12, partial, start))
                 for partial in (True, False)]
        for t in bulks:
            t.start()
        start.wait()
        # Single allocations name the pool, as POST /v1/allocations with
        # a pool records it; without one they take nodes of the default.
        singles = self.race(20, pool='race', extra={'single': True})
        for t in bulks:
            t.join()
        # Allocations of both kinds hold distinct nodes.
        active = self.check_consistent(singles)
        bulk_uuids = [r['uuid'] for res in results for r in res]
        self.assertEqual(len(bulk_uuids), len(set(bulk_uuids)))
        single_nodes = {a.node_uuid for a in active if a.extra.get('single')}
        self.assertEqual(set(), single_nodes & set(bulk_uuids))
        # Every node went to someone: no deadlock, no lost node.
        self.assertEqual(40, len(single_nodes) + len(bulk_uuids))

    def test_concurrent_all_or_nothing_bulks(self):
        self.fill_pool(30)
        results: list = []
        start = threading.Barrier(4)
        threads = [threading.Thread(target=self.bulk,
                                    args=(results, 10, False, start))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        sizes = sorted(len(r) for r in results)
        # Each bulk got its 10 nodes or none at all.
        self.assertEqual({0, 10}, set(sizes) | {0, 10})
        uuids = [r['uuid'] for res in results for r in res]
        self.assertEqual(len(uuids), len(set(uuids)))
        counts = pools_db.status_counts(self.context, 'race')
        self.assertEqual(len(uuids), counts.get('InUse', 0))
        self.assertEqual(30 - len(uuids), counts.get('Free', 0))

    def test_concurrent_timeouts_record_each_node_once(self):
        self.fill_pool(20)
        pool_actions.allocate_machines(self.context, 'race',
                                       pool_actions.Request(
                                           count=20, wait_for_stage='never',
                                           wait_timeout=0))
        start = threading.Barrier(4)
        counts: list = []

        def sweep():
            start.wait()
            counts.append(workflows.time_out_waits(self.context))

        threads = [threading.Thread(target=sweep) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Each node was timed out by one sweep, with one event.
        self.assertEqual(20, sum(counts))
        events.sequence()
        found = events_db.after(self.context, 0, {
            'event_type': 'pool.node.wait_timeout.error'}, 1000)
        uuids = [e.object_uuid for e in found]
        self.assertEqual(20, len(uuids))
        self.assertEqual(20, len(set(uuids)))


class PoolAPIRaceMixin(test_allocation_races.AllocationRaceHelpers):
    """Requests racing through the in-process API on the real database.

    Each race runs its requests in threads that start together, ROUNDS
    times with new pools and nodes: the race is lost in some rounds only.
    """

    ROUNDS = 20
    VERSION = {'X-OpenStack-Ironic-API-Version': '1.60'}

    def setUp(self):
        super().setUp()
        self.app = base.noauth_app(self)

    def call(self, method: str, path: str, body=None):
        """A request through the application: (status, text)."""
        resp = self.app.test_client().open(
            path, method=method, json=body, headers=self.VERSION)
        return resp.status_code, resp.get_data(as_text=True)

    def create_pool(self, **body) -> None:
        status, text = self.call('POST', '/v1/pools', body)
        self.assertEqual(201, status, text)

    def together(self, *requests) -> list[tuple[int, str]]:
        """Send the requests (method, path, body) at once; their answers."""
        answers: list = [None] * len(requests)
        start = threading.Barrier(len(requests))

        def send(i: int, method: str, path: str, body) -> None:
            start.wait()
            answers[i] = self.call(method, path, body)

        threads = [threading.Thread(target=send, args=(i, *request))
                   for i, request in enumerate(requests)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return answers

    def assertAnswered(self, allowed, answers) -> None:
        for status, text in answers:
            self.assertIn(status, allowed, text)

    def dangling(self, column) -> list:
        """Values of a column naming a pool that does not exist."""
        names = sa.select(models.Pool.__table__.c.name)
        with self.engine.connect() as conn:
            return list(conn.scalars(sa.select(column).where(
                column.is_not(None), column.not_in(names))))

    def test_delete_racing_add_machines(self):
        for i in range(self.ROUNDS):
            name = 'add%d' % i
            self.create_pool(name=name)
            nodes = self.enroll(2)
            add, delete = self.together(
                ('POST', '/v1/pools/%s/addMachines' % name,
                 {'machine_list': nodes}),
                ('DELETE', '/v1/pools/' + name, None))
            self.assertAnswered((200, 404, 409), [add])
            self.assertAnswered((204, 409), [delete])
            if add[0] == 200:
                # The deletion waited for the nodes to join, and says so.
                self.assertEqual(409, delete[0], 'pool deleted with members')
                self.assertIn('it has member nodes', delete[1])
            else:
                self.assertEqual(204, delete[0], add[1])
        self.assertEqual([], self.dangling(models.Node.__table__.c.pool))

    def test_delete_racing_child_creation(self):
        for i in range(self.ROUNDS):
            parent = 'parent%d' % i
            self.create_pool(name=parent)
            create, delete = self.together(
                ('POST', '/v1/pools', {'name': 'child%d' % i,
                                       'parent_pool': parent}),
                ('DELETE', '/v1/pools/' + parent, None))
            self.assertAnswered((201, 404), [create])
            self.assertAnswered((204, 409), [delete])
            self.assertNotEqual((201, 204), (create[0], delete[0]),
                                'the parent of a new child was deleted')
            if delete[0] == 409:
                self.assertIn('parent pool of another pool', delete[1])
        self.assertEqual([], self.dangling(
            models.Pool.__table__.c.parent_pool))

    def test_delete_racing_parent_change(self):
        for i in range(self.ROUNDS):
            parent, child = 'parent%d' % i, 'child%d' % i
            self.create_pool(name=parent)
            self.create_pool(name=child)
            patch, delete = self.together(
                ('PATCH', '/v1/pools/' + child,
                 [{'op': 'add', 'path': '/parent_pool', 'value': parent}]),
                ('DELETE', '/v1/pools/' + parent, None))
            self.assertAnswered((200, 404), [patch])
            self.assertAnswered((204, 409), [delete])
            self.assertNotEqual((200, 204), (patch[0], delete[0]),
                                'the new parent of a pool was deleted')
        self.assertEqual([], self.dangling(
            models.Pool.__table__.c.parent_pool))

    def test_parent_changes_never_make_a_cycle(self):
        # c is under b; a under b and c under a, together, would close a
        # cycle through a pool that neither change writes.
        for i in range(self.ROUNDS):
            a, b, c = 'a%d' % i, 'b%d' % i, 'c%d' % i
            self.create_pool(name=c)
            self.create_pool(name=b, parent_pool=c)
            self.create_pool(name=a)
            answers = self.together(
                ('PATCH', '/v1/pools/' + a,
                 [{'op': 'add', 'path': '/parent_pool', 'value': b}]),
                ('PATCH', '/v1/pools/' + c,
                 [{'op': 'add', 'path': '/parent_pool', 'value': a}]))
            # A deadlock between the two is run again: each change is
            # made, or refused for the cycle it would close.
            self.assertEqual([200, 400], sorted(s for s, _text in answers),
                             answers)
            parents = {p.name: p.parent_pool for p in pools_db.get_many(
                self.context, models.Pool, [a, b, c]).values()}
            self.assertNotEqual({a: b, b: c, c: a}, parents)

    def test_allocation_deletion_racing_return(self):
        self.create_pool(name='ret')
        nodes = self.enroll(self.ROUNDS)
        self.assertEqual(200, self.call('POST', '/v1/pools/ret/addMachines',
                                        {'machine_list': nodes})[0])
        status, text = self.call('POST', '/v1/pools/ret/allocateMachines',
                                 {'count': self.ROUNDS})
        self.assertEqual(200, status, text)
        errors: list[str] = []
        for uuid in nodes:
            status, text = self.call('GET', '/v1/nodes/%s/allocation' % uuid)
            self.assertEqual(200, status, text)
            allocation = json.loads(text)['uuid']
            requests = (('DELETE', '/v1/allocations/' + allocation, None),
                        ('POST', '/v1/pools/ret/returnMachines',
                         {'machine_list': [uuid]}))
            errors += ['%s %s: %s %s' % (method, path, status, text)
                       for (method, path, _body), (status, text)
                       in zip(requests, self.together(*requests),
                              strict=True) if status >= 500]
        self.assertEqual([], errors, '%d of %d races answered 5xx'
                         % (len(errors), self.ROUNDS))
        for uuid in nodes:
            node = nodes_db.get_node(self.context, uuid)
            self.assertEqual((None, None, 'Free', False),
                             (node.allocation_id, node.instance_uuid,
                              node.pool_status, bool(node.pool_allocated)))
        with self.engine.connect() as conn:
            self.assertEqual(0, conn.scalar(
                sa.select(sa.func.count()).select_from(
                    models.Allocation.__table__)))


class PostgreSQLPoolRaceTestCase(PoolRaceMixin,
                                 db_fixtures.PostgreSQLTestCase):
    pass


class MySQLPoolRaceTestCase(PoolRaceMixin, db_fixtures.MySQLTestCase):
    pass


class PostgreSQLPoolAPIRaceTestCase(PoolAPIRaceMixin,
                                   db_fixtures.PostgreSQLTestCase):
    pass


class MySQLPoolAPIRaceTestCase(PoolAPIRaceMixin, db_fixtures.MySQLTestCase):
    pass
