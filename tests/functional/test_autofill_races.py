"""Three conductors filling the same pools on real databases: exactly
min_free machines made, none twice."""
import threading

import sqlalchemy as sa

from pool_conductor import autofill
from pool_conductor import context as pool_context
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from tests.functional import db_fixtures

HOSTS = ('c1', 'c2', 'c3')
POOLS = tuple('p%d' % i for i in range(1, 9))
MIN_FREE = 20
ROUNDS = 6


class AutoFillRaceMixin:

    def setUp(self):
        super().setUp()
        self.config(broker_retry_interval=0, group='conductor')
        self.context = pool_context.get_admin_context()
        for host in HOSTS:
            conductors_db.register_conductor(self.context, host)
        # A short delay widens the window between recording a request and
        # recording its machine.
        pools_db.create(self.context, models.Broker, {
            'name': 'cloud', 'driver': 'fake',
            'parameters': {'delay': 0.002}})
        for name in POOLS:
            pools_db.create(self.context, models.Pool, {
                'name': name, 'broker': 'cloud',
                'autofill': {'use_autofill': True, 'min_free': MIN_FREE,
                             'max_unready': 10}})

    def run_all(self, work, hosts=HOSTS) -> None:
        start = threading.Barrier(len(hosts))
        errors = []

        def run(host):
            start.wait()
            try:
                work(host)
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(h,)) for h in hosts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([], errors)

    def members(self) -> list:
        node = models.Node.__table__.c
        with self.engine.connect() as conn:
            return conn.execute(sa.select(
                node.pool, node.pool_status, node.broker_token,
                node.broker_ref, node.reservation)).all()

    def check_filled(self) -> None:
        rows = self.members()
        for name in POOLS:
            mine = [r for r in rows if r.pool == name]
            statuses = [r.pool_status for r in mine]
            self.assertEqual(
                ['Free'] * MIN_FREE, statuses, '%s: %s' % (name, {
                    s: statuses.count(s) for s in set(statuses)}))
        tokens = [r.broker_token for r in rows]
        self.assertEqual(len(tokens), len(set(tokens)))
        self.assertEqual(len(rows), len({r.broker_ref for r in rows}))
        self.assertEqual({None}, {r.reservation for r in rows})

    def test_three_conductors_fill_the_same_pools(self):
        fillers = {h: autofill.AutoFiller(h) for h in HOSTS}

        def work(host):
            for _ in range(ROUNDS):
                fillers[host].check(self.context)

        self.run_all(work)
        self.check_filled()
        # Each pool is filled by one conductor.
        owners = {p.name: p.autofill_conductor for p in pools_db.list_all(
            self.context, models.Pool) if p.name in POOLS}
        self.assertTrue(set(owners.values()) <= set(HOSTS), owners)

    def test_overlapping_rounds_of_one_pool_never_overshoot(self):
        # Rounds of the same conductor on the same pool overlapping: the
        # lock of the pool's row makes them count one after the other.
        for name in POOLS:
            pools_db.update(self.context, models.Pool, name,
                            {'autofill_conductor': 'c1'})
        threads = range(6)
        fillers = [autofill.AutoFiller('c1') for _ in threads]

        def work(index):
            for _ in range(ROUNDS):
                for name in POOLS:
                    fillers[index].fill(self.context, name)

        self.run_all(work, threads)
        self.check_filled()


class PostgreSQLAutoFillRaceTestCase(AutoFillRaceMixin,
                                     db_fixtures.PostgreSQLTestCase):
    pass


class MySQLAutoFillRaceTestCase(AutoFillRaceMixin,
                                db_fixtures.MySQLTestCase):
    pass
