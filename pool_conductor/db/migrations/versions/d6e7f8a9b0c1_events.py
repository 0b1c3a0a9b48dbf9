"""Events: one record of every change of state, written in the
transaction of the change, with a cursor given in commit order.

Revision ID: d6e7f8a9b0c1
Revises: c5d6e7f8a9b0
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

revision = 'd6e7f8a9b0c1'
down_revision = 'c5d6e7f8a9b0'
branch_labels = None
depends_on = None

_PRECISE = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.create_table(
        'events',
        sa.Column('id', sa.BigInteger().with_variant(sa.Integer, 'sqlite'),
                  primary_key=True, autoincrement=True),
        sa.Column('seq', sa.BigInteger, nullable=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('created_at', _PRECISE, nullable=False),
        sa.Column('object_type', sa.String(32), nullable=False),
        sa.Column('object_uuid', sa.String(36), nullable=False),
        sa.Column('object_name', sa.String(255), nullable=True),
        sa.Column('event_type', sa.String(128), nullable=False),
        sa.Column('level', sa.String(8), nullable=False),
        sa.Column('message', sa.Text, nullable=True),
        sa.Column('prev_state', sa.String(64), nullable=True),
        sa.Column('state', sa.String(64), nullable=True),
        sa.Column('request_id', sa.String(64), nullable=True),
        sa.Column('user_id', sa.String(255), nullable=True),
        sa.Column('project_id', sa.String(255), nullable=True),
        sa.Column('conductor', sa.String(255), nullable=True),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('lessee', sa.String(255), nullable=True),
        sa.Column('payload', sa.JSON().with_variant(postgresql.JSONB(),
                                                    'postgresql'),
                  nullable=False),
        sa.Column('published_at', _PRECISE, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_events0uuid'),
        sa.UniqueConstraint('seq', name='uniq_events0seq'),
    )
    op.create_index('events_object_idx', 'events',
                    ['object_type', 'object_uuid', 'seq'])
    op.create_index('events_published_idx', 'events',
                    ['published_at', 'seq'])
    op.create_index('events_created_idx', 'events', ['created_at'])
    cursors = op.create_table(
        'event_cursors',
        sa.Column('name', sa.String(32), primary_key=True),
        sa.Column('value', sa.BigInteger, nullable=False),
    )
    op.bulk_insert(cursors, [{'name': 'sequence', 'value': 0}])
