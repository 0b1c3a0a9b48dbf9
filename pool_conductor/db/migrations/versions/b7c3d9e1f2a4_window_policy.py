"""Operators' policy for windows: caps per project, idle reclaim and the
notice before the end.

Allocations gain when a started window was warned that it is idle and
the end its before-end notice was sent for; project_windows holds the
row each project's bookings lock.

Revision ID: b7c3d9e1f2a4
Revises: 04779ae49a58
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = 'b7c3d9e1f2a4'
down_revision = '04779ae49a58'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('allocations') as batch:
        batch.add_column(sa.Column('idle_warned_at', sa.DateTime,
                                   nullable=True))
        batch.add_column(sa.Column(
            'end_notified',
            sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'),
            nullable=True))
    op.create_table(
        'project_windows',
        sa.Column('project', sa.String(255), primary_key=True),
        sa.Column('generation', sa.Integer, nullable=False))
