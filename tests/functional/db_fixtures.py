"""Real PostgreSQL and MariaDB/MySQL databases for functional tests."""
import os
import unittest

import fixtures
from oslo_config import fixture as config_fixture
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import provision
from oslo_db.sqlalchemy import test_fixtures
from oslotest import base

from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import migration

# With POOL_TEST_REQUIRE_DB=1 (as .ci/run sets it) a backend that cannot be
# reached fails the tests that need it; otherwise they are skipped, so that
# the functional suite runs on a laptop with only one of the databases.
REQUIRE_DB = os.environ.get('POOL_TEST_REQUIRE_DB') == '1'

POSTGRESQL = 'postgresql'
MYSQL = 'mysql'


class BackendUnavailable(Exception):
    """A database backend required by POOL_TEST_REQUIRE_DB=1 is down."""


def backend_unavailable(reason: str) -> Exception:
    """The exception that skips, or with REQUIRE_DB fails, a test.

    :param reason: why the backend cannot be used.
    """
    if REQUIRE_DB:
        return BackendUnavailable(
            '%s (POOL_TEST_REQUIRE_DB=1: the opportunistic databases must '
            'be reachable; .ci/run creates the openstack_citest users)'
            % reason)
    return unittest.SkipTest(reason)


class ProvisionedDatabase(fixtures.Fixture):
    """A new database on a real backend, pool's schema in it, in use.

    The database has a random name and is created through oslo.db's
    provisioning as the opportunistic user ``openstack_citest`` (the URLs
    come from ``OS_TEST_DBAPI_ADMIN_CONNECTION`` when it is set). Its engine
    is made by oslo.db with pool's engine hooks
    (``pool_conductor.db.api.setup_engine_hooks``: READ COMMITTED on MySQL),
    the schema is created by the alembic migrations
    (``pool_conductor.db.migration.upgrade``), ``[database] connection`` is
    set to its URL, and ``pool_conductor.db.api.main_context_manager`` is
    patched to use it, so that every ``reader``/``writer`` transaction of
    the code under test, in any thread, runs on it. The database is dropped
    at cleanup.

    Use it directly::

        class MyTest(oslotest.base.BaseTestCase):
            def setUp(self):
                super().setUp()
                self.db = self.useFixture(
                    db_fixtures.ProvisionedDatabase(db_fixtures.POSTGRESQL))
                # self.db.engine, self.db.url

    or through :class:`PostgreSQLTestCase` and :class:`MySQLTestCase`, with
    the tests in a mixin run on both::

        class RaceMixin:
            def test_no_double_allocation(self): ...

        class PostgreSQLRaceTestCase(RaceMixin,
                                     db_fixtures.PostgreSQLTestCase):
            pass

        class MySQLRaceTestCase(RaceMixin, db_fixtures.MySQLTestCase):
            pass

    When the backend cannot be reached the test is skipped, or fails with
    :class:`BackendUnavailable` when ``POOL_TEST_REQUIRE_DB=1``.

    :param backend: ``'postgresql'`` or ``'mysql'`` (MariaDB).
    :param schema: create the schema with the migrations; False leaves the
        database empty.
    """

    def __init__(self, backend: str, schema: bool = True):
        super().__init__()
        self.backend = backend
        self.schema = schema

    def _setUp(self):
        try:
            resource = provision.DatabaseResource(
                self.backend, db_api.main_context_manager,
                provision_new_database=True)
            database = resource.getResource()
        except db_exc.BackendNotAvailable as exc:
            raise backend_unavailable(str(exc)) from None
        self.addCleanup(resource.finishedWith, database)
        self.name = database.db_token
        self.engine = database.engine
        self.addCleanup(self.engine.dispose)
        self.url = self.engine.url.render_as_string(hide_password=False)
        if self.schema:
            migration.upgrade(engine=self.engine)
        # The facade starts its own engine once before it can be patched.
        self.useFixture(config_fixture.Config(CONF)).config(
            connection=self.url, group='database')
        self.addCleanup(db_api.main_context_manager.patch_engine(self.engine))


class _DatabaseTestCase(base.BaseTestCase):
    """A test on its own new database of BACKEND, with pool's schema."""

    BACKEND: str

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(config_fixture.Config(CONF)).config
        self.config(host='test-host', transport_url='fake://')
        try:
            self.db = self.useFixture(ProvisionedDatabase(self.BACKEND))
        except fixtures.SetupError as exc:
            # A skip inside a fixture's setUp arrives wrapped.
            if isinstance(exc.__context__, unittest.SkipTest):
                raise exc.__context__ from None
            raise
        self.engine = self.db.engine


class PostgreSQLTestCase(_DatabaseTestCase):
    """A test on a new PostgreSQL database; see ProvisionedDatabase."""

    BACKEND = POSTGRESQL


class MySQLTestCase(_DatabaseTestCase):
    """A test on a new MariaDB/MySQL database; see ProvisionedDatabase."""

    BACKEND = MYSQL


# oslo.db's opportunistic fixtures, bound to pool's transaction context
# manager, for tests built on test_fixtures.OpportunisticDBTestMixin (they
# provide an empty database; the test creates the schema).

class _PoolFacade:
    def get_enginefacade(self):
        return db_api.main_context_manager


class SQLiteOpportunisticFixture(_PoolFacade,
                                 test_fixtures.OpportunisticDbFixture):
    DRIVER = 'sqlite'


class PostgreSQLOpportunisticFixture(
        _PoolFacade, test_fixtures.PostgresqlOpportunisticFixture):
    pass


class MySQLOpportunisticFixture(_PoolFacade,
                                test_fixtures.MySQLOpportunisticFixture):
    pass


class OpportunisticDBTestMixin(test_fixtures.OpportunisticDBTestMixin):
    """oslo.db's mixin, failing instead of skipping under REQUIRE_DB.

    Set FIXTURE to one of the fixtures above.
    """

    SKIP_ON_UNAVAILABLE_DB = not REQUIRE_DB
