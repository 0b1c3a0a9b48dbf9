"""Engine, transactions and helpers shared by the query modules."""
import contextlib
import contextvars
import datetime
import threading

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import regex


main_context_manager = enginefacade.transaction_context()
_setup_lock = threading.Lock()
_hooked = False


# Set while the transaction of an outermost reader begins: on SQLite it
# starts deferred.
_READ_ONLY_BEGIN = contextvars.ContextVar('pool_read_only_begin',
                                          default=False)


def _sqlite_pool(engine: sa.engine.Engine) -> None:
    """Keep the connections to an SQLite file open between transactions.

    oslo.db gives SQLite files no pool: each transaction would open the
    file, set its pragmas and close it, and the last connection to close
    checkpoints the WAL, so that a short transaction cost several times
    its statements. Connections are kept as on the other backends
    ([database] max_pool_size, max_overflow), used by one thread at a
    time.
    """
    if (not isinstance(engine.pool, sa.pool.NullPool)
            or engine.url.database in (None, '', ':memory:')):
        return
    old = engine.pool
    engine.pool = sa.pool.QueuePool(
        old._creator, pool_size=CONF.database.max_pool_size or 5,
        max_overflow=CONF.database.max_overflow or 0,
        timeout=CONF.database.pool_timeout or 30,
        reset_on_return=old._reset_on_return,
        _dispatch=old.dispatch, dialect=old._dialect)

    @sa.event.listens_for(engine, 'do_connect')
    def _any_thread(dialect, conn_rec, cargs, cparams):
        cparams['check_same_thread'] = False


# The seconds SQLite waits for its write lock (PRAGMA busy_timeout), and a
# writer thread for its turn in its process.
SQLITE_BUSY_SECONDS = 30


class _WriterTurns:
    """Writers of one SQLite engine take turns in their process.

    A writer that finds the database locked waits in SQLite's busy
    handler, which sleeps 1, 2, 5, 10 ... 100 ms between looks, so that
    under load the lock often stood free while the next writer slept
    (pool-server's request threads waited on it for most of the time
    they took). The writers of one process wait for each other on a lock
    of the process instead, woken as soon as it is given back; SQLite's
    busy handler still orders them with other processes.

    The turn is taken before BEGIN IMMEDIATE and given back after the
    transaction ends however it ends: COMMIT, ROLLBACK (the pool's reset
    of a connection returned in a transaction included), or the
    connection closed. A writer that waits longer than SQLite would goes
    on to SQLite, which then waits and fails as it always has.
    """

    def __init__(self, dialect):
        self._lock = threading.Lock()
        self._holder = None
        for name in ('do_commit', 'do_rollback', 'do_close'):
            setattr(dialect, name, self._ending(getattr(dialect, name)))

    def take(self, dbapi_conn) -> None:
        if self._lock.acquire(timeout=SQLITE_BUSY_SECONDS):
            self._holder = dbapi_conn

    def give_back(self, dbapi_conn) -> None:
        if dbapi_conn is not None and self._holder is dbapi_conn:
            self._holder = None
            self._lock.release()

    def _ending(self, method):
        def end(dbapi_conn):
            # The pool passes its proxy of the connection, or the
            # connection itself.
            conn = getattr(dbapi_conn, 'dbapi_connection', dbapi_conn)
            try:
                method(dbapi_conn)
            finally:
                self.give_back(conn)
        return end


