"""Partial indexes of the events still to sequence and to publish, on
PostgreSQL and SQLite.

The sequencer looks for events without a cursor, and the publisher for
sequenced events not yet published, several times a second. With the
full indexes, a planner whose statistics were taken in a burst of events
read every event at each look. The partial indexes hold only the rows
still to do (and, on PostgreSQL, the entries of dead row versions until
an index scan marks them). MariaDB keeps events_published_idx.

Revision ID: 3b7e9d1c5a28
Revises: 8d4f2c6a1e93
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa

revision = '3b7e9d1c5a28'
down_revision = '8d4f2c6a1e93'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name not in ('postgresql', 'sqlite'):
        return
    unsequenced = sa.text('seq IS NULL')
    unpublished = sa.text('published_at IS NULL')
    op.create_index('events_unsequenced_idx', 'events', ['id'],
                    postgresql_where=unsequenced, sqlite_where=unsequenced)
    op.create_index('events_unpublished_idx', 'events', ['seq'],
                    postgresql_where=unpublished, sqlite_where=unpublished)
    op.drop_index('events_published_idx', table_name='events')
