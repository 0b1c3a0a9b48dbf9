"""Queries on conductors: registration, heartbeats and liveness."""
import datetime

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception


def register_conductor(context, hostname: str) -> None:
    """Mark a conductor online, creating its row on first start."""
    with api.writer(context) as session:
        res = session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == hostname)
            .values(online=True, updated_at=api.utcnow()))
        if res.rowcount:
            return
    try:
        with api.writer(context) as session:
            session.add(models.Conductor(hostname=hostname, online=True,
                                         updated_at=api.utcnow()))
    except db_exc.DBDuplicateEntry:
        register_conductor(context, hostname)


def touch_conductor(context, hostname: str) -> None:
    """Record a heartbeat of a conductor."""
    register_conductor(context, hostname)


def unregister_conductor(context, hostname: str) -> None:
    """Mark a conductor offline: its allocations may be taken over now."""
    with api.writer(context) as session:
        session.execute(sa.update(models.Conductor)
                        .where(models.Conductor.hostname == hostname)
                        .values(online=False, updated_at=api.utcnow()))


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
