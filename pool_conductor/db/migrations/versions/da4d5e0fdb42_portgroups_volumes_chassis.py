"""Add port groups, volume connectors and targets, and chassis, as Ironic
has them: ports join port groups, nodes join chassis.

Revision ID: da4d5e0fdb42
Revises: bfdc8c769038
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'da4d5e0fdb42'
down_revision = 'bfdc8c769038'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def _common():
    return [sa.Column('created_at', sa.DateTime, nullable=False),
            sa.Column('updated_at', sa.DateTime, nullable=True),
            sa.Column('id', sa.Integer, primary_key=True),
            sa.Column('uuid', sa.String(36), nullable=False)]


def _node_id(table):
    return sa.Column('node_id', sa.Integer,
                     sa.ForeignKey('nodes.id', name='%s_node_id_fkey' % table),
                     nullable=False)


def _add_reference(table, column, target, fk_name):
    """Add a nullable column referring to target's id."""
    if op.get_bind().dialect.name == 'sqlite':
        # SQLite cannot add a constraint to a table, only a column with a
        # reference; a batch copy of nodes would trip over (or cascade to)
        # the rows that refer to it.
        op.execute('ALTER TABLE %s ADD COLUMN %s INTEGER REFERENCES %s (id)'
                   % (table, column, target))
    else:
        op.add_column(table, sa.Column(column, sa.Integer, nullable=True))
        op.create_foreign_key(fk_name, table, target, [column], ['id'])
    op.create_index('%s_%s_idx' % (table, column), table, [column])


def upgrade():
    op.create_table(
        'portgroups', *_common(),
        sa.Column('name', sa.String(255), nullable=True),
        _node_id('portgroups'),
        sa.Column('address', sa.String(18), nullable=True),
        sa.Column('extra', JSONType, nullable=False),
        sa.Column('internal_info', JSONType, nullable=False),
        sa.Column('standalone_ports_supported', sa.Boolean, nullable=False),
        sa.Column('mode', sa.String(255), nullable=True),
        sa.Column('properties', JSONType, nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'))
    op.create_index('portgroups_node_id_idx', 'portgroups', ['node_id'])
    _add_reference('ports', 'portgroup_id', 'portgroups',
                   'ports_portgroup_id_fkey')

    op.create_table(
        'chassis', *_common(),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('extra', JSONType, nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'))
    _add_reference('nodes', 'chassis_id', 'chassis', 'nodes_chassis_id_fkey')

    op.create_table(
        'volume_connectors', *_common(),
        _node_id('volume_connectors'),
        sa.Column('type', sa.String(32), nullable=False),
        sa.Column('connector_id', sa.String(255), nullable=False),
        sa.Column('extra', JSONType, nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volumeconnectors0type0connector_id'))
    op.create_index('volume_connectors_node_id_idx', 'volume_connectors',
                    ['node_id'])
    op.create_table(
        'volume_targets', *_common(),
        _node_id('volume_targets'),
        sa.Column('volume_type', sa.String(64), nullable=False),
        sa.Column('properties', JSONType, nullable=False),
        sa.Column('boot_index', sa.Integer, nullable=False),
        sa.Column('volume_id', sa.String(36), nullable=False),
        sa.Column('extra', JSONType, nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint('node_id', 'boot_index',
                            name='uniq_volumetargets0node_id0boot_index'))
    op.create_index('volume_targets_volume_id_idx', 'volume_targets',
                    ['volume_id'])
