"""Queries on allocations, including the reservation of a node."""
from collections.abc import Iterable
import functools
import random

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor.db import pool_actions
from pool_conductor import exception
from pool_conductor import states

# What reserve_node() tells its caller.
RESERVED = 'reserved'     # a node was reserved, the allocation is active
FAILED = 'failed'         # no node matches: the allocation is in error
BUSY = 'busy'             # matching nodes exist but all are locked now
GONE = 'gone'             # deleted, finished, or handled by another host


def _get(session, ident: str) -> models.Allocation:
    alloc = session.scalars(
        sa.select(models.Allocation)
        .where(api.ident_column(models.Allocation, ident) == ident)
        .execution_options(populate_existing=True)).one_or_none()
    if alloc is None:
        raise exception.AllocationNotFound(allocation=ident)
    return alloc


def get_allocation(context, ident: str) -> models.Allocation:
    """Fetch an allocation by UUID or name.

    :raises: AllocationNotFound
    """
    with api.reader(context) as session:
        return _get(session, ident)


def get_allocation_by_id(context, alloc_id: int) -> models.Allocation:
    with api.reader(context) as session:
        alloc = session.get(models.Allocation, alloc_id,
                            populate_existing=True)
        if alloc is None:
            raise exception.AllocationNotFound(allocation=alloc_id)
        return alloc


def _raise_duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    if 'name' in api.duplicate_columns(exc):
        raise exception.AllocationDuplicateName(name=values.get('name'))
    raise exception.AllocationAlreadyExists(uuid=values.get('uuid'))


_INSERT_ALLOCATION = sa.insert(models.Allocation.__table__)


def create_allocation(context, values: dict) -> models.Allocation:
    """Create an allocation row.

    One INSERT when the UUID is generated here; a UUID given by the caller
    is first checked against the instance_uuid of the nodes.

    :raises: AllocationAlreadyExists (also when a node already carries its
        UUID as instance_uuid), AllocationDuplicateName
    """
    values = {'traits': [], 'candidate_nodes': [], 'extra': {}, **values,
              'created_at': api.utcnow(), 'updated_at': None}
    given_uuid = values.get('uuid')
    values.setdefault('uuid', uuidutils.generate_uuid())
    try:
        with api.writer_connection(context) as conn:
            if given_uuid is not None and conn.scalar(
                    sa.select(models.Node.id).where(
                        models.Node.instance_uuid == given_uuid)):
                raise exception.AllocationAlreadyExists(uuid=given_uuid)
            res = conn.execute(_INSERT_ALLOCATION, values)
            alloc_id = res.inserted_primary_key[0]
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, values)
    # Nothing the database computes is unknown here: a new allocation has
    # no node.
    alloc = models.Allocation(id=alloc_id, node_id=None, **values)
    alloc.node_uuid = None
    return alloc


def backfill_allocation(context, values: dict,
                        node: models.Node) -> models.Allocation:
    """Create an active allocation for a node that is already in use.

    :raises: InvalidParameterValue if the node does not match the request,
        NodeAssociated, AllocationAlreadyExists, AllocationDuplicateName,
        ConcurrentUpdate
    """
    values = dict(values)
    errors = []
    if node.provision_state != states.ACTIVE:
        errors.append('the node must be in the "active" state, but it is '
                      'in "%s"' % node.provision_state)
    if (values.get('resource_class')
            and node.resource_class != values['resource_class']):
        errors.append('its resource class %s does not match the requested '
                      '%s' % (node.resource_class, values['resource_class']))
    missing = set(values.get('traits') or ()) - {t.trait
                                                 for t in node.traits}
    if missing:
        errors.append('it lacks the requested traits %s'
                      % ', '.join(sorted(missing)))
    if values.get('owner') and values['owner'] not in (node.owner,
                                                       node.lessee):
        errors.append('it is not owned or leased by %s' % values['owner'])
    if errors:
        raise exception.InvalidParameterValue(
            err='Cannot backfill an allocation for node %s: %s.'
                % (node.uuid, '; '.join(errors)))
    if node.allocation_id:
        raise exception.NodeAssociated(node=node.uuid,
                                       instance=node.instance_uuid)
    if node.instance_uuid:
        if values.get('uuid') not in (None, node.instance_uuid):
            raise exception.NodeAssociated(node=node.uuid,
                                           instance=node.instance_uuid)
        values['uuid'] = node.instance_uuid
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.update(state=states.ALLOCATION_ACTIVE, node_id=node.id,
                  resource_class=values.get('resource_class')
                  or node.resource_class)
    alloc = models.Allocation(**values)
    try:
        with api.writer(context) as session:
            other = session.scalar(sa.select(models.Node.id).where(
                models.Node.instance_uuid == values['uuid'],
                models.Node.id != node.id))
            if other is not None:
                raise exception.AllocationAlreadyExists(uuid=values['uuid'])
            session.add(alloc)
            session.flush()
            res = session.execute(
                sa.update(models.Node)
                .where(models.Node.id == node.id,
                       models.Node.generation == node.generation,
                       models.Node.allocation_id.is_(None))
                .values(allocation_id=alloc.id,
                        instance_uuid=values['uuid'],
                        generation=node.generation + 1,
                        updated_at=api.utcnow()),
                execution_options=api.NO_SYNC)
            if res.rowcount != 1:
                raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, values)
    return get_allocation_by_id(context, alloc.id)


