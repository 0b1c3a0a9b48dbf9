"""The time of reads that return a page, against the size of the table
they read: each should cost its page, not the table.

- the event feed as a watcher reads it: the events of one object type
  after a cursor 50 events from the end (``GET /v1/events?since=...&
  object_type=allocation&event_type_prefix=...``), by events retained;
- the first page of 50 nodes (``GET /v1/nodes?limit=50``) and the page
  after a marker in the middle of the fleet, by fleet size;
- the operator's overview (``GET /v1/fleet``), whose newest alerts are
  read among the events retained (the plan shown is that read's), and
  whose counts read the index of the node states;
- a conductor's look for allocations past their lifespan (every
  ``[conductor] check_lifespans_interval``) among that many allocations,
  a quarter of them with an end, none past it, by allocations;
- its look for the windows ending within the hour (every
  ``[windows] check_interval``), by allocations;
- its look for claims past their lifespan, among that many expired
  claims (they stay until deleted) and as many bound ones, none past its
  end, by claims;
- a conductor's retention pass (``[events] cleanup_interval``) that
  deletes nothing: the first over the events retained, then one after
  10,000 more, with the longest of its transactions (on SQLite, the time
  it holds the one writer); ``--retention-only`` times that alone, on
  the events alone.

For each backend and size, this program inserts that many sequenced
events (half of allocations, half of nodes, as ``tools/benchmark.py
--extra-events`` inserts them), that many nodes, that many allocations
and twice as many claims straight into a new database, then prints the
median time of 50 calls of each read and the plan of its main
statement::

    .venv/bin/python tools/page_cost.py --db sqlite,postgresql,mysql \\
        --sizes 10000,100000

Needs the services and database users that tools/run-tests.sh sets up
for PostgreSQL and MariaDB.
"""
import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

FEED = {'object_type': 'allocation',
        'event_type_prefix': 'pool.allocation.state_set.'}
BEHIND = 50
PAGE = 50


@contextlib.contextmanager
def database(backend: str):
    """The URL of a new, empty database of backend; dropped on exit."""
    if backend == 'sqlite':
        with tempfile.TemporaryDirectory() as tmp:
            yield 'sqlite:///%s' % os.path.join(tmp, 'pool.sqlite')
        return
    from tests.functional import cluster
    with cluster.Database(backend) as db:
        yield db.url


def _plan(engine, statement: str, params) -> str:
    explain = ('EXPLAIN QUERY PLAN ' if engine.dialect.name == 'sqlite'
               else 'EXPLAIN ')
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(explain + statement, params).all()
    if engine.dialect.name == 'sqlite':
        lines = [r[3] for r in rows]
    elif engine.dialect.name == 'postgresql':
        lines = [r[0].strip() for r in rows if 'Filter' not in r[0]]
    else:
        lines = ['%s %s %s %s' % (r.table, r.type, r.key, r.Extra or '')
                 for r in rows]
    return ' / '.join(lines)


def insert_allocations(engine, total: int) -> None:
    """Insert total active allocations of no node, a quarter of them
    ending within two days (none past its end)."""
    import datetime

    from pool_conductor.db import api as db_api
    from pool_conductor.db import models

    now = db_api.utcnow()
    with engine.begin() as conn:
        for start in range(0, total, 5000):
            conn.execute(sa.insert(models.Allocation), [
                {'uuid': '%08x-0000-4000-c000-%012x' % (i, i),
                 'state': 'active', 'resource_class': 'rc-%d' % (i % 10),
                 'conductor_affinity': 'host-%d' % (i % 3),
                 'created_at': now,
                 'lifespan_end': (now + datetime.timedelta(hours=1 + i % 48)
                                  if i % 4 == 0 else None)}
                for i in range(start, min(start + 5000, total))])


def insert_claims(engine, total: int) -> None:
    """Insert total expired claims, past their end (they stay until
    deleted), and as many bound ones ending within two days."""
    import datetime

    from pool_conductor.db import api as db_api
    from pool_conductor.db import models

    now = db_api.utcnow()
    with engine.begin() as conn:
        for start in range(0, 2 * total, 5000):
            conn.execute(sa.insert(models.Claim), [
                {'uuid': '%08x-0000-4000-d000-%012x' % (i, i),
                 'state': 'expired' if i % 2 else 'bound', 'resources': [],
                 'conductor_affinity': 'host-%d' % (i % 3),
                 'created_at': now,
                 'lifespan_end': now + datetime.timedelta(
                     hours=(-1 if i % 2 else 1) * (1 + i % 48))}
                for i in range(start, min(start + 5000, 2 * total))])


def _ending(engine) -> None:
    """A conductor's look for the windows ending within the hour."""
    import datetime

    from pool_conductor.db import api as db_api
    from pool_conductor.db import window_policy as window_policy_db

    now = db_api.utcnow()
    with engine.connect() as conn:
        window_policy_db.ending(conn, now, now + datetime.timedelta(hours=1),
                                50)


