"""Index the events of each object type in cursor order on SQLite.

A watcher of the event feed asks for the events of one object type after
its cursor, in cursor order. SQLite keeps no statistics: it read them by
events_object_idx, every event of the type retained, and sorted them, at
each read. An index on (object_type, seq) answers the read with one range
from the cursor on. PostgreSQL and MariaDB read the cursor's range of the
seq index already.

Revision ID: 5d2a8c4e7f13
Revises: 3b7e9d1c5a28
Create Date: 2026-11-29
"""
from alembic import op

revision = '5d2a8c4e7f13'
down_revision = '3b7e9d1c5a28'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.create_index('events_type_seq_idx', 'events', ['object_type', 'seq'])
