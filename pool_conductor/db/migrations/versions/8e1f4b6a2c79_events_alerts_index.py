"""Index the events of alert levels.

The operator's overview lists the newest events of levels warning, error
and critical. Without an index it read the events from the newest back
until it had found enough: every event retained when there are few
alerts, at each look at the overview. On PostgreSQL and SQLite a partial
index holds only the alerts; on MariaDB an index on (level, id).

Revision ID: 8e1f4b6a2c79
Revises: 5d2a8c4e7f13
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa

revision = '8e1f4b6a2c79'
down_revision = '5d2a8c4e7f13'
branch_labels = None
depends_on = None

# As pool_conductor.db.models.ALERTS was when this migration was written.
ALERTS = "level IN ('warning', 'error', 'critical')"


def upgrade():
    if op.get_bind().dialect.name == 'mysql':
        op.create_index('events_level_idx', 'events', ['level', 'id'])
        return
    op.create_index('events_alerts_idx', 'events', ['id'],
                    postgresql_where=sa.text(ALERTS),
                    sqlite_where=sa.text(ALERTS))
