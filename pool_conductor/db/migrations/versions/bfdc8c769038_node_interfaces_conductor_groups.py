"""Record the driver interfaces, conductor group, driver internal info,
retirement, protection and automated cleaning of nodes, and the
conductor group of conductors.

Rows of nodes made before keep NULL interfaces, which read as the
configured defaults; every node and conductor starts in no group ('').

Revision ID: bfdc8c769038
Revises: e074b92826de
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'bfdc8c769038'
down_revision = 'e074b92826de'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')
INTERFACES = ('bios', 'boot', 'console', 'deploy', 'firmware', 'inspect',
              'management', 'network', 'power', 'raid', 'rescue', 'storage',
              'vendor')


def upgrade():
    for name in INTERFACES:
        op.add_column('nodes', sa.Column('%s_interface' % name,
                                         sa.String(255), nullable=True))
    op.add_column('nodes', sa.Column('conductor_group', sa.String(255),
                                     nullable=True))
    op.add_column('nodes', sa.Column('driver_internal_info', JSONType,
                                     nullable=True))
    op.add_column('nodes', sa.Column('retired', sa.Boolean,
                                     server_default=sa.false(),
                                     nullable=False))
    op.add_column('nodes', sa.Column('retired_reason', sa.Text,
                                     nullable=True))
    op.add_column('nodes', sa.Column('protected', sa.Boolean,
                                     server_default=sa.false(),
                                     nullable=False))
    op.add_column('nodes', sa.Column('protected_reason', sa.Text,
                                     nullable=True))
    op.add_column('nodes', sa.Column('automated_clean', sa.Boolean,
                                     nullable=True))
    op.add_column('conductors', sa.Column('conductor_group', sa.String(255),
                                          nullable=True))
    # Rows are written with '' (no group); the existing ones too, so
    # that a conductor of no group finds them.
    for table in ('nodes', 'conductors'):
        op.execute(sa.text("UPDATE %s SET conductor_group = ''" % table))