def list_allocations(context, filters: dict, limit: int | None = None,
                     marker: str | None = None, sort_key: str = 'id',
                     sort_dir: str = 'asc') -> list[models.Allocation]:
    """List allocations by state, resource_class, node_id and owner.

    :raises: AllocationNotFound if the marker does not exist
    """
    alloc = models.Allocation
    with api.reader(context) as session:
        q = sa.select(alloc)
        for key in ('state', 'resource_class', 'node_id', 'owner',
                    'conductor_affinity'):
            if filters.get(key) is not None:
                q = q.where(getattr(alloc, key) == filters[key])
        marker_obj = _get(session, marker) if marker else None
        q = api.paginate(q, alloc, limit, marker_obj, sort_key, sort_dir)
        return list(session.scalars(q))


def update_allocation(context, alloc: models.Allocation,
                      values: dict) -> models.Allocation:
    """Change the name or extra of an allocation.

    :raises: AllocationDuplicateName, AllocationNotFound
    """
    values = {**values, 'updated_at': api.utcnow()}
    try:
        with api.writer(context) as session:
            res = session.execute(sa.update(models.Allocation)
                                  .where(models.Allocation.id == alloc.id)
                                  .values(**values),
                                  execution_options=api.NO_SYNC)
            if res.rowcount != 1:
                raise exception.AllocationNotFound(allocation=alloc.uuid)
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, values)
    return get_allocation_by_id(context, alloc.id)


_TO_DESTROY = {
    column: sa.select(models.Allocation.__table__.c.id,
                      models.Allocation.__table__.c.uuid,
                      models.Allocation.__table__.c.node_id)
    .where(models.Allocation.__table__.c[column] == sa.bindparam('ident'))
    .with_for_update()
    for column in ('uuid', 'name')}

_NODE_TO_RELEASE = sa.select(
    models.Node.__table__.c.id, models.Node.__table__.c.uuid,
    models.Node.__table__.c.reservation, models.Node.__table__.c.maintenance,
    models.Node.__table__.c.provision_state,
    *pool_actions.POOL_FIELDS,
).where(models.Node.__table__.c.id == sa.bindparam('node_id')
        ).with_for_update()

_RELEASE_NODE = sa.update(models.Node.__table__).where(
    models.Node.__table__.c.id == sa.bindparam('node_id'),
    models.Node.__table__.c.allocation_id == sa.bindparam('alloc_id'),
).values(instance_uuid=None, allocation_id=None,
         generation=models.Node.__table__.c.generation + 1,
         updated_at=sa.bindparam('now'))

_DELETE_ALLOCATION = sa.delete(models.Allocation.__table__).where(
    models.Allocation.__table__.c.id == sa.bindparam('alloc_id'))


