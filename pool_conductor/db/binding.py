"""Statements of the node/allocation binding and of pool membership.

Only pool_conductor.binding calls the writes here: it decides what
changes, these statements write it.
"""
from collections.abc import Iterable
import functools

import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_ALLOCATIONS = models.Allocation.__table__
_POOLS = models.Pool.__table__

# Free nodes have no instance (free_nodes tells SQLite's planner that
# most nodes meet it).
NODE_IS_FREE_INSTANCE = _NODES.c.instance_uuid.is_(None)
# A node an allocation may take (it must also be in the allocation's
# pool, and have a known power state when a conductor looks for one).
NODE_IS_FREE = (
    _NODES.c.provision_state == states.AVAILABLE,
    _NODES.c.maintenance.is_(False),
    NODE_IS_FREE_INSTANCE,
    _NODES.c.allocation_id.is_(None),
    # A node locked by a conductor is busy with an operation.
    _NODES.c.reservation.is_(None),
    # Pool members joining, leaving, being built, destroyed or held are
    # not free.
    _NODES.c.pool_status == states.POOL_FREE,
)

# The columns of the binding and of pool membership, which only these
# statements write.
BINDING_COLUMNS = frozenset((
    'instance_uuid', 'allocation_id', 'pool', 'pool_status',
    'pool_allocated', 'pool_wait_stage', 'pool_destination',
    'pool_wait_deadline', 'pool_wait_timed_out'))

# What the binding reads of a node: what it decides on, and the fields of
# the node's events (Ironic's NodePayload, its interfaces included).
NODE_COLUMNS = tuple(_NODES.c[name] for name in (
    'id', 'uuid', 'name', 'generation', 'provision_state',
    'target_provision_state', 'power_state',
    'maintenance', 'reservation', 'instance_uuid', 'allocation_id',
    'owner', 'lessee', 'booked_from',
    'instance_info', 'resource_class', 'pool', 'pool_status',
    'pool_allocated', 'pool_wait_stage', 'pool_destination', 'params',
    'profiles', 'workflow', 'stage', 'runnable', 'stage_updated_at',
    'console_enabled', 'clean_step', 'deploy_step', 'provision_steps',
    'target_raid_config', 'raid_config', 'retired', 'pool_wait_deadline',
    'pool_wait_timed_out', 'fault', 'external_manager', 'external_ref',
    'external_claim', 'external_state',
    'description', 'driver', 'provision_updated_at', 'target_power_state',
    'maintenance_reason', 'last_error', 'extra', 'properties', 'created_at',
    'updated_at', 'conductor_group', 'retired_reason', 'protected',
    'protected_reason')) + tuple(
        column for column in _NODES.c if column.name.endswith('_interface'))

# The allocate actions of a node's pool, read with the node by the
# searches for free nodes (a sub-select does not lock the pool's row).
ALLOCATE_ACTIONS = sa.select(_POOLS.c.allocate_actions).where(
    _POOLS.c.name == _NODES.c.pool).scalar_subquery().label(
    'allocate_actions')

_CLAIMS = models.Claim.__table__

# The UUID of the claim whose machine a node is (through its allocation),
# read with the node where it is locked: only the claim releases it.
CLAIM_UUID = sa.select(_CLAIMS.c.uuid).select_from(
    _ALLOCATIONS.join(_CLAIMS, _CLAIMS.c.id == _ALLOCATIONS.c.claim_id)
).where(_ALLOCATIONS.c.id == _NODES.c.allocation_id).scalar_subquery(
).label('claim_uuid')

# A node that is no claim's machine.
NOT_OF_A_CLAIM = ~sa.exists().where(
    _ALLOCATIONS.c.id == _NODES.c.allocation_id,
    _ALLOCATIONS.c.claim_id.is_not(None))

# What the allocation of a node set on it (its set_by), read with the
# node where it is locked: its end takes it off.
SET_BY = sa.select(_ALLOCATIONS.c.set_by).where(
    _ALLOCATIONS.c.id == _NODES.c.allocation_id).scalar_subquery(
).label('set_by')

_LOCK_NODES = sa.select(*NODE_COLUMNS, CLAIM_UUID, SET_BY).where(
    _NODES.c.id.in_(sa.bindparam('ids', expanding=True))
).order_by(_NODES.c.id).with_for_update()


