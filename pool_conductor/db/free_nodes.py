"""The one search for Free nodes: what an allocation, a claim, a pool
action or AutoFill may take, locked with SKIP LOCKED where the backend
has it (SQLite: the database lock of BEGIN IMMEDIATE), so that
concurrent transactions take different nodes."""
from collections.abc import Iterable
import dataclasses
import datetime
import functools

import sqlalchemy as sa
from sqlalchemy.ext import compiler as sa_compiler

from pool_conductor.db import api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import filters as node_filters
from pool_conductor.db import models

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__


class Likely(sa.sql.functions.FunctionElement):
    """A condition most rows meet, said so to SQLite's planner.

    Without statistics SQLite counts ``instance_uuid IS NULL`` as a
    lookup of two rows in the unique index of instance_uuid, at any fleet
    size: it took that index and visited every free node of every class
    from the random start (~10 ms per probe at 60,000 nodes). Told that
    the condition is true of most rows, it takes the partial indexes of
    free nodes, which hold it. Other backends get the condition as it is.
    """
    type = sa.Boolean()
    # A condition as it is: SQLAlchemy adds no "= 1" on SQLite.
    _is_implicitly_boolean = True
    inherit_cache = True
    name = 'likely'


@sa_compiler.compiles(Likely)
def _likely(element, compiler, **kw):
    return compiler.process(element.clauses, **kw)


@sa_compiler.compiles(Likely, 'sqlite')
def _likely_sqlite(element, compiler, **kw):
    return 'likely(%s)' % compiler.process(element.clauses, **kw)


def _planned(term):
    if term is binding_db.NODE_IS_FREE_INSTANCE:
        return Likely(term)
    return term


# A node a consumer may take: free, with a known power state.
ALLOCATABLE = (*map(_planned, binding_db.NODE_IS_FREE),
               _NODES.c.power_state.is_not(None))
FREE = tuple(map(_planned, binding_db.NODE_IS_FREE))

# The end of a hold that never ends (an allocation without lifespan_end).
FOREVER = datetime.datetime(9999, 1, 1)
# A node no window holds a slot of. Claims, pool actions and AutoFill
# take only such nodes: they hold a node with no end the windows know.
UNBOOKED = _NODES.c.booked_from.is_(None)
# A node whose earliest slot begins no earlier than the end of a hold
# that starts now (hold_until; FOREVER: a node with no slot). It is a
# column of the node, so that the search reads it under the node's lock
# (pool_conductor.booking.windows).
FREE_UNTIL = sa.or_(UNBOOKED, _NODES.c.booked_from >= sa.bindparam(
    'hold_until', FOREVER, type_=models.Node.booked_from.type))

# A node no external manager shares: claims and pool actions give nodes
# without acquiring their hardware there, so they pass over shared ones
# (the allocation worker acquires it).
UNSHARED = _NODES.c.external_manager.is_(None)

# Where a search for an allocation looks: the node named as the
# allocation, nodes from a start id on, nodes before it, or anywhere.
BY_NAME, FROM_PIVOT, BEFORE_PIVOT, ANYWHERE = 'name', 'from', 'before', 'any'


def skip_locked(conn, q):
    """q, locking the rows it reads and skipping those other transactions
    lock, where the backend can."""
    if api.backend_supports_skip_locked(conn):
        return q.with_for_update(skip_locked=True)
    return q


def _select(*where, allocatable: bool = True, columns=(),
            booked=UNBOOKED):
    """Free nodes matching where (allocatable: with a known power state
    too) and booked (by default: no window holds them), with what the
    binding reads of them and their pool's allocate actions."""
    return sa.select(*binding_db.NODE_COLUMNS, binding_db.ALLOCATE_ACTIONS,
                     *columns).where(
        *(ALLOCATABLE if allocatable else FREE), booked, *where)


