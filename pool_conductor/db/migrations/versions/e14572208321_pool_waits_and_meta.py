"""Deadlines of pool waits, and pool metadata.

A node Building or Destroying towards a stage has until
pool_wait_deadline to reach it (the action's wait_timeout, else
[pool] default_wait_timeout); past it, the node is recorded as timed out
(pool_wait_timed_out, its pool/status "timeout"). Pools gain meta, a
free-form map of strings as Digital Rebar's Meta.

Revision ID: e14572208321
Revises: 9478ff5a496b
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'e14572208321'
down_revision = '9478ff5a496b'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    op.add_column('nodes', sa.Column('pool_wait_deadline', sa.DateTime,
                                     nullable=True))
    op.add_column('nodes', sa.Column('pool_wait_timed_out', sa.Boolean,
                                     nullable=True))
    op.create_index('nodes_pool_wait_deadline_idx', 'nodes',
                    ['pool_wait_deadline'])
    op.add_column('pools', sa.Column('meta', JSONType, nullable=True))
