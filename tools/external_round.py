"""One round of the external manager reconciler at fleet size, against
the ironic driver: how many remote calls, how long, how many database
statements.

A second pool-server plays the other Ironic-compatible service that owns
the hardware: N nodes are written into its SQLite database, and a share
of them (--taken) given to allocations there, as its other users would.
Pool's own database (a new SQLite file, or --db-url) gets N nodes shared
with it, and one reconciler round observes them all; a second round
shows the cost of a round that changes nothing.

    .venv/bin/python tools/external_round.py --nodes 10000 --taken 0.05

Statements are counted on pool's engine; remote calls are the HTTP
requests openstacksdk sends (keystoneauth sessions).
"""
import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _node_rows(total: int, prefix: int, **values) -> list[dict]:
    from pool_conductor.db import api as db_api
    return [{'uuid': '%08x-0000-4000-8000-%012x' % (prefix, i),
             'name': 'n-%d' % i, 'driver': 'fake-hardware',
             'resource_class': 'shared', 'provision_state': 'available',
             'power_state': 'power off', 'maintenance': False,
             'properties': {}, 'extra': {}, 'instance_info': {},
             'driver_info': {}, 'generation': 0, 'pool': 'default',
             'pool_status': 'Free', 'params': {},
             'created_at': db_api.utcnow(), **values}
            for i in range(total)]


def fill_upstream(url: str, total: int, taken: int) -> None:
    """N available nodes in the other service's database, the first
    taken ones given to allocations of its other users."""
    import sqlalchemy as sa

    from pool_conductor.db import api as db_api
    from pool_conductor.db import models

    engine = sa.create_engine(url)
    rows = _node_rows(total, 1)
    with engine.begin() as conn:
        for start in range(0, total, 5000):
            conn.execute(sa.insert(models.Node), rows[start:start + 5000])
        ids = dict(conn.execute(sa.select(models.Node.uuid,
                                          models.Node.id)).all())
        for i, row in enumerate(rows[:taken]):
            alloc = '%08x-0000-4000-8000-%012x' % (2, i)
            alloc_id = conn.execute(sa.insert(models.Allocation).values(
                uuid=alloc, name='theirs-%d' % i, state='active',
                node_id=ids[row['uuid']], resource_class='shared',
                traits=[], candidate_nodes=[], extra={},
                created_at=db_api.utcnow())).inserted_primary_key[0]
            conn.execute(sa.update(models.Node).where(
                models.Node.id == ids[row['uuid']]).values(
                instance_uuid=alloc, allocation_id=alloc_id))
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--taken', type=float, default=0.05,
                        help='the share of nodes other users hold there')
    parser.add_argument('--db-url', help='pool\'s database (default: a '
                        'new SQLite file); it must be empty')
    args = parser.parse_args()

    import sqlalchemy as sa
    from keystoneauth1 import session as ks_session

    from pool_conductor.conf import CONF
    from pool_conductor import context as pool_context
    from pool_conductor.db import api as db_api
    from pool_conductor.db import conductors as conductors_db
    from pool_conductor.db import external as external_db
    from pool_conductor.db import migration
    from pool_conductor.db import models
    from pool_conductor.db import pools as pools_db
    from pool_conductor import external
    from tests.functional import cluster

    CONF([], project='pool')
    calls = []
    request = ks_session.Session.request

    def counted(self, url, method, *a, **kw):
        calls.append((method, url))
        return request(self, url, method, *a, **kw)
    ks_session.Session.request = counted

    taken = int(args.nodes * args.taken)
    with tempfile.TemporaryDirectory() as tmp, cluster.PoolServer() as up:
        fill_upstream('sqlite:///%s' % os.path.join(up.dir, 'pool.sqlite'),
                      args.nodes, taken)
        url = args.db_url or 'sqlite:///%s' % os.path.join(tmp, 'pool.db')
        engine = sa.create_engine(url)
        db_api.setup_engine_hooks(engine)
        migration.upgrade(engine=engine)
        CONF.set_override('connection', url, group='database')
        restore = db_api.main_context_manager.patch_engine(engine)
        statements = []
        sa.event.listen(engine, 'before_cursor_execute',
                        lambda *a: statements.append(a[2]))
        try:
            context = pool_context.get_admin_context()
            conductors_db.register_conductor(context, 'round-host')
            pools_db.create(context, models.ExternalManager, {
                'name': 'lab', 'driver': 'ironic',
                'parameters': {'endpoint': up.url}})
            upstream = _node_rows(args.nodes, 1)
            rows = _node_rows(args.nodes, 3)
            for row, ref in zip(rows, upstream, strict=True):
                row.update(external_manager='lab', external_ref=ref['uuid'],
                           name='here-' + row['name'])
            with engine.begin() as conn:
                for start in range(0, args.nodes, 5000):
                    conn.execute(sa.insert(models.Node),
                                 rows[start:start + 5000])
            reconciler = external.Reconciler('round-host')
            for label in ('first round (%d nodes taken there)' % taken,
                          'second round (nothing changes)'):
                del calls[:], statements[:]
                manager = [m for m in external_db.list_managers(context)
                           if m.name == 'lab'][0]
                started = time.monotonic()
                done = reconciler.reconcile(context, manager)
                seconds = time.monotonic() - started
                print('%s: %.2f s, %d remote calls (%s), %d statements, '
                      '%d nodes observed in %d batches, %d changed, '
                      'error %s' % (
                          label, seconds, len(calls),
                          ', '.join(sorted({m for m, _u in calls})),
                          len(statements), done.observed, done.calls,
                          done.changed, done.error))
        finally:
            restore()
            engine.dispose()


if __name__ == '__main__':
    main()
