"""The CPU an allocation costs in-process, from POST to active and back:
to compare trees (e.g. with and without recording events) alternately on
one machine, where throughput end to end is too noisy.

Each round enrolls N nodes in a new SQLite database, creates N
allocations through the API (Flask's test client), has a conductor's
worker give them nodes in batches of 32, deletes them, and prints the
process's CPU seconds per 1,000 allocations (process time, which other
work on the machine disturbs less than wall time). Between the batches
and the deletes it reads what waiting clients poll, N times each: one
allocation (GET /v1/allocations/<uuid>) and a page of 50 active ones;
their CPU is printed apart and not counted in the first figure.

    PYTHONPATH=<tree> .venv/bin/python <tree>/tools/event_cost.py \\
        --nodes 1000 --rounds 3
"""
import argparse
import os
import sys
import time

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def one_round(nodes: int) -> float:
    from pool_api import app as pool_app
    from pool_conductor.allocator import AllocationWorker
    from tools import benchmark

    cast = []
    with benchmark.sqlite_in_process(nodes, cast.append) as engine:
        client = pool_app.create_app().test_client()
        headers = {'X-OpenStack-Ironic-API-Version': '1.60'}
        worker = AllocationWorker('cost-host', 1, batch_size=32)
        started = time.process_time()
        uuids = []
        for i in range(nodes):
            resp = client.post('/v1/allocations', headers=headers,
                               json={'resource_class': 'rc-%d' % (i % 10)})
            uuids.append(resp.get_json()['uuid'])
            if len(cast) >= 32:
                worker.process_batch(cast[:32])
                del cast[:32]
        if cast:
            worker.process_batch(cast)
        spent = time.process_time() - started
        # What clients that wait poll: an allocation, and a page of the
        # allocations in a state.
        reads = time.process_time()
        for uuid in uuids:
            client.get('/v1/allocations/' + uuid, headers=headers)
        gets = time.process_time() - reads
        reads = time.process_time()
        for _ in uuids:
            client.get('/v1/allocations?state=active&limit=50',
                       headers=headers)
        lists = time.process_time() - reads
        started = time.process_time()
        for uuid in uuids:
            client.delete('/v1/allocations/' + uuid, headers=headers)
        spent += time.process_time() - started
        worker.stop()
        with engine.connect() as conn:
            left = conn.scalar(sa.text('SELECT count(*) FROM allocations'))
        if left:
            raise RuntimeError('%d allocations left' % left)
        return spent * 1000 / nodes, gets * 1000 / nodes, \
            lists * 1000 / nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--nodes', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    from pool_conductor.conf import CONF
    CONF([], project='pool')
    for _ in range(args.rounds):
        cycle, gets, lists = one_round(args.nodes)
        print('%s: %.2f CPU s per 1,000 allocations (N=%d); '
              '%.2f per 1,000 GETs of one, %.2f per 1,000 pages of 50'
              % (ROOT, cycle, args.nodes, gets, lists), flush=True)


if __name__ == '__main__':
    main()
