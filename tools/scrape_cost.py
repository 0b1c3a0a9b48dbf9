"""Time a scrape of pool's metrics on a fleet of N nodes: the fleet's
gauges are counted with grouped queries at each scrape.

Nodes are inserted directly, a tenth of them given to allocations, into a
new database on each backend; the scrape runs in-process, as a pool-api
worker or a conductor answers one.

    .venv/bin/python tools/scrape_cost.py --db sqlite,postgresql,mysql \\
        --nodes 10000 --scrapes 50

Needs the services and database users that tools/run-tests.sh sets up
(PostgreSQL and MariaDB; SQLite needs nothing).
"""
import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import cluster  # noqa: E402
from tools import benchmark  # noqa: E402


@contextlib.contextmanager
def _database(backend: str):
    if backend == 'sqlite':
        with tempfile.TemporaryDirectory() as tmp:
            yield 'sqlite:///%s' % os.path.join(tmp, 'pool.sqlite')
    else:
        with cluster.Database(backend) as db:
            yield db.url


def measure(backend: str, nodes: int, scrapes: int) -> None:
    import sqlalchemy as sa

    from pool_conductor.conf import CONF
    from pool_conductor.db import api as db_api
    from pool_conductor.db import migration
    from pool_conductor.db import models
    from pool_conductor import metrics

    CONF([], project='pool')
    with _database(backend) as url:
        engine = sa.create_engine(url)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', url, group='database')
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            benchmark.insert_nodes(engine, nodes)
            with engine.begin() as conn:
                conn.execute(sa.insert(models.Allocation), [
                    {'uuid': '%08x-0000-4000-9000-%012x' % (i, i),
                     'state': 'active', 'resource_class': 'rc-0',
                     'traits': [], 'candidate_nodes': [], 'extra': {},
                     'created_at': db_api.utcnow()}
                    for i in range(nodes // 10)])
                if backend == 'postgresql':
                    conn.exec_driver_sql('ANALYZE')
            metrics.exposition()  # warm: connections, statements
            times = []
            for _ in range(scrapes):
                started = time.perf_counter()
                body = metrics.exposition()
                times.append(time.perf_counter() - started)
            times.sort()
            print('%-10s N=%-7d scrape p50 %.1f ms, p99 %.1f ms, max '
                  '%.1f ms (%d scrapes, %d bytes, %d series)'
                  % (backend, nodes, statistics.median(times) * 1000,
                     times[int(len(times) * 0.99) - 1] * 1000,
                     times[-1] * 1000, scrapes, len(body),
                     sum(1 for line in body.splitlines()
                         if line and not line.startswith(b'#'))),
                  flush=True)
        finally:
            restore()
            engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', default='sqlite,postgresql,mysql')
    parser.add_argument('--nodes', default='10000',
                        help='fleet sizes, comma-separated')
    parser.add_argument('--scrapes', type=int, default=50)
    args = parser.parse_args()
    for nodes in (int(n) for n in args.nodes.split(',')):
        for backend in args.db.split(','):
            measure(backend, nodes, args.scrapes)


if __name__ == '__main__':
    main()
