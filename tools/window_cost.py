"""Time bookings of windows and previews on a fleet of N nodes that
already holds W future windows.

Nodes are inserted directly (ten resource classes), and W slots spread
over them, one a day per node from tomorrow on, two hours long; then
--bookings windows of one hour are booked one after another in-process
through the booking path (windows.book: the node's lock, the re-check,
the scheduled allocation, its slot and event), each at a random start in
the next ten days, and previews of an allocation are timed, now and for
a window of one hour in the next ten days.

    .venv/bin/python tools/window_cost.py --db postgresql,mysql \\
        --nodes 10000 --windows 100000 --bookings 200

Needs the services and database users that tools/run-tests.sh sets up
(PostgreSQL and MariaDB; SQLite needs nothing).
"""
import argparse
import datetime
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tools import benchmark  # noqa: E402
from tools import scrape_cost  # noqa: E402


def _percentiles(times: list[float]) -> str:
    times = sorted(times)
    return 'p50 %.1f ms, p99 %.1f ms' % (
        statistics.median(times) * 1000,
        times[max(0, int(len(times) * 0.99) - 1)] * 1000)


def insert_windows(engine, nodes: int, windows: int) -> None:
    """windows slots over the nodes: node n holds one every day from
    tomorrow on, from n minutes past midnight, for two hours."""
    import sqlalchemy as sa

    from pool_conductor.db import api as db_api
    from pool_conductor.db import models

    midnight = db_api.utcnow().replace(hour=0, minute=0, second=0,
                                       microsecond=0)
    with engine.begin() as conn:
        ids = list(conn.scalars(sa.select(models.Node.id)
                                .order_by(models.Node.id)))
        rows = []
        for i in range(windows):
            node_id = ids[i % nodes]
            day = 1 + i // nodes
            start = midnight + datetime.timedelta(days=day,
                                                  minutes=node_id % 600)
            rows.append({'node_id': node_id, 'busy_from': start,
                         'busy_until': start + datetime.timedelta(hours=2),
                         'created_at': midnight})
            if len(rows) == 5000:
                conn.execute(sa.insert(models.NodeSlot), rows)
                rows = []
        if rows:
            conn.execute(sa.insert(models.NodeSlot), rows)
        slots = models.NodeSlot.__table__
        conn.execute(sa.update(models.Node.__table__).values(
            booked_from=sa.select(sa.func.min(slots.c.busy_from)).where(
                slots.c.node_id == models.Node.__table__.c.id)
            .scalar_subquery()))


def measure(backend: str, nodes: int, windows: int, bookings: int,
            previews: int) -> None:
    import sqlalchemy as sa

    from pool_conductor import candidates
    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import migration
    from pool_conductor import exception
    from pool_conductor.booking import windows as windows_core

    CONF([], project='pool')
    context = pool_context.get_admin_context()
    rng = random.Random(1)
    with scrape_cost._database(backend) as url:
        engine = sa.create_engine(url)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', url, group='database')
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            benchmark.insert_nodes(engine, nodes)
            insert_windows(engine, nodes, windows)
            with engine.begin() as conn:
                if backend == 'postgresql':
                    conn.exec_driver_sql('ANALYZE')
            now = db_api.utcnow()
            times, conflicts = [], 0
            started = time.perf_counter()
            for _ in range(bookings):
                start = now + datetime.timedelta(
                    days=1 + rng.random() * 9)
                begun = time.perf_counter()
                try:
                    windows_core.book(
                        context, {'resource_class': 'rc-3'}, None, start,
                        start + datetime.timedelta(hours=1))
                except exception.WindowConflict:
                    conflicts += 1
                times.append(time.perf_counter() - begun)
            elapsed = time.perf_counter() - started
            request = candidates.Request(resource_class='rc-3')
            shown = []
            for seed in range(previews):
                begun = time.perf_counter()
                candidates.preview(context, request, seed=seed)
                shown.append(time.perf_counter() - begun)
            # The preview of a window: the nodes booking it would find
            # free among the slots.
            ahead = []
            for seed in range(previews):
                start = now + datetime.timedelta(days=1 + rng.random() * 9)
                window = candidates.Request(
                    resource_class='rc-3', start_at=start,
                    end_at=start + datetime.timedelta(hours=1))
                begun = time.perf_counter()
                candidates.preview(context, window, seed=seed)
                ahead.append(time.perf_counter() - begun)
            print('%-10s N=%-6d W=%-7d bookings %.1f/s (%s; %d conflicts); '
                  'preview %s; preview of a window %s'
                  % (backend, nodes, windows, bookings / elapsed,
                     _percentiles(times), conflicts, _percentiles(shown),
                     _percentiles(ahead)), flush=True)
        finally:
            restore()
            engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', default='sqlite,postgresql,mysql')
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--windows', type=int, default=100000)
    parser.add_argument('--bookings', type=int, default=200)
    parser.add_argument('--previews', type=int, default=30)
    args = parser.parse_args()
    for backend in args.db.split(','):
        measure(backend, args.nodes, args.windows, args.bookings,
                args.previews)


if __name__ == '__main__':
    main()
