"""Index the free nodes of a pool and a resource class on SQLite.

The candidate search of an allocation asks for the free nodes of its pool
and resource class from a random id on, in id order. On SQLite one
partial index of the nodes without an instance on (pool, resource_class,
provision_state, id) answers it with one range, for the default pool and
the others alike, at any fleet size.

Revision ID: e7f8a9b0c1d2
Revises: d6e7f8a9b0c1
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = 'e7f8a9b0c1d2'
down_revision = 'd6e7f8a9b0c1'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.create_index('nodes_free_pool_class_idx', 'nodes',
                    ['pool', 'resource_class', 'provision_state', 'id'],
                    sqlite_where=sa.text('instance_uuid IS NULL'))
