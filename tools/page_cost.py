"""The time of one read of the event feed as a watcher makes it, against
the number of events retained.

A watcher of GET /v1/events asks for the events after its cursor, most
often of one object type (``object_type=allocation``, say): the read
should cost what came since the cursor, not what the table holds. For
each backend and each size, this program inserts that many sequenced
events straight into a new database (half of allocations, half of
nodes), then times the read of the events after a cursor 50 events
from the end, filtered by object type and event type prefix, as the
watch makes it, and prints the median of 50 reads and the plan::

    .venv/bin/python tools/event_read_cost.py --db sqlite,postgresql,mysql \\
        --events 10000,100000

Needs the services and database users that tools/run-tests.sh sets up
for PostgreSQL and MariaDB.
"""
import argparse
import contextlib
import datetime
import os
import statistics
import sys
import tempfile
import time

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

FILTERS = {'object_type': 'allocation',
           'event_type_prefix': 'pool.allocation.state_set.'}
BEHIND = 50


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


def insert_events(engine, total: int) -> None:
    from pool_conductor.db import models

    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with engine.begin() as conn:
        for start in range(0, total, 5000):
            rows = []
            for i in range(start, min(total, start + 5000)):
                kind = 'allocation' if i % 2 else 'node'
                rows.append({
                    'seq': i + 1, 'uuid': '%08x-0000-4000-8000-%012x' % (
                        i, i),
                    'created_at': now, 'object_type': kind,
                    'object_uuid': '%08x-0000-4000-9000-%012x' % (
                        i // 4, i // 4),
                    'event_type': 'pool.%s.state_set.%s' % (
                        kind, 'active' if i % 4 == 1 else 'end'),
                    'level': 'info', 'state': 'active',
                    'payload': {'uuid': str(i), 'state': 'active'},
                    'published_at': now})
            conn.execute(sa.insert(models.Event), rows)
        conn.execute(sa.text("UPDATE event_cursors SET value = :v "
                             "WHERE name = 'sequence'"), {'v': total})


def measure(url: str, total: int, revision: str
            ) -> tuple[float, int, str]:
    """(median ms of a read, events read, the plan)."""
    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import events as events_db
    from pool_conductor.db import migration
    from tests.functional import cluster

    engine = sa.create_engine(url)
    try:
        db_api.setup_engine_hooks(engine)
        migration.upgrade(revision, engine=engine)
        insert_events(engine, total)
        if engine.dialect.name != 'sqlite':
            with engine.begin() as conn:
                conn.exec_driver_sql(
                    'ANALYZE TABLE events' if engine.dialect.name == 'mysql'
                    else 'ANALYZE events')
        CONF.set_override('connection', url, group='database')
        context = pool_context.get_admin_context()
        since = total - BEHIND
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            times = []
            for _ in range(50):
                started = time.perf_counter()
                _, _, rows = events_db.page(context, since, FILTERS, 1001)
                times.append(time.perf_counter() - started)
        finally:
            restore()
        stmt = events_db.page_statement(FILTERS, 1001)
        plan = cluster.explain(engine, stmt, {'since': since})
        key = 'QUERY PLAN' if 'QUERY PLAN' in plan[0] else None
        lines = ([r[key] for r in plan] if key else
                 [r.get('detail') or '%s %s %s' % (
                     r.get('table'), r.get('type'), r.get('key'))
                  for r in plan])
        return (statistics.median(times) * 1000, len(rows),
                ' / '.join(str(line).strip() for line in lines))
    finally:
        CONF.clear_override('connection', group='database')
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', default='sqlite,postgresql,mysql')
    parser.add_argument('--events', default='10000,100000',
                        help='numbers of events retained, comma-separated')
    parser.add_argument('--revision', default='head',
                        help='the schema revision to upgrade to (an '
                             'earlier one: the indexes it had)')
    args = parser.parse_args()
    from pool_conductor.conf import CONF
    CONF([], project='pool')
    for backend in args.db.split(','):
        for total in (int(n) for n in args.events.split(',')):
            with database(backend) as url:
                ms, count, plan = measure(url, total, args.revision)
            print('%-10s %8d events retained: %7.2f ms a read of %d '
                  'events; plan: %s' % (backend, total, ms, count, plan),
                  flush=True)


if __name__ == '__main__':
    main()