def _sqlite_setup(engine: sa.engine.Engine) -> None:
    """Make SQLite safe for several writer threads, and let readers run
    beside the writer.

    A transaction that may write starts with BEGIN IMMEDIATE, so writers
    queue for the database lock (their process's turns, then
    busy_timeout) instead of failing with "database is locked" when two
    deferred transactions both try to upgrade. The transaction of an
    outermost reader() cannot write (the engine facade refuses a writer
    inside it): it starts deferred, so that with WAL it reads its snapshot
    without waiting for the writer.

    Engines made by oslo.db emit their own plain (deferred) BEGIN; that
    listener is replaced.
    """
    if engine.dialect.name != 'sqlite':
        return
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            sa.event.remove(engine, 'begin', listener)
    _sqlite_pool(engine)

    @sa.event.listens_for(engine, 'connect')
    def _connect(dbapi_conn, record):
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        if engine.url.database not in (None, '', ':memory:'):
            cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA busy_timeout=%d'
                       % (SQLITE_BUSY_SECONDS * 1000))
        if CONF.database.sqlite_synchronous:
            cursor.execute('PRAGMA synchronous=%s'
                           % CONF.database.sqlite_wal_synchronous)
        cursor.execute('PRAGMA foreign_keys=ON')
        cursor.close()
        # Replaces the dialect's REGEXP (Python's re, which backtracks
        # without bound while holding the GIL): every user pattern runs
        # with RE2, in linear time.
        dbapi_conn.create_function('regexp', 2, regex.search,
                                   deterministic=True)

    writers = _WriterTurns(engine.dialect)

    @sa.event.listens_for(engine, 'begin')
    def _begin(conn):
        # The driver's own flag: a pooled connection carries nothing of
        # its last transaction.
        dbapi_conn = conn.connection.dbapi_connection
        if dbapi_conn.in_transaction:
            return
        if _READ_ONLY_BEGIN.get():
            conn.exec_driver_sql('BEGIN')
            return
        writers.take(dbapi_conn)
        try:
            conn.exec_driver_sql('BEGIN IMMEDIATE')
        except BaseException:
            writers.give_back(dbapi_conn)
            raise


def _mysql_setup(engine: sa.engine.Engine) -> None:
    """Use READ COMMITTED and utf8mb4 on MySQL/MariaDB.

    With the default REPEATABLE READ, InnoDB keeps next-key locks on every
    row a locking read scanned, which makes concurrent SKIP LOCKED claims
    block each other on rows they never took.

    oslo.db asks for the charset utf8 (3-byte UTF-8) when the URL names
    none, which refuses 4-byte characters (emoji); every connection uses
    utf8mb4, whatever the URL says.
    """
    if engine.dialect.name != 'mysql':
        return

    @sa.event.listens_for(engine, 'connect')
    def _connect(dbapi_conn, record):
        dbapi_conn.set_character_set('utf8mb4')
        cursor = dbapi_conn.cursor()
        cursor.execute('SET SESSION TRANSACTION ISOLATION LEVEL '
                       'READ COMMITTED')
        cursor.close()


# An execution option: the seconds the database may spend on a statement
# before it cancels it (PostgreSQL and MariaDB; SQLite has no such limit).
TIME_LIMIT = 'pool_time_limit'


def _time_limit_setup(engine: sa.engine.Engine) -> None:
    """Cancel statements run with the TIME_LIMIT option when it passes.

    PostgreSQL: SET LOCAL statement_timeout around the statement, in its
    transaction. MariaDB: SET STATEMENT max_statement_time=N FOR the
    statement (MariaDB 10.11 has no MAX_EXECUTION_TIME hint).
    """
    dialect = engine.dialect.name
    if dialect not in ('postgresql', 'mysql'):
        return

    def seconds(context) -> float | None:
        return context.execution_options.get(TIME_LIMIT) if context else None

    @sa.event.listens_for(engine, 'before_cursor_execute', retval=True)
    def _before(conn, cursor, statement, parameters, context, executemany):
        limit = seconds(context)
        if limit:
            if dialect == 'mysql':
                statement = ('SET STATEMENT max_statement_time=%.3f FOR %s'
                             % (limit, statement))
            else:
                cursor.execute('SET LOCAL statement_timeout = %d'
                               % max(1, round(limit * 1000)))
        return statement, parameters

    if dialect == 'postgresql':
        @sa.event.listens_for(engine, 'after_cursor_execute')
        def _after(conn, cursor, statement, parameters, context,
                   executemany):
            if seconds(context):
                # Another cursor: this one holds the statement's rows.
                other = conn.connection.dbapi_connection.cursor()
                other.execute('SET LOCAL statement_timeout TO DEFAULT')
                other.close()


def time_limited(statement, seconds: float | None):
    """The statement, cancelled by the database after seconds (none for
    None or 0); run it inside filter_errors()."""
    if not seconds:
        return statement
    return statement.execution_options(**{TIME_LIMIT: seconds})


# PostgreSQL SQLSTATEs and MariaDB error numbers.
_CANCELLED = {'57014', 1969}
_BAD_REGEX = {'2201B', 1139}


