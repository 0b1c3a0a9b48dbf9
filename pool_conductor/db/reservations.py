"""Queries on reservations and their member allocations."""
from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception

_RESERVATIONS = models.Reservation.__table__
_ALLOCATIONS = models.Allocation.__table__
_SLOTS = models.NodeSlot.__table__
_NODES = models.Node.__table__


def _get(session, ident: str) -> models.Reservation:
    found = session.scalars(
        sa.select(models.Reservation)
        .where(api.ident_column(models.Reservation, ident) == ident)
        .execution_options(populate_existing=True)).one_or_none()
    if found is None:
        raise exception.ReservationNotFound(reservation=ident)
    return found


def get(context, ident: str) -> models.Reservation:
    """A reservation by UUID or name.

    :raises: ReservationNotFound
    """
    with api.reader(context) as session:
        return _get(session, ident)


def raise_duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    """:raises: ReservationDuplicateName, ReservationAlreadyExists"""
    if 'name' in api.duplicate_columns(exc):
        raise exception.ReservationDuplicateName(
            name=values.get('name')) from None
    raise exception.ReservationAlreadyExists(
        uuid=values.get('uuid')) from None


def insert(conn, values: dict) -> int:
    """Insert a reservation row in the caller's transaction.

    :returns: its id.
    :raises: DBDuplicateEntry for a uuid or name in use
    """
    return conn.execute(sa.insert(_RESERVATIONS).values(
        **values)).inserted_primary_key[0]


def list_reservations(context, filters: dict, limit: int | None = None,
                      marker: str | None = None, sort_key: str = 'id',
                      sort_dir: str = 'asc') -> list[models.Reservation]:
    """List reservations, by owner and pool.

    :raises: ReservationNotFound if the marker does not exist
    """
    model = models.Reservation
    with api.reader(context) as session:
        q = sa.select(model)
        for key in ('owner', 'pool'):
            if filters.get(key) is not None:
                q = q.where(getattr(model, key) == filters[key])
        marker_obj = _get(session, marker) if marker else None
        q = api.paginate(q, model, limit, marker_obj, sort_key, sort_dir)
        return list(session.scalars(q))


# A member's node: the one it has, else the one its slot holds.
_MEMBER_NODE = sa.func.coalesce(
    sa.select(_NODES.c.uuid).where(
        _NODES.c.id == _ALLOCATIONS.c.node_id).scalar_subquery(),
    sa.select(_NODES.c.uuid).where(
        _NODES.c.id == _SLOTS.c.node_id,
        _SLOTS.c.allocation_id == _ALLOCATIONS.c.id).limit(1)
    .scalar_subquery())


def members(context, reservation_ids) -> dict[int, list[sa.Row]]:
    """The allocations of reservations (id, uuid, state, node_uuid,
    node_id), by reservation id, in id order."""
    ids = list(reservation_ids)
    if not ids:
        return {}
    with api.reader(context) as session:
        rows = session.execute(sa.select(
            _ALLOCATIONS.c.reservation_id, _ALLOCATIONS.c.id,
            _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.state,
            _MEMBER_NODE.label('node_uuid'))
            .where(_ALLOCATIONS.c.reservation_id.in_(ids))
            .order_by(_ALLOCATIONS.c.id)).all()
    found: dict[int, list[sa.Row]] = {}
    for row in rows:
        found.setdefault(row.reservation_id, []).append(row)
    return found


def find(conn, ident: str) -> sa.Row | None:
    """A reservation's id, uuid, name and owner, by UUID or name."""
    column = api.ident_column(models.Reservation, ident).key
    return conn.execute(sa.select(
        _RESERVATIONS.c.id, _RESERVATIONS.c.uuid, _RESERVATIONS.c.name,
        _RESERVATIONS.c.owner, _RESERVATIONS.c.pool,
        _RESERVATIONS.c.resource_class, _RESERVATIONS.c.traits,
        _RESERVATIONS.c.count_min, _RESERVATIONS.c.count_max,
        _RESERVATIONS.c.start_at, _RESERVATIONS.c.end_at,
        _RESERVATIONS.c.created_at).where(
        _RESERVATIONS.c[column] == ident)).first()


def member_nodes(conn, reservation_id: int) -> list[sa.Row]:
    """The allocations of a reservation (id, uuid) with their node (the
    one they have, else their slot's), in node order: the lock order."""
    node = sa.func.coalesce(_ALLOCATIONS.c.node_id, sa.select(
        _SLOTS.c.node_id).where(
        _SLOTS.c.allocation_id == _ALLOCATIONS.c.id).limit(1)
        .scalar_subquery())
    return conn.execute(sa.select(
        _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, node.label('node_id'))
        .where(_ALLOCATIONS.c.reservation_id == reservation_id)
        .order_by(node, _ALLOCATIONS.c.id)).all()


def lock(conn, reservation_id: int) -> bool:
    """Lock a reservation's row until the transaction ends; False when
    it is gone."""
    return conn.execute(sa.select(_RESERVATIONS.c.id).where(
        _RESERVATIONS.c.id == reservation_id).with_for_update()
    ).first() is not None


def delete(conn, reservation_id: int) -> None:
    conn.execute(sa.delete(_RESERVATIONS).where(
        _RESERVATIONS.c.id == reservation_id))
