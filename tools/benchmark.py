"""Benchmark pool end to end and print a table of the figures.

Drives tools/alloc_load.py (a load generator for the /v1 allocation API)
against clusters of this machine (HAProxy, pool-api processes, pool-conductor
processes, RabbitMQ, PostgreSQL or MariaDB: tests/functional/cluster.py)
and against pool-server, in normal mode (N allocations for N nodes) and
contention mode (2N allocations for N nodes), with --extra-nodes among a
fleet of more nodes inserted straight into the database, with
--extra-events after a history of past events inserted likewise. With
--candidate-query it also times the reservation of nodes among many,
straight on the database; with --probe-plan, SQLite's plan of the search
for Free nodes at fleet sizes; with --pool-allocate, allocateMachines of
1,000 nodes from 10,000; with --autofill, a pool filled from 0 to 1,000
Free machines by the fake broker (no delay), by clusters of --conductors
conductors; with --provision, nodes deployed and undeployed through the
provision states in progress.

    .venv/bin/python tools/benchmark.py --nodes 1000,10000 \\
        --db postgresql,mysql --conductors 1,3 --server \\
        --candidate-query 100000
    .venv/bin/python tools/benchmark.py --no-clusters --server \\
        --nodes 1000 --extra-nodes 99000
    .venv/bin/python tools/benchmark.py --no-clusters --server \\
        --nodes 1000 --extra-events 1000000 --wait-by watch
    .venv/bin/python tools/benchmark.py --no-clusters --pool-allocate \\
        --db postgresql,mysql
    .venv/bin/python tools/benchmark.py --no-clusters --autofill 1000 \\
        --db postgresql,mysql --conductors 1,3
    .venv/bin/python tools/benchmark.py --no-clusters --provision 200 \\
        --db postgresql --conductors 1,3

Needs the services and database users that tools/run-tests.sh sets up.
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import cluster  # noqa: E402

DEFAULT_BENCH = os.path.join(ROOT, 'tools', 'alloc_load.py')
COLUMNS = ('deployment', 'N', 'mode', 'active', 'error', 'allocs/s',
           'POST p50', 'POST p99', 'active p50', 'active p99', 'deletes/s',
           'double', 'ok', 'CPU s/1000 api+cond+db')
# Processes whose CPU time the load generator adds up (pool-server, one
# process, counts as api).
WATCH = ('api=pool_api', 'cond=pool_conductor',
         'db=postgres|mariadbd')


def run_bench(args, url: str, nodes: int) -> list[dict]:
    """Run the load generator once per way of waiting; one result per
    mode and way.

    The nodes of a size stay enrolled (resource class bench-N), so that
    the next deployment on the same database reuses them.
    """
    return [row for wait in args.wait_by
            for row in _run_bench(args, url, nodes, wait)]


def _run_bench(args, url: str, nodes: int, wait: str) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, args.bench, '--url', url, '-n', str(nodes),
         '-c', str(args.clients), '--modes', 'normal,contention',
         '--api-version', '1.60', '--resource-class', 'bench-%d' % nodes,
         '--reuse-nodes', '--keep-nodes', '--wait-by', wait]
        + [arg for watch in WATCH for arg in ('--watch', watch)],
        capture_output=True, text=True)
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        raise RuntimeError('the load generator failed: %s'
                           % proc.stderr[-2000:])
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = []
    for rnd in result['rounds']:
        alloc, verify = rnd['allocate'], rnd['verify']
        rows.append({
            'N': nodes, 'mode': rnd['mode'] + (
                '' if wait == 'poll' else ', ' + wait),
            'active': alloc['active'], 'error': alloc['error'],
            'allocs/s': '%.0f' % alloc['allocs_per_s'],
            'POST p50': '%.0f ms' % alloc['post_latency']['p50_ms'],
            'POST p99': '%.0f ms' % alloc['post_latency']['p99_ms'],
            'active p50': '%.0f ms' % alloc['time_to_active']['p50_ms'],
            'active p99': '%.0f ms' % alloc['time_to_active']['p99_ms'],
            'deletes/s': '%.0f' % rnd['delete']['deletes_per_s'],
            'double': verify['double_allocated_nodes'],
            'ok': 'yes' if verify['ok'] else 'NO',
            'CPU s/1000 api+cond+db': _cpu_per_1000(
                rnd.get('cpu_allocate', {}), alloc['requested']),
        })
    return rows


def _cpu_per_1000(cpu: dict, allocations: int) -> str:
    """CPU seconds of the API, conductor and database processes per
    1,000 allocations, while allocating."""
    return '+'.join('%.1f' % (cpu.get(group + '_cpu_s', 0) * 1000
                              / allocations)
                    for group in ('api', 'cond', 'db'))


def print_table(rows: list[dict]) -> None:
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows))
              for c in COLUMNS}
    rule = '  '.join('=' * widths[c] for c in COLUMNS)
    print(rule)
    print('  '.join(c.ljust(widths[c]) for c in COLUMNS))
    print(rule)
    for row in rows:
        print('  '.join(str(row[c]).ljust(widths[c]) for c in COLUMNS))
    print(rule, flush=True)


def _deployment(args, name: str) -> str:
    name = '%s%s' % (args.label + ' ' if args.label else '', name)
    if args.extra_nodes:
        name += ', +%dk nodes' % (args.extra_nodes // 1000)
    if args.extra_events:
        name += ', +%dk events' % (args.extra_events // 1000)
    return name


def add_fleet(args, url: str) -> None:
    """Insert --extra-nodes nodes of other resource classes (rc-0 to
    rc-9) and --extra-events past events straight into a deployment's
    database, once, before the benchmark enrolls its own nodes: they are
    among a fleet of that size, at its end in id order, and the events
    it records come after a history of that length."""
    if not (args.extra_nodes or args.extra_events):
        return
    import sqlalchemy as sa

    from pool_conductor.db import api as db_api

    engine = sa.create_engine(url)
    db_api.setup_engine_hooks(engine)
    try:
        with engine.connect() as conn:
            if conn.scalar(sa.text('SELECT count(*) FROM nodes')):
                return
        started = time.monotonic()
        insert_nodes(engine, args.extra_nodes)
        insert_events(engine, args.extra_events)
        if engine.dialect.name == 'postgresql':
            with engine.begin() as conn:
                conn.exec_driver_sql('ANALYZE nodes')
                conn.exec_driver_sql('ANALYZE events')
        print('inserted %d nodes and %d events in %.0f s' % (
            args.extra_nodes, args.extra_events,
            time.monotonic() - started), flush=True)
    finally:
        engine.dispose()


def insert_events(engine, total: int) -> None:
    """Insert total past events, sequenced and published, after the
    last cursor given: half of allocations, half of nodes (a quarter of
    them ``pool.allocation.state_set.active``), of objects that no
    longer exist."""
    import datetime

    import sqlalchemy as sa

    from pool_conductor.db import models

    if not total:
        return
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with engine.begin() as conn:
        # The update first: it takes the lock the sequencer takes.
        conn.execute(sa.text("UPDATE event_cursors SET value = value + :n "
                             "WHERE name = 'sequence'"), {'n': total})
        first = conn.scalar(sa.text("SELECT value FROM event_cursors "
                                    "WHERE name = 'sequence'")) - total
        for start in range(0, total, 5000):
            rows = []
            for i in range(first + start, first + min(total, start + 5000)):
                kind = 'allocation' if i % 2 else 'node'
                rows.append({
                    'seq': i + 1,
                    'uuid': '%08x-0000-4000-a000-%012x' % (i, i),
                    'created_at': now, 'object_type': kind,
                    'object_uuid': '%08x-0000-4000-b000-%012x' % (
                        i // 4, i // 4),
                    'event_type': 'pool.%s.state_set.%s' % (
                        kind, 'active' if i % 4 == 1 else 'end'),
                    'level': 'info', 'state': 'active',
                    'payload': {'state': 'active'}, 'published_at': now})
            conn.execute(sa.insert(models.Event), rows)


def bench_clusters(args, rows: list[dict]) -> None:
    for backend in args.db:
        with cluster.Database(backend) as db:
            for conductors in args.conductors:
                name = _deployment(args, '%d api + %d cond, %s' % (
                    args.apis, conductors, backend))
                with cluster.Cluster(db.url, conductors=conductors,
                                     apis=args.apis,
                                     conductor_options=dict(
                                         args.conductor_option),
                                     api_options=dict(
                                         args.api_option)) as clu:
                    clu.wait_for_conductors(conductors)
                    add_fleet(args, db.url)
                    for nodes in args.nodes:
                        for row in run_bench(args, clu.url, nodes):
                            rows.append(dict(row, deployment=name))
                            print_table(rows[-1:])


def bench_server(args, rows: list[dict]) -> None:
    with cluster.PoolServer() as server:
        add_fleet(args, 'sqlite:///' + os.path.join(server.dir,
                                                     'pool.sqlite'))
        for nodes in args.nodes:
            for row in run_bench(args, server.url, nodes):
                rows.append(dict(row, deployment=_deployment(
                    args, 'pool-server, sqlite')))
                print_table(rows[-1:])


def insert_nodes(engine, total: int, **values) -> None:
    """Insert total available nodes in batches, with their pool fields."""
    import sqlalchemy as sa

    from pool_conductor.db import api as db_api
    from pool_conductor.db import models

    with engine.begin() as conn:
        for start in range(0, total, 5000):
            conn.execute(sa.insert(models.Node), [
                {'uuid': '%08x-0000-4000-8000-%012x' % (i, i),
                 'driver': 'fake-hardware',
                 'resource_class': 'rc-%d' % (i % 10),
                 'provision_state': 'available',
                 'power_state': 'power off', 'maintenance': False,
                 'properties': {}, 'extra': {}, 'instance_info': {},
                 'driver_info': {}, 'generation': 0,
                 'pool': 'default', 'pool_status': 'Free',
                 'params': {'inventory/data/CPUS': 2 + i % 4},
                 'created_at': db_api.utcnow(), **values}
                for i in range(start, min(start + 5000, total))])


@contextlib.contextmanager
def sqlite_in_process(nodes: int, cast=lambda alloc_id: None):
    """A fresh SQLite database of nodes (insert_nodes()) that pool's
    code in this process uses, with one live conductor, "cost-host"; the
    casts of allocations to it go to cast(alloc_id) (dropped unless
    given). Yields the engine; undone on exit."""
    import tempfile
    from unittest import mock

    import sqlalchemy as sa

    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import conductors as conductors_db
    from pool_conductor.db import migration
    from pool_conductor import rpcapi

    with tempfile.TemporaryDirectory() as tmp, \
            contextlib.ExitStack() as stack:
        url = 'sqlite:///%s' % os.path.join(tmp, 'pool.sqlite')
        engine = sa.create_engine(url)
        stack.callback(engine.dispose)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', url, group='database')
        CONF.set_override('auth_strategy', 'noauth')
        stack.callback(CONF.clear_override, 'connection', group='database')
        stack.callback(CONF.clear_override, 'auth_strategy')
        stack.callback(db_api.main_context_manager.patch_engine(engine))
        conductors_db.register_conductor(pool_context.get_admin_context(),
                                         'cost-host')
        insert_nodes(engine, nodes)
        stack.enter_context(mock.patch.object(
            rpcapi.ConductorAPI, 'create_allocation',
            lambda _s, _c, alloc_id, host: cast(alloc_id)))
        stack.enter_context(mock.patch.object(
            rpcapi.ConductorAPI, 'alive_conductors',
            lambda _s, _c: ['cost-host']))
        yield engine


def pool_allocate(args) -> None:
    """Time allocateMachines of count nodes from a pool of many."""
    import sqlalchemy as sa

    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import migration
    from pool_conductor.db import models
    from pool_conductor import pool_actions
    from pool_conductor.db import pools as pools_db
    from pool_conductor.db import filters

    CONF([], project='pool')
    context = pool_context.get_admin_context()
    total, count = args.pool_allocate
    for backend in args.db:
        with cluster.Database(backend) as db:
            engine = sa.create_engine(db.url)
            db_api.setup_engine_hooks(engine)
            migration.upgrade(engine=engine)
            CONF.set_override('connection', db.url, group='database')
            restore = db_api.main_context_manager.patch_engine(engine)
            try:
                pools_db.create(context, models.Pool, {
                    'name': 'bench',
                    'allocate_actions': {'add_parameters': {'a': 1}}})
                insert_nodes(engine, total, pool='bench')
                with engine.begin() as conn:
                    if backend == 'postgresql':
                        conn.exec_driver_sql('ANALYZE nodes')
                timings = []
                for request in (
                        pool_actions.Request(count=count),
                        pool_actions.Request(count=count, filters=[
                            filters.parse('inventory/data/CPUS',
                                          'Gte(4)')])):
                    started = time.monotonic()
                    got = pool_actions.allocate_machines(context, 'bench',
                                                         request)
                    timings.append((len(got), time.monotonic() - started))
            finally:
                restore()
                engine.dispose()
        print('%s: allocateMachines of %d nodes from a pool of %d: %d '
              'allocated in %.3f s; with a params filter: %d in %.3f s'
              % (backend, count, total, *timings[0], *timings[1]),
              flush=True)


def autofill(args) -> None:
    """Time a pool filling itself from 0 to N Free machines with the fake
    broker (no delay), and count the machines made beyond N."""
    total = args.autofill
    # A round every 0.2 s: the time measured is the conductors' work, not
    # the wait for the first round.
    options = {**cluster.FAST_CONDUCTOR_OPTIONS,
               'check_autofill_interval': 0.2}
    for backend in args.db:
        for conductors in args.conductors:
            with cluster.Database(backend) as db, cluster.Cluster(
                    db.url, conductors=conductors, apis=1,
                    conductor_options=options) as pool:
                pool.wait_for_conductors(conductors)
                status, body = pool.request(
                    'POST', '/v1/brokers', {'name': 'bench',
                                            'driver': 'fake'})
                if status != 201:
                    raise RuntimeError('broker creation failed: %s' % body)
                started = time.monotonic()
                status, body = pool.request('POST', '/v1/pools', {
                    'name': 'filled', 'broker': 'bench',
                    'autofill': {'use_autofill': True,
                                 'min_free': total}})
                if status != 201:
                    raise RuntimeError('pool creation failed: %s' % body)
                while True:
                    counts = pool.request(
                        'GET', '/v1/pools/filled/status')[1]
                    if counts['statuses']['Free'] >= total:
                        break
                    if time.monotonic() - started > 600:
                        raise RuntimeError('not filled: %s' % counts)
                    time.sleep(0.05)
                elapsed = time.monotonic() - started
                # Later rounds must make nothing more.
                time.sleep(2)
                counts = pool.request('GET', '/v1/pools/filled/status')[1]
                with pool.engine.connect() as conn:
                    locked = conn.exec_driver_sql(
                        'SELECT count(*) FROM nodes WHERE reservation IS '
                        'NOT NULL').scalar_one()
                    tokens = conn.exec_driver_sql(
                        'SELECT count(DISTINCT broker_token) FROM nodes'
                    ).scalar_one()
            print('%s, %d conductor(s): pool filled from 0 to %d Free '
                  'machines in %.2f s (%.0f machines/s); %d members after '
                  '2 s more, overshoot %d, %d distinct tokens, %d nodes '
                  'still locked'
                  % (backend, conductors, total, elapsed, total / elapsed,
                     counts['total'], counts['total'] - total, tokens,
                     locked), flush=True)


def _request(url: str, method: str, path: str, body=None):
    """(status, decoded body) of one API request to url."""
    import urllib.error
    import urllib.request
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url + path, data=data, method=method,
        headers={'Content-Type': 'application/json',
                 'X-OpenStack-Ironic-API-Version': cluster.API_VERSION})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _provision_all(url: str, uuids: list[str], verb: str,
                   target: str) -> tuple[float, list[float]]:
    """PUT verb on every node from 8 threads, and poll the node list
    every 50 ms until all are in target.

    :returns: the seconds until the last node got there, and each
        node's seconds from its PUT to the first list that showed it in
        target.
    """
    import concurrent.futures
    sent: dict[str, float] = {}
    seen: dict[str, float] = {}
    started = time.monotonic()

    def put(uuid):
        sent[uuid] = time.monotonic()
        status, body = _request(url, 'PUT',
                                '/v1/nodes/%s/states/provision' % uuid,
                                {'target': verb})
        if status != 202:
            raise RuntimeError('%s of %s: %s %s' % (verb, uuid, status,
                                                    body))

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        puts = [pool.submit(put, u) for u in uuids]
        while len(seen) < len(uuids):
            if time.monotonic() - started > 600:
                raise RuntimeError('%d of %d nodes %s after 600 s'
                                   % (len(seen), len(uuids), target))
            now = time.monotonic()
            nodes = _request(url, 'GET', '/v1/nodes?limit=0&provision_'
                             'state=%s&fields=uuid' % target)[1]['nodes']
            for node in nodes:
                if node['uuid'] in sent:
                    seen.setdefault(node['uuid'], now)
            time.sleep(0.05)
        for put_done in puts:
            put_done.result()
    return (max(seen.values()) - started,
            sorted(seen[u] - sent[u] for u in uuids))


def provision(args) -> None:
    """Time deployments and undeployments through the states in
    progress: N nodes deployed (available to active through deploying),
    then undeployed (active to available through deleting and cleaning),
    on pool-server and on clusters of --conductors conductors."""
    total = args.provision

    def run(name: str, url: str) -> None:
        uuids = []
        for i in range(total):
            status, node = _request(url, 'POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'resource_class': 'bench',
                'name': 'bench-%d' % i})
            if status != 201:
                raise RuntimeError('node creation failed: %s' % node)
            for verb in ('manage', 'provide'):
                _request(url, 'PUT', '/v1/nodes/%s/states/provision'
                         % node['uuid'], {'target': verb})
            uuids.append(node['uuid'])
        for what, verb, target in (('deployed', 'active', 'active'),
                                   ('undeployed', 'deleted', 'available')):
            elapsed, latencies = _provision_all(url, uuids, verb, target)
            print('%s: %d nodes %s (%s) in %.2f s (%.0f/s); from PUT to '
                  '%s seen: p50 %.0f ms, p99 %.0f ms'
                  % (name, total, what, verb, elapsed, total / elapsed,
                     target, 1000 * latencies[len(latencies) // 2],
                     1000 * latencies[int(len(latencies) * 0.99)]),
                  flush=True)

    with cluster.PoolServer() as server:
        run('pool-server, sqlite', server.url)
    for backend in args.db:
        for conductors in args.conductors:
            with cluster.Database(backend) as db, cluster.Cluster(
                    db.url, conductors=conductors, apis=1,
                    conductor_options={}) as pool:
                pool.wait_for_conductors(conductors)
                run('1 api + %d cond, %s' % (conductors, backend),
                    pool.url)


def candidate_query(args) -> None:
    """Time reservations among many nodes, straight on the database."""
    import sqlalchemy as sa

    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import migration

    CONF([], project='pool')
    context = pool_context.get_admin_context()
    total, reservations = args.candidate_query, 500
    for backend in args.db:
        with cluster.Database(backend) as db:
            engine = sa.create_engine(db.url)
            db_api.setup_engine_hooks(engine)
            migration.upgrade(engine=engine)
            # The engine facade starts once, on the first database.
            CONF.set_override('connection', db.url, group='database')
            restore = db_api.main_context_manager.patch_engine(engine)
            try:
                started = time.monotonic()
                insert_nodes(engine, total)
                enrolled = time.monotonic() - started
                if backend == 'postgresql':
                    # As autovacuum would, some time after a bulk load.
                    with engine.begin() as conn:
                        conn.exec_driver_sql('ANALYZE nodes')
                single, batched = _reserve(context, reservations)
                probes = _probe(engine, total)
            finally:
                restore()
                engine.dispose()
        print('%s: %d nodes inserted in %.1f s; %d reservations among %d '
              'candidates (of %d nodes): one at a time %s; in batches of %d '
              '%s; with a third of the nodes allocated: %s'
              % (backend, total, enrolled, reservations, total // 10, total,
                 single, BATCH, batched, probes), flush=True)


def _reserve(context, count: int) -> tuple[str, str]:
    """Reserve nodes for count allocations one at a time, then for count
    more in batches; how long each took."""
    from pool_conductor.allocator import AllocationWorker
    from pool_conductor.db import allocations as allocations_db

    worker = AllocationWorker('bench-host', 1)
    results = []
    for batch in (1, BATCH):
        ids = [allocations_db.create_allocation(context, {
            'resource_class': 'rc-3', 'state': 'allocating',
            'conductor_affinity': 'bench-host'}).id for _ in range(count)]
        cpu, wall = time.process_time(), time.monotonic()
        for i in range(0, count, batch):
            worker.process_batch(ids[i:i + batch])
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        reserved = sum(allocations_db.get_allocation_by_id(
            context, i).state == 'active' for i in ids)
        results.append('%.2f ms each (%.2f ms CPU of this process), %d '
                       'reserved' % (1000 * wall / count, 1000 * cpu / count,
                                     reserved))
    worker.stop()
    return results[0], results[1]


# Allocations per batch in --candidate-query.
BATCH = 16


def _probe(engine, total: int) -> str:
    """Allocate a third of the nodes, then time the candidate probe (free
    nodes from a random id on, locked) at PROBES random starts in one
    transaction, for an allocation of a resource class and one of a pool;
    and show their plans."""
    import random

    from pool_conductor.db import free_nodes

    with engine.begin() as conn:
        conn.exec_driver_sql(
            'UPDATE nodes SET instance_uuid = uuid, pool_status = %s '
            'WHERE instance_uuid IS NULL AND id %% 3 = 0', ('InUse',))
        # As autovacuum would, some time after a bulk update.
        conn.exec_driver_sql('ANALYZE nodes' if engine.dialect.name ==
                             'postgresql' else 'ANALYZE TABLE nodes')
    figures = []
    for shape, has_class, has_pool in (('class', True, False),
                                       ('pool', False, True)):
        stmt = free_nodes.probe_statement(free_nodes.Probe(
            resource_class=has_class, traits=0, candidates=False,
            owner=False, pool_index=has_pool,
            where=free_nodes.FROM_PIVOT, lock=True, exclude=False))
        params = {'resource_class': 'rc-3', 'pool': 'default', 'count': 1}
        with engine.connect() as conn, conn.begin():
            started = time.monotonic()
            for _ in range(PROBES):
                conn.execute(stmt, dict(
                    params, pivot=random.randint(1, total))).all()
            took = 1000 * (time.monotonic() - started) / PROBES
        figures.append('%s probe %.3f ms (plan: %s)' % (
            shape, took, _explain(engine, stmt, dict(params,
                                                      pivot=total // 2))))
    return '; '.join(figures)


# Random starts timed in --candidate-query.
PROBES = 2000


def probe_plan(args) -> None:
    """SQLite's plan and time of the Free-node probe in fleets of each
    size of --probe-plan, where the probed resource class is the last 1%
    of the nodes (half of them allocated) and a fifth of the nodes are in
    a pool of their own."""
    import random
    import tempfile

    from oslo_db.sqlalchemy import engines

    from pool_conductor.conf import CONF
    from pool_conductor.db import api as db_api
    from pool_conductor.db import free_nodes
    from pool_conductor.db import migration

    CONF([], project='pool')
    for total in args.probe_plan:
        with tempfile.TemporaryDirectory() as tmp:
            engine = engines.create_engine(
                'sqlite:///' + os.path.join(tmp, 'pool.sqlite'))
            db_api.setup_engine_hooks(engine)
            migration.upgrade(engine=engine)
            insert_nodes(engine, total)
            with engine.begin() as conn:
                conn.exec_driver_sql(
                    "UPDATE nodes SET resource_class = 'rare' WHERE id > %d"
                    % (total - total // 100))
                conn.exec_driver_sql(
                    "UPDATE nodes SET instance_uuid = uuid, pool_status = "
                    "'InUse' WHERE resource_class = 'rare' AND id % 2 = 0")
                conn.exec_driver_sql(
                    "INSERT INTO pools (name, created_at) VALUES "
                    "('other', '2026-01-01')")
                conn.exec_driver_sql(
                    "UPDATE nodes SET pool = 'other' WHERE id % 5 = 1")
            for pool in ('default', 'other'):
                stmt = free_nodes.probe_statement(free_nodes.Probe(
                    resource_class=True, traits=0, candidates=False,
                    owner=False, pool_index=pool != 'default',
                    where=free_nodes.FROM_PIVOT, lock=False, exclude=False))
                params = {'resource_class': 'rare', 'pool': pool,
                          'count': 1}
                with engine.connect() as conn:
                    started = time.monotonic()
                    for _ in range(300):
                        conn.execute(stmt, dict(
                            params, pivot=random.randint(1, total))).all()
                    took = 1000 * (time.monotonic() - started) / 300
                plan = cluster.explain(engine, stmt, dict(params, pivot=1))
                print('%d nodes, pool %s: %.3f ms per probe; %s' % (
                    total, pool, took, plan[0]['detail']), flush=True)
            engine.dispose()


def _explain(engine, stmt, params: dict) -> str:
    """The plan of a statement."""
    rows = cluster.explain(engine, stmt, params)
    if engine.dialect.name == 'mysql':
        return ' / '.join('%(type)s on %(key)s (%(Extra)s)' % r
                          for r in rows)
    return ' / '.join(r['QUERY PLAN'].strip() for r in rows
                      if 'Filter' not in r['QUERY PLAN'])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])

    def numbers(text):
        return [int(n) for n in text.split(',') if n]

    parser.add_argument('--nodes', type=numbers, default=[1000])
    parser.add_argument('--db', type=lambda t: t.split(','),
                        default=['postgresql'])
    parser.add_argument('--conductors', type=numbers, default=[1, 3])
    parser.add_argument('--apis', type=int, default=2)
    parser.add_argument('--clients', type=int, default=32)
    parser.add_argument('--server', action='store_true',
                        help='also measure pool-server')
    parser.add_argument('--no-clusters', action='store_true')
    parser.add_argument('--extra-nodes', type=int, default=0,
                        metavar='NODES',
                        help='insert NODES nodes of other resource classes '
                             'straight into the database of each '
                             'deployment first: the benchmark\'s nodes are '
                             'among a large fleet')
    parser.add_argument('--extra-events', type=int, default=0,
                        metavar='EVENTS',
                        help='insert EVENTS past events (sequenced and '
                             'published) straight into the database of '
                             'each deployment first: the benchmark runs '
                             'after a long history')
    parser.add_argument('--label', default='',
                        help='a word before the name of each deployment '
                             '(which tree it runs, say)')
    parser.add_argument('--candidate-query', type=int, default=0,
                        metavar='NODES')
    parser.add_argument('--probe-plan', type=numbers, metavar='NODES,...',
                        help='SQLite\'s plan and time of the Free-node '
                             'probe at each fleet size')
    parser.add_argument('--pool-allocate', nargs='?', const='10000,1000',
                        type=numbers, metavar='NODES,COUNT',
                        help='time allocateMachines of COUNT nodes (1000) '
                             'from a pool of NODES (10000)')
    parser.add_argument('--autofill', nargs='?', const=1000, type=int,
                        metavar='MACHINES',
                        help='time a pool filling itself to MACHINES '
                             '(1000) Free machines with the fake broker')
    parser.add_argument('--provision', nargs='?', const=200, type=int,
                        metavar='NODES',
                        help='time NODES (200) nodes deployed and '
                             'undeployed through the provision states in '
                             'progress, on pool-server and on clusters of '
                             '--conductors conductors')
    parser.add_argument('--wait-by', type=lambda t: t.split(','),
                        default=['poll'], metavar='poll,watch',
                        help='how the load generator learns outcomes: '
                             'polling as Ironic\'s clients do, pool\'s '
                             'event watch, or both (a row each)')
    parser.add_argument('--conductor-option', action='append', default=[],
                        type=lambda t: tuple(t.split('=', 1)),
                        metavar='NAME=VALUE',
                        help='a [conductor] option of every conductor of '
                             'the clusters (repeat for more)')
    parser.add_argument('--api-option', action='append', default=[],
                        type=lambda t: tuple(t.split('=', 1)),
                        metavar='NAME=VALUE',
                        help='an [api] option of every pool-api process of '
                             'the clusters (repeat for more)')
    parser.add_argument('--bench', default=DEFAULT_BENCH,
                        help='path of the load generator (tools/alloc_load.py '
                             'or one with the same options and output)')
    args = parser.parse_args()
    rows: list[dict] = []
    if not args.no_clusters:
        bench_clusters(args, rows)
    if args.server:
        bench_server(args, rows)
    if rows:
        print('\nAll runs, %d clients:' % args.clients)
        print_table(rows)
    if args.candidate_query:
        candidate_query(args)
    if args.probe_plan:
        probe_plan(args)
    if args.pool_allocate:
        pool_allocate(args)
    if args.autofill:
        autofill(args)
    if args.provision:
        provision(args)


if __name__ == '__main__':
    main()
