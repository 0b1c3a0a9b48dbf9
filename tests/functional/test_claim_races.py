"""Claims racing for machines on real databases: each is bound whole or
not at all, and no machine is held twice."""
import datetime
import threading

from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor import claim_release
from pool_conductor import claim_templates
from pool_conductor import claims
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import claims as claims_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import exception
from pool_conductor import pool_actions
from pool_conductor import providers
from pool_conductor import rpcapi
from pool_conductor import states
from tests.functional import db_fixtures

HOSTS = ('host-a', 'host-b')


class ClaimRaceMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.config(heartbeat_timeout=60, group='conductor')
        for host in HOSTS:
            conductors_db.register_conductor(self.context, host)
        pools_db.create(self.context, models.Pool, {'name': 'race'})
        providers_db.create(self.context, {'name': 'race', 'pool': 'race'})

    def fill(self, count: int) -> None:
        uuids = [nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'resource_class': 'race',
            'provision_state': 'available', 'power_state': 'power off'}
        ).uuid for _ in range(count)]
        pool_actions.add_machines(self.context, 'race', pool_actions.Request(
            machine_list=uuids))

    def pending(self, size: int, host: str) -> int:
        return claims_db.create(self.context, {
            'uuid': uuidutils.generate_uuid(), 'state': 'pending',
            'conductor_affinity': host,
            'resources': [{'provider': 'race', 'template': {
                'resource_class': 'race'}}] * size}).id

    def race(self, claim_hosts: list[tuple[int, str]]) -> list[str]:
        """Bind claims at once, each by its conductor in its thread."""
        outcomes: dict[int, str] = {}
        start = threading.Barrier(len(claim_hosts))

        def bind(claim_id, host):
            start.wait()
            outcomes[claim_id] = claims.process(self.context, claim_id,
                                                host)

        threads = [threading.Thread(target=bind, args=pair)
                   for pair in claim_hosts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [outcomes[c] for c, _ in claim_hosts]

    def held(self) -> dict:
        """Allocation of each claim: {claim_id: [node_id, ...]}, checking
        each node is held by one allocation, and that allocation by it."""
        with db_api.reader(self.context) as session:
            allocs = session.execute(sa.select(
                models.Allocation.id, models.Allocation.claim_id,
                models.Allocation.node_id)).all()
            nodes = dict(session.execute(sa.select(
                models.Node.id, models.Node.allocation_id).where(
                models.Node.allocation_id.is_not(None))).all())
        node_ids = [a.node_id for a in allocs]
        self.assertEqual(len(node_ids), len(set(node_ids)))
        self.assertEqual({a.node_id: a.id for a in allocs}, nodes)
        result: dict = {}
        for a in allocs:
            result.setdefault(a.claim_id, []).append(a.node_id)
        return result

    def state(self, claim_id: int) -> str:
        with db_api.reader(self.context) as session:
            return session.get(models.Claim, claim_id,
                               populate_existing=True).state

    def test_two_claims_race_for_the_last_machines(self):
        self.fill(3)
        for _ in range(5):
            first = self.pending(2, HOSTS[0])
            second = self.pending(2, HOSTS[1])
            outcomes = self.race([(first, HOSTS[0]), (second, HOSTS[1])])
            self.assertEqual(sorted([claims.BOUND, claims.FAILED]),
                             sorted(outcomes))
            winner, loser = ((first, second) if outcomes[0] == claims.BOUND
                             else (second, first))
            self.assertEqual(('bound', 'error'),
                             (self.state(winner), self.state(loser)))
            held = self.held()
            self.assertEqual({winner: 2}, {k: len(v)
                                           for k, v in held.items()})
            claim_release.destroy(self.context, claims_db.get(
                self.context, claims_db_uuid(self.context, winner)),
                rpcapi.ConductorAPI())
            self.assertEqual({}, self.held())

    def test_many_claims_all_or_nothing(self):
        self.fill(10)
        ids = [(self.pending(3, HOSTS[i % 2]), HOSTS[i % 2])
               for i in range(6)]
        outcomes = self.race(ids)
        self.assertEqual(3, outcomes.count(claims.BOUND), outcomes)
        self.assertEqual(3, outcomes.count(claims.FAILED), outcomes)
        held = self.held()
        self.assertEqual([3, 3, 3], sorted(len(v) for v in held.values()))
        counts = pools_db.status_counts(self.context, 'race')
        self.assertEqual((9, 1), (counts.get(states.POOL_IN_USE, 0),
                                  counts.get(states.POOL_FREE, 0)))

    def test_expiry_by_two_conductors_releases_once(self):
        self.fill(2)
        claim_id = self.pending(2, HOSTS[0])
        self.assertEqual(claims.BOUND,
                         claims.process(self.context, claim_id, HOSTS[0]))
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Claim).values(
                lifespan_end=db_api.utcnow()
                - datetime.timedelta(seconds=1)))
        counts = []
        start = threading.Barrier(2)

        def expire(host):
            start.wait()
            counts.append(claim_release.expire(self.context, host))

        threads = [threading.Thread(target=expire, args=(h,))
                   for h in HOSTS]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([0, 1], sorted(counts))
        self.assertEqual('expired', self.state(claim_id))
        self.assertEqual({}, self.held())
        self.assertEqual(2, pools_db.status_counts(
            self.context, 'race').get(states.POOL_FREE))


