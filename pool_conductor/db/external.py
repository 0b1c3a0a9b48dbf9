"""Queries of the reconciler of external managers: managers to
reconcile, their nodes, and compare-and-swap writes of one node."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models

_NODES = models.Node.__table__
_MANAGERS = models.ExternalManager.__table__

# What the reconciler reads of a node.
NODE_COLUMNS = tuple(_NODES.c[name] for name in (
    'id', 'uuid', 'name', 'generation', 'provision_state',
    'target_provision_state', 'maintenance', 'maintenance_reason', 'fault',
    'reservation', 'instance_uuid', 'allocation_id', 'owner', 'lessee',
    'pool', 'pool_status', 'external_manager', 'external_ref',
    'external_claim', 'external_state', 'external_state_since',
    'external_free_streak', 'external_error_streak'))


def list_managers(context) -> list[sa.Row]:
    """Every manager with what its reconciler needs, by name."""
    with api.reader(context) as session:
        return session.execute(sa.select(_MANAGERS).order_by(
            _MANAGERS.c.name)).all()


def get_manager(conn, name: str) -> sa.Row | None:
    return conn.execute(sa.select(_MANAGERS).where(
        _MANAGERS.c.name == name)).first()


def take_manager(conn, name: str, old: str | None, host: str) -> bool:
    """Make host the conductor that reconciles a manager, if old still
    is (a compare-and-swap: of several conductors exactly one wins)."""
    column = _MANAGERS.c.conductor_affinity
    return conn.execute(sa.update(_MANAGERS).where(
        _MANAGERS.c.name == name,
        column.is_(None) if old is None else column == old,
    ).values(conductor_affinity=host)).rowcount == 1


def set_sync(conn, name: str, host: str, values: dict) -> bool:
    """Record a round of a manager host reconciles (last_sync_at,
    last_error, error_streak)."""
    return conn.execute(sa.update(_MANAGERS).where(
        _MANAGERS.c.name == name,
        _MANAGERS.c.conductor_affinity == host).values(**values)
    ).rowcount == 1


def list_nodes(context, manager: str, after: int, limit: int
               ) -> list[sa.Row]:
    """A page of the nodes of a manager, in id order."""
    with api.reader(context) as session:
        return session.execute(sa.select(*NODE_COLUMNS).where(
            _NODES.c.external_manager == manager, _NODES.c.id > after,
        ).order_by(_NODES.c.id).limit(limit)).all()


def read_node(context, node_id: int) -> sa.Row | None:
    with api.reader(context) as session:
        return session.execute(sa.select(*NODE_COLUMNS).where(
            _NODES.c.id == node_id)).first()


def node_spec(conn, node_id: int, key: str):
    """The value of a node's property key (the spec its manager applies
    when pool acquires its hardware)."""
    properties = conn.execute(sa.select(_NODES.c.properties).where(
        _NODES.c.id == node_id)).scalar_one_or_none() or {}
    return properties.get(key)


def update_node(conn, node_id: int, generation: int, values: dict) -> bool:
    """Change a node's reconciled fields if it is still generation."""
    return conn.execute(sa.update(_NODES).where(
        _NODES.c.id == node_id, _NODES.c.generation == generation,
    ).values(**values, generation=_NODES.c.generation + 1,
             updated_at=api.utcnow())).rowcount == 1


def mark_unknown(conn, manager: str, now) -> list[sa.Row]:
    """Mark the nodes of a manager whose state is not known any more;
    the nodes as they were."""
    rows = conn.execute(sa.select(*NODE_COLUMNS).where(
        _NODES.c.external_manager == manager,
        _NODES.c.external_state.is_distinct_from('unknown'),
    ).with_for_update()).all()
    if rows:
        conn.execute(sa.update(_NODES).where(
            _NODES.c.id.in_([r.id for r in rows])).values(
            external_state='unknown', external_state_since=now,
            generation=_NODES.c.generation + 1, updated_at=now))
    return rows


def node_state_counts(context, manager: str) -> dict:
    """The nodes of a manager by external state."""
    with api.reader(context) as session:
        return dict(session.execute(sa.select(
            _NODES.c.external_state, sa.func.count()).where(
            _NODES.c.external_manager == manager).group_by(
            _NODES.c.external_state)).all())
