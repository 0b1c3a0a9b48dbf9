"""An allocation's pool and claim resource in columns of their own; the
project whose nodes a claim may bind.

They were kept in the allocation's extra, which is the user's: a client
that wrote extra.pool chose the pool its allocation took a node from,
past the API's checks. The values recorded there are copied over; extra
is left as it was.

Revision ID: c5d6e7f8a9b0
Revises: b4c5d6e7f8a9
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = 'c5d6e7f8a9b0'
down_revision = 'b4c5d6e7f8a9'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('allocations', sa.Column('pool', sa.String(255),
                                           nullable=True))
    op.add_column('allocations', sa.Column('claim_resource', sa.Integer,
                                           nullable=True))
    op.add_column('claims', sa.Column('node_project', sa.String(255),
                                      nullable=True))
    table = sa.table('allocations', sa.column('id', sa.Integer),
                     sa.column('extra', sa.JSON().with_variant(
                         postgresql.JSONB(), 'postgresql')),
                     sa.column('claim_id', sa.Integer),
                     sa.column('pool', sa.String),
                     sa.column('claim_resource', sa.Integer))
    conn = op.get_bind()
    for row in conn.execute(sa.select(table.c.id, table.c.extra,
                                      table.c.claim_id)).all():
        extra = row.extra if isinstance(row.extra, dict) else {}
        values = {}
        if isinstance(extra.get('pool'), str):
            values['pool'] = extra['pool'][:255]
        if row.claim_id is not None and isinstance(
                extra.get('claim_resource'), int):
            values['claim_resource'] = extra['claim_resource']
        if values:
            conn.execute(sa.update(table).where(table.c.id == row.id)
                         .values(**values))
