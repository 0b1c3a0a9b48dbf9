"""Events: one record of every change of state, written by the code that
makes the change in the transaction that makes it.

record() writes them; sequence() gives committed ones their public
cursors in commit order and wakes the watchers of this process. An event
of an Ironic object carries Ironic's event type (baremetal.node.*,
baremetal.port.*, baremetal.allocation.*); what Ironic has no name for
is pool.<object>.<action>.<status>.
"""
import contextlib
import dataclasses
import datetime
import threading
import time
import uuid as uuid_lib

from oslo_context import context as oslo_context
from oslo_log import log
from oslo_utils import uuidutils

from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import events as events_db
from pool_conductor import secrets
from pool_conductor import waiting

LOG = log.getLogger(__name__)

LEVELS = ('debug', 'info', 'warning', 'error', 'critical')
# The namespace of the object_uuid of objects known by name only (pools,
# brokers, profiles, workflows, providers, conductors): names can be
# longer than the 36 characters of the column, so the column holds a
# UUID made of the kind and the name, and object_name holds the name.
NAMES = uuid_lib.UUID('5f0c7c3e-5a4e-4d1b-9a57-0b6f1c2d3e4f')
# The longest message recorded: a last_error can be a whole traceback.
MAX_MESSAGE = 4096


@dataclasses.dataclass(frozen=True)
class Actor:
    """Who caused a change: the API request (carried through RPC)."""

    request_id: str | None = None
    user_id: str | None = None
    project_id: str | None = None

    @classmethod
    def of(cls, context) -> 'Actor':
        if context is None:
            return NOBODY
        return cls(getattr(context, 'request_id', None),
                   getattr(context, 'user_id', None),
                   getattr(context, 'project_id', None))


NOBODY = Actor()


def name_uuid(object_type: str, name: str) -> str:
    """The object_uuid of an object known by name: the same for the
    same kind and name (a pool deleted and made again has one history),
    different for different kinds."""
    return str(uuid_lib.uuid5(NAMES, '%s:%s' % (object_type, name)))


def astuple(actor: Actor) -> tuple:
    return dataclasses.astuple(actor)


def actors_from(wire: dict | None) -> dict[int, Actor]:
    """Who asked for each id, as an RPC message carries it."""
    out = {}
    for ident, values in (wire or {}).items():
        try:
            out[int(ident)] = Actor(*values[:3])
        except (TypeError, ValueError):
            continue
    return out


@dataclasses.dataclass(frozen=True)
class Event:
    """A change of state of one object."""

    object_type: str
    object_uuid: str
    event_type: str
    object_name: str | None = None
    level: str = 'info'
    message: str | None = None
    prev_state: str | None = None
    state: str | None = None
    # The object as it is after the change, versioned (payloads module).
    payload: dict | None = None
    # The projects that may read the event (besides the system).
    owner: str | None = None
    lessee: str | None = None
    # Who caused it, when not the request of the transaction (the
    # conductor's outcome of an allocation a request created).
    actor: Actor | None = None


# Who this thread acts for, when it is not the request of its oslo
# context: a conductor moving on nodes that several requests cast to it in
# one message (acting()).
_acting = threading.local()


@contextlib.contextmanager
def acting(actor: Actor | None, conductor: str | None = None):
    """Record the events of this thread, meanwhile, as caused by actor
    and made by conductor (unless record() is told otherwise)."""
    before = getattr(_acting, 'who', None)
    _acting.who = (actor or NOBODY, conductor)
    try:
        yield
    finally:
        _acting.who = before


def current_actor() -> Actor:
    """Who this thread acts for (acting()), else the request it serves
    (the API's, or the one an RPC message carried), else nobody."""
    who = getattr(_acting, 'who', None)
    if who is not None:
        return who[0]
    return Actor.of(oslo_context.get_current())


def _current_conductor() -> str | None:
    who = getattr(_acting, 'who', None)
    return who[1] if who is not None else None


