"""Queries of the pool actions: the pool and the nodes a request names."""
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import filters as node_filters
from pool_conductor.db import models

_NODES = models.Node.__table__
_POOLS = models.Pool.__table__


def project_nodes(project: str | None) -> tuple:
    """The conditions on nodes a project owns or leases; none for None.
    """
    if project is None:
        return ()
    return (sa.or_(_NODES.c.owner == project, _NODES.c.lessee == project),)


def machine_ids(conn, item: str, *where) -> list[int]:
    """The ids of the nodes one entry of a machine_list names (a UUID, a
    name, Name:x, Uuid:x, or Key:Value of a param) among those matching
    where."""
    node = _NODES.c
    seconds = None
    key, sep, value = item.partition(':')
    if uuidutils.is_uuid_like(item):
        cond = node.uuid == item
    elif not sep:
        cond = node.name == item
    elif key.lower() in ('name', 'uuid'):
        cond = node[key.lower()] == value
    else:
        cond = node_filters.to_sql(
            conn.dialect.name, [node_filters.parse(key, 'Eq(%s)' % value)])
        seconds = node_filters.time_limit()
    with api.filter_errors(seconds):
        return list(conn.scalars(api.time_limited(
            sa.select(node.id).where(cond, *where).order_by(node.id),
            seconds)))


def member_ids(conn, *where) -> list[int]:
    """The ids of the nodes matching where."""
    return list(conn.scalars(sa.select(_NODES.c.id).where(*where)
                             .order_by(_NODES.c.id)))


def read_nodes(conn, ids: list[int]) -> list[sa.Row]:
    """name, uuid, pool_status and pool_allocated of nodes, by id."""
    return conn.execute(
        sa.select(_NODES.c.name, _NODES.c.uuid, _NODES.c.pool_status,
                  _NODES.c.pool_allocated)
        .where(_NODES.c.id.in_(ids)).order_by(_NODES.c.id)).all()


def read_by_uuid(conn, uuids: list[str]) -> list[sa.Row]:
    """name, uuid, pool_status and pool_allocated of nodes, by uuid."""
    return conn.execute(
        sa.select(_NODES.c.name, _NODES.c.uuid, _NODES.c.pool_status,
                  _NODES.c.pool_allocated)
        .where(_NODES.c.uuid.in_(uuids))).all()
