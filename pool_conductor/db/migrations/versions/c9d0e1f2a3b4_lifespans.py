"""Lifespans: a pool's lifespan policy and an allocation's end.

Revision ID: c9d0e1f2a3b4
Revises: b8c9d0e1f2a3
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c9d0e1f2a3b4'
down_revision = 'b8c9d0e1f2a3'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    op.add_column('pools', sa.Column('lifespan', JSONType, nullable=True))
    op.add_column('allocations', sa.Column('lifespan_end', sa.DateTime,
                                           nullable=True))
    op.create_index('allocations_lifespan_end_idx', 'allocations',
                    ['lifespan_end'])