def lock_nodes(conn, ids: Iterable[int]) -> list[sa.Row]:
    """Nodes by id, locked until the transaction ends, in id order (the
    order every writer locks nodes in)."""
    return conn.execute(_LOCK_NODES, {'ids': list(ids)}).all()


def lock_node(conn, node_id: int, columns: tuple = NODE_COLUMNS,
              skip_locked: bool = True) -> sa.Row | None:
    """One node (its columns, as the binding reads it by default),
    locked until the transaction ends; None when another transaction
    holds its lock (where the backend can skip locked rows and
    skip_locked asks to) or it is gone."""
    q = sa.select(*columns).where(_NODES.c.id == node_id)
    return conn.execute(q.with_for_update(
        skip_locked=skip_locked and api.backend_supports_skip_locked(conn))
    ).first()


def past_deadline(conn, now, limit: int,
                  uuids: list[str] | None = None) -> list[int]:
    """The ids of allocated nodes (of uuids, if given) waiting for a
    stage past their deadline, not yet timed out."""
    node = _NODES.c
    where = () if uuids is None else (node.uuid.in_(uuids),)
    return list(conn.execute(
        sa.select(node.id).where(
            *where,
            node.pool_wait_deadline <= now,
            node.pool_status.in_(states.POOL_WAITING),
            node.pool_allocated.is_(True),
            sa.func.coalesce(node.pool_wait_timed_out, False).is_(False))
        .order_by(node.id).limit(limit)).scalars())


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


@functools.lru_cache(maxsize=512)
def _update_statement(varying: tuple, same: tuple, count: int, free: bool,
                      generations: bool):
    """UPDATE of count nodes that all change the same columns: the
    varying ones by a CASE on the node id, the others to one value; with
    bound parameters, so that it is built once per shape."""
    node = _NODES.c
    ids = [sa.bindparam('n_%d' % i) for i in range(count)]
    values = {name: sa.bindparam('v_' + name, type_=node[name].type)
              for name in same}
    for name in varying:
        values[name] = sa.case(*(
            (node.id == ids[i],
             sa.bindparam('c_%s_%d' % (name, i), type_=node[name].type))
            for i in range(count)), else_=node[name])
    values.update(generation=node.generation + 1,
                  updated_at=sa.bindparam('b_now'))
    stmt = sa.update(_NODES).where(node.id.in_(ids)).values(values)
    if free:
        stmt = stmt.where(*NODE_IS_FREE)
    if generations:
        stmt = stmt.where(sa.or_(*(
            sa.and_(node.id == ids[i],
                    node.generation == sa.bindparam('g_%d' % i))
            for i in range(count))))
    return stmt


def update_nodes(conn, changes: dict[int, dict], free: bool = False,
                 generations: dict[int, int] | None = None) -> int:
    """Write the changed fields of several nodes in one statement.

    :param changes: node id -> the fields to change.
    :param free: change only nodes that are still free (NODE_IS_FREE).
    :param generations: node id -> the generation read: each node is
        changed only if it is still that generation.
    :returns: how many nodes were changed (a compare-and-swap).
    """
    if not changes:
        return 0
    columns = {name for c in changes.values() for name in c}
    if all(len(c) == len(columns) for c in changes.values()):
        # The common shape: one prebuilt statement per column set.
        rows = list(changes.values())
        same = tuple(sorted(n for n in columns
                            if all(r[n] == rows[0][n] for r in rows)))
        varying = tuple(sorted(columns.difference(same)))
        params = {'b_now': api.utcnow()}
        params.update(('v_' + n, rows[0][n]) for n in same)
        for i, (node_id, row) in enumerate(changes.items()):
            params['n_%d' % i] = node_id
            params.update(('c_%s_%d' % (n, i), row[n]) for n in varying)
            if generations is not None:
                params['g_%d' % i] = generations[node_id]
        return conn.execute(_update_statement(
            varying, same, len(changes), free, generations is not None),
            params).rowcount
    stmt = sa.update(_NODES).where(_NODES.c.id.in_(list(changes))).values(
        {name: _value(_NODES.c[name], changes) for name in columns}
        | {'generation': _NODES.c.generation + 1,
           'updated_at': api.utcnow()})
    if free:
        stmt = stmt.where(*NODE_IS_FREE)
    if generations is not None:
        stmt = stmt.where(sa.or_(*(
            sa.and_(_NODES.c.id == node_id,
                    _NODES.c.generation == generations[node_id])
            for node_id in changes)))
    return conn.execute(stmt).rowcount


