"""Queries of workflow execution: which conductor drives a node, its stages."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_WORKFLOWS = models.Workflow.__table__


# What a provisioner reads of a node it drives.
_DRIVEN = sa.select(
    _NODES.c.id, _NODES.c.uuid, _NODES.c.name, _NODES.c.pool_status,
    _NODES.c.pool_wait_stage, _NODES.c.workflow, _NODES.c.stage,
    _NODES.c.runnable, _NODES.c.params, _NODES.c.last_error,
    _NODES.c.stage_updated_at, _NODES.c.pool_conductor_affinity,
    _NODES.c.pool, _NODES.c.pool_destination,
).where(_NODES.c.pool_status.in_(states.POOL_MOVING),
        _NODES.c.pool_conductor_affinity == sa.bindparam('host')
        ).order_by(_NODES.c.id)


def _undriven(alive: list[str]) -> tuple:
    """Waiting nodes that no conductor drives, or a dead one."""
    affinity = _NODES.c.pool_conductor_affinity
    return (_NODES.c.pool_status.in_(states.POOL_WAITING),
            sa.or_(affinity.is_(None), affinity.not_in(alive)))


def take_nodes(context, host: str, alive: list[str],
                limit: int) -> list[tuple[str, str | None]]:
    """Make a conductor drive up to limit waiting nodes that no live
    conductor drives.

    The candidates are locked with SKIP LOCKED where the backend has it
    (SQLite: the database lock of BEGIN IMMEDIATE), so that conductors
    taking nodes at the same time take different nodes, and taken with a
    compare-and-swap on their affinity: of two conductors that both saw a
    node undriven, exactly one gets it.

    :param alive: the hostnames of the live conductors, host among them.
    :returns: (uuid, previous affinity) of each node taken now.
    """
    undriven = _undriven(alive)
    with api.writer_connection(context) as conn:
        q = (sa.select(_NODES.c.id, _NODES.c.uuid,
                       _NODES.c.pool_conductor_affinity)
             .where(*undriven).order_by(_NODES.c.id).limit(limit))
        if api.backend_supports_skip_locked(conn):
            q = q.with_for_update(skip_locked=True)
        rows = conn.execute(q).all()
        if not rows:
            return []
        ids = [r.id for r in rows]
        res = conn.execute(
            sa.update(_NODES).where(_NODES.c.id.in_(ids), *undriven)
            .values(pool_conductor_affinity=host,
                    updated_at=api.utcnow()))
        if res.rowcount == len(rows):
            return [(r.uuid, r.pool_conductor_affinity) for r in rows]
        # Some changed between the read and the update (a return): only
        # those now ours were taken.
        ours = set(conn.scalars(sa.select(_NODES.c.id).where(
            _NODES.c.id.in_(ids),
            _NODES.c.pool_conductor_affinity == host)))
        return [(r.uuid, r.pool_conductor_affinity) for r in rows
                if r.id in ours]


def any_waiting(context) -> bool:
    """Whether a node waits for a stage (Joining, Building, Destroying,
    Leaving or held): without one a workflow round has nothing to do."""
    with api.reader_connection(context) as conn:
        return conn.execute(
            sa.select(_NODES.c.id)
            .where(_NODES.c.pool_status.in_(states.POOL_WAITING))
            .limit(1)).first() is not None


def list_driven_nodes(context, host: str) -> list[sa.Row]:
    """The nodes a conductor drives through their workflows (Joining,
    Building, Destroying, Leaving), by id."""
    with api.reader(context) as session:
        return list(session.execute(_DRIVEN, {'host': host}))


def workflow_stages(context, name: str | None) -> list[str] | None:
    """The stages of a workflow, in order; None if it does not exist."""
    if not name:
        return None
    with api.reader(context) as session:
        stages = session.execute(
            sa.select(_WORKFLOWS.c.stages)
            .where(_WORKFLOWS.c.name == name)).first()
    return None if stages is None else list(stages[0] or ())