def destroy_allocation(context, ident: str) -> None:
    """Delete an allocation (by UUID or name) and release its node, in one
    transaction.

    :raises: AllocationNotFound, NodeInWrongState when the node is active
        and not in maintenance, NodeLocked
    """
    column = api.ident_column(models.Allocation, ident).key
    with api.writer_connection(context) as conn:
        current = conn.execute(_TO_DESTROY[column],
                               {'ident': ident}).first()
        if current is None:
            raise exception.AllocationNotFound(allocation=ident)
        if current.node_id is not None:
            node = conn.execute(_NODE_TO_RELEASE,
                                {'node_id': current.node_id}).one()
            if node.reservation:
                raise exception.NodeLocked(node=node.uuid,
                                           host=node.reservation)
            if (not node.maintenance and node.provision_state
                    not in states.UPDATE_ALLOWED_STATES):
                raise exception.NodeInWrongState(
                    err='Cannot remove allocation %s of node %s: the node '
                        'is in provision state "%s" and not in '
                        'maintenance.' % (current.uuid, node.uuid,
                                          node.provision_state))
            conn.execute(_RELEASE_NODE, {
                'node_id': node.id, 'alloc_id': current.id,
                'now': api.utcnow()})
            pool_actions.return_to_pool(conn, node)
        conn.execute(_DELETE_ALLOCATION, {'alloc_id': current.id})


# Conductor side ---------------------------------------------------------
#
# The statements below are built once per shape and run with bound
# parameters: building and caching a SQLAlchemy statement costs more CPU
# than the database spends running it.

_NODES = models.Node.__table__
_ALLOCATIONS = models.Allocation.__table__
_TRAITS = models.NodeTrait.__table__

# Where a search for free nodes looks: the node named as the allocation,
# nodes from a start id on, nodes before it, or anywhere.
BY_NAME, FROM_PIVOT, BEFORE_PIVOT, ANYWHERE = 'name', 'from', 'before', 'any'

_ALLOCATION_TO_PROCESS = sa.select(
    _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.name,
    _ALLOCATIONS.c.resource_class, _ALLOCATIONS.c.traits,
    _ALLOCATIONS.c.candidate_nodes, _ALLOCATIONS.c.owner,
    _ALLOCATIONS.c.extra,
).where(_ALLOCATIONS.c.state == states.ALLOCATING,
        _ALLOCATIONS.c.conductor_affinity == sa.bindparam('host'))

_NODE_IS_FREE = (
    _NODES.c.provision_state == states.AVAILABLE,
    _NODES.c.maintenance.is_(False),
    _NODES.c.instance_uuid.is_(None),
    _NODES.c.allocation_id.is_(None),
    # A node locked by a conductor is busy with an operation.
    _NODES.c.reservation.is_(None),
    # Pool members being built, destroyed or held are not free.
    _NODES.c.pool_status == states.POOL_FREE,
)

_TAKE_NODE = sa.update(_NODES).where(
    _NODES.c.id == sa.bindparam('node_id'), *_NODE_IS_FREE,
).values(instance_uuid=sa.bindparam('alloc_uuid'),
         allocation_id=sa.bindparam('alloc_id'),
         instance_info=sa.bindparam('info', type_=models.JSONType),
         pool_status=states.POOL_IN_USE, pool_allocated=True,
         generation=_NODES.c.generation + 1,
         updated_at=sa.bindparam('now'))

_GUARDED = (_ALLOCATIONS.c.id == sa.bindparam('alloc_id'),
            _ALLOCATIONS.c.state == states.ALLOCATING,
            _ALLOCATIONS.c.conductor_affinity == sa.bindparam('host'))

_ACTIVATE = sa.update(_ALLOCATIONS).where(*_GUARDED).values(
    state=states.ALLOCATION_ACTIVE, node_id=sa.bindparam('node_id'),
    last_error=None, updated_at=sa.bindparam('now'))

_FAIL = sa.update(_ALLOCATIONS).where(*_GUARDED).values(
    state=states.ALLOCATION_ERROR, last_error=sa.bindparam('error'),
    updated_at=sa.bindparam('now'))