def _with_traits(q, traits):
    for trait in traits:
        q = q.where(sa.exists().where(_TRAITS.c.node_id == _NODES.c.id,
                                      _TRAITS.c.trait == trait))
    return q


def _of_project(project: str | None) -> tuple:
    if project is None:
        return ()
    return (sa.or_(_NODES.c.owner == project,
                   _NODES.c.lessee == project),)


# The allocation worker ------------------------------------------------------
#
# Its statements are built once per shape and run with bound parameters:
# building and caching a SQLAlchemy statement costs more CPU than the
# database spends running it.

@dataclasses.dataclass(frozen=True)
class Probe:
    """The shape of a search for an allocation: what it filters on,
    where it looks, and whether it locks what it finds. Hashable: one
    statement is built per shape."""

    resource_class: bool
    traits: int
    candidates: bool
    owner: bool
    # The pool has its own index (every pool but the default one, which
    # holds most nodes and is searched through the class index).
    pool_index: bool
    where: str
    lock: bool
    exclude: bool


@functools.lru_cache(maxsize=256)
def probe_statement(probe: Probe):
    """Free nodes of a pool matching an allocation, of one shape."""
    node = _NODES.c
    q = _select(node.pool == sa.bindparam('pool'), booked=FREE_UNTIL)
    if probe.resource_class:
        q = q.where(node.resource_class == sa.bindparam('resource_class'))
    if probe.candidates:
        q = q.where(node.uuid.in_(sa.bindparam('candidates',
                                               expanding=True)))
    q = _with_traits(q, [sa.bindparam('trait_%d' % i)
                         for i in range(probe.traits)])
    if probe.owner:
        q = q.where(*_of_project(sa.bindparam('owner')))
    if probe.exclude:
        q = q.where(node.id.not_in(sa.bindparam('exclude', expanding=True)))
    if probe.where == BY_NAME:
        q = q.where(node.name == sa.bindparam('name'))
    elif probe.where in (FROM_PIVOT, BEFORE_PIVOT):
        # In id order, the probe reads a range of the candidate index (the
        # pool's, with a pool) from the pivot on and stops at the first
        # free nodes: without an order, a planner that assumes free nodes
        # are spread evenly scans the table from its first row.
        q = q.where(node.id >= sa.bindparam('pivot')
                    if probe.where == FROM_PIVOT
                    else node.id < sa.bindparam('pivot')).order_by(node.id)
        if not probe.candidates and (probe.pool_index
                                     or probe.resource_class):
            # MariaDB reads the pool's index from its first free member
            # (or the index of nodes by allocation) unless told which.
            q = q.with_hint(_NODES, 'FORCE INDEX (%s)' % (
                'nodes_pool_status_idx' if probe.pool_index
                else 'nodes_free_candidate_idx'), 'mysql')
    q = q.limit(sa.bindparam('count', type_=sa.Integer))
    if probe.lock:
        q = q.with_for_update(skip_locked=True)
    return q


def for_allocation(conn, alloc, pool: str, where: str, count: int = 1,
                   lock: bool = True, exclude: Iterable[int] = (),
                   hold_until: datetime.datetime = FOREVER,
                   **params) -> list[sa.Row]:
    """Free nodes of pool matching alloc's request (resource class,
    traits, candidates, owner), locked with lock.

    :param exclude: ids of nodes this transaction has taken already (its
        own locks do not make it skip them).
    :param hold_until: until when the allocation holds the node: only
        nodes whose earliest slot begins no earlier are found.
    """
    traits = list(alloc.traits or ())
    exclude = list(exclude)
    stmt = probe_statement(Probe(
        resource_class=bool(alloc.resource_class), traits=len(traits),
        candidates=bool(alloc.candidate_nodes), owner=bool(alloc.owner),
        pool_index=pool != models.DEFAULT_POOL, where=where,
        lock=lock and api.backend_supports_skip_locked(conn),
        exclude=bool(exclude)))
    params.update(count=count, resource_class=alloc.resource_class,
                  hold_until=hold_until,
                  pool=pool, exclude=exclude, owner=alloc.owner,
                  name=alloc.name,
                  candidates=list(alloc.candidate_nodes or ()))
    params.update(('trait_%d' % i, t) for i, t in enumerate(traits))
    return conn.execute(stmt, params).all()