def _database_error(exc: BaseException) -> tuple[object, str] | None:
    """The code and message of the driver's error under exc."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        code = getattr(exc, 'pgcode', None)
        if code is None and type(exc).__module__.startswith('pymysql'):
            code = exc.args[0] if exc.args else None
        if code is not None:
            return code, str(exc.args[-1] if exc.args else exc).strip()
        exc = (getattr(exc, 'orig', None)
               or getattr(exc, 'inner_exception', None)
               or exc.__cause__ or exc.__context__)
    return None


@contextlib.contextmanager
def filter_errors(seconds: float | None):
    """Turn the database's refusals of a user's filter into 400s.

    :raises: FilterTimeout when the statement ran out of its time limit,
        FilterRefused when the database refused a regular expression
    """
    try:
        yield
    except (sa.exc.DBAPIError, db_exc.DBError) as exc:
        found = _database_error(exc)
        if found and found[0] in _CANCELLED:
            raise exception.FilterTimeout(seconds=seconds) from None
        if found and found[0] in _BAD_REGEX:
            raise exception.FilterRefused(reason=found[1]) from None
        raise


def _no_pre_ping(engine: sa.engine.Engine) -> None:
    """Do not test every connection with a round trip before its use.

    oslo.db turns pre-ping on, which costs a round trip per transaction.
    Without it a connection that the database dropped (a restart) fails
    its first statement; that error invalidates every connection the pool
    holds, so one request per process gets a 503 after a database restart
    (as every request does during it) and the next ones reconnect.
    """
    engine.pool._pre_ping = False


def setup_engine_hooks(engine: sa.engine.Engine) -> None:
    """Apply pool's per-backend connection settings to an engine.

    oslo.db opens a first connection to test an engine before it runs this
    hook, and pools it; the pool is emptied so that every connection the
    engine hands out has the settings.
    """
    _no_pre_ping(engine)
    _time_limit_setup(engine)
    if engine.dialect.name not in ('sqlite', 'mysql'):
        return
    _sqlite_setup(engine)
    _mysql_setup(engine)
    engine.dispose()


def _install_hooks() -> None:
    global _hooked
    with _setup_lock:
        if not _hooked:
            main_context_manager.append_on_engine_create(setup_engine_hooks)
            _hooked = True


_install_hooks()


def unindexed(column: sa.ColumnElement, default) -> sa.ColumnElement:
    """column as no index serves it: coalesce(column, default), equal to
    column where it is not NULL. For a condition or an order that a
    planner would otherwise read along column's index, when another
    index finds the few rows wanted and column's would read many."""
    return sa.func.coalesce(column, default)


# The largest magnitude of a number every backend stores and reads back
# as written, in a column (MySQL's BIGINT, symmetric) or a JSON document
# (PostgreSQL's jsonb writes numbers without an exponent, so that a float
# of 1e20 reads back as a 21-digit integer).
MAX_NUMBER = 2 ** 63 - 1


# Execution options of an UPDATE or DELETE: the objects of the session are
# not brought in line (every read uses populate_existing), which saves
# evaluating the statement's criteria in Python.
NO_SYNC = {'synchronize_session': False}


def _in_transaction(context) -> bool:
    try:
        return context.transaction_ctx is not None
    except db_exc.NoEngineContextEstablished:
        return False


@contextlib.contextmanager
def reader(context):
    """A read transaction bound to the context (joins an open one).

    An outermost one begins at once, as a transaction that only reads
    (deferred on SQLite).
    """
    outermost = not _in_transaction(context)
    with main_context_manager.reader.using(context) as session:
        if outermost:
            token = _READ_ONLY_BEGIN.set(True)
            try:
                session.connection()
            finally:
                _READ_ONLY_BEGIN.reset(token)
        yield session


@contextlib.contextmanager
def reader_connection(context):
    """A read transaction on a plain connection, without an ORM session
    (joins an open one): for the hot reads that only run Core statements.
    An outermost one begins as reader() does (deferred on SQLite)."""
    outermost = not _in_transaction(context)
    with contextlib.ExitStack() as stack:
        token = _READ_ONLY_BEGIN.set(True) if outermost else None
        try:
            conn = stack.enter_context(
                main_context_manager.reader.connection.using(context))
        finally:
            if token is not None:
                _READ_ONLY_BEGIN.reset(token)
        yield conn


