"""Conductors coming and going, as their events record it: registered
(started, or back after they were marked offline), unregistered
(stopped), dead (another noticed their heartbeat stopped) and the
takeover of their work by another."""
import hashlib

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import payloads

LOG = log.getLogger(__name__)


def _event(hostname: str, event_type: str, prev_state: str | None,
           state: str | None, message: str, level: str = 'info',
           **more) -> events.Event:
    return events.Event(
        'conductor', events.name_uuid('conductor', hostname), event_type,
        object_name=hostname, level=level, message=message,
        prev_state=prev_state, state=state,
        payload=payloads.conductor(hostname, state == 'online', **more))


def own_group() -> str:
    """The conductor group of this conductor ([conductor]
    conductor_group), lower-cased as Ironic keeps groups."""
    return (CONF.conductor.conductor_group or '').lower()


def serving(alive: list[tuple[str, str]], key: str,
            group: str) -> str | None:
    """The conductor that serves key (a node's UUID, or the pool and
    resource class of allocations) among the live ones ((hostname, group)
    pairs): of those of group, the one whose hash with key is highest
    (rendezvous hashing: a conductor coming or going moves only the keys
    it gains or had). None when the group has no live conductor."""
    hosts = [host for host, host_group in alive
             if (host_group or '') == (group or '')]
    if not hosts:
        return None
    return max(hosts, key=lambda host: hashlib.sha256(
        ('%s/%s' % (key, host)).encode()).digest())


def register(context, host: str, start: bool = False) -> None:
    """Mark a conductor online (its start, or a heartbeat), and record
    pool.conductor.registered when it starts or was not online.

    :param start: the conductor starts (recorded even when its row said
        online: a restart after a crash).
    """
    with db_api.writer(context) as session:
        before = conductors_db.register_conductor(context, host,
                                                  own_group())
        if start or before != conductors_db.ONLINE:
            events.record(session, [_event(
                host, event_types.CONDUCTOR_REGISTERED, before,
                conductors_db.ONLINE,
                'Conductor %s %s' % (host, 'started' if start
                                     else 'is back online'))],
                conductor=host)


def unregister(context, host: str) -> None:
    """Mark a conductor offline (its stop), and record
    pool.conductor.unregistered."""
    with db_api.writer(context) as session:
        if conductors_db.unregister_conductor(context, host):
            events.record(session, [_event(
                host, event_types.CONDUCTOR_UNREGISTERED, conductors_db.ONLINE,
                conductors_db.OFFLINE, 'Conductor %s stopped' % host)],
                conductor=host)


def mark_dead(context, host: str) -> list[str]:
    """Mark offline the conductors whose heartbeat is older than
    [conductor] heartbeat_timeout, and record pool.conductor.dead for
    each (once, whichever conductor notices it).

    :returns: their hostnames.
    """
    with db_api.writer(context) as session:
        dead = conductors_db.mark_dead(context,
                                       CONF.conductor.heartbeat_timeout)
        events.record(session, [_event(
            row.hostname, event_types.CONDUCTOR_DEAD, conductors_db.ONLINE,
            conductors_db.OFFLINE,
            'Conductor %s has not sent a heartbeat since %s; %s noticed'
            % (row.hostname, row.updated_at, host), level='warning',
            last_heartbeat=row.updated_at) for row in dead],
            conductor=host)
    for row in dead:
        LOG.warning('Conductor %(dead)s is dead: no heartbeat since '
                    '%(since)s', {'dead': row.hostname,
                                  'since': row.updated_at})
    return [row.hostname for row in dead]


def takeover(object_type: str, object_uuid: str, old_host: str | None,
             host: str) -> list[events.Event]:
    """The event of host taking over an object of a dead conductor
    (pool.conductor.takeover, of the dead one); none for an object that
    had no conductor."""
    if old_host is None:
        return []
    return [_event(old_host, event_types.CONDUCTOR_TAKEOVER, None, None,
                   'Conductor %s took over %s %s of conductor %s'
                   % (host, object_type, object_uuid, old_host),
                   taken_by=host, taken_type=object_type,
                   taken_uuid=object_uuid)]


def take_over_allocation(context, alloc_id: int, old_host: str | None,
                         host: str) -> bool:
    """Move an allocating allocation of a dead conductor (or of none) to
    host, with a compare-and-swap, and record the takeover.

    :returns: whether this call took it.
    """
    with db_api.writer_connection(context) as conn:
        if not allocations_db.take_over(context, alloc_id, old_host, host):
            return False
        found = allocations_db.by_id(conn, alloc_id)
        events.record(conn, takeover(
            'allocation', found.uuid if found else str(alloc_id),
            old_host, host), conductor=host)
        return True
