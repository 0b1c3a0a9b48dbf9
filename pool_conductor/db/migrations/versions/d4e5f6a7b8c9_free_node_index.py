"""Index the free nodes of a resource class for the candidate search.

A node keeps provision state ``available`` while an allocation holds it,
so an index on (resource_class, provision_state, id) made every search
for a free node scan past all the allocated ones. With instance_uuid in
the index, the search is a range scan over free nodes only. The index of
node locks only covers locked nodes (where the backend has partial
indexes), so that a planner without statistics does not take it for a
way to find unlocked ones.

Revision ID: d4e5f6a7b8c9
Revises: c0a1b2d3e4f5
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = 'd4e5f6a7b8c9'
down_revision = 'c0a1b2d3e4f5'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('nodes_free_candidate_idx', 'nodes',
                    ['resource_class', 'provision_state', 'instance_uuid',
                     'id'])
    op.drop_index('nodes_candidate_idx', table_name='nodes')
    op.drop_index('nodes_reservation_idx', table_name='nodes')
    locked = sa.text('reservation IS NOT NULL')
    op.create_index('nodes_reservation_idx', 'nodes', ['reservation'],
                    postgresql_where=locked, sqlite_where=locked)
