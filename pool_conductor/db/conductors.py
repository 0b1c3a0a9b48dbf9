"""Queries on conductors: registration, heartbeats and liveness."""
import datetime

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception


ONLINE, OFFLINE = 'online', 'offline'


def register_conductor(context, hostname: str,
                       group: str = '') -> str | None:
    """Mark a conductor online (a heartbeat) in its conductor group,
    creating its row on first start.

    :returns: what it was before: ONLINE, OFFLINE, or None when it had
        no row.
    """
    conductor = models.Conductor
    with api.writer(context) as session:
        # One statement for the heartbeat of a conductor online.
        for before, where in ((ONLINE, conductor.online.is_(True)),
                              (OFFLINE, sa.true())):
            res = session.execute(
                sa.update(conductor)
                .where(conductor.hostname == hostname, where)
                .values(online=True, updated_at=api.utcnow(),
                        conductor_group=group))
            if res.rowcount:
                return before
    try:
        with api.writer(context) as session:
            session.add(conductor(hostname=hostname, online=True,
                                  updated_at=api.utcnow(),
                                  conductor_group=group))
            session.flush()
    except db_exc.DBDuplicateEntry:
        return register_conductor(context, hostname, group)
    return None


def touch_conductor(context, hostname: str,
                    group: str = '') -> str | None:
    """Record a heartbeat of a conductor; what it was before (see
    register_conductor())."""
    return register_conductor(context, hostname, group)


def unregister_conductor(context, hostname: str) -> bool:
    """Mark a conductor offline: its allocations may be taken over now.

    :returns: whether it was online.
    """
    with api.writer(context) as session:
        return session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == hostname,
                   models.Conductor.online.is_(True))
            .values(online=False, updated_at=api.utcnow())).rowcount == 1


def mark_dead(context, timeout: int) -> list[sa.Row]:
    """Mark offline the conductors online whose last heartbeat is older
    than timeout seconds, each with a compare-and-swap: of several
    conductors that notice it at once, one marks each.

    :returns: (hostname, updated_at) of those this call marked.
    """
    conductor = models.Conductor
    since = api.utcnow() - datetime.timedelta(seconds=timeout)
    stale = (conductor.online.is_(True), conductor.updated_at < since)
    marked = []
    with api.writer(context) as session:
        for row in session.execute(
                sa.select(conductor.hostname, conductor.updated_at)
                .where(*stale).order_by(conductor.hostname)).all():
            if session.execute(
                    sa.update(conductor)
                    .where(conductor.hostname == row.hostname, *stale)
                    # The last heartbeat stays as it was.
                    .values(online=False, updated_at=conductor.updated_at),
                    execution_options=api.NO_SYNC).rowcount == 1:
                marked.append(row)
    return marked


def list_conductors(context) -> list[models.Conductor]:
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(models.Conductor).order_by(models.Conductor.hostname)))


def get_conductor(context, hostname: str) -> models.Conductor:
    """:raises: ConductorNotFound"""
    with api.reader(context) as session:
        conductor = session.scalars(sa.select(models.Conductor).where(
            models.Conductor.hostname == hostname)).one_or_none()
    if conductor is None:
        raise exception.ConductorNotFound(conductor=hostname)
    return conductor


def is_alive(conductor: models.Conductor, timeout: int) -> bool:
    """Whether a conductor is online and heartbeated recently."""
    since = api.utcnow() - datetime.timedelta(seconds=timeout)
    return bool(conductor.online and conductor.updated_at
                and conductor.updated_at >= since)


def list_alive_hostnames(context, timeout: int) -> list[str]:
    """Hostnames of conductors online whose last heartbeat is recent."""
    since = api.utcnow() - datetime.timedelta(seconds=timeout)
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(models.Conductor.hostname)
            .where(models.Conductor.online.is_(True),
                   models.Conductor.updated_at >= since)
            .order_by(models.Conductor.hostname)))


def list_alive(context, timeout: int) -> list[tuple[str, str]]:
    """(hostname, conductor_group) of the conductors online whose last
    heartbeat is recent, by hostname."""
    since = api.utcnow() - datetime.timedelta(seconds=timeout)
    with api.reader(context) as session:
        return [tuple(row) for row in session.execute(
            sa.select(models.Conductor.hostname,
                      models.Conductor.conductor_group)
            .where(models.Conductor.online.is_(True),
                   models.Conductor.updated_at >= since)
            .order_by(models.Conductor.hostname))]


def clear_node_reservations(context, hostname: str) -> int:
    """Release the node locks a conductor holds (after its restart)."""
    with api.writer(context) as session:
        return session.execute(
            sa.update(models.Node)
            .where(models.Node.reservation == hostname)
            .values(reservation=None)).rowcount


def clear_dead_reservations(context, alive: list[str]) -> int:
    """Release node locks held by conductors that are not alive."""
    with api.writer(context) as session:
        return session.execute(
            sa.update(models.Node)
            .where(models.Node.reservation.is_not(None),
                   models.Node.reservation.not_in(alive))
            .values(reservation=None)).rowcount