@functools.lru_cache(maxsize=256)
def _free_nodes_statement(has_class: bool, traits: int, has_candidates: bool,
                          has_owner: bool, has_pool: bool, where: str,
                          lock: bool, exclude: bool):
    """Free nodes matching an allocation's request, of one shape."""
    node = _NODES.c
    q = sa.select(node.id, node.uuid, node.instance_info, node.params,
                  node.profiles, node.workflow, node.stage,
                  node.runnable).where(
        *_NODE_IS_FREE, node.power_state.is_not(None))
    if has_pool:
        # An allocation in a pool takes Free members of that pool only.
        q = q.where(node.pool == sa.bindparam('pool'))
    if has_class:
        q = q.where(node.resource_class == sa.bindparam('resource_class'))
    if has_candidates:
        q = q.where(node.uuid.in_(sa.bindparam('candidates',
                                               expanding=True)))
    for i in range(traits):
        q = q.where(sa.exists().where(
            _TRAITS.c.node_id == node.id,
            _TRAITS.c.trait == sa.bindparam('trait_%d' % i)))
    if has_owner:
        q = q.where(sa.or_(node.owner == sa.bindparam('owner'),
                           node.lessee == sa.bindparam('owner')))
    if exclude:
        q = q.where(node.id.not_in(sa.bindparam('exclude', expanding=True)))
    if where == BY_NAME:
        q = q.where(node.name == sa.bindparam('name'))
    elif where in (FROM_PIVOT, BEFORE_PIVOT):
        # In id order, the probe reads a range of the candidate index (the
        # pool's, with a pool) from the pivot on and stops at the first
        # free nodes: without an order, a planner that assumes free nodes
        # are spread evenly scans the table from its first row.
        q = q.where(node.id >= sa.bindparam('pivot') if where == FROM_PIVOT
                    else node.id < sa.bindparam('pivot')).order_by(node.id)
        if not has_candidates and (has_pool or has_class):
            # MariaDB reads the pool's index from its first free member
            # (or the index of nodes by allocation) unless told which.
            q = q.with_hint(_NODES, 'FORCE INDEX (%s)' % (
                'nodes_pool_status_idx' if has_pool
                else 'nodes_free_candidate_idx'), 'mysql')
    q = q.limit(sa.bindparam('count', type_=sa.Integer))
    if lock:
        q = q.with_for_update(skip_locked=True)
    return q


def _pool_of(alloc) -> str | None:
    """The pool an allocation takes a node from (POST /v1/allocations with
    a pool records it in extra), or None for any."""
    return (alloc.extra or {}).get('pool')


def _free_nodes(conn, alloc, where: str, count: int = 1,
                lock: bool = True, exclude: Iterable[int] = (),
                **params) -> list:
    """Free nodes matching alloc's request, locked with SKIP LOCKED where
    the backend has it (SQLite: the database lock of BEGIN IMMEDIATE).

    :param exclude: ids of nodes this transaction has taken already (its
        own locks do not make it skip them).
    """
    traits = list(alloc.traits or ())
    lock = lock and api.backend_supports_skip_locked(conn)
    exclude = list(exclude)
    pool = _pool_of(alloc)
    stmt = _free_nodes_statement(
        bool(alloc.resource_class), len(traits),
        bool(alloc.candidate_nodes), bool(alloc.owner), bool(pool), where,
        lock, bool(exclude))
    params.update(count=count, resource_class=alloc.resource_class,
                  pool=pool,
                  exclude=exclude,
                  owner=alloc.owner, name=alloc.name,
                  candidates=list(alloc.candidate_nodes or ()))
    params.update(('trait_%d' % i, t) for i, t in enumerate(traits))
    return conn.execute(stmt, params).all()


def _claim(conn, alloc, pivot: int, count: int = 1,
           exclude: Iterable[int] = ()) -> list:
    """Lock up to count free nodes matching alloc.

    The search starts at a random node id (pivot) and wraps around, so that
    concurrent workers spread over the fleet instead of queueing on the
    same rows, and every probe is an index range scan.
    """
    rows = _free_nodes(conn, alloc, FROM_PIVOT, count, pivot=pivot,
                       exclude=exclude)
    if len(rows) < count and pivot > 0:
        rows += _free_nodes(conn, alloc, BEFORE_PIVOT, count - len(rows),
                            pivot=pivot, exclude=exclude)
    return rows


def _describe(alloc) -> str:
    parts = ['resource class %s' % alloc.resource_class]
    if alloc.traits:
        parts.append('traits %s' % ', '.join(alloc.traits))
    if alloc.candidate_nodes:
        parts.append('candidate nodes %s' % ', '.join(alloc.candidate_nodes))
    if alloc.owner:
        parts.append('owner %s' % alloc.owner)
    return ' and '.join(parts)


