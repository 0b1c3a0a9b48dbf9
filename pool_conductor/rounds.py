"""A conductor's asynchronous work: whose rows it may take, going over
them one by one, and settling each without ever raising."""
from collections.abc import Callable, Iterable
from typing import TypeVar

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor import retry

LOG = log.getLogger(__name__)
T = TypeVar('T')

# What an attempt at one piece of work (an allocation, a claim) tells its
# caller, besides that it is done.
FAILED = 'failed'   # it cannot be done: recorded as the row's error
BUSY = 'busy'       # what it needs is locked by other transactions now
GONE = 'gone'       # deleted, done, or another conductor's meanwhile

# The back-off while an attempt is BUSY.
_BUSY_SLEEP_MIN = 0.005
_BUSY_SLEEP_MAX = 0.25


class Rollback(Exception):
    """Leave the transaction of an attempt: args[0] is its outcome, the
    rest what goes with it."""


def live_conductors(context, host: str) -> list[str] | None:
    """The conductors alive now, host among them; None when host's own
    heartbeat is stale: it may be the one the others consider dead, and
    taking over work then could fight its successor.

    :raises: what reading the conductors raises
    """
    alive = conductors_db.list_alive_hostnames(
        context, CONF.conductor.heartbeat_timeout)
    return alive if host in alive else None


def hosts_to_serve(context, host: str) -> list[str]:
    """The conductors whose rows this one may take over with its own: the
    live ones, or only itself while its own heartbeat is stale."""
    return live_conductors(context, host) or [host]


def _capital(what: str) -> str:
    return what[:1].upper() + what[1:]


def once(work: Callable[[], T], what: str, default: T = 0) -> T:
    """work(), a round of one transaction (or a step of one), whose
    failure is logged once as a warning (with what it does) instead of
    raised: it never raises.

    :returns: what work() returns; default when it failed.
    """
    try:
        return work()
    except Exception as exc:
        LOG.warning('%(what)s failed: %(exc)s',
                    {'what': _capital(what), 'exc': exc})
        return default


def run(list_rows: Callable[[], Iterable], handle: Callable[..., bool],
        what: str, name: Callable[..., object] = str) -> int:
    """handle(row) for each row list_rows() returns. A failure, to list
    or to handle a row, is logged (with what the round does) and the
    round goes on with the next row: it never raises.

    :param name: how the log names a row (its id by default).
    :returns: how many rows handle() returned true for.
    """
    try:
        rows = list_rows()
    except Exception as exc:
        LOG.warning('Listing the rows for %(what)s failed: %(exc)s',
                    {'what': what, 'exc': exc})
        return 0
    done = 0
    for row in rows:
        try:
            done += bool(handle(row))
        except Exception as exc:
            LOG.warning('%(what)s failed for %(row)s: %(exc)s',
                        {'what': _capital(what), 'row': name(row),
                         'exc': exc})
    return done


def settle(attempt: Callable[[], str], record_failure: Callable[[str], object],
           what: str) -> str | None:
    """attempt() again while it is BUSY (a transaction holding what it
    needs commits soon, and then it is known whether it is left); never
    raises, as Ironic's allocation worker.

    :param record_failure: records an unexpected error's message on the
        row worked on.
    :param what: the work, as the log names it ("allocation 7").
    :returns: attempt()'s outcome; FAILED after an unexpected error; None
        when the database is unreachable (the row stays as it is, and is
        tried again later).
    """
    try:
        return retry.while_result(attempt, BUSY, _BUSY_SLEEP_MIN,
                                  _BUSY_SLEEP_MAX)
    except Exception as exc:
        if db_api.is_unavailable(exc):
            LOG.warning('Database unreachable while processing %(what)s, '
                        'it will be retried: %(exc)s',
                        {'what': what, 'exc': exc})
            return None
        LOG.exception('Unexpected error while processing %s', what)
        try:
            record_failure(str(exc))
        except Exception:
            LOG.exception('Could not record the failure of %s', what)
        return FAILED
