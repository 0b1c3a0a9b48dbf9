"""Time GET /v1/fleet and the dashboard's page on a fleet of N nodes.

The fleet is inserted directly into a new database: N nodes over 10
pools in several provision states, power states and pool statuses (2% in
maintenance), N/5 allocations (half of them ending within two days), 3
conductors and 2N events (1% warnings and errors). The API runs
in-process (Flask's test client, no authentication), so the times are
the server's: the queries and the rendering, without the network.

    .venv/bin/python tools/dashboard_bench.py --db sqlite,postgresql \\
        --nodes 10000 --repeat 20

PostgreSQL needs the database user that tools/run-tests.sh sets up.
"""
import argparse
import contextlib
import datetime
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import cluster  # noqa: E402

PROVISION = ('available', 'active', 'active', 'active', 'manageable',
             'deploying', 'enroll')
STATUSES = ('Free', 'InUse', 'InUse', 'Building', 'Destroying', 'Joining',
            'HoldBuild')


@contextlib.contextmanager
def _database(backend: str):
    if backend == 'sqlite':
        with tempfile.TemporaryDirectory() as tmp:
            yield 'sqlite:///' + os.path.join(tmp, 'pool.sqlite')
    else:
        with cluster.Database(backend) as db:
            yield db.url


def populate(engine, nodes: int) -> None:
    import sqlalchemy as sa

    from pool_conductor.db import api as db_api
    from pool_conductor.db import models

    now = db_api.utcnow()
    with engine.begin() as conn:
        conn.execute(sa.insert(models.Pool), [
            {'name': 'pool-%d' % p, 'parent_pool': 'default',
             'created_at': now} for p in range(10)])
        conn.execute(sa.insert(models.Conductor), [
            {'hostname': 'conductor-%d' % c, 'online': True,
             'created_at': now,
             'updated_at': now - datetime.timedelta(seconds=600 * (c == 2))}
            for c in range(3)])
        for start in range(0, nodes, 5000):
            conn.execute(sa.insert(models.Node), [
                {'uuid': '%08x-0000-4000-8000-%012x' % (i, i),
                 'name': 'node-%d' % i, 'driver': 'fake-hardware',
                 'resource_class': 'rc-%d' % (i % 10),
                 'provision_state': PROVISION[i % len(PROVISION)],
                 'power_state': 'power on' if i % 3 else 'power off',
                 'maintenance': i % 50 == 0,
                 'reservation': 'conductor-%d' % (i % 3) if i % 97 == 0
                 else None,
                 'properties': {}, 'extra': {}, 'instance_info': {},
                 'driver_info': {}, 'generation': 0,
                 'pool': 'pool-%d' % (i % 10),
                 'pool_status': STATUSES[i % len(STATUSES)],
                 'params': {}, 'created_at': now}
                for i in range(start, min(start + 5000, nodes))])
        allocations = nodes // 5
        conn.execute(sa.insert(models.Allocation), [
            {'uuid': '%08x-0000-4000-9000-%012x' % (i, i),
             'name': 'alloc-%d' % i, 'state': 'active' if i % 20
             else 'allocating', 'resource_class': 'rc-%d' % (i % 10),
             'traits': [], 'candidate_nodes': [], 'extra': {},
             'conductor_affinity': 'conductor-%d' % (i % 3),
             'lifespan_end': now + datetime.timedelta(hours=i % 96),
             'created_at': now} for i in range(allocations)])
        for start in range(0, 2 * nodes, 5000):
            conn.execute(sa.insert(models.Event), [
                {'uuid': '%08x-0000-4000-a000-%012x' % (i, i), 'seq': i + 1,
                 'created_at': now - datetime.timedelta(seconds=2 * nodes - i),
                 'object_type': 'node',
                 'object_uuid': '%08x-0000-4000-8000-%012x' % (i % nodes,
                                                               i % nodes),
                 'object_name': 'node-%d' % (i % nodes),
                 'event_type': 'baremetal.node.update.end',
                 'level': ('warning', 'error')[i % 2] if i % 100 == 0
                 else 'info',
                 'message': 'change %d' % i, 'payload': {},
                 'published_at': now}
                for i in range(start, min(start + 5000, 2 * nodes))])


def _time(client, path: str, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        resp = client.get(path)
        resp.get_data()
        times.append(time.perf_counter() - started)
        assert resp.status_code == 200, resp.get_data()[:300]
    times.sort()
    return (statistics.median(times) * 1000,
            times[max(0, int(len(times) * 0.95) - 1)] * 1000)


def bench(backend: str, nodes: int, repeat: int) -> list[tuple]:
    import sqlalchemy as sa

    from pool_api import app as pool_app
    from pool_conductor.conf import CONF
    from pool_conductor.db import api as db_api
    from pool_conductor.db import migration

    rows = []
    with _database(backend) as url:
        engine = sa.create_engine(url)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', url, group='database')
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            started = time.perf_counter()
            populate(engine, nodes)
            if backend == 'postgresql':
                with engine.connect() as conn:
                    conn.exec_driver_sql('ANALYZE')
            inserted = time.perf_counter() - started
            client = pool_app.create_app().test_client()
            for path in ('/v1/fleet', '/dashboard'):
                _time(client, path, 2)
                median, p95 = _time(client, path, repeat)
                rows.append((backend, nodes, path, median, p95, inserted))
        finally:
            restore()
            engine.dispose()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', default='sqlite,postgresql',
                        help='comma-separated: sqlite, postgresql, mysql')
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--repeat', type=int, default=20)
    args = parser.parse_args()

    from pool_conductor.conf import CONF
    CONF([], project='pool', default_config_files=[],
         default_config_dirs=[])
    CONF.set_override('auth_strategy', 'noauth')
    CONF.set_override('transport_url', 'fake://')
    rows = []
    for backend in args.db.split(','):
        rows += bench(backend, args.nodes, args.repeat)
    print('%-11s %7s %-11s %10s %10s' % ('database', 'nodes', 'request',
                                         'median ms', 'p95 ms'))
    for backend, nodes, path, median, p95, _inserted in rows:
        print('%-11s %7d %-11s %10.1f %10.1f' % (backend, nodes, path,
                                                median, p95))


if __name__ == '__main__':
    main()
