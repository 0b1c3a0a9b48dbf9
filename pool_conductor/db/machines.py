"""Queries of the machines brokers make: nodes Creating, the broker to
ask, and the machines made for a claim (their tokens start with the
claim's resource, claims.token_prefix())."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_BROKERS = models.Broker.__table__

_CREATING_COLUMNS = (_NODES.c.id, _NODES.c.uuid, _NODES.c.generation,
                     _NODES.c.reservation, _NODES.c.broker,
                     _NODES.c.broker_token, _NODES.c.last_error,
                     _NODES.c.extra, _NODES.c.pool, _NODES.c.lessee)


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


def held_by(conn, node_id: int, host: str) -> sa.Row | None:
    """A node that host holds (its reservation), locked in the
    transaction too (with the columns the binding reads); None when host
    no longer holds it."""
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


def _made(prefix: str):
    return _NODES.c.broker_token.like(prefix + '%')


def made_for(conn, prefix: str) -> list[sa.Row]:
    """The nodes a broker made, or is making, with a token that starts
    with prefix."""
    node = _NODES.c
    return conn.execute(sa.select(
        node.id, node.pool, node.pool_status, node.allocation_id,
        node.instance_uuid).where(_made(prefix)).order_by(node.id)).all()


def creating_count(conn, pool: str) -> int:
    """How many members of a pool are being created."""
    node = _NODES.c
    return conn.execute(sa.select(sa.func.count()).where(
        node.pool == pool,
        node.pool_status == states.POOL_CREATING)).scalar_one()


def creating_for(context, prefix: str, host: str) -> list[sa.Row]:
    """The nodes being created with a token that starts with prefix that
    host or no conductor holds, in id order."""
    node = _NODES.c
    with api.reader(context) as session:
        return session.execute(sa.select(
            node.id, node.uuid, node.pool, node.reservation, node.broker,
            node.broker_token, node.extra, node.lessee).where(
            _made(prefix), node.pool_status == states.POOL_CREATING,
            sa.or_(node.reservation == host, node.reservation.is_(None)),
        ).order_by(node.id)).all()
