"""Connections the database dropped: one failed transaction, then back."""
import threading

import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from tests.functional import db_fixtures

# Every other connection of the current user to the current database.
KILL_OTHERS = {
    db_fixtures.POSTGRESQL: (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"),
    db_fixtures.MYSQL: (
        "SELECT id FROM information_schema.processlist "
        "WHERE db = DATABASE() AND id <> CONNECTION_ID()"),
}


class ReconnectMixin:

    def kill_connections(self):
        admin = sa.create_engine(self.db.url, poolclass=sa.pool.NullPool)
        self.addCleanup(admin.dispose)
        with admin.connect() as conn:
            rows = conn.exec_driver_sql(KILL_OTHERS[self.BACKEND]).all()
            if self.BACKEND == db_fixtures.MYSQL:
                for (conn_id,) in rows:
                    conn.exec_driver_sql('KILL %d' % conn_id)
        return len(rows)

    def test_dropped_connections_cost_one_failed_transaction(self):
        context = pool_context.get_admin_context()

        def create():
            return allocations_db.create_allocation(context, {
                'resource_class': 'rc', 'state': 'allocating'})

        # Four connections in the pool, all of which the database drops.
        together = threading.Barrier(4)

        def hold_a_connection():
            with db_api.writer(pool_context.get_admin_context()) as session:
                session.execute(sa.text('SELECT 1'))
                together.wait(10)

        threads = [threading.Thread(target=hold_a_connection)
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertGreaterEqual(self.kill_connections(), 4)
        outcomes = []
        for _ in range(4):
            try:
                create()
                outcomes.append('ok')
            except db_api.UNAVAILABLE_ERRORS:
                outcomes.append('unavailable')
        self.assertLessEqual(outcomes.count('unavailable'), 1, outcomes)
        self.assertEqual(['ok'] * 3, outcomes[1:])


class PostgreSQLReconnectTestCase(ReconnectMixin,
                                  db_fixtures.PostgreSQLTestCase):
    pass


class MySQLReconnectTestCase(ReconnectMixin, db_fixtures.MySQLTestCase):
    pass
