"""The operators' policy for windows: bounds, caps per project, idle
reclaim and the notice before the end.

A booking's window starts no later than [windows] max_advance from
now, lasts between min_duration and max_duration, and starts and ends on
the grid of granularity seconds (a time off the grid is refused with the
nearest times on it, never rounded): a 400. A project (the allocation's
owner) holds at most max_future_per_project scheduled windows, at most
max_active_per_project windows at once, and at most
max_node_hours_per_project machine-hours in its scheduled and started
windows: a 403 naming the cap and the project's usage, as a quota. The
caps are counted under the lock of the project's row, so two concurrent
bookings of a project cannot both pass one. An extension (a later
lifespan_end) keeps to max_duration, the grid and the caps.

A started window whose node saw no deployment is warned at half of
idle_reclaim_after and released when it has passed (deployed() says
whether it saw one); a started window whose end is within before_end is
announced once per end. Those rounds are pool_conductor.expiry's; this
module holds the rules only.
"""
import datetime

from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import window_policy as policy_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import payloads
from pool_conductor import states

# How many overlapping windows a refusal names.
_NAMED = 5
_EPOCH = datetime.datetime(1970, 1, 1)
_SECOND = datetime.timedelta(seconds=1)


def _iso(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat() + 'Z'


def span(seconds: float) -> str:
    """A duration as the API reads them: 30d, 1d12h, 90s."""
    seconds = int(seconds)
    if seconds <= 0:
        return '0s'
    parts = []
    for unit, size in (('d', 86400), ('h', 3600), ('m', 60), ('s', 1)):
        if seconds >= size:
            parts.append('%d%s' % (seconds // size, unit))
            seconds %= size
    return ''.join(parts)


def _hours(value: datetime.timedelta) -> float:
    return value.total_seconds() / 3600


def _grid(value: datetime.datetime, step: int
          ) -> tuple[datetime.datetime, datetime.datetime] | None:
    """The times on the grid of step seconds around value (the same
    twice for a time on it); None when step is 0."""
    if not step:
        return None
    micro = (value - _EPOCH) // datetime.timedelta(microseconds=1)
    size = step * 1000000
    lower = _EPOCH + datetime.timedelta(microseconds=micro // size * size)
    if lower == value:
        return value, value
    return lower, lower + datetime.timedelta(seconds=step)


def check_grid(value: datetime.datetime, key: str) -> None:
    """A window's time is on the grid of [windows] granularity.

    :raises: InvalidParameterValue naming the nearest valid times
    """
    step = CONF.windows.granularity
    found = _grid(value, step)
    if found is None or found[0] == value:
        return
    raise exception.InvalidParameterValue(
        err='%s %s is not on the grid of windows (every %s, '
            '[windows] granularity); the nearest valid times are %s '
            'and %s.' % (key, _iso(value) if value.microsecond == 0
                         else value.isoformat() + 'Z', span(step),
                         _iso(found[0]), _iso(found[1])))


def check_bounds(start: datetime.datetime, end: datetime.datetime,
                 now: datetime.datetime) -> None:
    """A booking's window keeps to max_advance, min_duration,
    max_duration and granularity.

    :raises: InvalidParameterValue naming the limit
    """
    conf = CONF.windows
    if conf.max_advance and start > now + conf.max_advance * _SECOND:
        raise exception.InvalidParameterValue(
            err='start_at %s is too far ahead: windows start within %s '
                'of now ([windows] max_advance); the latest start '
                'allowed now is %s.' % (
                    _iso(start), span(conf.max_advance),
                    _iso(now + conf.max_advance * _SECOND)))
    length = end - start
    if conf.min_duration and length < conf.min_duration * _SECOND:
        raise exception.InvalidParameterValue(
            err='The window from %s to %s lasts %s, less than the %s '
                'allowed at least ([windows] min_duration).' % (
                    _iso(start), _iso(end), span(length.total_seconds()),
                    span(conf.min_duration)))
    _check_longest(start, end, 'The window from %s to %s' % (
        _iso(start), _iso(end)))
    check_grid(start, 'start_at')
    check_grid(end, 'end_at')


def _check_longest(start: datetime.datetime, end: datetime.datetime,
                   what: str) -> None:
    longest = CONF.windows.max_duration
    if longest and end - start > longest * _SECOND:
        raise exception.InvalidParameterValue(
            err='%s lasts %s, more than the %s allowed ([windows] '
                'max_duration); the latest end allowed is %s.' % (
                    what, span((end - start).total_seconds()),
                    span(longest), _iso(start + longest * _SECOND)))


def at_once(windows: list) -> int:
    """The most of windows (start_at, lifespan_end; half-open) that run
    at the same time."""
    # An end sorts before a start at the same time: touching windows do
    # not run at once.
    edges = sorted([(w.start_at, 1) for w in windows]
                   + [(w.lifespan_end, -1) for w in windows])
    most = running = 0
    for _, step in edges:
        running += step
        most = max(most, running)
    return most


def _check_caps(conn, project: str, start: datetime.datetime,
                end: datetime.datetime, exclude: int | None = None,
                new: bool = True, count: int = 1, most: int = 1) -> int:
    """A project's caps, counted under its row's lock with the windows
    [start, end) it books (new: at least count, at most most of them) or
    extends (exclude: its own row).

    :returns: how many of the windows, from count to most, the caps allow
    :raises: WindowLimitExceeded naming the cap and the usage
    """
    conf = CONF.windows
    if not (conf.max_future_per_project or conf.max_active_per_project
            or conf.max_node_hours_per_project):
        return most
    policy_db.lock_project(conn, project)
    held = policy_db.windows_of(conn, project, exclude=exclude)
    scheduled = [w for w in held if w.state == states.ALLOCATION_SCHEDULED]
    more = '' if count == 1 else ' (%d asked at least)' % count
    allowed = most
    if new and conf.max_future_per_project:
        room = conf.max_future_per_project - len(scheduled)
        if room < count:
            raise exception.WindowLimitExceeded(
                err='Project %s has %d scheduled windows, as many as allowed '
                    '([windows] max_future_per_project = %d)%s; one '
                    'more can be booked once one of them started or was '
                    'deleted.' % (project, len(scheduled),
                                  conf.max_future_per_project, more))
        allowed = min(allowed, room)
    if conf.max_active_per_project:
        over = [w for w in held
                if w.start_at < end and w.lifespan_end > start]
        room = conf.max_active_per_project - at_once(over)
        if room < count:
            raise exception.WindowLimitExceeded(
                err='Project %s would hold %d windows at once between %s '
                    'and %s, more than the %d allowed ([windows] '
                    'max_active_per_project); its windows there: %s.'
                    % (project, at_once(over) + count, _iso(start),
                       _iso(end), conf.max_active_per_project,
                       ', '.join('%s (%s to %s)' % (
                           w.uuid, _iso(w.start_at), _iso(w.lifespan_end))
                           for w in over[:_NAMED])
                       + (' and %d more' % (len(over) - _NAMED)
                          if len(over) > _NAMED else '')))
        allowed = min(allowed, room)
    if conf.max_node_hours_per_project:
        used = sum(_hours(w.lifespan_end - w.start_at) for w in held)
        asked = _hours(end - start)
        room = int((conf.max_node_hours_per_project - used + 1e-9) // asked)
        if room < count:
            raise exception.WindowLimitExceeded(
                err='Project %s holds %.2f machine-hours in its scheduled '
                    'and started windows; %s of %.2f hours would make '
                    '%.2f, more than the %.2f allowed ([windows] '
                    'max_node_hours_per_project).'
                    % (project, used, 'this window' if count == 1
                       else '%d windows' % count, asked,
                       used + asked * count,
                       conf.max_node_hours_per_project))
        allowed = min(allowed, room)
    return allowed


def check_booking(conn, owner: str | None, start: datetime.datetime,
                  end: datetime.datetime, count: int = 1,
                  most: int = 1) -> int:
    """New windows keep to the bounds and their project's caps (an
    allocation without an owner has no project to count in), in the
    booking's transaction, before any node is locked.

    :param count: how many windows must fit (a reservation's minimum).
    :param most: how many are asked for at most.
    :returns: how many of them, from count to most, may be booked.
    :raises: InvalidParameterValue, WindowLimitExceeded
    """
    check_bounds(start, end, db_api.utcnow())
    if owner:
        return _check_caps(conn, owner, start, end, count=count, most=most)
    return most


def check_extension(conn, alloc, new_end: datetime.datetime | None
                    ) -> None:
    """A windowed allocation's new lifespan_end is on the grid and, when
    later than its end, keeps to max_duration and its project's caps;
    nothing for other allocations. Call it before the node is locked (the
    project's lock comes first).

    :raises: InvalidParameterValue, WindowLimitExceeded
    """
    start = alloc.start_at
    if start is None or new_end is None or new_end <= start:
        # No window, or what windows.check_end refuses.
        return
    check_grid(new_end, 'lifespan_end')
    if alloc.lifespan_end is not None and new_end <= alloc.lifespan_end:
        # Shortening a window is always allowed, whatever the limits
        # became since its booking.
        return
    _check_longest(start, new_end, 'Allocation %s from %s to %s' % (
        alloc.uuid, _iso(start), _iso(new_end)))
    if alloc.owner and alloc.state in (states.ALLOCATION_SCHEDULED,
                                       states.ALLOCATING,
                                       states.ALLOCATION_ACTIVE):
        _check_caps(conn, alloc.owner, start, new_end, exclude=alloc.id,
                    new=False)


def deployed(row) -> bool:
    """Whether a started window's node saw a deployment since the start:
    its provision state is not available (deploying, active, failed...),
    it changed since the start, or its instance_info is set."""
    return (row.provision_state != states.AVAILABLE
            or (row.provision_updated_at is not None
                and row.provision_updated_at >= row.start_at)
            or bool(row.instance_info))


# Transition events -----------------------------------------------------

def ended(alloc) -> events.Event:
    """The event of a window released at its end (its lifespan_end)."""
    return events.Event(
        'allocation', alloc.uuid, event_types.ALLOCATION_ENDED,
        object_name=alloc.name, prev_state=alloc.state, owner=alloc.owner,
        message='The window of allocation %s ended at %s.'
                % (alloc.uuid, _iso(alloc.lifespan_end)),
        payload=payloads.allocation(alloc))
