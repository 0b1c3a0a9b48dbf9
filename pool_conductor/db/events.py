"""Statements of the event records: insert, sequence, read, publish,
prune."""
import contextlib
import select

from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception

_EVENTS = models.Event.__table__
_CURSORS = models.EventCursor.__table__
_INSERT = sa.insert(_EVENTS)
SEQUENCE = 'sequence'
# The highest cursor retention deleted: a watcher behind it missed events.
PRUNED = 'pruned'
# Its row lock serializes the notification publishers of all conductors.
PUBLISH = 'publish'
# How far retention has counted the events of each object against [events]
# max_per_object: the objects of the events above it are counted next.
COUNTED = 'counted'


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


@contextlib.contextmanager
def _read_committed(engine):
    """A connection in a transaction that reads what others committed
    before each statement (MariaDB's default repeatable read would read a
    snapshot taken before the lock was granted)."""
    with engine.connect() as conn:
        if engine.dialect.name != 'sqlite':
            conn = conn.execution_options(isolation_level='READ COMMITTED')
        with conn.begin():
            yield conn


def _index_scans(conn) -> None:
    """For the rest of the transaction, have PostgreSQL read the events
    still to sequence or publish with index scans, not bitmap or
    sequential scans.

    Each event row is updated twice after its insert, and each update
    leaves an index entry to a dead row version until a vacuum. A bitmap
    scan visits those dead versions again at every look (40 ms a look
    after 70,000 events without a vacuum); an index scan marks their
    entries as it passes, and the next look skips them: a look costs what
    changed since the previous one, not since the last vacuum.
    """
    if conn.dialect.name == 'postgresql':
        conn.execute(sa.select(
            sa.func.set_config('enable_bitmapscan', 'off', True),
            sa.func.set_config('enable_seqscan', 'off', True)))


def _try_lock(conn, name: str) -> int | None:
    """Lock a cursor row unless another transaction holds it (then None);
    a row that no migration made is made, locked by this transaction.

    :raises: DBDuplicateEntry when another process made it meanwhile
    """
    value = _cursor_row(conn, name, lock=True, wait=False)
    if value is None and _cursor_row(conn, name, lock=False) is None:
        conn.execute(sa.insert(_CURSORS).values(name=name, value=0))
        value = 0
    return value


def sequence(limit: int, wait: bool = True, published: bool = False
             ) -> tuple[int, int] | None:
    """Give cursors to committed events that have none, in id order,
    after every cursor given before, in a transaction of its own.

    The cursor row's lock serializes sequencers, and each reads the
    events committed before it took the lock (read committed), so the
    cursors become visible in increasing order: a reader of cursor > N
    never finds a new event below one it has seen. Cursors may leave
    gaps (an event that commits later gets a later cursor).

    :param wait: wait for another sequencer; else return None at once.
    :param published: mark the events published in the same update (no
        notification will be sent of them).
    :returns: (how many events were given cursors, the last cursor), or
        None when another sequencer held the lock.
    """
    with _read_committed(api.get_engine()) as conn:
        last = _cursor_row(conn, SEQUENCE, lock=True, wait=wait)
        if last is None:
            return None
        _index_scans(conn)
        ids = conn.execute(
            sa.select(_EVENTS.c.id).where(_EVENTS.c.seq.is_(None))
            .order_by(_EVENTS.c.id).limit(limit)).scalars().all()
        if not ids:
            return 0, last
        # seq = last + 1 + (id - first id): increasing with id, above
        # every cursor given before, one statement for the batch.
        base = last + 1 - ids[0]
        values = {'seq': _EVENTS.c.id + base}
        if published:
            values['published_at'] = api.utcnow()
        conn.execute(sa.update(_EVENTS)
                     .where(_EVENTS.c.id.in_(ids)).values(values))
        last = last + 1 + ids[-1] - ids[0]
        _set_cursor(conn, SEQUENCE, last)
        if conn.dialect.name == 'postgresql':
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


def page_statement(filters: dict, limit: int) -> sa.Select:
    """The read of at most limit sequenced events the filters let
    through, with a cursor above the parameter ``since``, in cursor
    order."""
    q = sa.select(_EVENTS).where(_EVENTS.c.seq > sa.bindparam('since'))
    return _filtered(q, filters).order_by(_EVENTS.c.seq).limit(limit)


def after(context, since: int, filters: dict, limit: int) -> list[sa.Row]:
    """Sequenced events with a cursor above since, in cursor order."""
    with api.reader(context) as session:
        return session.execute(page_statement(filters, limit),
                               {'since': since}).all()


def cursors(context) -> tuple[int, int]:
    """(the last cursor given, the last cursor pruned)."""
    with api.reader(context) as session:
        conn = session.connection()
        return cursor(conn, SEQUENCE), cursor(conn, PRUNED)