def writer(context):
    """A write transaction bound to the context (joins an open one)."""
    return main_context_manager.writer.using(context)


def writer_connection(context):
    """A write transaction on a plain connection, without an ORM session:
    cheaper, for the hot paths that only run Core statements.
    """
    return main_context_manager.writer.connection.using(context)


def get_engine() -> sa.engine.Engine:
    return main_context_manager.writer.get_engine()


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def backend_supports_skip_locked(bind) -> bool:
    """Whether the database of a session or connection has SKIP LOCKED."""
    if not isinstance(bind, sa.engine.Connection):
        bind = bind.get_bind()
    return bind.dialect.name in ('postgresql', 'mysql')


def ident_column(model, ident: str):
    """The column that identifies model by ident: uuid or name."""
    if uuidutils.is_uuid_like(ident):
        return model.uuid
    return model.name


def duplicate_columns(exc: db_exc.DBDuplicateEntry) -> set[str]:
    cols = set()
    for c in exc.columns or ():
        # Constraint names look like nodes.uuid or uniq_nodes0uuid.
        cols.add(c.split('.')[-1].split('0')[-1])
    return cols


def paginate(query, model, limit: int | None, marker, sort_key: str,
             sort_dir: str):
    """Apply keyset pagination to a select, ordered by (sort_key, id).

    NULL keys sort before all others ascending and after them descending,
    the same on every backend. A key that cannot be NULL (the id, the
    UUID, created_at, ...) is ordered by itself, so that an index of it
    reads a page without sorting the table.

    :param marker: the model object the previous page ended with, or None.
    """
    key = getattr(model, sort_key)
    desc = sort_dir == 'desc'
    cols = [key] if sort_key == 'id' else [key, model.id]
    if key.expression.nullable:
        cols.insert(0, sa.case((key.is_(None), 0), else_=1))
    query = query.order_by(*[c.desc() if desc else c.asc() for c in cols])
    if marker is not None:
        query = query.where(_after(model, key, sort_key, marker, desc))
    if limit:
        query = query.limit(limit)
    return query


def _after(model, key, sort_key: str, marker, desc: bool):
    """The rows after marker in the order of paginate()."""
    if sort_key == 'id':
        return model.id < marker.id if desc else model.id > marker.id
    mval = getattr(marker, sort_key)
    if mval is not None:
        # A bound parameter: SQLAlchemy refuses < and > with a bare
        # True or False.
        mval = sa.literal(mval, key.type)
    if desc:
        if mval is None:
            return sa.and_(key.is_(None), model.id < marker.id)
        return sa.or_(key < mval, key.is_(None),
                      sa.and_(key == mval, model.id < marker.id))
    if mval is None:
        return sa.or_(key.is_not(None),
                      sa.and_(key.is_(None), model.id > marker.id))
    return sa.or_(key > mval, sa.and_(key == mval, model.id > marker.id))


# The classes of the errors that may say the database cannot serve now;
# is_unavailable() tells which of them do.
UNAVAILABLE_ERRORS = (db_exc.DBConnectionError, sa.exc.OperationalError,
                      sa.exc.InterfaceError, sa.exc.DisconnectionError,
                      sa.exc.TimeoutError)
# Every error of the database or its driver: the API answers each of them
# in its error format (503 for the unavailable ones).
DATABASE_ERRORS = (db_exc.DBError, sa.exc.DBAPIError)

# PostgreSQL SQLSTATEs of a lost or refused connection: class 08
# (connection exception), 57P (operator intervention: shutdown, cannot
# connect now) and 53300 (too many connections).
_PG_UNAVAILABLE = ('08', '57P', '53300')
# MySQL/MariaDB client and server codes of the same: can't connect (2002,
# 2003), server gone away (2006), lost connection (2013, 2055), too many
# connections (1040), shutdown in progress (1053), connection killed (1927),
# disconnected for inactivity (4031).
_MYSQL_UNAVAILABLE = frozenset((1040, 1053, 1927, 2002, 2003, 2006, 2013,
                                2055, 4031))
# SQLite's primary result codes of a busy, locked, unreadable or
# unopenable database.
_SQLITE_UNAVAILABLE = frozenset((5, 6, 10, 14))
_SQLITE_UNAVAILABLE_MESSAGES = ('database is locked', 'database is busy',
                                'unable to open database', 'disk i/o error')


