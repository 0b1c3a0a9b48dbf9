"""A conductor's periodic rounds: whose work it may take, and going over
rows one by one without ever raising."""
from collections.abc import Callable, Iterable

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor.db import conductors as conductors_db

LOG = log.getLogger(__name__)


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


def run(list_rows: Callable[[], Iterable], handle: Callable[..., bool],
        what: str) -> int:
    """handle(row) for each row list_rows() returns. A failure, to list
    or to handle a row, is logged (with what the round does) and the
    round goes on with the next row: it never raises.

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
                        {'what': what.capitalize(), 'row': row, 'exc': exc})
    return done
