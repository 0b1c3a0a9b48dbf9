"""Queries on allocations."""
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import states


# Every field of an allocation as its model maps it (its node's UUID and
# its slot's times included), read without an ORM session: the GET of an
# allocation is the request clients repeat most (they poll it).
# One statement per column that names it, built once: the cache key of
# a statement with these subqueries costs more than running it.
_FIELDS = sa.select(*(prop.expression.label(prop.key) for prop in
                      sa.inspect(models.Allocation).column_attrs))
_SHOW = {column: _FIELDS.where(models.Allocation.__table__.c[column] ==
                               sa.bindparam('ident'))
         for column in ('uuid', 'name')}


def get_allocation(context, ident: str) -> sa.Row:
    """Fetch an allocation by UUID or name: a row with the fields of
    models.Allocation.

    :raises: AllocationNotFound
    """
    column = api.ident_column(models.Allocation, ident).key
    with api.reader_connection(context) as conn:
        row = conn.execute(_SHOW[column], {'ident': ident}).one_or_none()
    if row is None:
        raise exception.AllocationNotFound(allocation=ident)
    return row


def get_allocation_by_id(context, alloc_id: int) -> models.Allocation:
    with api.reader(context) as session:
        alloc = session.get(models.Allocation, alloc_id,
                            populate_existing=True)
        if alloc is None:
            raise exception.AllocationNotFound(allocation=alloc_id)
        return alloc


def raise_duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    if 'name' in api.duplicate_columns(exc):
        raise exception.AllocationDuplicateName(name=values.get('name'))
    raise exception.AllocationAlreadyExists(uuid=values.get('uuid'))


_ALLOCATIONS = models.Allocation.__table__
_POOLS = models.Pool.__table__


def _pool_column(column: sa.Column) -> sa.ScalarSelect:
    return (sa.select(column).where(_POOLS.c.name == sa.bindparam('pool_name'))
            .scalar_subquery())


# The INSERT returns, besides the new id, whether the allocation's pool
# exists and its lifespan policy: no read of its own, no transaction of
# its own.
_INSERT_ALLOCATION = sa.insert(_ALLOCATIONS).returning(
    _ALLOCATIONS.c.id, _pool_column(_POOLS.c.id).label('pool_id'),
    _pool_column(_POOLS.c.lifespan).label('pool_lifespan'))


def create_allocation(context, values: dict, settle=None, then=None
                      ) -> models.Allocation:
    """Create an allocation row.

    One INSERT when the UUID is generated here; a UUID given by the caller
    is first checked against the instance_uuid of the nodes.

    :param settle: settle(pool_found, lifespan_policy, created_at) is
        called in the INSERT's transaction with what the INSERT read of
        the allocation's pool (the default one when values names none);
        it returns more values of the new row (an UPDATE in the same
        transaction when any), and what it raises undoes the INSERT.
    :param then: called with the connection and the new allocation in
        the transaction of the INSERT, after settle (to record its event).
    :raises: AllocationAlreadyExists, InstanceUUIDInUse when a node
        already carries its UUID as instance_uuid, AllocationDuplicateName,
        what settle raises
    """
    values = {'traits': [], 'candidate_nodes': [], 'extra': {}, **values,
              'created_at': api.utcnow(), 'updated_at': None}
    given_uuid = values.get('uuid')
    values.setdefault('uuid', uuidutils.generate_uuid())
    try:
        with api.writer_connection(context) as conn:
            holder = given_uuid and instance_holder(conn, given_uuid)
            if holder:
                raise exception.InstanceUUIDInUse(instance_uuid=given_uuid,
                                                  node=holder)
            row = conn.execute(_INSERT_ALLOCATION, {
                **values,
                'pool_name': values.get('pool') or models.DEFAULT_POOL}
            ).one()
            more = settle(row.pool_id is not None, row.pool_lifespan,
                          values['created_at']) if settle else None
            if more:
                conn.execute(sa.update(_ALLOCATIONS).where(
                    _ALLOCATIONS.c.id == row.id).values(**more))
                values.update(more)
            # Nothing the database computes is unknown here: a new
            # allocation has no node.
            alloc = models.Allocation(id=row.id, node_id=None, **values)
            alloc.node_uuid = None
            if then is not None:
                then(conn, alloc)
    except db_exc.DBDuplicateEntry as exc:
        raise_duplicate(exc, values)
    return alloc


