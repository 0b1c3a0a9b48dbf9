"""Time the binding of claims: claims of 10 machines each bound per
second by the conductor's binding function, on a pool of N nodes.

Each claim asks for 10 machines of one resource class from a provider
whose pool holds all N nodes (10 resource classes, N/10 nodes each); the
claims are written pending and bound by threads that call
pool_conductor.claims.process(), as conductors do, on a new database.

    .venv/bin/python tools/claim_bench.py --db postgresql --nodes 10000 \\
        --claims 300 --threads 1,4

Needs the services and database users that tools/run-tests.sh sets up.
"""
import argparse
import os
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import cluster  # noqa: E402
from tools import benchmark  # noqa: E402


def bench(backend: str, nodes: int, count: int, size: int,
          threads: list[int]) -> None:
    import sqlalchemy as sa

    from oslo_utils import uuidutils

    from pool_conductor import claim_release
    from pool_conductor import claims
    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import claims as claims_db
    from pool_conductor.db import conductors as conductors_db
    from pool_conductor.db import migration
    from pool_conductor.db import models
    from pool_conductor.db import pools as pools_db
    from pool_conductor.db import providers as providers_db
    from pool_conductor import rpcapi

    CONF([], project='pool')
    context = pool_context.get_admin_context()
    # Deleting a claim casts its deployed machines to a conductor to be
    # undeployed; the bench's machines are never deployed, so nothing is
    # cast and no message bus is needed.
    conductor_api = rpcapi.ConductorAPI()
    with cluster.Database(backend) as db:
        engine = sa.create_engine(db.url, pool_size=max(threads) + 2)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', db.url, group='database')
        restore = db_api.main_context_manager.patch_engine(engine)
        try:
            pools_db.create(context, models.Pool, {'name': 'bench'})
            providers_db.create(context, {
                'name': 'bench', 'pool': 'bench',
                'match_ignore': ['/params/hostname']})
            conductors_db.register_conductor(context, 'bench-host')
            benchmark.insert_nodes(engine, nodes, pool='bench')
            with engine.begin() as conn:
                if backend == 'postgresql':
                    conn.exec_driver_sql('ANALYZE nodes')
            for workers in threads:
                ids = [claims_db.create(context, {
                    'uuid': uuidutils.generate_uuid(), 'state': 'pending',
                    'conductor_affinity': 'bench-host',
                    'resources': [{'provider': 'bench', 'template': {
                        'resource_class': 'rc-%d' % (n % 10),
                        'params': {'hostname': 'c%d-%d' % (n, i)}}}
                        for i in range(size)]}).id
                    for n in range(count)]
                outcomes: list = []

                def work(mine, outcomes):
                    # list.append is atomic: no lock needed.
                    for claim_id in mine:
                        outcomes.append(claims.process(context, claim_id,
                                                       'bench-host'))

                pool = [threading.Thread(target=work,
                                         args=(ids[i::workers], outcomes))
                        for i in range(workers)]
                started = time.monotonic()
                for t in pool:
                    t.start()
                for t in pool:
                    t.join()
                elapsed = time.monotonic() - started
                bound = outcomes.count(claims.BOUND)
                with engine.connect() as conn:
                    held = conn.execute(sa.select(
                        sa.func.count(), sa.func.count(sa.distinct(
                            models.Allocation.node_id)))
                        .where(models.Allocation.claim_id.in_(ids))).one()
                print('%s, N=%d, %d threads: %d claims of %d machines bound '
                      'in %.2f s: %.1f claims/s (%.0f machines/s); '
                      'allocations %d on %d distinct nodes'
                      % (backend, nodes, workers, bound, size, elapsed,
                         bound / elapsed, bound * size / elapsed, held[0],
                         held[1]), flush=True)
                # Free the machines for the next round.
                for claim_id in ids:
                    claim_release.destroy(context, claims_db.get(
                        context, claims_db_uuid(engine, claim_id)),
                        conductor_api)
        finally:
            restore()
            engine.dispose()


def claims_db_uuid(engine, claim_id: int) -> str:
    import sqlalchemy as sa

    from pool_conductor.db import models

    with engine.connect() as conn:
        return conn.scalar(sa.select(models.Claim.uuid).where(
            models.Claim.id == claim_id))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--db', default='postgresql',
                        help='postgresql, mysql, or both comma-separated')
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--claims', type=int, default=300)
    parser.add_argument('--size', type=int, default=10,
                        help='machines per claim')
    parser.add_argument('--threads', default='1,4')
    args = parser.parse_args()
    for backend in args.db.split(','):
        bench(backend, args.nodes, args.claims, args.size,
              [int(t) for t in args.threads.split(',')])


if __name__ == '__main__':
    main()