def timed(engine, read, needle: str = '') -> tuple[float, str]:
    """(the median ms of 50 calls of read, the plan of its longest
    statement that holds needle)."""
    from tests import base
    statements = base.statements(engine, read)
    times = []
    for _ in range(50):
        started = time.perf_counter()
        read()
        times.append(time.perf_counter() - started)
    statement, params = max((s for s in statements if needle in s[0]),
                            key=lambda s: len(s[0]))
    return statistics.median(times) * 1000, _plan(engine, statement, params)


def retention(engine) -> list[tuple]:
    """[(pass, ms, its transactions)]: a retention pass, then another
    after 10,000 more events."""
    from pool_conductor import events
    from tools import benchmark

    spans, begun = [], []

    def begin(conn):
        begun.append(time.perf_counter())

    def end(conn):
        spans.append(time.perf_counter() - begun.pop())
    out = []
    for name, added in (('retention pass', 0),
                        ('retention, 10,000 more', 10000)):
        benchmark.insert_events(engine, added)
        spans.clear()
        for event, listener in (('begin', begin), ('commit', end),
                                ('rollback', end)):
            sa.event.listen(engine, event, listener)
        started = time.perf_counter()
        try:
            events.prune()
        finally:
            for event, listener in (('begin', begin), ('commit', end),
                                    ('rollback', end)):
                sa.event.remove(engine, event, listener)
        out.append((name, (time.perf_counter() - started) * 1000,
                    '%d transactions, %.1f ms in all, the longest %.1f ms'
                    % (len(spans), sum(spans) * 1000, max(spans) * 1000)))
    return out


def measure(url: str, size: int, revision: str,
            reads: bool = True) -> list[tuple]:
    """[(read, median ms, plan)] on a database of size events, nodes
    and allocations (only events, and only the retention pass, unless
    reads)."""
    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import allocations as allocations_db
    from pool_conductor.db import api as db_api
    from pool_conductor.db import claims as claims_db
    from pool_conductor.db import events as events_db
    from pool_conductor.db import metrics as metrics_db
    from pool_conductor.db import migration
    from pool_conductor.db import nodes as nodes_db
    from tools import benchmark

    engine = sa.create_engine(url)
    try:
        db_api.setup_engine_hooks(engine)
        migration.upgrade(revision, engine=engine)
        benchmark.insert_events(engine, size)
        if reads:
            benchmark.insert_nodes(engine, size)
            insert_allocations(engine, size)
            insert_claims(engine, size)
        if engine.dialect.name != 'sqlite':
            with engine.begin() as conn:
                for table in ('events', 'nodes', 'allocations', 'claims'):
                    conn.exec_driver_sql(
                        ('ANALYZE TABLE %s' if engine.dialect.name == 'mysql'
                         else 'ANALYZE %s') % table)
        with engine.connect() as conn:
            middle = conn.scalar(sa.text(
                'SELECT uuid FROM nodes WHERE id = :id'), {'id': size // 2})
        CONF.set_override('connection', url, group='database')
        context = pool_context.get_admin_context()
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            if not reads:
                return retention(engine)
            return [(name, *timed(engine, read, needle))
                    for name, read, needle in (
                ('event feed', lambda: events_db.page(
                    context, size - BEHIND, FEED, 1001), ''),
                ('first page of nodes', lambda: nodes_db.list_nodes(
                    context, {}, limit=PAGE), ''),
                ('middle page of nodes', lambda: nodes_db.list_nodes(
                    context, {}, limit=PAGE, marker=middle), ''),
                ('fleet overview', lambda: metrics_db.overview(
                    context, 60, db_api.utcnow(), 10), 'events.level'),
                ('lifespan expiry', lambda: allocations_db.list_expired(
                    context, db_api.utcnow(), 'host-0',
                    ['host-0', 'host-1'], 50), ''),
                ('window end notices', lambda: _ending(engine), ''),
                ('claims expiry', lambda: claims_db.list_expired(
                    context, db_api.utcnow(), 'host-0',
                    ['host-0', 'host-1'], 50), ''))
            ] + retention(engine)
        finally:
            restore()
    finally:
        CONF.clear_override('connection', group='database')
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', default='sqlite,postgresql,mysql')
    parser.add_argument('--sizes', default='10000,100000',
                        help='numbers of events retained, of nodes and of '
                             'allocations, '
                             'comma-separated')
    parser.add_argument('--revision', default='head',
                        help='the schema revision to upgrade to (an '
                             'earlier one: the indexes it had)')
    parser.add_argument('--retention-only', action='store_true',
                        help='insert only the events, time only the '
                             'retention pass')
    args = parser.parse_args()
    from pool_conductor.conf import CONF
    CONF([], project='pool')
    for backend in args.db.split(','):
        for size in (int(n) for n in args.sizes.split(',')):
            with database(backend) as url:
                for name, ms, plan in measure(url, size, args.revision,
                                              not args.retention_only):
                    print('%-10s %8d  %-20s %8.2f ms  %s' % (
                        backend, size, name, ms, plan), flush=True)


if __name__ == '__main__':
    main()
