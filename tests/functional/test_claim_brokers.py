"""Claims served by their pool's broker on real databases: machines made
for each resource, max_unready kept by conductors racing, bound whole."""
import threading

from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor import claims
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import claims as claims_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from tests.functional import db_fixtures

HOSTS = ('host-a', 'host-b')


class ClaimBrokerMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.config(heartbeat_timeout=60, group='conductor')
        for host in HOSTS:
            conductors_db.register_conductor(self.context, host)

    def pool(self, delay: float, max_unready: int | None) -> None:
        pools_db.create(self.context, models.Broker, {
            'name': 'cloud', 'driver': 'fake',
            'parameters': {'delay': delay}})
        pools_db.create(self.context, models.Pool, {
            'name': 'made', 'broker': 'cloud',
            'autofill': {'max_unready': max_unready}})
        providers_db.create(self.context, {'name': 'made', 'pool': 'made'})

    def pending(self, templates: list[dict], host: str) -> int:
        return claims_db.create(self.context, {
            'uuid': uuidutils.generate_uuid(), 'state': 'pending',
            'conductor_affinity': host,
            'resources': [{'provider': 'made', 'template': t}
                          for t in templates]}).id

    def made(self) -> list:
        with db_api.reader(self.context) as session:
            return session.execute(sa.select(
                models.Node.id, models.Node.pool_status,
                models.Node.allocation_id, models.Node.broker_token).where(
                models.Node.broker.is_not(None))).all()

    def claim(self, claim_id: int):
        with db_api.reader(self.context) as session:
            return session.get(models.Claim, claim_id,
                               populate_existing=True)

    def test_claim_of_three_from_an_empty_pool(self):
        self.pool(0, None)
        claim_id = self.pending([{'resource_class': 'vm',
                                  'params': {'role': 'db'}}] * 3, HOSTS[0])
        self.assertEqual(claims.WAITING,
                         claims.process(self.context, claim_id, HOSTS[0]))
        self.assertEqual(['Free'] * 3, [n.pool_status for n in self.made()])
        self.assertEqual(claims.BOUND,
                         claims.process(self.context, claim_id, HOSTS[0]))
        claim = self.claim(claim_id)
        self.assertEqual('bound', claim.state)
        with db_api.reader(self.context) as session:
            allocs = dict(session.execute(sa.select(
                models.Allocation.id, models.Allocation.node_id).where(
                models.Allocation.claim_id == claim_id)).all())
        made = self.made()
        self.assertEqual(sorted(allocs.values()), sorted(n.id for n in made))
        self.assertEqual(set(allocs), {n.allocation_id for n in made})
        prefix = claim.uuid.replace('-', '')
        self.assertEqual(['%s-%d-' % (prefix, i) for i in range(3)],
                         sorted(n.broker_token[:35] for n in made))

    def test_racing_conductors_keep_max_unready(self):
        # A broker call long enough that the other conductor's transaction
        # counts the first machine while it is being made.
        self.pool(0.5, 1)
        ids = [(self.pending([{'resource_class': 'vm',
                               'params': {'owner': owner}}] * 2, host), host)
               for owner, host in zip('ab', HOSTS, strict=True)]
        outcomes: dict = {}
        def bind(start, claim_id, host):
            start.wait()
            outcomes[claim_id] = claims.process(self.context, claim_id, host)

        for rounds in range(1, 12):
            left = [pair for pair in ids
                    if outcomes.get(pair[0]) != claims.BOUND]
            start = threading.Barrier(len(left))
            threads = [threading.Thread(target=bind, args=(start, *pair))
                       for pair in left]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            # One machine in flight at a time: never more made than rounds.
            self.assertLessEqual(len(self.made()), rounds)
            if all(o == claims.BOUND for o in outcomes.values()):
                break
        self.assertEqual([claims.BOUND] * 2, list(outcomes.values()))
        made = self.made()
        # Exactly the machines needed, each held by one allocation.
        self.assertEqual(4, len(made))
        self.assertEqual(4, len({n.allocation_id for n in made}))


class PostgreSQLClaimBrokerTestCase(ClaimBrokerMixin,
                                    db_fixtures.PostgreSQLTestCase):
    pass


class MySQLClaimBrokerTestCase(ClaimBrokerMixin, db_fixtures.MySQLTestCase):
    pass
