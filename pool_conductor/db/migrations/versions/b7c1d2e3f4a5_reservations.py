"""Reservations: windowed allocations of several nodes booked together.

A reservation is a table of its own (its count, window and request);
allocations name the reservation they are a member of.

Revision ID: b7c1d2e3f4a5
Revises: 46c306b8e89b
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

revision = 'b7c1d2e3f4a5'
down_revision = '46c306b8e89b'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')
PreciseDateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.create_table(
        'reservations',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('pool', sa.String(255), nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', JSONType, nullable=False),
        sa.Column('candidate_nodes', JSONType, nullable=False),
        sa.Column('extra', JSONType, nullable=False),
        sa.Column('count_min', sa.Integer, nullable=False),
        sa.Column('count_max', sa.Integer, nullable=False),
        sa.Column('start_at', PreciseDateTime, nullable=False),
        sa.Column('end_at', PreciseDateTime, nullable=False),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_reservations0uuid'),
        sa.UniqueConstraint('name', name='uniq_reservations0name'))
    op.create_index('reservations_owner_idx', 'reservations', ['owner'])
    with op.batch_alter_table('allocations') as batch:
        batch.add_column(sa.Column('reservation_id', sa.Integer,
                                   nullable=True))
        batch.create_foreign_key('allocations_reservation_id_fkey',
                                 'reservations', ['reservation_id'], ['id'])
        batch.create_index('ix_allocations_reservation_id',
                           ['reservation_id'])
