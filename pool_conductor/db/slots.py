"""Queries on the times nodes are held (node_slots) for windowed
allocations and maintenance windows, and on what holds a node besides
its slots."""
import datetime

import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import models
from pool_conductor import states

_SLOTS = models.NodeSlot.__table__
_NODES = models.Node.__table__
_ALLOCATIONS = models.Allocation.__table__
_TRAITS = models.NodeTrait.__table__
_POOLS = models.Pool.__table__

# The columns of a slot the rules read, with its allocation's uuid and
# name and its node's uuid (a conflict names them).
_SLOT_COLUMNS = (_SLOTS.c.id, _SLOTS.c.node_id, _SLOTS.c.allocation_id,
                 _SLOTS.c.busy_from, _SLOTS.c.busy_until,
                 _SLOTS.c.purpose, _SLOTS.c.uuid, _SLOTS.c.reason,
                 _SLOTS.c.state, _SLOTS.c.created_at,
                 _ALLOCATIONS.c.uuid.label('allocation_uuid'),
                 _ALLOCATIONS.c.name.label('allocation_name'),
                 _NODES.c.uuid.label('node_uuid'))
_SLOT_JOIN = _SLOTS.outerjoin(
    _ALLOCATIONS, _ALLOCATIONS.c.id == _SLOTS.c.allocation_id).join(
    _NODES, _NODES.c.id == _SLOTS.c.node_id)


def overlapping(conn, node_ids, busy_from: datetime.datetime,
                busy_until: datetime.datetime | None,
                exclude_allocation: int | None = None) -> list[sa.Row]:
    """The slots of nodes that overlap [busy_from, busy_until) (to the
    end of time with None), by node and start."""
    q = sa.select(*_SLOT_COLUMNS).select_from(_SLOT_JOIN).where(
        _SLOTS.c.node_id.in_(list(node_ids)),
        _SLOTS.c.busy_until > busy_from)
    if busy_until is not None:
        q = q.where(_SLOTS.c.busy_from < busy_until)
    if exclude_allocation is not None:
        q = q.where(sa.or_(_SLOTS.c.allocation_id.is_(None),
                           _SLOTS.c.allocation_id != exclude_allocation))
    return conn.execute(q.order_by(_SLOTS.c.node_id,
                                   _SLOTS.c.busy_from)).all()


def of_nodes(conn, node_ids, after: datetime.datetime) -> list[sa.Row]:
    """The slots of nodes that end after a time, by node and start."""
    return conn.execute(
        sa.select(*_SLOT_COLUMNS).select_from(_SLOT_JOIN).where(
            _SLOTS.c.node_id.in_(list(node_ids)),
            _SLOTS.c.busy_until > after)
        .order_by(_SLOTS.c.node_id, _SLOTS.c.busy_from)).all()


def of_allocation(conn, alloc_id: int) -> sa.Row | None:
    """The slot an allocation holds, if any."""
    return conn.execute(sa.select(*_SLOT_COLUMNS).select_from(_SLOT_JOIN)
                        .where(_SLOTS.c.allocation_id == alloc_id)).first()


def of_allocations(conn, alloc_ids) -> dict[int, sa.Row]:
    """The slots of allocations, by allocation id."""
    ids = [i for i in alloc_ids if i is not None]
    if not ids:
        return {}
    rows = conn.execute(sa.select(*_SLOT_COLUMNS).select_from(_SLOT_JOIN)
                        .where(_SLOTS.c.allocation_id.in_(ids))).all()
    return {r.allocation_id: r for r in rows}


def insert(conn, node_id: int, alloc_id: int, busy_from, busy_until
           ) -> None:
    """Hold a node for an allocation (the caller checked it is free, and
    holds the node's row lock).

    :raises: DBError from the exclusion constraint on PostgreSQL for an
        overlapping slot (api.is_exclusion_violation)
    """
    conn.execute(sa.insert(_SLOTS).values(
        node_id=node_id, allocation_id=alloc_id, busy_from=busy_from,
        busy_until=busy_until, created_at=api.utcnow()))


def set_until(conn, alloc_id: int, busy_until) -> int:
    """Move the end of an allocation's slot."""
    return conn.execute(sa.update(_SLOTS).where(
        _SLOTS.c.allocation_id == alloc_id).values(
        busy_until=busy_until)).rowcount


def delete_of(conn, alloc_ids) -> list[int]:
    """Delete the slots of allocations.

    :returns: the ids of their nodes.
    """
    ids = [i for i in alloc_ids if i is not None]
    if not ids:
        return []
    nodes = list(conn.scalars(sa.select(_SLOTS.c.node_id).where(
        _SLOTS.c.allocation_id.in_(ids)).distinct()))
    if nodes:
        conn.execute(sa.delete(_SLOTS).where(
            _SLOTS.c.allocation_id.in_(ids)))
    return nodes


