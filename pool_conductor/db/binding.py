"""Statements of the node/allocation binding and of pool membership.

Only pool_conductor.binding calls the writes here: it decides what
changes, these statements write it.
"""
from collections.abc import Iterable

import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_ALLOCATIONS = models.Allocation.__table__
_POOLS = models.Pool.__table__

# A node an allocation may take (it must also be in the allocation's
# pool, and have a known power state when a conductor looks for one).
NODE_IS_FREE = (
    _NODES.c.provision_state == states.AVAILABLE,
    _NODES.c.maintenance.is_(False),
    _NODES.c.instance_uuid.is_(None),
    _NODES.c.allocation_id.is_(None),
    # A node locked by a conductor is busy with an operation.
    _NODES.c.reservation.is_(None),
    # Pool members joining, leaving, being built, destroyed or held are
    # not free.
    _NODES.c.pool_status == states.POOL_FREE,
)

# What the binding reads of a node.
NODE_COLUMNS = tuple(_NODES.c[name] for name in (
    'id', 'uuid', 'name', 'generation', 'provision_state', 'power_state',
    'maintenance', 'reservation', 'instance_uuid', 'allocation_id',
    'instance_info', 'resource_class', 'pool', 'pool_status',
    'pool_allocated', 'pool_wait_stage', 'pool_destination', 'params',
    'profiles', 'workflow', 'stage', 'runnable', 'stage_updated_at'))

_LOCK_NODES = sa.select(*NODE_COLUMNS).where(
    _NODES.c.id.in_(sa.bindparam('ids', expanding=True))
).order_by(_NODES.c.id).with_for_update()


def lock_nodes(conn, ids: Iterable[int]) -> list[sa.Row]:
    """Nodes by id, locked until the transaction ends, in id order (the
    order every writer locks nodes in)."""
    return conn.execute(_LOCK_NODES, {'ids': list(ids)}).all()


def _value(column: sa.Column, changes: dict[int, dict]):
    """One column's new values: a plain value when every node gets the
    same one, else a CASE on the node id."""
    name = column.key
    values = {node_id: c[name] for node_id, c in changes.items()
              if name in c}
    distinct = {repr(v) for v in values.values()}
    if len(values) == len(changes) and len(distinct) == 1:
        return next(iter(values.values()))
    return sa.case({node_id: sa.literal(v, column.type)
                    for node_id, v in values.items()},
                   value=_NODES.c.id, else_=column)


def update_nodes(conn, changes: dict[int, dict], *where,
                 generations: dict[int, int] | None = None) -> int:
    """Write the changed fields of several nodes in one statement.

    :param changes: node id -> the fields to change.
    :param where: conditions every node must meet (a compare-and-swap).
    :param generations: node id -> the generation read: each node is
        changed only if it is still that generation.
    :returns: how many nodes were changed.
    """
    if not changes:
        return 0
    columns = {name for c in changes.values() for name in c}
    stmt = sa.update(_NODES).where(
        _NODES.c.id.in_(list(changes)), *where).values(
        {name: _value(_NODES.c[name], changes) for name in columns}
        | {'generation': _NODES.c.generation + 1,
           'updated_at': api.utcnow()})
    if generations is not None:
        stmt = stmt.where(sa.or_(*(
            sa.and_(_NODES.c.id == node_id,
                    _NODES.c.generation == generations[node_id])
            for node_id in changes)))
    return conn.execute(stmt).rowcount


def insert_allocations(conn, rows: list[dict]) -> list[int]:
    """Insert active allocations (each with its uuid); their ids, in the
    order of rows."""
    if not rows:
        return []
    now = api.utcnow()
    conn.execute(sa.insert(_ALLOCATIONS), [
        {'traits': [], 'candidate_nodes': [], 'extra': {}, 'name': None,
         'owner': None, 'state': states.ALLOCATION_ACTIVE, **row,
         'created_at': now} for row in rows])
    uuids = [row['uuid'] for row in rows]
    ids = dict(conn.execute(
        sa.select(_ALLOCATIONS.c.uuid, _ALLOCATIONS.c.id)
        .where(_ALLOCATIONS.c.uuid.in_(uuids))).all())
    return [ids[u] for u in uuids]


def activate_allocations(conn, node_of: dict[int, int], host: str) -> int:
    """Make allocating allocations of a conductor active on their nodes.

    :param node_of: allocation id -> node id.
    :returns: how many allocations were still this conductor's to
        activate.
    """
    alloc = _ALLOCATIONS.c
    return conn.execute(
        sa.update(_ALLOCATIONS)
        .where(alloc.id.in_(list(node_of)),
               alloc.state == states.ALLOCATING,
               alloc.conductor_affinity == host)
        .values(state=states.ALLOCATION_ACTIVE, last_error=None,
                node_id=sa.case(node_of, value=alloc.id),
                updated_at=api.utcnow())).rowcount


def delete_allocations(conn, ids: Iterable[int]) -> None:
    ids = [i for i in ids if i is not None]
    if ids:
        conn.execute(sa.delete(_ALLOCATIONS).where(
            _ALLOCATIONS.c.id.in_(ids)))


def pool_actions(conn, names: Iterable[str], *columns: str
                 ) -> dict[str, sa.Row]:
    """The action sets (columns) of pools by name."""
    names = sorted({n for n in names if n})
    if not names:
        return {}
    rows = conn.execute(
        sa.select(_POOLS.c.name, *(_POOLS.c[c] for c in columns))
        .where(_POOLS.c.name.in_(names))).all()
    return {r.name: r for r in rows}