def publish(limit: int, send) -> tuple[int, Exception | None] | None:
    """Hand the first sequenced events not yet published, in cursor
    order, to send(row), and mark those it took as published, in one
    transaction under the lock of the publisher row.

    One publisher at a time (the others skip the locked row and return at
    once): notifications leave in cursor order, whichever conductor sends
    them. A process killed after a send and before the commit leaves its
    events unpublished, and the next publisher sends them again (at least
    once; consumers dedupe on the message id, the event's uuid).

    :param send: called with each row; what it raises stops the batch,
        the events sent before stay marked. None: nothing is sent, and
        the events are marked without reading them.
    :returns: (how many were marked, what send raised or None), or None
        when another publisher holds the lock.
    """
    try:
        return _publish(limit, send)
    except db_exc.DBDuplicateEntry:
        return None   # Another publisher made the row first.


def _publish(limit: int, send):
    with _read_committed(api.get_engine()) as conn:
        if _try_lock(conn, PUBLISH) is None:
            return None
        _index_scans(conn)
        e = _EVENTS.c
        rows = conn.execute(
            sa.select(*((e.id,) if send is None else _EVENTS.c))
            .where(e.published_at.is_(None), e.seq.is_not(None))
            .order_by(e.seq).limit(limit)).all()
        sent, error = [], None
        for row in rows:
            try:
                if send is not None:
                    send(row)
            except Exception as exc:
                error = exc
                break
            sent.append(row.id)
        if sent:
            conn.execute(sa.update(_EVENTS).where(e.id.in_(sent))
                         .values(published_at=api.utcnow()))
        return len(sent), error


def _window(conn, limit: int) -> tuple[int, int, int]:
    """(after, upto, end): the cursors of the events whose objects
    retention counts next, (after, upto], at most limit of them, on the
    way to end: the last cursor given, or the one before the first
    event not yet published (an object whose older events wait for the
    publisher is counted once they are published)."""
    e = _EVENTS.c
    after = cursor(conn, COUNTED)
    end = cursor(conn, SEQUENCE)
    waiting = conn.scalar(sa.select(sa.func.min(e.seq)).where(
        e.published_at.is_(None), e.seq.is_not(None)))
    if waiting is not None:
        end = min(end, waiting - 1)
    end = max(after, end)
    return after, min(end, after + limit), end


def _crowded(conn, keep: int, after: int, upto: int) -> list[tuple]:
    """(object type, object UUID) of the objects that have more than keep
    events and an event with a cursor in (after, upto]: each object's
    events read in cursor order along its index, at most keep + 1 of
    them (in id order MariaDB read the whole table backwards for each)."""
    e = _EVENTS.c
    other = _EVENTS.alias('other')
    beyond_keep = (sa.select(other.c.seq)
                   .where(other.c.object_type == e.object_type,
                          other.c.object_uuid == e.object_uuid)
                   .order_by(other.c.seq).limit(1).offset(keep)
                   .scalar_subquery())
    # Not DISTINCT: MariaDB would read the whole object index for it.
    return list(dict.fromkeys(tuple(r) for r in conn.execute(
        sa.select(e.object_type, e.object_uuid)
        .where(e.seq > after, e.seq <= upto, beyond_keep.is_not(None)))))


def _beyond(conn, crowded: list[tuple], keep: int, limit: int
            ) -> list[sa.Row]:
    """Published events beyond the newest keep of the crowded objects: at
    most limit."""
    e = _EVENTS.c
    out = []
    for object_type, object_uuid in crowded:
        if len(out) >= limit:
            break
        # Unpublished events count among the newest but are kept.
        out.extend(r for r in conn.execute(
            sa.select(e.id, e.seq, e.published_at)
            .where(e.object_type == object_type,
                   e.object_uuid == object_uuid)
            .order_by(e.id.desc()).offset(keep).limit(limit - len(out)))
            if r.published_at is not None and r.seq is not None)
    return out


def prune(before, keep: int, limit: int) -> tuple[int, int, bool] | None:
    """Delete at most limit published events created before before or
    beyond the newest keep of their object, and raise the pruned cursor
    to the highest cursor deleted, in one transaction under the lock of
    the pruned cursor's row.

    The events by age are read by creation time. Objects are counted
    against keep only where they gained events since the previous count
    (the counted cursor, at most limit events further each time): a
    transaction costs the events it deletes or looks at, not every event
    retained.

    :param keep: 0 for no limit by count.
    :returns: (how many were deleted, the pruned cursor, whether the
        count has reached the last published event), or None when another
        conductor holds the lock.
    """
    try:
        return _prune(before, keep, limit)
    except db_exc.DBDuplicateEntry:
        return None   # Another conductor made the row first.


