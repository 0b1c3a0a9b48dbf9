"""Initial schema: nodes, node_traits, allocations, conductors.

Revision ID: c0a1b2d3e4f5
Revises:
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c0a1b2d3e4f5'
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def _timestamps():
    return [sa.Column('created_at', sa.DateTime(), nullable=False),
            sa.Column('updated_at', sa.DateTime(), nullable=True)]


def upgrade():
    op.create_table(
        'conductors',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('hostname', sa.String(255), nullable=False),
        sa.Column('online', sa.Boolean(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'))
    op.create_table(
        'nodes',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('driver', sa.String(255), nullable=False),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('properties', JSON, nullable=False),
        sa.Column('extra', JSON, nullable=False),
        sa.Column('instance_info', JSON, nullable=False),
        sa.Column('driver_info', JSON, nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=True),
        sa.Column('allocation_id', sa.Integer(), nullable=True),
        sa.Column('provision_state', sa.String(15), nullable=True),
        sa.Column('target_provision_state', sa.String(15), nullable=True),
        sa.Column('provision_updated_at', sa.DateTime(), nullable=True),
        sa.Column('power_state', sa.String(15), nullable=True),
        sa.Column('target_power_state', sa.String(15), nullable=True),
        sa.Column('maintenance', sa.Boolean(), nullable=False),
        sa.Column('maintenance_reason', sa.Text(), nullable=True),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('lessee', sa.String(255), nullable=True),
        sa.Column('reservation', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('generation', sa.Integer(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_nodes0instance_uuid'))
    op.create_index('nodes_candidate_idx', 'nodes',
                    ['resource_class', 'provision_state', 'id'])
    op.create_index('nodes_reservation_idx', 'nodes', ['reservation'])
    op.create_index('nodes_owner_idx', 'nodes', ['owner'])
    op.create_index('nodes_lessee_idx', 'nodes', ['lessee'])
    op.create_table(
        'node_traits',
        sa.Column('node_id', sa.Integer(),
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('trait', sa.String(255), primary_key=True))
    op.create_index('node_traits_trait_idx', 'node_traits', ['trait'])
    op.create_table(
        'allocations',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer(),
                  sa.ForeignKey('nodes.id', name='allocations_node_id_fkey'),
                  nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', JSON, nullable=False),
        sa.Column('candidate_nodes', JSON, nullable=False),
        sa.Column('extra', JSON, nullable=False),
        sa.Column('conductor_affinity', sa.String(255), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'))
    op.create_index('allocations_node_id_idx', 'allocations', ['node_id'])
    op.create_index('allocations_state_affinity_idx', 'allocations',
                    ['state', 'conductor_affinity'])
    with op.batch_alter_table('nodes') as batch_op:
        batch_op.create_foreign_key('nodes_allocation_id_fkey',
                                    'allocations', ['allocation_id'], ['id'])
