"""Index claims by state and lifespan end.

A conductor's look for claims past their lifespan (every
check_lifespans_interval) asked for those not expired yet along the
index of lifespan_end, which holds the expired claims too: they stay
until deleted, so that each look read all of them. The new index reads
the claims of each other state that are past their end, and nothing
else.

Revision ID: 5c2d8e4a9b17
Revises: 2f6c9e1b7d34
Create Date: 2026-11-29
"""
from alembic import op

revision = '5c2d8e4a9b17'
down_revision = '2f6c9e1b7d34'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('claims_state_lifespan_end_idx', 'claims',
                    ['state', 'lifespan_end'])