def _prune(before, keep: int, limit: int):
    e = _EVENTS.c
    with _read_committed(api.get_engine()) as conn:
        pruned = _try_lock(conn, PRUNED)
        if pruned is None:
            return None
        rows = conn.execute(
            sa.select(e.id, e.seq)
            .where(e.created_at < before, e.published_at.is_not(None),
                   e.seq.is_not(None))
            .order_by(e.created_at).limit(limit)).all()
        counted = True
        if keep and len(rows) < limit:
            after, upto, end = _window(conn, limit)
            beyond = _beyond(conn, _crowded(conn, keep, after, upto), keep,
                             limit - len(rows))
            ids = {r.id for r in rows}
            rows += [r for r in beyond if r.id not in ids]
            # Unless the limit cut the window short, every crowded object
            # of the window is within keep now.
            counted = len(rows) < limit and upto == end
            if len(rows) < limit:
                _set_cursor(conn, COUNTED, upto)
        if rows:
            conn.execute(sa.delete(_EVENTS).where(
                e.id.in_([r.id for r in rows])))
            pruned = max([pruned] + [r.seq for r in rows])
            _set_cursor(conn, PRUNED, pruned)
        return len(rows), pruned, counted


def page(context, since: int | None, filters: dict, limit: int
         ) -> tuple[int, int, list[sa.Row]]:
    """The cursors and the sequenced events after since, read in one
    transaction (one snapshot on MariaDB): every event with a cursor up
    to the last given is visible to the read of the events.

    :param since: None for the last cursor given (no events then).
    :returns: (the last cursor given, the last pruned, at most limit
        events above since in cursor order).
    """
    with api.reader(context) as session:
        values = dict(session.execute(sa.select(
            _CURSORS.c.name, _CURSORS.c.value).where(
                _CURSORS.c.name.in_((SEQUENCE, PRUNED)))).all())
        last, pruned = values.get(SEQUENCE) or 0, values.get(PRUNED) or 0
        if since is None or since >= last or since < pruned:
            return last, pruned, []
        return last, pruned, session.execute(
            page_statement(filters, limit), {'since': since}).all()


def _of_object(q, object_type: str, object_uuid: str | None,
               object_name: str | None):
    e = _EVENTS.c
    q = q.where(e.object_type == object_type)
    if object_uuid is not None:
        return q.where(e.object_uuid == object_uuid)
    return q.where(e.object_name == object_name)


def history(context, object_type: str, object_uuid: str | None = None,
            object_name: str | None = None, marker: str | None = None,
            limit: int = 1000, descending: bool = False) -> list[sa.Row]:
    """The events of one object (by UUID, else by name), sequenced or
    not, in the order they were recorded.

    :param marker: the UUID of the last event of the previous page.
    :raises: EventNotFound for a marker that is not an event of the
        object.
    """
    e = _EVENTS.c
    with api.reader(context) as session:
        q = _of_object(sa.select(_EVENTS), object_type, object_uuid,
                       object_name)
        if marker is not None:
            marker_id = session.execute(_of_object(
                sa.select(e.id), object_type, object_uuid, object_name)
                .where(e.uuid == marker)).scalar()
            if marker_id is None:
                raise exception.EventNotFound(
                    event=marker, kind=object_type,
                    name=object_uuid or object_name)
            q = q.where(e.id < marker_id if descending else e.id > marker_id)
        order = e.id.desc() if descending else e.id
        return session.execute(q.order_by(order).limit(limit)).all()


def get_of_object(context, event_uuid: str, object_type: str,
                  object_uuid: str | None = None,
                  object_name: str | None = None) -> sa.Row:
    """One event of an object.

    :raises: EventNotFound
    """
    with api.reader(context) as session:
        row = session.execute(_of_object(
            sa.select(_EVENTS), object_type, object_uuid, object_name)
            .where(_EVENTS.c.uuid == event_uuid)).first()
    if row is None:
        raise exception.EventNotFound(event=event_uuid, kind=object_type,
                                      name=object_uuid or object_name)
    return row


CHANNEL = 'pool_events'


def listen(stop, seen, timeout: float, on_connect) -> None:
    """On PostgreSQL, hand every cursor the sequencers announce
    (pg_notify on CHANNEL) to seen(cursor), until stop() is true; on a
    connection of its own, opened here and closed on return.

    :param timeout: the longest a wait for a notification lasts, after
        which stop() is asked again.
    :param on_connect: called once listening, with the last cursor given
        (what was sequenced while nobody listened).
    """
    engine = api.get_engine()
    with engine.connect().execution_options(
            isolation_level='AUTOCOMMIT') as conn:
        conn.exec_driver_sql('LISTEN %s' % CHANNEL)
        on_connect(cursor(conn))
        driver = conn.connection.driver_connection
        while not stop():
            if not select.select([driver], [], [], timeout)[0]:
                continue
            driver.poll()
            values = [n.payload for n in driver.notifies]
            driver.notifies.clear()
            for value in values:
                if value.isdigit():
                    seen(int(value))
