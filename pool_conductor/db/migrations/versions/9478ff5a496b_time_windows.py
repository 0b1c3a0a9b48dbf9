"""Allocations for a time window: start_at, the nodes' slots, margins.

An allocation gains start_at (its end is its lifespan_end); node_slots
holds the times a node is held for an allocation, half-open
[busy_from, busy_until). On PostgreSQL an exclusion constraint (btree_gist
on the node id, a range of the times) refuses two overlapping slots of a
node; MariaDB and SQLite have none, and the writer locks the node's row
and checks again in the same transaction. nodes.booked_from is the
earliest start of a node's slots, read and locked with the node by every
search for free nodes. Pools may set their own margins.

Revision ID: 9478ff5a496b
Revises: da4d5e0fdb42
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '9478ff5a496b'
down_revision = 'da4d5e0fdb42'
branch_labels = None
depends_on = None

_PRECISE = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.add_column('allocations', sa.Column('start_at', _PRECISE))
    op.add_column('nodes', sa.Column('booked_from', _PRECISE))
    op.add_column('pools', sa.Column('reservation_pre_margin', sa.Integer))
    op.add_column('pools', sa.Column('reservation_post_margin', sa.Integer))
    op.create_table(
        'node_slots',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', name='node_slots_node_id_fkey',
                                ondelete='CASCADE'), nullable=False),
        sa.Column('allocation_id', sa.Integer,
                  sa.ForeignKey('allocations.id',
                                name='node_slots_allocation_id_fkey',
                                ondelete='CASCADE')),
        sa.Column('busy_from', _PRECISE, nullable=False),
        sa.Column('busy_until', _PRECISE, nullable=False),
        sa.Column('created_at', sa.DateTime, nullable=False))
    op.create_index('node_slots_node_idx', 'node_slots',
                    ['node_id', 'busy_from'])
    op.create_index('node_slots_allocation_idx', 'node_slots',
                    ['allocation_id'])
    op.create_index('node_slots_busy_from_idx', 'node_slots', ['busy_from'])
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('CREATE EXTENSION IF NOT EXISTS btree_gist')
        op.execute(
            "ALTER TABLE node_slots ADD CONSTRAINT node_slots_no_overlap "
            "EXCLUDE USING gist (node_id WITH =, "
            "tsrange(busy_from, busy_until, '[)') WITH &&)")
