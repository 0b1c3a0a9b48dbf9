"""The alembic migrations on SQLite, PostgreSQL and MariaDB/MySQL."""
import os

from alembic import script
from oslo_db.sqlalchemy import test_migrations
from oslotest import base
import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import migration
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from tests.functional import db_fixtures

SCRIPTS = script.ScriptDirectory(
    os.path.join(os.path.dirname(migration.__file__), 'migrations'))
HEAD = SCRIPTS.get_current_head()


def tables(engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())


class MigrationsMixin:
    """The migrations on an empty database, on each backend.

    test_models_sync (from ModelsMigrationsSync) upgrades to head and
    compares the result with the models.
    """

    def setUp(self):
        super().setUp()
        self.engine = db_api.get_engine()

    # ModelsMigrationsSync
    def get_engine(self):
        return self.engine

    def get_metadata(self):
        return models.Base.metadata

    def db_sync(self, engine):
        migration.upgrade(engine=engine)

    def include_object(self, object_, name, type_, reflected, compare_to):
        # An index of the models that this backend does not have.
        dialects = object_.info.get('dialects') if type_ == 'index' else None
        return not dialects or self.engine.dialect.name in dialects

    def test_single_head(self):
        self.assertEqual(1, len(SCRIPTS.get_heads()))

    def test_empty_database_has_no_version(self):
        self.assertIsNone(migration.version(engine=self.engine))

    def test_walk_revisions(self):
        revisions = list(reversed(list(SCRIPTS.walk_revisions())))
        self.assertEqual(HEAD, revisions[-1].revision)
        for rev in revisions:
            migration.upgrade(rev.revision, engine=self.engine)
            self.assertEqual(rev.revision,
                             migration.version(engine=self.engine))

    def test_upgrade_is_idempotent(self):
        migration.upgrade(engine=self.engine)
        self.assertEqual(HEAD, migration.version(engine=self.engine))
        first = tables(self.engine)
        self.assertTrue({'nodes', 'node_traits', 'allocations', 'conductors',
                         'alembic_version'}.issubset(first), first)
        migration.upgrade(engine=self.engine)
        self.assertEqual(HEAD, migration.version(engine=self.engine))
        self.assertEqual(first, tables(self.engine))

    def test_stamp(self):
        migration.stamp(engine=self.engine)
        self.assertEqual(HEAD, migration.version(engine=self.engine))
        # Only the version is recorded, no table is created.
        self.assertEqual({'alembic_version'}, tables(self.engine))
        migration.stamp('base', engine=self.engine)
        self.assertIsNone(migration.version(engine=self.engine))

    def test_upgraded_schema_takes_a_node(self):
        migration.upgrade(engine=self.engine)
        context = pool_context.get_admin_context()
        node = nodes_db.create_node(context, {
            'driver': 'fake-hardware', 'resource_class': 'baremetal',
            'provision_state': 'available', 'power_state': 'power off',
            'properties': {'cpus': 8}}, traits=['CUSTOM_A', 'CUSTOM_B'])
        found = nodes_db.get_node(context, node.uuid)
        self.assertEqual({'cpus': 8}, found.properties)
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'],
                         [t.trait for t in found.traits])
        self.assertEqual(0, found.generation)
        self.assertEqual(('default', 'Free'),
                         (found.pool, found.pool_status))
        self.assertEqual('default', pools_db.get(
            context, models.Pool, 'default').name)

    def test_existing_nodes_join_the_default_pool(self):
        migration.upgrade('d4e5f6a7b8c9', engine=self.engine)
        with self.engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO nodes (uuid, driver, created_at, generation, "
                "properties, extra, instance_info, driver_info, "
                "maintenance) VALUES ('u1', 'fake-hardware', "
                "CURRENT_TIMESTAMP, 0, '{}', '{}', '{}', '{}', false)"))
        migration.upgrade(engine=self.engine)
        with self.engine.connect() as conn:
            self.assertEqual(('default', 'Free'), tuple(conn.execute(
                sa.text("SELECT pool, pool_status FROM nodes")).one()))

    def test_allocations_keep_their_pool_in_a_column(self):
        migration.upgrade('b4c5d6e7f8a9', engine=self.engine)
        with self.engine.begin() as conn:
            for uuid, extra in (('a1', '{"pool": "lab", "k": 1}'),
                                ('a2', '{"k": 2}'), ('a3', '[]')):
                conn.execute(sa.text(
                    "INSERT INTO allocations (uuid, state, created_at, "
                    "traits, candidate_nodes, extra) VALUES (:uuid, "
                    "'error', CURRENT_TIMESTAMP, '[]', '[]', :extra)"),
                    {'uuid': uuid, 'extra': extra})
        migration.upgrade(engine=self.engine)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT uuid, pool FROM allocations ORDER BY uuid")).all()
        self.assertEqual([('a1', 'lab'), ('a2', None), ('a3', None)],
                         [tuple(r) for r in rows])


class SQLiteMigrationsTestCase(MigrationsMixin,
                               test_migrations.ModelsMigrationsSync,
                               db_fixtures.OpportunisticDBTestMixin,
                               base.BaseTestCase):
    FIXTURE = db_fixtures.SQLiteOpportunisticFixture

    def test_connections_have_pool_settings(self):
        context = pool_context.get_admin_context()
        for _ in range(2):
            with db_api.reader(context) as session:
                self.assertEqual(1, session.execute(sa.text(
                    'PRAGMA foreign_keys')).scalar())
                self.assertEqual(30000, session.execute(sa.text(
                    'PRAGMA busy_timeout')).scalar())


class PostgreSQLMigrationsTestCase(MigrationsMixin,
                                   test_migrations.ModelsMigrationsSync,
                                   db_fixtures.OpportunisticDBTestMixin,
                                   base.BaseTestCase):
    FIXTURE = db_fixtures.PostgreSQLOpportunisticFixture


class MySQLMigrationsTestCase(MigrationsMixin,
                              test_migrations.ModelsMigrationsSync,
                              db_fixtures.OpportunisticDBTestMixin,
                              base.BaseTestCase):
    FIXTURE = db_fixtures.MySQLOpportunisticFixture


class ProvisionedDatabaseTestCase(db_fixtures.PostgreSQLTestCase):
    """The fixture that other functional tests build on."""

    def test_schema_at_head_and_facade_patched(self):
        self.assertEqual(HEAD, migration.version(engine=self.engine))
        self.assertIs(self.engine, db_api.get_engine())
        self.assertEqual('postgresql', self.engine.dialect.name)


class MySQLProvisionedDatabaseTestCase(db_fixtures.MySQLTestCase):

    def test_read_committed(self):
        self.assertIs(self.engine, db_api.get_engine())
        context = pool_context.get_admin_context()
        with db_api.reader(context) as session:
            # tx_isolation on MariaDB before 11.1, transaction_isolation
            # on MySQL 8 and later MariaDB.
            levels = dict(session.execute(sa.text(
                "SHOW SESSION VARIABLES WHERE Variable_name IN "
                "('tx_isolation', 'transaction_isolation')")).all())
        self.assertTrue(levels)
        self.assertEqual({'READ-COMMITTED'}, set(levels.values()))
