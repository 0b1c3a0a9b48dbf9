"""Keep an allocation's lifespan_end to the microsecond on MariaDB.

MariaDB's DATETIME keeps whole seconds, so an allocation could end up to
a second before the end it was given. DATETIME(6) keeps microseconds, as
PostgreSQL's and SQLite's timestamps do.

Revision ID: b4c5d6e7f8a9
Revises: a3b4c5d6e7f8
Create Date: 2026-11-24
"""
from alembic import op
from sqlalchemy.dialects import mysql

revision = 'b4c5d6e7f8a9'
down_revision = 'a3b4c5d6e7f8'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == 'mysql':
        op.alter_column('allocations', 'lifespan_end',
                        type_=mysql.DATETIME(fsp=6), existing_nullable=True)