def drop(conn, alloc_ids) -> None:
    """Delete the slots of allocations and recompute their nodes'
    booked_from."""
    refresh_booked(conn, delete_of(conn, alloc_ids))


_EARLIEST = sa.select(sa.func.min(_SLOTS.c.busy_from)).where(
    _SLOTS.c.node_id == _NODES.c.id).scalar_subquery()


def refresh_booked(conn, node_ids) -> None:
    """Set the nodes' booked_from to the earliest start of their slots."""
    ids = sorted(set(node_ids))
    if ids:
        conn.execute(sa.update(_NODES).where(_NODES.c.id.in_(ids)).values(
            booked_from=_EARLIEST))


def bound_end(conn, alloc_id: int) -> sa.Row | None:
    """The end (lifespan_end), state and claim of the allocation that
    holds a node."""
    return conn.execute(sa.select(
        _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.name,
        _ALLOCATIONS.c.lifespan_end, _ALLOCATIONS.c.claim_id,
        _ALLOCATIONS.c.state).where(_ALLOCATIONS.c.id == alloc_id)).first()


def matching(conn, pool: str, resource_class: str | None, traits,
             owner: str | None, candidates, limit: int | None = None
             ) -> list[sa.Row]:
    """The members of a pool that match an allocation request (resource
    class, traits, candidate node uuids, owner), not in maintenance, with
    what holds each now: the id, uuid and lifespan_end of its allocation
    (bound_*), whether it is free (and its instance_uuid, provision state
    and pool status), with its pool and resource class, in id order."""
    node = _NODES.c
    free = sa.and_(*(c for c in binding_db.NODE_IS_FREE
                     if c is not binding_db.NODE_IS_FREE[4]))
    q = sa.select(
        node.id, node.uuid, node.name, node.instance_uuid,
        node.allocation_id, node.booked_from, node.pool,
        node.resource_class, node.provision_state, node.pool_status,
        free.label('free'),
        _ALLOCATIONS.c.uuid.label('bound_uuid'),
        _ALLOCATIONS.c.lifespan_end.label('bound_end'),
        _ALLOCATIONS.c.claim_id.label('bound_claim'),
    ).select_from(_NODES.outerjoin(
        _ALLOCATIONS, _ALLOCATIONS.c.id == node.allocation_id)).where(
        node.pool == pool, node.maintenance.is_(False))
    if resource_class:
        q = q.where(node.resource_class == resource_class)
    for trait in traits or ():
        q = q.where(sa.exists().where(_TRAITS.c.node_id == node.id,
                                      _TRAITS.c.trait == trait))
    if owner:
        q = q.where(sa.or_(node.owner == owner, node.lessee == owner))
    if candidates:
        q = q.where(node.uuid.in_(list(candidates)))
    return conn.execute(q.order_by(node.id).limit(limit)).all()


def margins(conn, pool: str) -> sa.Row | None:
    """A pool's own margins (None: the options'), and whether it exists."""
    return conn.execute(sa.select(
        _POOLS.c.id, _POOLS.c.lifespan, _POOLS.c.reservation_pre_margin,
        _POOLS.c.reservation_post_margin).where(_POOLS.c.name == pool)
    ).first()


def due(conn, now: datetime.datetime, limit: int) -> list[sa.Row]:
    """Scheduled allocations whose slot has begun, locked, skipping those
    other transactions lock (another conductor is starting them)."""
    q = sa.select(_ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid,
                  _ALLOCATIONS.c.name, _ALLOCATIONS.c.owner,
                  _ALLOCATIONS.c.state, _SLOTS.c.busy_from,
                  _SLOTS.c.node_id).select_from(_ALLOCATIONS.join(
                      _SLOTS, _SLOTS.c.allocation_id == _ALLOCATIONS.c.id)
    ).where(_ALLOCATIONS.c.state == states.ALLOCATION_SCHEDULED,
            _SLOTS.c.busy_from <= now).order_by(
        _SLOTS.c.busy_from).limit(limit)
    if api.backend_supports_skip_locked(conn):
        q = q.with_for_update(skip_locked=True, of=_ALLOCATIONS)
    return conn.execute(q).all()


_START = sa.update(_ALLOCATIONS).where(
    _ALLOCATIONS.c.id == sa.bindparam('alloc_id'),
    _ALLOCATIONS.c.state == states.ALLOCATION_SCHEDULED,
).values(state=states.ALLOCATING, conductor_affinity=sa.bindparam('host'),
         updated_at=sa.bindparam('now'))


