"""Alembic environment of pool."""
from alembic import context

from pool_conductor.db import api
from pool_conductor.db import models


def run_migrations_online():
    engine = context.config.attributes.get('connection')
    if engine is not None:
        _run(engine)
        return
    with api.get_engine().connect() as connection:
        _run(connection)


def _run(connection):
    context.configure(connection=connection,
                      target_metadata=models.Base.metadata,
                      render_as_batch=connection.dialect.name == 'sqlite')
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