def _take_node(conn, alloc, row, now) -> bool:
    """Give a locked free node to an allocation (compare-and-swap)."""
    info = dict(row.instance_info or {})
    if alloc.traits:
        info['traits'] = list(alloc.traits)
    res = conn.execute(_TAKE_NODE, {
        'node_id': row.id, 'alloc_uuid': alloc.uuid, 'alloc_id': alloc.id,
        'info': info, 'now': now})
    if res.rowcount != 1:
        return False
    if _pool_of(alloc):
        pool_actions.apply_allocate_actions(conn, _pool_of(alloc), row)
    return True


class _Rollback(Exception):
    pass


def _pivot(max_node_id: int) -> int:
    return random.randint(0, max_node_id) if max_node_id > 0 else 0


def reserve_node(context, alloc_id: int, host: str,
                 max_node_id: int) -> str:
    """Run the allocation algorithm for one allocation in one transaction.

    Filters the candidate nodes in the database, locks one (SKIP LOCKED
    where the backend has it, the database lock of BEGIN IMMEDIATE on
    SQLite), re-checks it with a compare-and-swap and reserves it for the
    allocation, which becomes active. A node named as the allocation is
    preferred. Every write is guarded by the allocation still being
    allocating on this host.

    :returns: RESERVED, FAILED (recorded as error on the allocation), BUSY
        (all matching nodes are locked by other transactions: retry), or
        GONE (the allocation is not this host's to process any more).
    """
    now = api.utcnow()
    try:
        with api.writer_connection(context) as conn:
            alloc = conn.execute(
                _ALLOCATION_TO_PROCESS.where(
                    _ALLOCATIONS.c.id == sa.bindparam('alloc_id')),
                {'alloc_id': alloc_id, 'host': host}).first()
            if alloc is None:
                return GONE
            rows = (_free_nodes(conn, alloc, BY_NAME)
                    if alloc.name else [])
            rows = rows or _claim(conn, alloc, _pivot(max_node_id))
            guard = {'alloc_id': alloc_id, 'host': host, 'now': now}
            if not rows:
                if _free_nodes(conn, alloc, ANYWHERE, lock=False):
                    return BUSY
                conn.execute(_FAIL, dict(
                    guard, error='No available nodes found with %s'
                    % _describe(alloc)))
                return FAILED
            if not _take_node(conn, alloc, rows[0], now):
                raise _Rollback(BUSY)
            if conn.execute(_ACTIVATE, dict(
                    guard, node_id=rows[0].id)).rowcount != 1:
                raise _Rollback(GONE)
            return RESERVED
    except _Rollback as exc:
        return exc.args[0]
    except db_exc.DBDuplicateEntry:
        # A node was given this allocation's UUID as instance_uuid
        # meanwhile.
        recorded = set_error(context, alloc_id, host,
                             "A node already has this allocation's UUID as "
                             "its instance_uuid")
        return FAILED if recorded else GONE


def _criteria(alloc) -> tuple:
    return (alloc.resource_class, tuple(alloc.traits or ()),
            tuple(alloc.candidate_nodes or ()), alloc.owner, _pool_of(alloc))


def _take_nodes(conn, pairs: list, host: str, now) -> bool:
    """Give locked free nodes to allocations: one statement for the nodes,
    one for the allocations, whatever their number.
    """
    node, alloc = _NODES.c, _ALLOCATIONS.c
    node_ids = [row.id for _, row in pairs]
    res = conn.execute(
        sa.update(_NODES).where(node.id.in_(node_ids), *_NODE_IS_FREE)
        .values(instance_uuid=sa.case({r.id: a.uuid for a, r in pairs},
                                      value=node.id),
                allocation_id=sa.case({r.id: a.id for a, r in pairs},
                                      value=node.id),
                pool_status=states.POOL_IN_USE, pool_allocated=True,
                generation=node.generation + 1, updated_at=now))
    if res.rowcount != len(pairs):
        return False
    for a, r in pairs:
        if _pool_of(a):
            pool_actions.apply_allocate_actions(conn, _pool_of(a), r)
    with_traits = [{'node_id': r.id,
                    'info': {**(r.instance_info or {}),
                             'traits': list(a.traits)}}
                   for a, r in pairs if a.traits]
    if with_traits:
        conn.execute(
            sa.update(_NODES).where(node.id == sa.bindparam('node_id'))
            .values(instance_info=sa.bindparam('info',
                                               type_=models.JSONType)),
            with_traits)
    res = conn.execute(
        sa.update(_ALLOCATIONS)
        .where(alloc.id.in_([a.id for a, _ in pairs]),
               alloc.state == states.ALLOCATING,
               alloc.conductor_affinity == host)
        .values(state=states.ALLOCATION_ACTIVE, last_error=None,
                node_id=sa.case({a.id: r.id for a, r in pairs},
                                value=alloc.id),
                updated_at=now))
    return res.rowcount == len(pairs)


