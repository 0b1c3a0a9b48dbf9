"""Run the alembic migrations of pool."""
import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration

from pool_conductor.db import api


def _config(connection=None) -> alembic_config.Config:
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location',
                        os.path.join(os.path.dirname(__file__),
                                     'migrations'))
    if connection is not None:
        cfg.attributes['connection'] = connection
    return cfg


def _run(fn, *args, engine=None) -> None:
    engine = engine or api.get_engine()
    with engine.begin() as connection:
        fn(_config(connection), *args)


def upgrade(revision: str = 'head', engine=None) -> None:
    """Upgrade the database schema to revision."""
    _run(command.upgrade, revision or 'head', engine=engine)


def stamp(revision: str = 'head', engine=None) -> None:
    """Record revision as the schema version without running migrations."""
    _run(command.stamp, revision or 'head', engine=engine)


def version(engine=None) -> str | None:
    """The current schema revision of the database, or None."""
    engine = engine or api.get_engine()
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()
