"""Queries of AutoFill: pools to keep filled, their members by status,
and the nodes brokers make and destroy."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import binding as binding_db
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


def lock_pool(conn, name: str) -> sa.Row | None:
    """A pool's autofill, broker, lifespan and conductor, locked until
    the transaction ends: one transaction at a time counts and fills
    it."""
    return conn.execute(sa.select(
        _POOLS.c.name, _POOLS.c.broker, _POOLS.c.autofill, _POOLS.c.lifespan,
        _POOLS.c.autofill_conductor).where(_POOLS.c.name == name)
        .with_for_update()).one_or_none()


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


def incoming_count(conn, name: str) -> int:
    """The nodes Leaving another pool for a pool."""
    node = _NODES.c
    return conn.execute(sa.select(sa.func.count()).where(
        node.pool_destination == name,
        node.pool_status.in_((states.POOL_LEAVING,
                              states.POOL_HOLD_LEAVE)))).scalar_one()


def lock_free_nodes(conn, pool: str, count: int,
                    broker_made: bool = False,
                    made_before=None) -> list[sa.Row]:
    """Up to count Free nodes of a pool (the newest first), locked, with
    SKIP LOCKED where the backend has it.

    :param broker_made: only nodes a broker made.
    :param made_before: only nodes created before this time.
    """
    node = _NODES.c
    q = sa.select(*binding_db.NODE_COLUMNS, node.broker,
                  node.broker_ref).where(
        *binding_db.NODE_IS_FREE, node.pool == pool)
    if broker_made:
        q = q.where(node.broker.is_not(None))
    if made_before is not None:
        q = q.where(node.created_at < made_before)
    q = q.order_by(node.id.desc()).limit(count)
    q = q.with_for_update(skip_locked=api.backend_supports_skip_locked(conn))
    rows = conn.execute(q).all()
    return sorted(rows, key=lambda r: r.id)


def reserve_nodes(conn, ids: list[int], host: str) -> int:
    """Lock nodes for a conductor in the caller's transaction (a
    compare-and-swap on reservation); how many it got."""
    if not ids:
        return 0
    return conn.execute(sa.update(_NODES).where(
        _NODES.c.id.in_(ids), _NODES.c.reservation.is_(None),
    ).values(reservation=host)).rowcount


def set_traits(conn, node_id: int, traits) -> None:
    """Replace the traits of a node."""
    conn.execute(sa.delete(_TRAITS).where(_TRAITS.c.node_id == node_id))
    if traits:
        conn.execute(sa.insert(_TRAITS), [
            {'node_id': node_id, 'trait': t} for t in sorted(set(traits))])


_CREATING_COLUMNS = (_NODES.c.id, _NODES.c.uuid, _NODES.c.generation,
                     _NODES.c.reservation, _NODES.c.broker,
                     _NODES.c.broker_token, _NODES.c.last_error,
                     _NODES.c.extra)


def creating_nodes(context, pool: str, ids: list[int]) -> list[sa.Row]:
    """The members of a pool being created that no conductor holds
    locked, and those of ids, in id order."""
    node = _NODES.c
    with api.reader(context) as session:
        return session.execute(sa.select(*_CREATING_COLUMNS).where(
            node.pool == pool, node.pool_status == states.POOL_CREATING,
            sa.or_(node.reservation.is_(None),
                   node.id.in_(sa.bindparam('ids', expanding=True))),
        ).order_by(node.id), {'ids': list(ids)}).all()


def lock_node(conn, node_id: int, host: str) -> sa.Row | None:
    """A node host holds locked, locked in the transaction too (with the
    columns the binding reads); None when host no longer holds it."""
    return conn.execute(sa.select(*binding_db.NODE_COLUMNS,
                                  _NODES.c.broker,
                                  _NODES.c.broker_ref).where(
        _NODES.c.id == node_id, _NODES.c.reservation == host)
        .with_for_update()).one_or_none()


def fail_node(context, node_id: int, host: str, error: str) -> bool:
    """Record a broker's failure on a node host holds, and release the
    node's lock."""
    with api.writer_connection(context) as conn:
        return conn.execute(sa.update(_NODES).where(
            _NODES.c.id == node_id, _NODES.c.reservation == host,
        ).values(last_error=error, reservation=None,
                 updated_at=api.utcnow())).rowcount == 1


def set_pool_error(context, name: str, error: str | None) -> None:
    with api.writer_connection(context) as conn:
        conn.execute(sa.update(_POOLS).where(
            _POOLS.c.name == name,
            _POOLS.c.last_error.is_distinct_from(error),
        ).values(last_error=error))


def get_broker(context, name: str) -> sa.Row | None:
    with api.reader(context) as session:
        return session.execute(sa.select(
            _BROKERS.c.name, _BROKERS.c.driver, _BROKERS.c.parameters)
            .where(_BROKERS.c.name == name)).one_or_none()


def unhealthy_count(context, name: str) -> int:
    """Members of a pool whose creation failed (and is tried again)."""
    node = _NODES.c
    with api.reader(context) as session:
        return session.execute(sa.select(sa.func.count()).where(
            node.pool == name, node.pool_status == states.POOL_CREATING,
            node.last_error.is_not(None))).scalar_one()