def insert(conn, values: dict) -> int:
    """Insert an allocation row in the caller's transaction.

    :returns: its id.
    :raises: DBDuplicateEntry for a uuid or name in use
    """
    return conn.execute(sa.insert(_ALLOCATIONS).values(
        **values)).inserted_primary_key[0]


def list_allocations(context, filters: dict, limit: int | None = None,
                     marker: str | None = None, sort_key: str = 'id',
                     sort_dir: str = 'asc') -> list[sa.Row]:
    """List allocations by state, resource_class, node_id and owner: rows
    with the fields of models.Allocation.

    :raises: AllocationNotFound if the marker does not exist
    """
    alloc = models.Allocation
    q = _FIELDS
    for key in ('state', 'resource_class', 'node_id', 'owner',
                'conductor_affinity'):
        if filters.get(key) is not None:
            q = q.where(getattr(alloc, key) == filters[key])
    with api.reader_connection(context) as conn:
        # The marker is read in the same transaction (joined).
        marker_row = get_allocation(context, marker) if marker else None
        q = api.paginate(q, alloc, limit, marker_row, sort_key, sort_dir)
        return list(conn.execute(q))


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
        raise_duplicate(exc, values)
    return get_allocation_by_id(context, alloc.id)


_NODES = models.Node.__table__

_FIND = sa.select(_ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid,
                  _ALLOCATIONS.c.node_id)


def find(conn, ident: str) -> sa.Row | None:
    """An allocation's id, uuid and node id, by UUID or name."""
    column = api.ident_column(models.Allocation, ident).key
    return conn.execute(_FIND.where(_ALLOCATIONS.c[column] == ident)
                        ).first()


def lock(conn, alloc_id: int) -> sa.Row | None:
    """An allocation, locked until the transaction ends."""
    return conn.execute(_FIND.where(_ALLOCATIONS.c.id == alloc_id)
                        .with_for_update()).first()


def delete(conn, alloc_id: int) -> None:
    conn.execute(sa.delete(_ALLOCATIONS).where(
        _ALLOCATIONS.c.id == alloc_id))


def expired(conn, alloc_id: int, now, lock: bool = False
            ) -> sa.Row | None:
    """An allocation whose lifespan_end is not later than now (locked
    until the transaction ends with lock), else None."""
    q = _FIND.where(_ALLOCATIONS.c.id == alloc_id,
                    _ALLOCATIONS.c.lifespan_end <= now)
    return conn.execute(q.with_for_update() if lock else q).first()


def list_expired(context, now, host: str, alive: list[str],
                 limit: int) -> list[int]:
    """Ids of allocations past their lifespan_end that a conductor
    releases: its own, those of no conductor and those of conductors
    not in alive; the longest expired first."""
    aff = _ALLOCATIONS.c.conductor_affinity
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(_ALLOCATIONS.c.id)
            .where(_ALLOCATIONS.c.lifespan_end <= now,
                   _ALLOCATIONS.c.state != states.ALLOCATING,
                   # A claim's allocations end with it, together. Not a
                   # condition on the index of claim_id, which SQLite
                   # would read whole (every allocation without a claim)
                   # instead of the few past their end.
                   api.unindexed(_ALLOCATIONS.c.claim_id, 0) == 0,
                   sa.or_(aff == host, aff.is_(None), aff.not_in(alive)))
            .order_by(_ALLOCATIONS.c.lifespan_end)
            .limit(limit)))


def instance_holder(conn, uuid: str,
                    node_id: int | None = None) -> str | None:
    """The UUID of the node (other than node_id) that has uuid as
    instance_uuid, if any."""
    q = sa.select(_NODES.c.uuid).where(_NODES.c.instance_uuid == uuid)
    if node_id is not None:
        q = q.where(_NODES.c.id != node_id)
    return conn.scalar(q.limit(1))


