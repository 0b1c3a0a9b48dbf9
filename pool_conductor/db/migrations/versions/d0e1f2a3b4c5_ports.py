"""Add ports: the network interfaces of nodes, as Ironic has them.

Revision ID: d0e1f2a3b4c5
Revises: c9d0e1f2a3b4
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'd0e1f2a3b4c5'
down_revision = 'c9d0e1f2a3b4'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    op.create_table(
        'ports',
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('address', sa.String(18), nullable=False),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', name='ports_node_id_fkey'),
                  nullable=False),
        sa.Column('pxe_enabled', sa.Boolean, nullable=False),
        sa.Column('local_link_connection', JSONType, nullable=False),
        sa.Column('physical_network', sa.String(64), nullable=True),
        sa.Column('extra', JSONType, nullable=False),
        sa.Column('internal_info', JSONType, nullable=False),
        sa.Column('is_smartnic', sa.Boolean, nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'))
    op.create_index('ports_node_id_idx', 'ports', ['node_id'])
