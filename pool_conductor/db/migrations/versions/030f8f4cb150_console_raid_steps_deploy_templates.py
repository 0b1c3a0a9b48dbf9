"""Console, RAID and step fields of nodes; deploy templates.

Revision ID: 030f8f4cb150
Revises: e7f8a9b0c1d2
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '030f8f4cb150'
down_revision = 'e7f8a9b0c1d2'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('console_enabled', sa.Boolean,
                                   nullable=True))
        batch.add_column(sa.Column('target_raid_config', JSONType,
                                   nullable=True))
        batch.add_column(sa.Column('raid_config', JSONType, nullable=True))
        batch.add_column(sa.Column('clean_step', JSONType, nullable=True))
        batch.add_column(sa.Column('deploy_step', JSONType, nullable=True))
        batch.add_column(sa.Column('provision_steps', JSONType,
                                   nullable=True))
    op.create_table(
        'deploy_templates',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('steps', JSONType, nullable=True),
        sa.Column('extra', JSONType, nullable=True),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.Column('created_at', sa.DateTime, nullable=False),
        sa.Column('updated_at', sa.DateTime, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_deploy_templates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploy_templates0name'),
    )