def start(conn, alloc_id: int, host: str) -> bool:
    """A scheduled allocation becomes allocating on a conductor (a
    compare-and-swap on its state)."""
    return conn.execute(_START, {'alloc_id': alloc_id, 'host': host,
                                 'now': api.utcnow()}).rowcount == 1


def overlaps(conn, exclude_allocation: int | None = None) -> list[tuple]:
    """Pairs of slots of one node that overlap (none, ever): the check of
    the tests and of an operator."""
    a, b = _SLOTS.alias('a'), _SLOTS.alias('b')
    return [tuple(r) for r in conn.execute(
        sa.select(a.c.id, b.c.id, a.c.node_id).where(
            a.c.node_id == b.c.node_id, a.c.id < b.c.id,
            a.c.busy_from < b.c.busy_until,
            b.c.busy_from < a.c.busy_until))]


# Healing (pool_conductor.booking.healing) --------------------------------

# A scheduled allocation as healing reads it: the request it matches
# nodes with, its window and what its events show.
_SCHEDULED_COLUMNS = (
    _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.name,
    _ALLOCATIONS.c.state, _ALLOCATIONS.c.owner, _ALLOCATIONS.c.pool,
    _ALLOCATIONS.c.resource_class, _ALLOCATIONS.c.traits,
    _ALLOCATIONS.c.candidate_nodes, _ALLOCATIONS.c.extra,
    _ALLOCATIONS.c.start_at, _ALLOCATIONS.c.lifespan_end,
    _ALLOCATIONS.c.last_error, _ALLOCATIONS.c.missing_resources,
    _ALLOCATIONS.c.created_at, _ALLOCATIONS.c.updated_at)


def scheduled_on(conn, node_ids) -> list[sa.Row]:
    """The slots of nodes held for scheduled allocations (not started
    yet), with their allocations (_SCHEDULED_COLUMNS) and the node's
    uuid as node_uuid, by start."""
    ids = sorted(set(node_ids))
    if not ids:
        return []
    return conn.execute(sa.select(
        *_SCHEDULED_COLUMNS, _SLOTS.c.id.label('slot_id'),
        _SLOTS.c.node_id, _SLOTS.c.busy_from, _SLOTS.c.busy_until,
        _NODES.c.uuid.label('node_uuid')).select_from(
        _SLOTS.join(_ALLOCATIONS, _ALLOCATIONS.c.id == _SLOTS.c.allocation_id)
        .join(_NODES, _NODES.c.id == _SLOTS.c.node_id)).where(
        _SLOTS.c.node_id.in_(ids),
        _ALLOCATIONS.c.state == states.ALLOCATION_SCHEDULED).order_by(
        _SLOTS.c.busy_from, _SLOTS.c.id)).all()


def flagged(conn, limit: int) -> list[sa.Row]:
    """Scheduled allocations without a node (missing_resources, or no
    slot at all), the earliest start first, locked, skipping those other
    transactions lock (another conductor heals them)."""
    q = sa.select(*_SCHEDULED_COLUMNS).where(
        _ALLOCATIONS.c.state == states.ALLOCATION_SCHEDULED,
        sa.or_(_ALLOCATIONS.c.missing_resources.is_(True),
               ~sa.exists().where(
                   _SLOTS.c.allocation_id == _ALLOCATIONS.c.id))).order_by(
        _ALLOCATIONS.c.start_at, _ALLOCATIONS.c.id).limit(limit)
    if api.backend_supports_skip_locked(conn):
        q = q.with_for_update(skip_locked=True)
    return conn.execute(q).all()


def set_scheduled(conn, alloc_id: int, values: dict) -> bool:
    """Change an allocation that is still scheduled (a compare-and-swap
    on its state, which also locks its row)."""
    return conn.execute(sa.update(_ALLOCATIONS).where(
        _ALLOCATIONS.c.id == alloc_id,
        _ALLOCATIONS.c.state == states.ALLOCATION_SCHEDULED).values(
        updated_at=api.utcnow(), **values)).rowcount == 1


def move_slot(conn, slot_id: int, node_id: int, to_node_id: int) -> bool:
    """Move a slot to another node (locked by this transaction, checked
    free for it), if it is still on node_id.

    :raises: DBError from the exclusion constraint on PostgreSQL for an
        overlapping slot
    """
    return conn.execute(sa.update(_SLOTS).where(
        _SLOTS.c.id == slot_id, _SLOTS.c.node_id == node_id).values(
        node_id=to_node_id)).rowcount == 1


# Maintenance windows --------------------------------------------------------

_WINDOW = _SLOTS.c.purpose == models.SLOT_MAINTENANCE


