"""Providers match, override and keep params; allocations record what
they set.

Providers gain match (the resource template fragment that chooses them
for a claim that names none), override (a template applied over the
claimed one when a machine is bound), resource_requires_claim (machines
are made for the claim, not taken from the pool's Free ones), on_lost
(what a claim does when a machine of the provider is lost) and
keep_params; pools gain keep_params; claims record who asked for them
(requester, which templates of overrides read); allocations record
the params and profiles they set (set_by), which their end takes off.

Revision ID: e074b92826de
Revises: 030f8f4cb150
Create Date: 2026-11-26
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'e074b92826de'
down_revision = '030f8f4cb150'
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')


def upgrade():
    with op.batch_alter_table('providers') as batch:
        batch.add_column(sa.Column('match', JSONType, nullable=True))
        batch.add_column(sa.Column('override', JSONType, nullable=True))
        batch.add_column(sa.Column('resource_requires_claim', sa.Boolean(),
                                   nullable=True))
        batch.add_column(sa.Column('on_lost', sa.String(15),
                                   nullable=True))
        batch.add_column(sa.Column('keep_params', sa.Boolean(),
                                   nullable=True))
    with op.batch_alter_table('pools') as batch:
        batch.add_column(sa.Column('keep_params', sa.Boolean(),
                                   nullable=True))
    with op.batch_alter_table('claims') as batch:
        batch.add_column(sa.Column('requester', JSONType, nullable=True))
    with op.batch_alter_table('allocations') as batch:
        batch.add_column(sa.Column('set_by', JSONType, nullable=True))