def rows(events: list[Event], context=None, conductor: str | None = None
         ) -> list[dict]:
    """The rows of events, secrets masked."""
    default = Actor.of(context) if context is not None else current_actor()
    if conductor is None:
        conductor = _current_conductor()
    now = db_api.utcnow()
    out = []
    for event in events:
        actor = event.actor or default
        message = event.message
        if message is not None:
            message = secrets.mask(str(message))[:MAX_MESSAGE]
        out.append({
            'uuid': uuidutils.generate_uuid(), 'created_at': now,
            'object_type': event.object_type,
            'object_uuid': event.object_uuid,
            'object_name': event.object_name,
            'event_type': event.event_type, 'level': event.level,
            'message': message, 'prev_state': event.prev_state,
            'state': event.state, 'request_id': actor.request_id,
            'user_id': actor.user_id, 'project_id': actor.project_id,
            'conductor': conductor, 'owner': event.owner,
            'lessee': event.lessee,
            'payload': secrets.mask(event.payload or {}),
            'seq': None, 'published_at': None})
    return out


def record(conn, events: list[Event], context=None,
           conductor: str | None = None) -> None:
    """Record events in the transaction of conn (a Core connection or an
    ORM session), with one statement.

    :param context: the request that caused them; by default the one
        this thread serves.
    :param conductor: the conductor that made the changes, if one did.
    """
    if not events:
        return
    if hasattr(conn, 'connection') and not hasattr(conn, 'dialect'):
        conn = conn.connection()
    events_db.insert(conn, rows(events, context, conductor))


# Watchers of this process wait on this; sequence() wakes them.
_sequenced = threading.Condition()
_last_seen = 0


def sequence(wait: bool = True, published: bool = False) -> int | None:
    """Give committed events their cursors (a batch of at most
    [events] sequence_batch), and wake this process's watchers when there
    were any.

    :param published: mark them published too (no notification will be
        sent of them: notifications.sending()).
    :returns: the last cursor given, or None when another sequencer was
        at work and wait is False.
    """
    global _last_seen
    done = events_db.sequence(CONF.events.sequence_batch, wait=wait,
                              published=published)
    if done is None:
        return None
    count, last = done
    if last > _last_seen:
        with _sequenced:
            _last_seen = max(_last_seen, last)
            _sequenced.notify_all()
    return last


def wait_for(cursor: int, timeout: float) -> bool:
    """Wait until this process has sequenced (or seen) events past
    cursor, at most timeout seconds.

    :returns: whether it has.
    """
    with waiting.during(), _sequenced:
        return _sequenced.wait_for(lambda: _last_seen > cursor, timeout)


def last_seen() -> int:
    """The last cursor this process has sequenced or seen."""
    return _last_seen


def seen(cursor: int) -> None:
    """Wake the watchers of this process for cursors up to cursor (another
    process sequenced them)."""
    global _last_seen
    if cursor > _last_seen:
        with _sequenced:
            _last_seen = max(_last_seen, cursor)
            _sequenced.notify_all()


def prune() -> int:
    """Delete the events past retention, [events] cleanup_batch at a
    time: those older than [events] retention_days and those beyond the
    newest [events] max_per_object of their object, never one not yet
    published. The highest cursor deleted is recorded (a watcher behind
    it may have missed events). Never raises.

    :returns: how many events were deleted.
    """
    conf = CONF.events
    before = db_api.utcnow() - datetime.timedelta(days=conf.retention_days)
    total = 0
    try:
        while True:
            started = time.monotonic()
            done = events_db.prune(before, conf.max_per_object,
                                   conf.cleanup_batch)
            if done is None:
                break   # Another conductor prunes.
            total += done[0]
            if done[0] < conf.cleanup_batch and done[2]:
                break
            # As long again between two transactions: writers that wait
            # for SQLite's one writer get their turn.
            time.sleep(time.monotonic() - started)
    except Exception as exc:
        LOG.warning('Pruning events failed: %s', exc)
    if total:
        LOG.info('Deleted %d events past retention', total)
    return total