def insert_window(conn, node_id: int, uuid: str, busy_from, busy_until,
                  reason: str | None, state: str) -> None:
    """Hold a node for a maintenance window (the caller checked it is
    free, and holds the node's row lock).

    :raises: DBError from the exclusion constraint on PostgreSQL for an
        overlapping slot (api.is_exclusion_violation)
    """
    conn.execute(sa.insert(_SLOTS).values(
        node_id=node_id, allocation_id=None, purpose=models.SLOT_MAINTENANCE,
        uuid=uuid, reason=reason, state=state, busy_from=busy_from,
        busy_until=busy_until, created_at=api.utcnow()))


def of_node(conn, node_id: int, maintenance_only: bool = False
            ) -> list[sa.Row]:
    """Every slot of a node (its maintenance windows only), by start."""
    q = sa.select(*_SLOT_COLUMNS).select_from(_SLOT_JOIN).where(
        _SLOTS.c.node_id == node_id)
    if maintenance_only:
        q = q.where(_WINDOW)
    return conn.execute(q.order_by(_SLOTS.c.busy_from, _SLOTS.c.id)).all()


def window(conn, node_id: int, uuid: str, lock: bool = False,
           skip_locked: bool = False) -> sa.Row | None:
    """A maintenance window of a node by uuid (locked: None when another
    transaction holds it and skip_locked)."""
    q = sa.select(*_SLOT_COLUMNS).select_from(_SLOT_JOIN).where(
        _SLOTS.c.node_id == node_id, _SLOTS.c.uuid == uuid, _WINDOW)
    if lock:
        q = q.with_for_update(
            skip_locked=skip_locked and api.backend_supports_skip_locked(
                conn), of=_SLOTS)
    return conn.execute(q).first()


def due_windows(conn, now: datetime.datetime, limit: int) -> list[sa.Row]:
    """Maintenance windows that have ended, or begun and are not active
    yet (node_id, uuid), the earliest first."""
    return conn.execute(sa.select(_SLOTS.c.node_id, _SLOTS.c.uuid).where(
        _WINDOW, _SLOTS.c.busy_from <= now, sa.or_(
            _SLOTS.c.busy_until <= now,
            _SLOTS.c.state != states.WINDOW_ACTIVE))
        .order_by(_SLOTS.c.busy_from).limit(limit)).all()


def set_window_state(conn, slot_id: int, old: str, new: str) -> bool:
    """A maintenance window moves on (a compare-and-swap on its state)."""
    return conn.execute(sa.update(_SLOTS).where(
        _SLOTS.c.id == slot_id, _SLOTS.c.state == old).values(state=new)
    ).rowcount == 1


def delete_window(conn, slot_id: int, node_id: int) -> bool:
    """Delete a maintenance window and recompute its node's
    booked_from."""
    done = conn.execute(sa.delete(_SLOTS).where(
        _SLOTS.c.id == slot_id, _WINDOW)).rowcount == 1
    refresh_booked(conn, [node_id])
    return done


# What holds a node, and its maintenance, as the maintenance windows read
# them.
_HOLDER_COLUMNS = (
    _NODES.c.id, _NODES.c.uuid, _NODES.c.name, _NODES.c.generation,
    _NODES.c.owner, _NODES.c.lessee, _NODES.c.pool,
    _NODES.c.provision_state, _NODES.c.reservation, _NODES.c.maintenance,
    _NODES.c.maintenance_reason, _NODES.c.fault, _NODES.c.instance_uuid,
    _NODES.c.allocation_id,
    _ALLOCATIONS.c.uuid.label('bound_uuid'),
    _ALLOCATIONS.c.lifespan_end.label('bound_end'),
    _ALLOCATIONS.c.claim_id.label('bound_claim'))


def holder(conn, node_id: int) -> sa.Row | None:
    """A node with its maintenance and what holds it now: the uuid,
    lifespan_end and claim of its allocation (bound_*), its instance."""
    return conn.execute(sa.select(*_HOLDER_COLUMNS).select_from(
        _NODES.outerjoin(_ALLOCATIONS,
                         _ALLOCATIONS.c.id == _NODES.c.allocation_id))
        .where(_NODES.c.id == node_id)).first()


def set_maintenance(conn, node_id: int, generation: int, values: dict
                    ) -> bool:
    """Change a node's maintenance, maintenance_reason and fault if it is
    still generation and no conductor locks it (a compare-and-swap)."""
    return conn.execute(sa.update(_NODES).where(
        _NODES.c.id == node_id, _NODES.c.generation == generation,
        _NODES.c.reservation.is_(None),
    ).values(**values, generation=_NODES.c.generation + 1,
             updated_at=api.utcnow())).rowcount == 1
