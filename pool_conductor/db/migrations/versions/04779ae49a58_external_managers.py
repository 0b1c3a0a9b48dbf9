"""Hardware shared with external managers, and the node fault.

Nodes gain Ironic's fault (API 1.42) and the columns of a manager that
owns their hardware (the manager, the node's reference there, pool's
claim token and the observed state with its streaks); managers are a
table of their own.

Revision ID: 04779ae49a58
Revises: e14572208321
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '04779ae49a58'
down_revision = 'e14572208321'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    op.create_table(
        'external_managers',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text, nullable=True),
        sa.Column('driver', sa.String(255), nullable=False),
        sa.Column('parameters', JSONType, nullable=True),
        sa.Column('enabled', sa.Boolean, nullable=False),
        sa.Column('sync_interval', sa.Integer, nullable=True),
        sa.Column('conductor_affinity', sa.String(255), nullable=True),
        sa.Column('last_sync_at', sa.DateTime, nullable=True),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.Column('error_streak', sa.Integer, nullable=False,
                  server_default='0'),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('name', name='uniq_external_managers0name'))
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('fault', sa.String(255), nullable=True))
        for name in ('external_manager', 'external_ref', 'external_claim'):
            batch.add_column(sa.Column(name, sa.String(255), nullable=True))
        batch.add_column(sa.Column('external_state', sa.String(15),
                                   nullable=True))
        batch.add_column(sa.Column('external_observed_at', sa.DateTime,
                                   nullable=True))
        batch.add_column(sa.Column('external_state_since', sa.DateTime,
                                   nullable=True))
        batch.add_column(sa.Column('external_free_streak', sa.Integer,
                                   nullable=False, server_default='0'))
        batch.add_column(sa.Column('external_error_streak', sa.Integer,
                                   nullable=False, server_default='0'))
        batch.create_unique_constraint('uniq_nodes0external_manager0ref',
                                       ['external_manager', 'external_ref'])
    op.create_index('nodes_external_manager_idx', 'nodes',
                    ['external_manager', 'id'])
    op.create_index('nodes_fault_idx', 'nodes', ['fault'])
