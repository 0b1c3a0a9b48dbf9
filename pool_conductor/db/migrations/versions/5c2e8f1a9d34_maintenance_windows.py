"""Maintenance windows: slots of a node that hold no allocation.

A slot gains its purpose (workload for an allocation's window,
maintenance for a maintenance window of its node) and, for a maintenance
window, a uuid, the reason the node's maintenance will carry and a state
(scheduled, waiting, active). The exclusion constraint of node_slots on
PostgreSQL covers both purposes.

Revision ID: 5c2e8f1a9d34
Revises: b7c1d2e3f4a5
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '5c2e8f1a9d34'
down_revision = 'b7c1d2e3f4a5'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('node_slots', sa.Column(
        'purpose', sa.String(16), nullable=False,
        server_default='workload'))
    op.add_column('node_slots', sa.Column('uuid', sa.String(36)))
    op.add_column('node_slots', sa.Column('reason', sa.Text))
    op.add_column('node_slots', sa.Column('state', sa.String(16)))
    op.create_index('node_slots_uuid_idx', 'node_slots', ['uuid'],
                    unique=True)
    op.create_index('node_slots_purpose_idx', 'node_slots',
                    ['purpose', 'busy_from'])