def reserve_nodes(context, alloc_ids: list[int], host: str,
                  max_node_id: int) -> set[int]:
    """Reserve nodes for several allocations in one transaction.

    An allocation named as a free node takes that node first; the others
    share, by what they ask for, one claim of as many free nodes (SKIP
    LOCKED, from a random start); the nodes and the allocations are then
    written by one statement each, so a batch costs a handful of round
    trips whatever its size. Allocations that find no node here or that
    changed meanwhile are left out: reserve_node() handles each of those
    on its own.

    :returns: the ids of the allocations that are active now.
    """
    now = api.utcnow()
    try:
        with api.writer_connection(context) as conn:
            allocs = conn.execute(
                _ALLOCATION_TO_PROCESS.where(
                    _ALLOCATIONS.c.id.in_(sa.bindparam('ids',
                                                       expanding=True)))
                .order_by(_ALLOCATIONS.c.id),
                {'ids': list(alloc_ids), 'host': host}).all()
            pairs = []
            groups: dict[tuple, list] = {}
            for alloc in allocs:
                if not alloc.name:
                    groups.setdefault(_criteria(alloc), []).append(alloc)
                    continue
                # The node named as the allocation goes first, before
                # another allocation of the batch takes it.
                named = _free_nodes(conn, alloc, BY_NAME,
                                    exclude=[r.id for _, r in pairs])
                if named:
                    pairs.append((alloc, named[0]))
            for group in groups.values():
                rows = _claim(conn, group[0], _pivot(max_node_id),
                              len(group), exclude=[r.id for _, r in pairs])
                # Fewer nodes than allocations: the rest get none here.
                pairs.extend(zip(group, rows, strict=False))
            if pairs and not _take_nodes(conn, pairs, host, now):
                raise _Rollback()
            return {alloc.id for alloc, _ in pairs}
    except (_Rollback, db_exc.DBDuplicateEntry, db_exc.DBDeadlock):
        return set()


def set_error(context, alloc_id: int, host: str, error: str) -> bool:
    """Record a failed allocation, if it is still this host's to process."""
    with api.writer_connection(context) as conn:
        return conn.execute(_FAIL, {
            'alloc_id': alloc_id, 'host': host, 'error': error,
            'now': api.utcnow()}).rowcount == 1


def max_node_id(context) -> int:
    with api.reader(context) as session:
        return session.scalar(sa.select(sa.func.max(models.Node.id))) or 0


def list_allocating_ids(context, host: str) -> list[int]:
    """Allocations in progress on a conductor (to resume on its start)."""
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(models.Allocation.id)
            .where(models.Allocation.state == states.ALLOCATING,
                   models.Allocation.conductor_affinity == host)
            .order_by(models.Allocation.id)))


def list_orphaned(context, alive: list[str]) -> list[tuple[int, str]]:
    """(id, conductor_affinity) of allocations whose conductor is dead."""
    aff = models.Allocation.conductor_affinity
    with api.reader(context) as session:
        return [tuple(r) for r in session.execute(
            sa.select(models.Allocation.id, aff)
            .where(models.Allocation.state == states.ALLOCATING,
                   sa.or_(aff.is_(None), aff.not_in(alive)))
            .order_by(models.Allocation.id))]


def take_over(context, alloc_id: int, old_host: str | None,
              new_host: str) -> bool:
    """Move an orphaned allocation to a new conductor.

    :returns: True if this call took it, False if another conductor did.
    """
    aff = models.Allocation.conductor_affinity
    with api.writer(context) as session:
        res = session.execute(
            sa.update(models.Allocation)
            .where(models.Allocation.id == alloc_id,
                   models.Allocation.state == states.ALLOCATING,
                   aff.is_(None) if old_host is None else aff == old_host)
            .values(conductor_affinity=new_host, updated_at=api.utcnow()),
            execution_options=api.NO_SYNC)
        return res.rowcount == 1
