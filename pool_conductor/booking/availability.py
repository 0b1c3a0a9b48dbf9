"""Availability of a pool: when a request for nodes could start at the
earliest, and the free periods of its matching nodes.

It reads what booking reads (pool_conductor.booking.windows: what holds a
node now, its slots, the pool's margins) and writes nothing: the answer
of /v1/availability, a preview that a booking made later may contradict.
"""
import dataclasses
import datetime

from pool_conductor.booking import windows
from pool_conductor.db import api as db_api
from pool_conductor.db import slots as slots_db
from pool_conductor import exception


@dataclasses.dataclass(frozen=True)
class Availability:
    """When a request for count nodes for a duration could start at the
    earliest (None: not before the horizon), and the free periods of each
    matching node within [after, before)."""

    earliest_start: datetime.datetime | None
    nodes: list[tuple[object, list[tuple]]]
    after: datetime.datetime
    before: datetime.datetime


def free_periods(node, slots: list, after: datetime.datetime,
                 post: datetime.timedelta) -> list[tuple]:
    """The periods from after on in which nothing holds a node: not what
    holds it now (until its end plus the post margin, or forever), nor
    its slots; the last one ends at windows.FOREVER."""
    _, until = windows.holder(node, post)
    busy = sorted([(s.busy_from, s.busy_until) for s in slots]
                  + ([(after, until)] if until is not None else []))
    free, cursor = [], after
    for begin, end in busy:
        if begin > cursor:
            free.append((cursor, begin))
        cursor = max(cursor, end)
    if cursor < windows.FOREVER:
        free.append((cursor, windows.FOREVER))
    return free


def earliest_start(periods: list[list[tuple]], length: datetime.timedelta,
                   count: int, after: datetime.datetime,
                   pool_margins: windows.Margins) -> datetime.datetime | None:
    """The earliest start from after on at which count of the nodes (their
    free periods) are each free for a window of length with the margins.

    A node's possible starts are a union of intervals whose lower ends
    are after or the start of one of its periods plus the pre margin, so
    the earliest start for several nodes is one of those too.
    """
    pre, post = pool_margins.pre, pool_margins.post
    starts = sorted({after} | {f + pre for node in periods for f, _ in node
                               if f + pre >= after})
    for start in starts:
        want_from, want_until = start - pre, start + length + post
        if want_until >= windows.FOREVER:
            return None
        fit = sum(1 for node in periods
                  if any(f <= want_from and u >= want_until
                         for f, u in node))
        if fit >= count:
            return start
    return None


def availability(context, pool: str, resource_class: str | None, traits,
                 owner: str | None, length: datetime.timedelta, count: int,
                 after: datetime.datetime, before: datetime.datetime,
                 limit: int) -> Availability:
    """The earliest start of a request and the free periods of the first
    limit matching nodes (all are counted for the earliest start).

    :raises: ObjectNotFound for a pool
    """
    with db_api.reader(context) as session:
        conn = session.connection()
        found = slots_db.margins(conn, pool)
        if found is None:
            raise exception.ObjectNotFound(kind='Pool', name=pool)
        pool_margins = windows.margins(found.reservation_pre_margin,
                                       found.reservation_post_margin)
        nodes = slots_db.matching(conn, pool, resource_class, traits, owner,
                                  ())
        slots: dict[int, list] = {}
        for s in slots_db.of_nodes(conn, [n.id for n in nodes], after):
            slots.setdefault(s.node_id, []).append(s)
    periods = [free_periods(n, slots.get(n.id, []), after, pool_margins.post)
               for n in nodes]
    earliest = earliest_start(periods, length, count, after, pool_margins)
    if earliest is not None and earliest >= before:
        earliest = None
    shown = [(n, [(f, min(u, before)) for f, u in p if f < before])
             for n, p in zip(nodes[:limit], periods[:limit], strict=True)]
    return Availability(earliest, shown, after, before)
