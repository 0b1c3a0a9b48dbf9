"""Base test case: configuration, and a fresh SQLite database per test."""
import functools
import os
import tempfile

import fixtures
from oslo_config import fixture as config_fixture
from oslo_db.sqlalchemy import engines
from oslotest import base
import sqlalchemy as sa

from pool_api import app as pool_app
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor import events
from pool_conductor.db import api as db_api
from pool_conductor.db import models


class Database(fixtures.Fixture):
    """A schema on a database URL, patched into the engine facade.

    With no URL, a new SQLite file in a temporary directory.
    """

    def __init__(self, url: str | None = None):
        super().__init__()
        self.url = url

    def _setUp(self):
        url = self.url
        if url is None:
            tmp = self.useFixture(fixtures.TempDir()).path
            path = os.path.join(tmp, 'pool.sqlite')
            # The schema is written from a copy made once (creating it
            # took some 20 ms of every test).
            with open(path, 'wb') as f:
                f.write(_sqlite_schema())
            url = 'sqlite:///' + path
        # The facade starts its own engine once before it can be patched.
        self.useFixture(config_fixture.Config(CONF)).config(
            connection=url, group='database')
        # oslo.db's engine translates errors (DBDuplicateEntry, ...).
        self.engine = engines.create_engine(url)
        db_api.setup_engine_hooks(self.engine)
        if self.url is not None:
            models.Base.metadata.create_all(self.engine)
        self.addCleanup(self.engine.dispose)
        self.addCleanup(db_api.main_context_manager.patch_engine(self.engine))


@functools.cache
def _sqlite_schema() -> bytes:
    """A SQLite database file with pool's schema, made once per process."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'pool.sqlite')
        engine = sa.create_engine('sqlite:///' + path)
        models.Base.metadata.create_all(engine)
        engine.dispose()
        with open(path, 'rb') as f:
            return f.read()


def statements(engine, call) -> list[tuple]:
    """(statement, parameters) of what call() sent to the database."""
    found = []

    def record(conn, cursor, statement, params, *args):
        found.append((statement, params))
    sa.event.listen(engine, 'before_cursor_execute', record)
    try:
        call()
    finally:
        sa.event.remove(engine, 'before_cursor_execute', record)
    return found


class TestCase(base.BaseTestCase):
    """A test with its own configuration and SQLite database."""

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(config_fixture.Config(CONF)).config
        # oslo.policy looks its files up through the parsed configuration;
        # the fixture clears it after each test.
        CONF([], project='pool', default_config_files=[],
             default_config_dirs=[])
        self.config(host='test-host', transport_url='fake://',
                    auth_strategy='noauth')
        self.db = self.useFixture(Database())
        self.context = pool_context.get_admin_context()
        # The last cursor this process saw is of the previous test's
        # database.
        self.patch(events, '_last_seen', 0)

    def create_node(self, **values):
        from pool_conductor.db import nodes as nodes_db
        traits = values.pop('traits', ())
        values.setdefault('driver', 'fake-hardware')
        values.setdefault('resource_class', 'baremetal')
        values.setdefault('provision_state', 'available')
        values.setdefault('power_state', 'power off')
        return nodes_db.create_node(self.context, values, traits=traits)


def noauth_app(test: fixtures.TestWithFixtures):
    """The API in-process without authentication, on whatever database
    the test set up."""
    # oslo.policy finds its files through the parsed configuration.
    CONF([], project='pool', default_config_files=[],
         default_config_dirs=[])
    test.useFixture(config_fixture.Config(CONF)).config(
        auth_strategy='noauth')
    return pool_app.create_app()
