"""Lifespans: allocations that end by themselves, as Poolboy's.

A pool's ``lifespan`` gives its allocations an end: ``default`` (how long
one lives unless it asks), ``maximum`` (the latest end, counted from its
creation) and ``relative_maximum`` (the latest end, counted from now, so
that an extension cannot reach further than that at once). With both
maximums the earlier one holds (``unclaimed`` is the life of a Free
machine a broker made: pool_conductor.autofill). An allocation's
``lifespan_end`` is the
requested end, else now plus ``default``; never later than the limits.
When it passes, a conductor releases the allocation through the binding
writer, as returnMachines with force does: that round is
pool_conductor.expiry's; this module holds the rules only.
"""
import datetime
import re

from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import exception

KEYS = ('default', 'maximum', 'relative_maximum', 'unclaimed')
UNITS = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400, 'w': 604800}
# "1d12h", "30m": one or more numbers, each with its unit.
DURATION_PATTERN = r'^([0-9]{1,7}[smhdw])+$'
_PART = re.compile(r'([0-9]+)([smhdw])')
# The longest duration: a lifespan beyond it is a mistake, and datetimes
# end in the year 9999.
LONGEST = datetime.timedelta(days=36500)


def duration(text: str, key: str = 'lifespan') -> datetime.timedelta:
    """A duration such as "4h" or "1d12h".

    :raises: InvalidParameterValue naming key
    """
    if not isinstance(text, str) or not re.fullmatch(DURATION_PATTERN,
                                                     text):
        raise exception.InvalidParameterValue(
            err='%s must be a duration such as "30m", "4h", "7d" or "1d12h" '
                '(units s, m, h, d, w), not %r.' % (key, text))
    seconds = sum(int(n) * UNITS[u] for n, u in _PART.findall(text))
    if seconds <= 0 or seconds > LONGEST.total_seconds():
        raise exception.InvalidParameterValue(
            err='%s must be longer than 0 and at most %d days, not %s.'
                % (key, LONGEST.days, text))
    return datetime.timedelta(seconds=seconds)


def check_policy(policy: dict | None) -> None:
    """:raises: InvalidParameterValue for a duration that is not one"""
    for key in KEYS:
        if (policy or {}).get(key) is not None:
            duration(policy[key], 'lifespan.%s' % key)


def latest_end(policy: dict | None, created: datetime.datetime,
               now: datetime.datetime) -> datetime.datetime | None:
    """The latest end a pool's policy allows an allocation created at
    created: the earlier of created plus maximum and now plus
    relative_maximum; None without either."""
    policy = policy or {}
    limits = []
    if policy.get('maximum'):
        limits.append(created + duration(policy['maximum']))
    if policy.get('relative_maximum'):
        limits.append(now + duration(policy['relative_maximum']))
    return min(limits) if limits else None


def end(policy: dict | None, created: datetime.datetime,
        now: datetime.datetime,
        requested: datetime.datetime | None = None,
        holder: str = 'the pool\'s'
        ) -> datetime.datetime | None:
    """An allocation's lifespan_end: the requested one, else now plus the
    default, never later than latest_end(); None when nothing limits it.

    :param holder: whose lifespan policy it is, for the message.

    :raises: InvalidParameterValue for a requested end that is not in
        the future or is later than the policy allows (naming the latest
        end allowed)
    """
    latest = latest_end(policy, created, now)
    if requested is not None:
        if requested <= now:
            raise exception.InvalidParameterValue(
                err='lifespan_end %s is not in the future.'
                    % iso(requested))
        if latest is not None and requested > latest:
            raise exception.InvalidParameterValue(
                err='lifespan_end %s is later than %s lifespan allows: '
                    'the latest end allowed is %s.'
                    % (iso(requested), holder, iso(latest)))
        return requested
    default = (policy or {}).get('default')
    ends = [e for e in (now + duration(default) if default else None,
                        latest) if e is not None]
    return min(ends) if ends else None


def unlimited(policy: dict | None) -> bool:
    """Whether an allocation of the pool may live forever (a PATCH may
    remove its lifespan_end)."""
    return not any((policy or {}).get(k) for k in ('maximum',
                                                   'relative_maximum'))


def policy_of(context, pool: str) -> dict | None:
    """The lifespan policy of a pool (None for a pool that is gone)."""
    try:
        return pools_db.get(context, models.Pool, pool).lifespan
    except exception.ObjectNotFound:
        return None


def new_end(policy: dict | None,
            requested: datetime.datetime | None = None
            ) -> datetime.datetime | None:
    """The lifespan_end of an allocation created now in a pool with this
    lifespan policy.

    :raises: InvalidParameterValue (see end())
    """
    now = db_api.utcnow()
    return end(policy, now, now, requested)


def settle_new(pool: str | None, requested: datetime.datetime | None):
    """How a new allocation's lifespan_end is settled once its row is
    written: a function that allocations_db.create_allocation() calls
    with whether the allocation's pool (pool, else the default one)
    exists, its lifespan policy and the allocation's creation time, and
    that returns the values the row must change (none when the requested
    end stands).

    :raises: (the function) ObjectNotFound for a named pool that does not
        exist, InvalidParameterValue (see end())
    """
    def settle(found: bool, policy: dict | None,
               created: datetime.datetime) -> dict | None:
        if pool and not found:
            raise exception.ObjectNotFound(kind='Pool', name=pool)
        settled = end(policy, created, created, requested)
        return None if settled == requested else {'lifespan_end': settled}
    return settle


def changed_end(context, pool: str, created: datetime.datetime,
                requested: datetime.datetime | None
                ) -> datetime.datetime | None:
    """A new lifespan_end an allocation of pool created at created asks
    for (a PATCH): within the same limits as at its creation; None only
    where nothing limits its life.

    :raises: InvalidParameterValue
    """
    policy = policy_of(context, pool)
    now = db_api.utcnow()
    if requested is None:
        if not unlimited(policy):
            raise exception.InvalidParameterValue(
                err='lifespan_end cannot be removed: the lifespan of pool '
                    '%s has a maximum; the latest end allowed is %s.'
                    % (pool, iso(latest_end(policy, created, now))))
        return None
    return end(policy, created, now, requested)


def iso(value: datetime.datetime) -> str:
    """A time as lifespan messages give it."""
    return value.replace(microsecond=0).isoformat() + '+00:00'
