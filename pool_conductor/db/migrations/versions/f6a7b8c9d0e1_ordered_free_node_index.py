"""Index the free nodes of a resource class in id order on PostgreSQL.

The candidate search asks for free nodes of a class from a random id on,
in id order, and stops at the first it can lock. An index on
(resource_class, provision_state, instance_uuid, id) gives that order on
MariaDB/MySQL, which counts ``instance_uuid IS NULL`` as an equality;
PostgreSQL does not, so it sorted every candidate past the start or
scanned the table. There (and on SQLite) the index becomes a partial
index of the nodes without an instance on (resource_class,
provision_state, id): a range of it is in id order, and it holds free
nodes only.

Revision ID: f6a7b8c9d0e1
Revises: e5f6a7b8c9d0
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = 'f6a7b8c9d0e1'
down_revision = 'e5f6a7b8c9d0'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name not in ('postgresql', 'sqlite'):
        return
    free = sa.text('instance_uuid IS NULL')
    op.create_index('nodes_free_class_idx', 'nodes',
                    ['resource_class', 'provision_state', 'id'],
                    postgresql_where=free, sqlite_where=free)
    op.drop_index('nodes_free_candidate_idx', table_name='nodes')