def move_node(conn, node: sa.Row, host: str, values: dict) -> bool:
    """Change a node a conductor drives: its stage, runnable, last_error
    and the pool fields that report changes.

    A compare-and-swap on the node's pool status and stage as read and on
    the conductor still driving it, so two conductors never both move a
    node, nor one a node that a report or a return changed meanwhile.

    :param node: the node as db.workflows.list_driven_nodes() read it.
    :param values: the fields to change.
    :returns: whether the node was changed.
    """
    now = api.utcnow()
    update = {**values, 'updated_at': now,
              'generation': _NODES.c.generation + 1}
    if values.get('stage', node.stage) != node.stage:
        update['stage_updated_at'] = now
    stage = _NODES.c.stage
    return conn.execute(
        sa.update(_NODES).where(
            _NODES.c.id == node.id,
            _NODES.c.pool_status == node.pool_status,
            stage.is_(None) if node.stage is None else stage == node.stage,
            _NODES.c.pool_conductor_affinity == host)
        .values(**update)).rowcount == 1


def insert_nodes(conn, rows: list[dict]) -> list[int]:
    """Insert nodes (each with its uuid and pool); their ids, in the
    order of rows."""
    now = api.utcnow()
    conn.execute(sa.insert(_NODES), [{**row, 'created_at': now}
                                     for row in rows])
    uuids = [row['uuid'] for row in rows]
    ids = dict(conn.execute(sa.select(_NODES.c.uuid, _NODES.c.id).where(
        _NODES.c.uuid.in_(uuids))).all())
    return [ids[u] for u in uuids]



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


@functools.lru_cache(maxsize=128)
def _activate_statement(count: int):
    alloc = _ALLOCATIONS.c
    ids = [sa.bindparam('a_%d' % i) for i in range(count)]
    return sa.update(_ALLOCATIONS).where(
        alloc.id.in_(ids), alloc.state == states.ALLOCATING,
        alloc.conductor_affinity == sa.bindparam('host'),
    ).values(state=states.ALLOCATION_ACTIVE, last_error=None,
             node_id=sa.case(*((alloc.id == ids[i],
                                sa.bindparam('a_node_%d' % i))
                               for i in range(count))),
             updated_at=sa.bindparam('now'))


def activate_allocations(conn, node_of: dict[int, int], host: str) -> int:
    """Make allocating allocations of a conductor active on their nodes.

    :param node_of: allocation id -> node id.
    :returns: how many allocations were still this conductor's to
        activate.
    """
    params = {'host': host, 'now': api.utcnow()}
    for i, (alloc_id, node_id) in enumerate(node_of.items()):
        params.update({'a_%d' % i: alloc_id, 'a_node_%d' % i: node_id})
    return conn.execute(_activate_statement(len(node_of)), params).rowcount


def lose_allocations(conn, ids: Iterable[int], error: str) -> None:
    """Keep allocations whose node was lost, in error and without a
    node (a claim's lost handles)."""
    ids = [i for i in ids if i is not None]
    if ids:
        conn.execute(sa.update(_ALLOCATIONS).where(
            _ALLOCATIONS.c.id.in_(ids)).values(
            state=states.ALLOCATION_ERROR, node_id=None, last_error=error,
            updated_at=api.utcnow()))


def delete_allocations(conn, ids: Iterable[int]) -> None:
    ids = [i for i in ids if i is not None]
    if ids:
        conn.execute(sa.delete(_ALLOCATIONS).where(
            _ALLOCATIONS.c.id.in_(ids)))


@functools.lru_cache(maxsize=16)
def _pool_actions_statement(columns: tuple):
    return sa.select(_POOLS.c.name, *(_POOLS.c[c] for c in columns)).where(
        _POOLS.c.name.in_(sa.bindparam('names', expanding=True)))


def pool_actions(conn, names: Iterable[str], *columns: str
                 ) -> dict[str, sa.Row]:
    """The action sets (columns) of pools by name."""
    names = sorted({n for n in names if n})
    if not names:
        return {}
    rows = conn.execute(_pool_actions_statement(columns),
                        {'names': names}).all()
    return {r.name: r for r in rows}