def tentative(conn, node_id: int) -> list[sa.Row]:
    """The node a windowed allocation's slot holds, if it is free now
    (its own slot is its earliest), locked (skipped while another
    transaction locks it)."""
    return conn.execute(skip_locked(conn, _select(
        _NODES.c.id == node_id, booked=sa.true()))).all()


# Claims, pool actions and AutoFill -------------------------------------------

def matching(conn, pool: str, resource_class: str | None, traits,
             params: dict, exclude=(), after: int = 0,
             limit: int | None = 1, lock: bool = True,
             project: str | None = None) -> list[sa.Row]:
    """Free members of a pool of the resource class (any with None), with
    every trait, whose params equal params (scalars), in id order from
    after on, not in exclude, no external manager shares; locked with
    lock; only those a project owns or leases when project is given."""
    node = _NODES.c
    q = _with_traits(_select(node.pool == pool, node.id > after, UNSHARED,
                             *_of_project(project)),
                     traits).order_by(node.id).limit(limit)
    if resource_class is not None:
        q = q.where(node.resource_class == resource_class)
    if params:
        q = q.where(node_filters.to_sql(conn.dialect.name, [
            node_filters.Filter(key, 'Eq', (value,))
            for key, value in sorted(params.items())]))
    if exclude:
        q = q.where(node.id.not_in(list(exclude)))
    return conn.execute(skip_locked(conn, q) if lock else q).all()


def made_with(conn, pool: str, token_prefix: str, exclude=(),
              project: str | None = None) -> sa.Row | None:
    """A Free member of a pool a broker made with a token that starts
    with token_prefix, not in exclude, locked; only one a project owns or
    leases when project is given."""
    node = _NODES.c
    q = _select(node.pool == pool,
                node.broker_token.like(token_prefix + '%'), UNSHARED,
                *_of_project(project)).order_by(node.id).limit(1)
    if exclude:
        q = q.where(node.id.not_in(list(exclude)))
    return conn.execute(skip_locked(conn, q)).first()


def filtered(conn, pool: str, count: int | None, filters: list,
             project: str | None = None) -> list[sa.Row]:
    """Up to count (all with None) Free members of a pool matching the
    filters (Digital Rebar's) that no external manager shares, in id
    order, locked; only those a project owns or leases when project is
    given.

    :raises: FilterTimeout, FilterRefused
    """
    q = _select(_NODES.c.pool == pool, UNSHARED,
                *_of_project(project)).order_by(_NODES.c.id).limit(count)
    seconds = None
    if filters:
        q = q.where(node_filters.to_sql(conn.dialect.name, filters))
        seconds = node_filters.time_limit()
    with api.filter_errors(seconds):
        return conn.execute(api.time_limited(skip_locked(conn, q),
                                             seconds)).all()


def newest(conn, pool: str, count: int, broker_made: bool = False,
           made_before=None) -> list[sa.Row]:
    """Up to count Free members of a pool (with any power state), the
    newest first, locked, in id order; with their broker and broker_ref.

    :param broker_made: only nodes a broker made.
    :param made_before: only nodes created before this time.
    """
    node = _NODES.c
    q = _select(allocatable=False, columns=(node.broker, node.broker_ref)
                ).where(node.pool == pool)
    if broker_made:
        q = q.where(node.broker.is_not(None))
    if made_before is not None:
        q = q.where(node.created_at < made_before)
    rows = conn.execute(skip_locked(
        conn, q.order_by(node.id.desc()).limit(count))).all()
    return sorted(rows, key=lambda r: r.id)
