"""Index nodes by provision state, power state and maintenance.

The fleet counts (GET /v1/fleet, the dashboard, /metrics) group every
node by these three columns; with no index that holds them, each count
read every row of the nodes table. The new index replaces
nodes_provision_state_idx and keeps its use: the conductors' search for
nodes in a provision state in progress.

Revision ID: 2f6c9e1b7d34
Revises: 8e1f4b6a2c79
Create Date: 2026-11-29
"""
from alembic import op

revision = '2f6c9e1b7d34'
down_revision = '8e1f4b6a2c79'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('nodes_states_idx', 'nodes',
                    ['provision_state', 'power_state', 'maintenance'])
    op.drop_index('nodes_provision_state_idx', table_name='nodes')
