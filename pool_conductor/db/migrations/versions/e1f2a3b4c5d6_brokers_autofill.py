"""Brokers, and pools that keep themselves filled.

Revision ID: e1f2a3b4c5d6
Revises: d0e1f2a3b4c5
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'e1f2a3b4c5d6'
down_revision = 'd0e1f2a3b4c5'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    op.create_table(
        'brokers',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text, nullable=True),
        sa.Column('driver', sa.String(255), nullable=False),
        sa.Column('parameters', JSONType, nullable=True),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('name', name='uniq_brokers0name'))
    op.add_column('pools', sa.Column('broker', sa.String(255),
                                     nullable=True))
    op.add_column('pools', sa.Column('autofill', JSONType, nullable=True))
    op.add_column('pools', sa.Column('last_error', sa.Text, nullable=True))
    op.add_column('pools', sa.Column('autofill_conductor', sa.String(255),
                                     nullable=True))
    op.add_column('nodes', sa.Column('broker', sa.String(255),
                                     nullable=True))
    op.add_column('nodes', sa.Column('broker_ref', sa.String(255),
                                     nullable=True))
    op.add_column('nodes', sa.Column('broker_token', sa.String(64),
                                     nullable=True))
    op.create_index('nodes_broker_idx', 'nodes', ['broker'])
