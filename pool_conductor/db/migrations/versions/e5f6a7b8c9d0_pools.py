"""Pools, profiles and workflows; the pool fields of nodes.

Every node is in a pool: existing nodes join the default pool, which this
migration creates, as Free members.

Revision ID: e5f6a7b8c9d0
Revises: d4e5f6a7b8c9
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'e5f6a7b8c9d0'
down_revision = 'd4e5f6a7b8c9'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def _named_table(name: str, *columns) -> sa.Table:
    return op.create_table(
        name,
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text),
        *columns,
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime),
        sa.UniqueConstraint('name', name='uniq_%s0name' % name))


def upgrade():
    pools = _named_table(
        'pools',
        sa.Column('documentation', sa.Text),
        sa.Column('parent_pool', sa.String(255)),
        *[sa.Column('%s_actions' % kind, JSONType)
          for kind in ('enter', 'allocate', 'release', 'exit')])
    _named_table('profiles', sa.Column('params', JSONType))
    _named_table('workflows', sa.Column('stages', JSONType))
    op.execute(pools.insert().values(
        name='default', description='The pool every node starts in.',
        created_at=sa.func.now()))

    if op.get_bind().dialect.name == 'sqlite':
        # SQLite cannot add a constraint to a table, only a column with a
        # reference and no default; a batch copy of nodes would trip over
        # (or cascade to) the rows that refer to it.
        op.execute('ALTER TABLE nodes ADD COLUMN pool VARCHAR(255) '
                   'REFERENCES pools (name)')
    else:
        op.add_column('nodes', sa.Column('pool', sa.String(255)))
        op.create_foreign_key('nodes_pool_fkey', 'nodes', 'pools',
                              ['pool'], ['name'])
    op.add_column('nodes', sa.Column('pool_status', sa.String(15)))
    op.execute("UPDATE nodes SET pool = 'default', pool_status = 'Free'")
    op.add_column('nodes', sa.Column('pool_allocated', sa.Boolean))
    op.add_column('nodes', sa.Column('params', JSONType))
    op.add_column('nodes', sa.Column('profiles', JSONType))
    op.add_column('nodes', sa.Column('workflow', sa.String(255)))
    op.add_column('nodes', sa.Column('stage', sa.String(255)))
    op.add_column('nodes', sa.Column('runnable', sa.Boolean))
    op.add_column('nodes', sa.Column('pool_wait_stage', sa.String(255)))
    op.add_column('nodes', sa.Column('pool_conductor_affinity',
                                     sa.String(255)))
    op.add_column('nodes', sa.Column('stage_updated_at', sa.DateTime))
    op.create_index('nodes_pool_status_idx', 'nodes',
                    ['pool', 'pool_status', 'id'])
    op.create_index('nodes_pool_conductor_idx', 'nodes',
                    ['pool_status', 'pool_conductor_affinity'])
