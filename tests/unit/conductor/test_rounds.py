"""A conductor's periodic rounds: whose rows it takes, and failures."""
import datetime

import sqlalchemy as sa

from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor import rounds
from tests import base


class RoundsTestCase(base.TestCase):

    def test_a_failing_row_does_not_stop_the_round(self):
        handled = []

        def handle(row):
            if row == 2:
                raise RuntimeError('database gone')
            handled.append(row)
            return row != 3

        self.assertEqual(2, rounds.run(lambda: [1, 2, 3, 4], handle, 'x'))
        self.assertEqual([1, 3, 4], handled)

    def test_a_failing_listing_is_an_empty_round(self):
        def listing():
            raise RuntimeError('database gone')
        self.assertEqual(0, rounds.run(listing, lambda row: True, 'x'))

    def test_a_failing_round_of_one_transaction_is_its_default(self):
        def work():
            raise RuntimeError('database gone')
        self.assertEqual(0, rounds.once(work, 'x'))
        self.assertEqual([], rounds.once(work, 'x', []))
        self.assertEqual(3, rounds.once(lambda: 3, 'x'))

    def test_a_failure_is_logged_with_the_round_and_the_row(self):
        logged = []
        self.patch(rounds.LOG, 'warning',
                   lambda msg, args: logged.append(msg % args))

        def handle(row):
            raise RuntimeError('database gone')
        rounds.run(lambda: [{'uuid': 'u1'}], handle, 'announcing ends',
                   lambda row: 'allocation %s' % row['uuid'])
        rounds.once(lambda: handle(None), 'healing on Host-A')
        self.assertEqual(
            ['Announcing ends failed for allocation u1: database gone',
             'Healing on Host-A failed: database gone'], logged)

    def test_a_conductor_with_a_stale_heartbeat_serves_only_itself(self):
        self.config(heartbeat_timeout=60, group='conductor')
        for host in ('host-a', 'host-b'):
            conductors_db.register_conductor(self.context, host)
        self.assertEqual(['host-a', 'host-b'], sorted(
            rounds.live_conductors(self.context, 'host-a')))
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == 'host-a').values(
                updated_at=db_api.utcnow() - datetime.timedelta(hours=1)))
        self.assertIsNone(rounds.live_conductors(self.context, 'host-a'))
        self.assertEqual(['host-a'],
                         rounds.hosts_to_serve(self.context, 'host-a'))
        self.assertEqual(['host-b'],
                         rounds.hosts_to_serve(self.context, 'host-b'))
