"""Record where a leaving node goes.

A node whose pool's exit actions wait for a stage is Leaving (or
HoldLeave) in its old pool until it reaches that stage; then it lands in
the pool it was sent to, which pool_destination names meanwhile.

Revision ID: a7b8c9d0e1f2
Revises: f6a7b8c9d0e1
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = 'a7b8c9d0e1f2'
down_revision = 'f6a7b8c9d0e1'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('nodes', sa.Column('pool_destination', sa.String(255),
                                     nullable=True))
