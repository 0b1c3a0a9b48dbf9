"""Time a preview of an allocation (/v1/allocation_candidates) on a fleet
of N nodes: one grouped count of why each node is left out, the page of
matches with their traits, and the allocator's pick.

Nodes are inserted directly (ten resource classes, a tenth of them in
maintenance, a tenth allocated) into a new database on each backend; the
preview runs in-process, as a pool-api worker answers one.

    .venv/bin/python tools/preview_cost.py --db sqlite,postgresql,mysql \\
        --nodes 10000 --previews 50

Needs the services and database users that tools/run-tests.sh sets up
(PostgreSQL and MariaDB; SQLite needs nothing).
"""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tools import benchmark  # noqa: E402
from tools import scrape_cost  # noqa: E402


def measure(backend: str, nodes: int, previews: int, limit: int) -> None:
    import sqlalchemy as sa

    from pool_conductor import candidates
    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import migration
    from pool_conductor.db import models

    CONF([], project='pool')
    context = pool_context.get_admin_context()
    with scrape_cost._database(backend) as url:
        engine = sa.create_engine(url)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', url, group='database')
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            benchmark.insert_nodes(engine, nodes)
            node = models.Node.__table__
            with engine.begin() as conn:
                conn.execute(sa.update(node).where(node.c.id % 10 == 1)
                             .values(maintenance=True))
                conn.execute(sa.update(node).where(node.c.id % 10 == 2)
                             .values(instance_uuid=sa.func.lower(
                                 node.c.uuid)))
                if backend == 'postgresql':
                    conn.exec_driver_sql('ANALYZE')
            request = candidates.Request(resource_class='rc-3')
            answer = candidates.preview(context, request, limit=limit)
            times = []
            for seed in range(previews):
                started = time.perf_counter()
                candidates.preview(context, request, limit=limit, seed=seed)
                times.append(time.perf_counter() - started)
            times.sort()
            print('%-10s N=%-7d preview p50 %.1f ms, p99 %.1f ms, max '
                  '%.1f ms (%d previews; %d match, %d listed)'
                  % (backend, nodes, statistics.median(times) * 1000,
                     times[max(0, int(len(times) * 0.99) - 1)] * 1000,
                     times[-1] * 1000, previews, answer.total_matching,
                     len(answer.candidates)), flush=True)
        finally:
            restore()
            engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', default='sqlite,postgresql,mysql')
    parser.add_argument('--nodes', default='10000',
                        help='fleet sizes, comma-separated')
    parser.add_argument('--previews', type=int, default=50)
    parser.add_argument('--limit', type=int, default=1000,
                        help='matches listed per preview')
    args = parser.parse_args()
    for nodes in (int(n) for n in args.nodes.split(',')):
        for backend in args.db.split(','):
            measure(backend, nodes, args.previews, args.limit)


if __name__ == '__main__':
    main()
