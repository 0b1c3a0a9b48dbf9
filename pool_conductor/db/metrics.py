"""Grouped counts of the fleet, one query per metric family."""
import datetime

import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_ALLOCATIONS = models.Allocation.__table__
_CLAIMS = models.Claim.__table__
_CONDUCTORS = models.Conductor.__table__
_POOLS = models.Pool.__table__
_EVENTS = models.Event.__table__


def _grouped(session, *columns) -> list[tuple]:
    return [tuple(r) for r in session.execute(
        sa.select(*columns, sa.func.count()).group_by(*columns)).all()]


def fleet(context, heartbeat_timeout: int) -> dict:
    """The counts the fleet gauges show, read in one transaction:

    nodes: [(provision_state, power_state, maintenance, count)]
    members: [(pool, pool_status, count)]
    allocations, claims: [(state, count)]
    autofill: [(pool, autofill document)]
    conductors: [(hostname, alive)]
    stranded: {kind: count} of work held by conductors not alive
    events: (unsequenced, unpublished, oldest unpublished created_at)
    """
    since = api.utcnow() - datetime.timedelta(seconds=heartbeat_timeout)
    with api.reader(context) as session:
        conductors = [(h, bool(alive)) for h, alive in session.execute(
            sa.select(_CONDUCTORS.c.hostname, sa.and_(
                _CONDUCTORS.c.online.is_(True),
                _CONDUCTORS.c.updated_at >= since))).all()]
        alive = [h for h, ok in conductors if ok]
        dead_affinity = (_ALLOCATIONS.c.conductor_affinity.not_in(alive)
                         if alive else sa.true())
        stranded = {
            'allocations': session.scalar(
                sa.select(sa.func.count()).select_from(_ALLOCATIONS).where(
                    _ALLOCATIONS.c.state == states.ALLOCATING,
                    dead_affinity)),
            'claims': session.scalar(
                sa.select(sa.func.count()).select_from(_CLAIMS).where(
                    _CLAIMS.c.state == states.CLAIM_PENDING,
                    _CLAIMS.c.conductor_affinity.not_in(alive)
                    if alive else sa.true())),
            'node_locks': session.scalar(
                sa.select(sa.func.count()).select_from(_NODES).where(
                    _NODES.c.reservation.is_not(None),
                    _NODES.c.reservation.not_in(alive)
                    if alive else sa.true())),
        }
        unsequenced = session.scalar(
            sa.select(sa.func.count()).select_from(_EVENTS)
            .where(_EVENTS.c.seq.is_(None)))
        unpublished = session.execute(
            sa.select(sa.func.count(), sa.func.min(_EVENTS.c.created_at))
            .where(_EVENTS.c.published_at.is_(None))).one()
        return {
            'nodes': _grouped(session, _NODES.c.provision_state,
                              _NODES.c.power_state, _NODES.c.maintenance),
            'members': _grouped(session, _NODES.c.pool,
                                _NODES.c.pool_status),
            'allocations': _grouped(session, _ALLOCATIONS.c.state),
            'claims': _grouped(session, _CLAIMS.c.state),
            'autofill': [tuple(r) for r in session.execute(
                sa.select(_POOLS.c.name, _POOLS.c.autofill)
                .where(_POOLS.c.broker.is_not(None))).all()],
            'conductors': conductors,
            'stranded': stranded,
            'events': (unsequenced, unpublished[0], unpublished[1]),
        }
