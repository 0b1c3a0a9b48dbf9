"""Providers and claims: machines claimed together from providers.

Revision ID: f2a3b4c5d6e7
Revises: e1f2a3b4c5d6
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'f2a3b4c5d6e7'
down_revision = 'e1f2a3b4c5d6'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    op.create_table(
        'providers',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text, nullable=True),
        sa.Column('pool', sa.String(255), nullable=False),
        sa.Column('defaults', JSONType, nullable=True),
        sa.Column('template', JSONType, nullable=True),
        sa.Column('validation', JSONType, nullable=True),
        sa.Column('match_ignore', JSONType, nullable=True),
        sa.Column('update_filters', JSONType, nullable=True),
        sa.Column('lifespan', JSONType, nullable=True),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('name', name='uniq_providers0name'),
    )
    op.create_table(
        'claims',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('resources', JSONType, nullable=False),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.Column('lifespan_end', sa.DateTime, nullable=True),
        sa.Column('conductor_affinity', sa.String(255), nullable=True),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_claims0uuid'),
        sa.UniqueConstraint('name', name='uniq_claims0name'),
    )
    op.create_index('claims_state_affinity_idx', 'claims',
                    ['state', 'conductor_affinity'])
    op.create_index('claims_lifespan_end_idx', 'claims', ['lifespan_end'])
    op.create_index('claims_owner_idx', 'claims', ['owner'])
    with op.batch_alter_table('allocations') as batch:
        batch.add_column(sa.Column('claim_id', sa.Integer, nullable=True))
        batch.create_foreign_key('allocations_claim_id_fkey', 'claims',
                                 ['claim_id'], ['id'])
        batch.create_index('ix_allocations_claim_id', ['claim_id'])