def dbapi_error(exc: BaseException) -> BaseException | None:
    """The driver's exception under an oslo.db or SQLAlchemy one, if any."""
    if isinstance(exc, db_exc.DBError) and exc.inner_exception is not None:
        exc = exc.inner_exception
    if isinstance(exc, sa.exc.DBAPIError):
        return exc.orig
    return None


def _driver_unavailable(orig: BaseException) -> bool:
    module = type(orig).__module__ or ''
    if module.startswith(('psycopg', 'pg8000')):
        code = (getattr(orig, 'pgcode', None)
                or getattr(orig, 'sqlstate', None))
        # libpq's own errors (connection refused, server closed the
        # connection) carry no SQLSTATE.
        return code is None or code.startswith(_PG_UNAVAILABLE)
    if module.startswith(('pymysql', 'MySQLdb', 'mysql')):
        code = orig.args[0] if orig.args else None
        return code in _MYSQL_UNAVAILABLE
    if module.startswith('sqlite3'):
        code = getattr(orig, 'sqlite_errorcode', None)
        if code is not None:
            return code & 0xff in _SQLITE_UNAVAILABLE
        return str(orig).lower().startswith(_SQLITE_UNAVAILABLE_MESSAGES)
    # An unknown driver: an OperationalError may well be a connection
    # problem, and retrying it later is the safe side.
    return True


def is_unavailable(exc: BaseException) -> bool:
    """Whether an error says the database cannot serve now (a refused or
    lost connection, an exhausted connection pool, SQLite's busy lock),
    not that a request is wrong. Work that fails so is retried later; the
    API answers 503.
    """
    if isinstance(exc, (db_exc.DBConnectionError, sa.exc.DisconnectionError,
                        sa.exc.TimeoutError)):
        return True
    if isinstance(exc, db_exc.DBError) and exc.inner_exception is not None:
        exc = exc.inner_exception
    if not isinstance(exc, (sa.exc.OperationalError, sa.exc.InterfaceError)):
        return False
    if exc.connection_invalidated:
        return True
    return _driver_unavailable(exc.orig)


def _driver_message(orig: BaseException | None) -> str:
    if orig is None:
        return 'no detail'
    args = getattr(orig, 'args', ())
    # PyMySQL's arguments are (code, message).
    text = str(args[1]) if len(args) > 1 else str(orig)
    text = (text.strip().splitlines() or ['no detail'])[0]
    return text[:200]


def refusal(exc: BaseException) -> Exception | None:
    """The pool exception an error of the database stands for.

    :returns: DatabaseUnavailable for an unreachable database,
        DatabaseConflict for a duplicate or a missing reference,
        DatabaseRefused for anything else the database refuses to store
        or evaluate (a value out of range, invalid JSON, a JSON path,
        a check constraint, an expression too large); None for errors
        that are the server's own bugs (programming errors).
    """
    if is_unavailable(exc):
        return exception.DatabaseUnavailable()
    inner = exc
    if isinstance(exc, db_exc.DBError) and exc.inner_exception is not None:
        inner = exc.inner_exception
    reason = _driver_message(dbapi_error(exc))
    if isinstance(exc, (db_exc.DBDuplicateEntry, db_exc.DBReferenceError)):
        return exception.DatabaseConflict(reason=reason)
    if isinstance(inner, (sa.exc.OperationalError, sa.exc.DataError,
                          sa.exc.IntegrityError)) or isinstance(
            exc, (db_exc.DBDataError, db_exc.DBConstraintError,
                  db_exc.DBInvalidUnicodeParameter)):
        return exception.DatabaseRefused(reason=reason)
    return None


def is_exclusion_violation(exc: BaseException) -> bool:
    """Whether a database error is PostgreSQL refusing a row that an
    exclusion constraint excludes (SQLSTATE 23P01: two overlapping slots
    of a node)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if getattr(exc, 'pgcode', None) == '23P01' or (
                getattr(getattr(exc, 'diag', None), 'sqlstate', None)
                == '23P01') or getattr(exc, 'sqlstate', None) == '23P01':
            return True
        exc = (getattr(exc, 'inner_exception', None)
               or getattr(exc, 'orig', None) or exc.__cause__)
    return False
