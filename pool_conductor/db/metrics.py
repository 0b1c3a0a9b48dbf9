"""Grouped counts of the fleet, one query per metric family, and the
rest of the operator's overview (GET /v1/fleet, the dashboard)."""
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
    external: [(external manager, external state, count)]
    conductors: [(hostname, alive)]
    stranded: {kind: count} of work held by conductors not alive
    events: (unsequenced, unpublished, oldest unpublished created_at)
    """
    with api.reader(context) as session:
        return _fleet(session, heartbeat_timeout)


def _fleet(session, heartbeat_timeout: int) -> dict:
    since = api.utcnow() - datetime.timedelta(seconds=heartbeat_timeout)
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
        'external': [tuple(r) for r in session.execute(
            sa.select(_NODES.c.external_manager, _NODES.c.external_state,
                      sa.func.count())
            .where(_NODES.c.external_manager.is_not(None))
            .group_by(_NODES.c.external_manager,
                      _NODES.c.external_state)).all()],
        'conductors': conductors,
        'stranded': stranded,
        'events': (unsequenced, unpublished[0], unpublished[1]),
    }


# Claims a conductor holds: it binds and expires them.
_HELD_CLAIMS = (states.CLAIM_PENDING, states.CLAIM_BOUND, states.CLAIM_READY)


def _held(session, column, *where) -> dict[str, int]:
    """{conductor: count} of rows a column names a conductor in."""
    return dict(session.execute(
        sa.select(column, sa.func.count()).where(column.is_not(None), *where)
        .group_by(column)).all())


def _ending(session, table, until, limit: int, *where) -> tuple[list, int]:
    """The rows of table whose lifespan ends by until, soonest first (at
    most limit), and how many there are in all."""
    ending = sa.and_(table.c.lifespan_end.is_not(None),
                     table.c.lifespan_end <= until, *where)
    columns = [table.c.uuid, table.c.name, table.c.state, table.c.owner,
               table.c.lifespan_end]
    if table is _ALLOCATIONS:
        columns += [table.c.pool, _NODES.c.uuid.label('node_uuid'),
                    _NODES.c.name.label('node_name')]
        source = table.outerjoin(_NODES, _NODES.c.id == table.c.node_id)
    else:
        source = table
    rows = session.execute(
        sa.select(*columns).select_from(source).where(ending)
        .order_by(table.c.lifespan_end, table.c.id).limit(limit)).all()
    total = session.scalar(sa.select(sa.func.count()).select_from(table)
                           .where(ending))
    return rows, total


def overview(context, heartbeat_timeout: int, until: datetime.datetime,
             limit: int) -> dict:
    """What the operator's overview shows, read in one transaction: the
    counts of fleet(), and

    pools: [Row(name, parent_pool, broker, autofill, autofill_conductor)]
    conductor_rows: [Row(hostname, online, updated_at)]
    held: {kind: {conductor: count}} of allocations in progress, claims
        and node locks, and {conductor: [pool]} of pools it fills
    ending_allocations, ending_claims: ([Row], total) of lifespans that
        end by until, soonest first, at most limit of each
    alerts: [Row] of the newest events of models.ALERT_LEVELS, at most
        limit
    """
    with api.reader(context) as session:
        found = _fleet(session, heartbeat_timeout)
        found['pools'] = session.execute(
            sa.select(_POOLS.c.name, _POOLS.c.parent_pool, _POOLS.c.broker,
                      _POOLS.c.autofill, _POOLS.c.autofill_conductor)
            .order_by(_POOLS.c.name)).all()
        found['conductor_rows'] = session.execute(
            sa.select(_CONDUCTORS.c.hostname, _CONDUCTORS.c.online,
                      _CONDUCTORS.c.updated_at)
            .order_by(_CONDUCTORS.c.hostname)).all()
        fills: dict[str, list[str]] = {}
        for pool in found['pools']:
            if pool.autofill_conductor:
                fills.setdefault(pool.autofill_conductor, []).append(
                    pool.name)
        found['held'] = {
            'allocations': _held(session, _ALLOCATIONS.c.conductor_affinity,
                                 _ALLOCATIONS.c.state == states.ALLOCATING),
            'claims': _held(session, _CLAIMS.c.conductor_affinity,
                            _CLAIMS.c.state.in_(_HELD_CLAIMS)),
            'node_locks': _held(session, _NODES.c.reservation),
            'autofill_pools': fills,
        }
        found['ending_allocations'] = _ending(session, _ALLOCATIONS, until,
                                              limit)
        found['ending_claims'] = _ending(
            session, _CLAIMS, until, limit,
            _CLAIMS.c.state != states.CLAIM_EXPIRED)
        found['alerts'] = session.execute(
            sa.select(_EVENTS.c.seq, _EVENTS.c.uuid, _EVENTS.c.created_at,
                      _EVENTS.c.level, _EVENTS.c.event_type,
                      _EVENTS.c.object_type, _EVENTS.c.object_uuid,
                      _EVENTS.c.object_name, _EVENTS.c.message,
                      _EVENTS.c.conductor)
            .where(sa.text(models.ALERTS))
            .order_by(_EVENTS.c.id.desc()).limit(limit)).all()
        return found