# Conductor side ---------------------------------------------------------
#
# The statements below are built once per shape and run with bound
# parameters: building and caching a SQLAlchemy statement costs more CPU
# than the database spends running it.

_SLOTS = models.NodeSlot.__table__


def _of_slot(column: sa.Column) -> sa.ScalarSelect:
    return sa.select(column).where(
        _SLOTS.c.allocation_id == _ALLOCATIONS.c.id).limit(1
    ).scalar_subquery()


# Besides the request: its end and its pool's post margin (how long it
# holds its node), and the node and start of its slot if it has a window.
_TO_PROCESS = sa.select(
    _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.name,
    _ALLOCATIONS.c.resource_class, _ALLOCATIONS.c.traits,
    _ALLOCATIONS.c.candidate_nodes, _ALLOCATIONS.c.owner,
    _ALLOCATIONS.c.pool, _ALLOCATIONS.c.created_at,
    _ALLOCATIONS.c.lifespan_end,
    sa.select(_POOLS.c.reservation_post_margin).where(
        _POOLS.c.name == sa.func.coalesce(_ALLOCATIONS.c.pool,
                                          models.DEFAULT_POOL)
    ).scalar_subquery().label('post_margin'),
    _of_slot(_SLOTS.c.node_id).label('slot_node_id'),
    _of_slot(_SLOTS.c.busy_from).label('slot_from'),
).where(_ALLOCATIONS.c.state == states.ALLOCATING,
        _ALLOCATIONS.c.conductor_affinity == sa.bindparam('host'),
        _ALLOCATIONS.c.id.in_(sa.bindparam('ids', expanding=True))
        ).order_by(_ALLOCATIONS.c.id)


def to_process(conn, ids: list[int], host: str) -> list[sa.Row]:
    """The allocations among ids that are allocating on host, by id."""
    return conn.execute(_TO_PROCESS, {'ids': list(ids), 'host': host}).all()


_FAIL = sa.update(_ALLOCATIONS).where(
    _ALLOCATIONS.c.id == sa.bindparam('alloc_id'),
    _ALLOCATIONS.c.state == states.ALLOCATING,
    _ALLOCATIONS.c.conductor_affinity == sa.bindparam('host'),
).values(state=states.ALLOCATION_ERROR, last_error=sa.bindparam('error'),
         updated_at=sa.bindparam('now'))


def fail(conn, alloc_id: int, host: str, error: str) -> bool:
    """Record a failed allocation, if it is still this host's to process."""
    return conn.execute(_FAIL, {
        'alloc_id': alloc_id, 'host': host, 'error': error,
        'now': api.utcnow()}).rowcount == 1


def fail_all(conn, ids: list[int], host: str, error: str) -> list[int]:
    """Record allocations as failed with one error, those still this
    host's to process: locked first (in id order, after the nodes the
    transaction locked), so that one UPDATE changes exactly them.

    :returns: the ids recorded.
    """
    if len(ids) == 1:
        return ids if fail(conn, ids[0], host, error) else []
    q = sa.select(_ALLOCATIONS.c.id).where(
        _ALLOCATIONS.c.id.in_(ids),
        _ALLOCATIONS.c.state == states.ALLOCATING,
        _ALLOCATIONS.c.conductor_affinity == host
    ).order_by(_ALLOCATIONS.c.id)
    if conn.dialect.name != 'sqlite':
        # SQLite's writer holds the database's write lock already.
        q = q.with_for_update()
    ours = list(conn.scalars(q))
    if ours:
        conn.execute(sa.update(_ALLOCATIONS).where(
            _ALLOCATIONS.c.id.in_(ours)).values(
            state=states.ALLOCATION_ERROR, last_error=error,
            updated_at=api.utcnow()))
    return ours


def by_id(conn, alloc_id: int) -> sa.Row | None:
    """An allocation's row (the fields of its events)."""
    return conn.execute(sa.select(_ALLOCATIONS).where(
        _ALLOCATIONS.c.id == alloc_id)).first()


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
