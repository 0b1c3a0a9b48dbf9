"""A scheduled allocation that lost its node and found no other.

Allocations gain missing_resources: a windowed allocation whose node was
lost before its window began (deleted, removed from its pool, failed
cleaning, put into maintenance, taken by an external manager) and for
which no other node was free keeps its window without a node, flagged,
until a node is free for it or its window begins.

Revision ID: 46c306b8e89b
Revises: b7c3d9e1f2a4
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '46c306b8e89b'
down_revision = 'b7c3d9e1f2a4'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('allocations', sa.Column(
        'missing_resources', sa.Boolean, nullable=False,
        server_default=sa.false()))
