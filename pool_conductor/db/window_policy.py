"""Queries of the operators' policy for windows: a project's windows,
started windows and their nodes, windows near their end."""
import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_ALLOCATIONS = models.Allocation.__table__
_NODES = models.Node.__table__
_PROJECTS = models.ProjectWindows.__table__

# The states of a window that is booked and not over.
_STARTED = (states.ALLOCATING, states.ALLOCATION_ACTIVE)
_HELD = (states.ALLOCATION_SCHEDULED,) + _STARTED


def lock_project(conn, project: str) -> None:
    """Lock a project's row (made on its first booking) until the
    transaction ends: an update, which takes the write lock on every
    backend (SQLite's database lock too)."""
    values = {'project': project, 'generation': 0}
    name = conn.dialect.name
    if name == 'postgresql':
        stmt = postgresql.insert(_PROJECTS).values(
            **values).on_conflict_do_nothing()
    elif name == 'mysql':
        stmt = mysql.insert(_PROJECTS).values(**values)
        stmt = stmt.on_duplicate_key_update(project=stmt.inserted.project)
    else:
        stmt = sqlite.insert(_PROJECTS).values(
            **values).on_conflict_do_nothing()
    conn.execute(stmt)
    conn.execute(sa.update(_PROJECTS).where(
        _PROJECTS.c.project == project).values(
        generation=_PROJECTS.c.generation + 1))


def windows_of(conn, project: str, exclude: int | None = None
               ) -> list[sa.Row]:
    """The project's windows that are booked or started and not over:
    id, uuid, state, start_at, lifespan_end."""
    a = _ALLOCATIONS.c
    q = sa.select(a.id, a.uuid, a.state, a.start_at, a.lifespan_end).where(
        a.owner == project, a.start_at.is_not(None),
        a.lifespan_end.is_not(None), a.state.in_(_HELD))
    if exclude is not None:
        q = q.where(a.id != exclude)
    return conn.execute(q.order_by(a.id)).all()


_STARTED_COLUMNS = (
    _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.name,
    _ALLOCATIONS.c.owner, _ALLOCATIONS.c.state, _ALLOCATIONS.c.start_at,
    _ALLOCATIONS.c.lifespan_end, _ALLOCATIONS.c.idle_warned_at,
    _ALLOCATIONS.c.node_id, _NODES.c.uuid.label('node_uuid'),
    _NODES.c.provision_state, _NODES.c.provision_updated_at,
    _NODES.c.instance_info)


def idle_candidates(conn, warn_before: datetime.datetime,
                    reclaim_before: datetime.datetime, limit: int
                    ) -> list[sa.Row]:
    """Active windows (of no claim) whose node is available and did not
    change its provision state since their start, started no later than
    warn_before and not warned yet, or no later than reclaim_before; with
    what their node records of a deployment, the longest started
    first."""
    a, n = _ALLOCATIONS.c, _NODES.c
    return conn.execute(
        sa.select(*_STARTED_COLUMNS).select_from(_ALLOCATIONS.join(
            _NODES, n.id == a.node_id))
        .where(a.state == states.ALLOCATION_ACTIVE, a.claim_id.is_(None),
               a.start_at.is_not(None),
               n.provision_state == states.AVAILABLE,
               sa.or_(n.provision_updated_at.is_(None),
                      n.provision_updated_at < a.start_at),
               sa.or_(sa.and_(a.start_at <= warn_before,
                              a.idle_warned_at.is_(None)),
                      a.start_at <= reclaim_before))
        .order_by(a.start_at, a.id).limit(limit)).all()


def started_window(conn, alloc_id: int) -> sa.Row | None:
    """One active window with its node (read under the node's lock)."""
    a = _ALLOCATIONS.c
    return conn.execute(
        sa.select(*_STARTED_COLUMNS).select_from(_ALLOCATIONS.join(
            _NODES, _NODES.c.id == a.node_id))
        .where(a.id == alloc_id, a.state == states.ALLOCATION_ACTIVE,
               a.start_at.is_not(None))).first()


def mark_idle_warned(conn, alloc_id: int, now: datetime.datetime) -> bool:
    """Record the idle warning of a window, once (compare-and-swap)."""
    a = _ALLOCATIONS.c
    return conn.execute(sa.update(_ALLOCATIONS).where(
        a.id == alloc_id, a.idle_warned_at.is_(None),
        a.state == states.ALLOCATION_ACTIVE).values(
        idle_warned_at=now)).rowcount == 1


def ending(conn, now: datetime.datetime, until: datetime.datetime,
           limit: int) -> list[sa.Row]:
    """Started windows whose end is after now and not later than until,
    not yet announced for that end."""
    a = _ALLOCATIONS.c
    return conn.execute(
        sa.select(a.id, a.uuid, a.name, a.owner, a.state, a.lifespan_end,
                  a.node_id)
        # Not a condition on the index of the state, which SQLite would
        # read whole (every active allocation) instead of the few ending
        # before until.
        .where(api.unindexed(a.state, '').in_(_STARTED),
               a.start_at.is_not(None),
               a.lifespan_end > now, a.lifespan_end <= until,
               sa.or_(a.end_notified.is_(None),
                      a.end_notified != a.lifespan_end))
        .order_by(a.lifespan_end, a.id).limit(limit)).all()


def mark_end_notified(conn, alloc_id: int,
                      end: datetime.datetime) -> bool:
    """Record that a window's end was announced, once per end
    (compare-and-swap on the end, which an extension changes)."""
    a = _ALLOCATIONS.c
    return conn.execute(sa.update(_ALLOCATIONS).where(
        a.id == alloc_id, a.lifespan_end == end,
        sa.or_(a.end_notified.is_(None), a.end_notified != end)).values(
        end_notified=end)).rowcount == 1
