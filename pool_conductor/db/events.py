"""Statements of the event records: insert, sequence, read, publish,
prune."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models

_EVENTS = models.Event.__table__
_CURSORS = models.EventCursor.__table__
_INSERT = sa.insert(_EVENTS)
SEQUENCE = 'sequence'
# The highest cursor retention deleted: a watcher behind it missed events.
PRUNED = 'pruned'


def insert(conn, rows: list[dict]) -> None:
    """Insert event rows (one statement for all)."""
    if rows:
        conn.execute(_INSERT, rows)


def _cursor_row(conn, name: str, lock: bool, wait: bool = True):
    q = sa.select(_CURSORS.c.value).where(_CURSORS.c.name == name)
    if lock and conn.dialect.name != 'sqlite':
        q = q.with_for_update(skip_locked=not wait)
    return conn.execute(q).scalar()


def cursor(conn, name: str = SEQUENCE) -> int:
    """The last cursor given (or the last pruned)."""
    return _cursor_row(conn, name, lock=False) or 0


def _set_cursor(conn, name: str, value: int) -> None:
    if conn.execute(sa.update(_CURSORS).where(_CURSORS.c.name == name)
                    .values(value=value)).rowcount == 0:
        conn.execute(sa.insert(_CURSORS).values(name=name, value=value))


def sequence(limit: int, wait: bool = True) -> tuple[int, int] | None:
    """Give cursors to committed events that have none, in id order,
    after every cursor given before, in a transaction of its own.

    The cursor row's lock serializes sequencers, and each reads the
    events committed before it took the lock (read committed), so the
    cursors become visible in increasing order: a reader of cursor > N
    never finds a new event below one it has seen. Cursors may leave
    gaps (an event that commits later gets a later cursor).

    :param wait: wait for another sequencer; else return None at once.
    :returns: (how many events were given cursors, the last cursor), or
        None when another sequencer held the lock.
    """
    engine = api.get_engine()
    with engine.connect() as conn:
        if engine.dialect.name != 'sqlite':
            conn = conn.execution_options(isolation_level='READ COMMITTED')
        with conn.begin():
            last = _cursor_row(conn, SEQUENCE, lock=True, wait=wait)
            if last is None:
                return None
            ids = conn.execute(
                sa.select(_EVENTS.c.id).where(_EVENTS.c.seq.is_(None))
                .order_by(_EVENTS.c.id).limit(limit)).scalars().all()
            if not ids:
                return 0, last
            # seq = last + 1 + (id - first id): increasing with id, above
            # every cursor given before, one statement for the batch.
            base = last + 1 - ids[0]
            conn.execute(sa.update(_EVENTS)
                         .where(_EVENTS.c.id.in_(ids))
                         .values(seq=_EVENTS.c.id + base))
            last = last + 1 + ids[-1] - ids[0]
            _set_cursor(conn, SEQUENCE, last)
            if engine.dialect.name == 'postgresql':
                # Delivered at commit to API workers that LISTEN.
                conn.execute(sa.select(sa.func.pg_notify(
                    'pool_events', str(last))))
            return len(ids), last


def _filtered(q, filters: dict):
    e = _EVENTS.c
    for key in ('object_type', 'object_uuid', 'event_type', 'request_id'):
        if filters.get(key) is not None:
            q = q.where(e[key] == filters[key])
    if filters.get('event_type_prefix'):
        q = q.where(e.event_type.startswith(filters['event_type_prefix'],
                                            autoescape=True))
    if filters.get('levels'):
        q = q.where(e.level.in_(filters['levels']))
    if filters.get('project') is not None:
        project = filters['project']
        q = q.where(sa.or_(e.owner == project, e.lessee == project,
                           e.project_id == project))
    return q


def after(context, since: int, filters: dict, limit: int) -> list[sa.Row]:
    """Sequenced events with a cursor above since, in cursor order."""
    with api.reader(context) as session:
        q = sa.select(_EVENTS).where(_EVENTS.c.seq > since)
        return session.execute(_filtered(q, filters).order_by(
            _EVENTS.c.seq).limit(limit)).all()


def cursors(context) -> tuple[int, int]:
    """(the last cursor given, the last cursor pruned)."""
    with api.reader(context) as session:
        conn = session.connection()
        return cursor(conn, SEQUENCE), cursor(conn, PRUNED)