class ClaimChangeMixin(ClaimRaceMixin):
    """The statements of changes and deletion on each backend."""

    def test_template_change_reaches_the_machine(self):
        providers_db.update(self.context, 'race', {
            'update_filters': [{'path_match': '/params(/.*)?'}],
            'match_ignore': ['/params']})
        self.fill(2)
        claim_id = self.pending(2, HOSTS[0])
        self.assertEqual(claims.BOUND,
                         claims.process(self.context, claim_id, HOSTS[0]))
        claim = claims_db.get(self.context,
                              claims_db_uuid(self.context, claim_id))
        self.assertRaises(exception.ObjectInUse, providers_db.delete,
                          self.context, 'race')
        resources = [dict(r, template=dict(r['template']))
                     for r in claim.resources]
        resources[1]['template']['params'] = {'power': 'off'}
        providers.template_changes(
            providers_db.get(self.context, 'race'), 1,
            claim.resources[1]['template'], resources[1]['template'])
        claim_templates.update(self.context, claim, {'resources': resources})
        node_id = self.held()[claim_id][1]
        with db_api.reader(self.context) as session:
            node = session.get(models.Node, node_id, populate_existing=True)
        self.assertEqual({'power': 'off'}, node.params)
        claim_release.destroy(self.context, claims_db.get(self.context,
                                                          claim.uuid),
                              rpcapi.ConductorAPI())
        self.assertEqual({}, self.held())
        providers_db.delete(self.context, 'race')

    def test_state_filter_pages_agree_with_state_of(self):
        """?state= filters in SQL by the rule of claims.state_of(): every
        page of one is full, and a claim missing an allocation, or whose
        allocation has no node or a node not InUse, is bound."""
        self.fill(5)
        ids = {}
        for name, size in (('ready', 1), ('building', 1), ('missing', 2),
                           ('nodeless', 1)):
            ids[name] = self.pending(size, HOSTS[0])
            self.assertEqual(claims.BOUND, claims.process(
                self.context, ids[name], HOSTS[0]))
        ids['error'] = self.pending(2, HOSTS[0])
        self.assertEqual(claims.FAILED, claims.process(
            self.context, ids['error'], HOSTS[0]))
        ids['pending'] = self.pending(1, HOSTS[0])
        held = self.held()
        alloc = models.Allocation
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).where(
                models.Node.id == held[ids['building']][0]).values(
                pool_status=states.POOL_BUILDING))
            session.execute(sa.update(alloc).where(
                alloc.node_id == held[ids['missing']][1]).values(
                claim_id=None))
            session.execute(sa.update(alloc).where(
                alloc.node_id == held[ids['nodeless']][0]).values(
                node_id=None))
        found = claims_db.list_claims(self.context, {})
        machines = claims_db.machines(self.context, [c.id for c in found])
        shown = {c.id: claims.state_of(c, machines.get(c.id, []))
                 for c in found}
        self.assertEqual({ids['ready']: 'ready', ids['building']: 'bound',
                          ids['missing']: 'bound', ids['nodeless']: 'bound',
                          ids['error']: 'error',
                          ids['pending']: 'pending'}, shown)
        for state in states.CLAIM_STATES:
            pages = []
            marker = None
            while not pages or pages[-1]:
                page = claims_db.list_claims(self.context, {'state': state},
                                             limit=1, marker=marker)
                pages.append([c.id for c in page])
                marker = page[-1].uuid if page else None
            self.assertEqual([[i] for i, s in shown.items() if s == state]
                             + [[]], pages, state)


def claims_db_uuid(context, claim_id: int) -> str:
    with db_api.reader(context) as session:
        return session.get(models.Claim, claim_id).uuid


class PostgreSQLClaimRaceTestCase(ClaimChangeMixin,
                                  db_fixtures.PostgreSQLTestCase):
    pass


class MySQLClaimRaceTestCase(ClaimChangeMixin,
                             db_fixtures.MySQLTestCase):
    pass
