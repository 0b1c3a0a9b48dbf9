"""Measure the latency of the event watch: from the commit of an event to
the moment a watcher of GET /v1/events has it.

A watcher follows the feed (``since`` = the cursor of the last answer,
``wait=30``) while this program commits events straight into the
database, one at a time at random intervals, so that each finds the
watcher waiting. The latency of an event is the time from the return of
its commit to the return of the request that brought it, on this
machine's clock. It includes giving the event its cursor: by the API
process while requests wait (every [api] watch_poll_interval), and by
the conductors where they do it.

Deployments: a cluster (one pool-api, one pool-conductor, RabbitMQ) on
PostgreSQL or MariaDB (tests/functional/cluster.py), and pool-server on
SQLite::

    .venv/bin/python tools/watch_latency.py --db postgresql,mysql,server \\
        --events 200 [--sequence-at-commit]

With --sequence-at-commit this program gives each event its cursor right
after the commit, as a conductor's sequencer does on its next pass: the
figures are then those of the wake-up alone (PostgreSQL: LISTEN/NOTIFY;
MariaDB and SQLite: the API process's look every watch_poll_interval).

Needs the services and database users that tools/run-tests.sh sets up.
"""
import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
import urllib.request

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from pool_conductor.conf import CONF  # noqa: E402
from pool_conductor.db import api as db_api  # noqa: E402
from pool_conductor.db import events as events_db  # noqa: E402
from pool_conductor.db import models  # noqa: E402
from pool_conductor import events  # noqa: E402
from tests.functional import cluster  # noqa: E402


class Watcher(threading.Thread):
    """Follows the feed; the time each event arrived, by its UUID."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url = url
        self.arrived: dict[str, float] = {}
        self.stop = threading.Event()
        self.since = self._get('/v1/events')['cursor']

    def _get(self, path: str) -> dict:
        req = urllib.request.Request(self.url + path, headers={
            'X-OpenStack-Ironic-API-Version': cluster.API_VERSION})
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read())

    def run(self):
        while not self.stop.is_set():
            try:
                body = self._get('/v1/events?wait=30&since=%d' % self.since)
            except OSError:
                if self.stop.is_set():
                    # The deployment stopped under a waiting request.
                    return
                raise
            now = time.time()
            for event in body['events']:
                self.arrived[event['uuid']] = now
            self.since = body['cursor']


def commit_event(engine, sequence: bool) -> tuple[str, float]:
    """Commit one event; its UUID and when the commit returned. With
    sequence, give it its cursor at once, as a conductor's sequencer
    does (on PostgreSQL it notifies the API processes)."""
    row = events.rows([events.Event('node', 'latency-probe',
                                    'pool.test.latency')])[0]
    with engine.begin() as conn:
        conn.execute(sa.insert(models.Event.__table__), [row])
    at = time.time()
    if sequence:
        events_db.sequence(100)
    return row['uuid'], at


def measure(name: str, url: str, db_url: str, count: int,
            sequence: bool) -> dict:
    if CONF.database.connection is None:
        # The engine facade starts on a connection, then takes each
        # deployment's engine in its place.
        CONF.set_override('connection', db_url, group='database')
    engine = sa.create_engine(db_url)
    restore = db_api.main_context_manager.patch_engine(engine)
    watcher = Watcher(url)
    watcher.start()
    committed = {}
    try:
        for _ in range(count):
            time.sleep(random.uniform(0.05, 0.25))
            uuid, at = commit_event(engine, sequence)
            committed[uuid] = at
        deadline = time.monotonic() + 30
        while (len(set(committed) & set(watcher.arrived)) < count
               and time.monotonic() < deadline):
            time.sleep(0.1)
    finally:
        watcher.stop.set()
        restore()
        engine.dispose()
    latencies = sorted((watcher.arrived[u] - at) * 1000
                       for u, at in committed.items()
                       if u in watcher.arrived)
    name += ' (sequenced at commit)' if sequence else ''
    if not latencies:
        return {'deployment': name, 'events': count, 'seen': 0}
    return {
        'deployment': name, 'events': count, 'seen': len(latencies),
        'p50 ms': statistics.median(latencies),
        'p99 ms': latencies[min(len(latencies) - 1,
                                int(len(latencies) * 0.99))],
        'max ms': latencies[-1],
    }


def run_cluster(backend: str, count: int, sequence: bool) -> dict:
    with cluster.Database(backend) as db:
        with cluster.Cluster(db.url, conductors=1, apis=1) as pool:
            pool.wait_for_conductors(1)
            return measure('cluster %s' % backend, pool.url, db.url, count,
                           sequence)


def run_server(count: int, sequence: bool) -> dict:
    with cluster.PoolServer() as server:
        db_url = 'sqlite:///' + os.path.join(server.dir, 'pool.sqlite')
        return measure('pool-server sqlite', server.url, db_url, count,
                       sequence)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', default='postgresql,mysql,server',
                        help='comma-separated deployments: postgresql, '
                             'mysql (clusters), server (pool-server on '
                             'SQLite)')
    parser.add_argument('--events', type=int, default=200,
                        help='events committed per deployment')
    parser.add_argument('--sequence-at-commit', action='store_true',
                        help='give each event its cursor right after its '
                             'commit, as a conductor sequencing at once '
                             'would: what remains is the wake-up')
    args = parser.parse_args()
    CONF([], project='pool', default_config_files=[],
         default_config_dirs=[])
    results = []
    for name in args.db.split(','):
        if name == 'server':
            results.append(run_server(args.events, args.sequence_at_commit))
        else:
            results.append(run_cluster(name, args.events,
                                       args.sequence_at_commit))
        print(json.dumps(results[-1]), flush=True)
    columns = ('deployment', 'events', 'seen', 'p50 ms', 'p99 ms', 'max ms')
    print()
    print('  '.join('%-42s' % c if i == 0 else '%8s' % c
                    for i, c in enumerate(columns)))
    for result in results:
        print('  '.join(
            ('%-42s' % result.get(c, '')) if i == 0 else
            ('%8.1f' % result[c] if isinstance(result.get(c), float)
             else '%8s' % result.get(c, ''))
            for i, c in enumerate(columns)))


if __name__ == '__main__':
    main()
