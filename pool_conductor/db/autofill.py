"""Queries of AutoFill: pools to keep filled, their members by status,
and the nodes brokers make and destroy."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_POOLS = models.Pool.__table__
_TRAITS = models.NodeTrait.__table__
_BROKERS = models.Broker.__table__


def list_pools(context) -> list[sa.Row]:
    """Every pool's name, autofill and the conductor that fills it."""
    with api.reader(context) as session:
        return session.execute(sa.select(
            _POOLS.c.name, _POOLS.c.autofill,
            _POOLS.c.autofill_conductor).order_by(_POOLS.c.name)).all()


def take_pool(context, name: str, old: str | None, host: str) -> bool:
    """Make host the conductor that fills a pool, if old still is (a
    compare-and-swap: of several conductors exactly one wins)."""
    column = _POOLS.c.autofill_conductor
    with api.writer_connection(context) as conn:
        return conn.execute(sa.update(_POOLS).where(
            _POOLS.c.name == name,
            column.is_(None) if old is None else column == old,
        ).values(autofill_conductor=host)).rowcount == 1


def member_counts(conn, name: str) -> dict[str, int]:
    """A pool's members per status. Free members held by a conductor's
    lock (on their way out) are not counted."""
    node = _NODES.c
    counts = dict(conn.execute(
        sa.select(node.pool_status, sa.func.count())
        .where(node.pool == name,
               sa.or_(node.pool_status != states.POOL_FREE,
                      node.reservation.is_(None)))
        .group_by(node.pool_status)).all())
    return counts


def booked_free_count(conn, name: str, before) -> int:
    """A pool's Free members counted by member_counts() whose earliest
    slot (a window's) begins before a time."""
    node = _NODES.c
    return conn.execute(sa.select(sa.func.count()).where(
        node.pool == name, node.pool_status == states.POOL_FREE,
        node.reservation.is_(None), node.booked_from.is_not(None),
        node.booked_from < before)).scalar_one()


def incoming_count(conn, name: str) -> int:
    """The nodes Leaving another pool for a pool."""
    node = _NODES.c
    return conn.execute(sa.select(sa.func.count()).where(
        node.pool_destination == name,
        node.pool_status.in_((states.POOL_LEAVING,
                              states.POOL_HOLD_LEAVE)))).scalar_one()


def reserve_nodes(conn, ids: list[int], host: str) -> int:
    """Lock nodes for a conductor in the caller's transaction (a
    compare-and-swap on reservation); how many it got."""
    if not ids:
        return 0
    return conn.execute(sa.update(_NODES).where(
        _NODES.c.id.in_(ids), _NODES.c.reservation.is_(None),
    ).values(reservation=host)).rowcount


def set_pool_error(context, name: str, error: str | None) -> bool:
    """Set a pool's last_error; whether it changed."""
    with api.writer_connection(context) as conn:
        return conn.execute(sa.update(_POOLS).where(
            _POOLS.c.name == name,
            _POOLS.c.last_error.is_distinct_from(error),
        ).values(last_error=error)).rowcount == 1


