"""Index nodes by provision state.

Conductors look for nodes in a provision state in progress (deploying,
deleting, cleaning) in every provisioning check; without an index that is
a scan of every node.

Revision ID: a3b4c5d6e7f8
Revises: f2a3b4c5d6e7
Create Date: 2026-11-24
"""
from alembic import op

revision = 'a3b4c5d6e7f8'
down_revision = 'f2a3b4c5d6e7'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('nodes_provision_state_idx', 'nodes',
                    ['provision_state'])
