"""Queries on allocations, including the reservation of a node."""
import random

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
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


def create_allocation(context, values: dict) -> models.Allocation:
    """Create an allocation row.

    :raises: AllocationAlreadyExists (also when a node already carries its
        UUID as instance_uuid), AllocationDuplicateName
    """
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    alloc = models.Allocation(**values)
    try:
        with api.writer(context) as session:
            taken = session.scalar(sa.select(models.Node.id).where(
                models.Node.instance_uuid == values['uuid']))
            if taken is not None:
                raise exception.AllocationAlreadyExists(uuid=values['uuid'])
            session.add(alloc)
            session.flush()
            # Loads node_uuid in this transaction rather than another.
            session.refresh(alloc)
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, values)
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


def destroy_allocation(context, ident: str) -> None:
    """Delete an allocation (by UUID or name) and release its node, in one
    transaction.

    :raises: AllocationNotFound, NodeInWrongState when the node is active
        and not in maintenance, NodeLocked
    """
    column = api.ident_column(models.Allocation, ident)
    with api.writer(context) as session:
        current = session.scalars(
            sa.select(models.Allocation)
            .where(column == ident)
            .with_for_update()
            .execution_options(populate_existing=True)).one_or_none()
        if current is None:
            raise exception.AllocationNotFound(allocation=ident)
        if current.node_id is not None:
            node = session.scalars(
                sa.select(models.Node)
                .where(models.Node.id == current.node_id)
                .with_for_update()
                .execution_options(populate_existing=True)).one()
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
            session.execute(
                sa.update(models.Node)
                .where(models.Node.id == node.id,
                       models.Node.allocation_id == current.id)
                .values(instance_uuid=None, allocation_id=None,
                        generation=models.Node.generation + 1,
                        updated_at=api.utcnow()),
                execution_options=api.NO_SYNC)
        session.execute(sa.delete(models.Allocation)
                        .where(models.Allocation.id == current.id),
                        execution_options=api.NO_SYNC)


# Conductor side ---------------------------------------------------------


def _candidates(alloc: models.Allocation):
    """The nodes an allocation may take, ignoring row locks.

    A node locked by a conductor (reservation) is busy with an operation
    and is not a candidate.
    """
    node = models.Node
    q = sa.select(node.id, node.uuid, node.instance_info).where(
        node.provision_state == states.AVAILABLE,
        node.maintenance.is_(False),
        node.power_state.is_not(None),
        node.instance_uuid.is_(None),
        node.allocation_id.is_(None),
        node.reservation.is_(None))
    if alloc.resource_class:
        q = q.where(node.resource_class == alloc.resource_class)
    if alloc.candidate_nodes:
        q = q.where(node.uuid.in_(alloc.candidate_nodes))
    for trait in alloc.traits or ():
        q = q.where(sa.exists().where(models.NodeTrait.node_id == node.id,
                                      models.NodeTrait.trait == trait))
    if alloc.owner:
        q = q.where(sa.or_(node.owner == alloc.owner,
                           node.lessee == alloc.owner))
    return q


def _claim(session, query):
    """Lock the first row of a candidate query that nobody else holds."""
    query = query.limit(1)
    if api.backend_supports_skip_locked(session):
        query = query.with_for_update(skip_locked=True)
    return session.execute(query).first()


def _claim_candidate(session, alloc: models.Allocation, pivot: int):
    """Pick and lock a free matching node.

    A node named as the allocation is preferred; otherwise the search
    starts at a random node id (pivot) and wraps around, so that
    concurrent workers spread over the fleet instead of queueing on the
    same rows, and every probe is an index range scan. Any free node will
    do, so the probes are not ordered: a sort would make the database read
    every candidate past the pivot when it has no statistics yet.
    """
    node = models.Node
    base = _candidates(alloc)
    if alloc.name:
        row = _claim(session, base.where(node.name == alloc.name))
        if row is not None:
            return row
    row = _claim(session, base.where(node.id >= pivot))
    if row is None and pivot > 0:
        row = _claim(session, base.where(node.id < pivot))
    return row


def _describe(alloc: models.Allocation) -> str:
    parts = ['resource class %s' % alloc.resource_class]
    if alloc.traits:
        parts.append('traits %s' % ', '.join(alloc.traits))
    if alloc.candidate_nodes:
        parts.append('candidate nodes %s' % ', '.join(alloc.candidate_nodes))
    if alloc.owner:
        parts.append('owner %s' % alloc.owner)
    return ' and '.join(parts)


def _guarded(alloc_id: int, host: str):
    """The condition of every conductor-side write of an allocation."""
    return (models.Allocation.id == alloc_id,
            models.Allocation.state == states.ALLOCATING,
            models.Allocation.conductor_affinity == host)


class _Rollback(Exception):
    pass


def reserve_node(context, alloc_id: int, host: str,
                 max_node_id: int) -> str:
    """Run the allocation algorithm for one allocation in one transaction.

    Filters the candidate nodes in the database, locks one (SKIP LOCKED
    where the backend has it, the database lock of BEGIN IMMEDIATE on
    SQLite), re-checks it with a compare-and-swap and reserves it for the
    allocation, which becomes active. Every write is guarded by the
    allocation still being allocating on this host.

    :returns: RESERVED, FAILED (recorded as error on the allocation), BUSY
        (all matching nodes are locked by other transactions: retry), or
        GONE (the allocation is not this host's to process any more).
    """
    pivot = random.randint(0, max_node_id) if max_node_id > 0 else 0
    try:
        with api.writer(context) as session:
            alloc = session.scalars(
                sa.select(models.Allocation).where(*_guarded(alloc_id, host))
                .execution_options(populate_existing=True)).one_or_none()
            if alloc is None:
                return GONE
            row = _claim_candidate(session, alloc, pivot)
            if row is None:
                if session.execute(_candidates(alloc).limit(1)).first():
                    return BUSY
                error = 'No available nodes found with %s' % _describe(alloc)
                _finish(session, alloc_id, host, state=states.ALLOCATION_ERROR,
                        last_error=error)
                return FAILED
            info = dict(row.instance_info or {})
            if alloc.traits:
                info['traits'] = list(alloc.traits)
            node = models.Node
            res = session.execute(
                sa.update(node)
                .where(node.id == row.id, node.instance_uuid.is_(None),
                       node.allocation_id.is_(None),
                       node.reservation.is_(None),
                       node.provision_state == states.AVAILABLE,
                       node.maintenance.is_(False))
                .values(instance_uuid=alloc.uuid, allocation_id=alloc.id,
                        instance_info=info, generation=node.generation + 1,
                        updated_at=api.utcnow()),
                execution_options=api.NO_SYNC)
            if res.rowcount != 1:
                raise _Rollback(BUSY)
            if not _finish(session, alloc_id, host,
                           state=states.ALLOCATION_ACTIVE, node_id=row.id,
                           last_error=None):
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


def _finish(session, alloc_id: int, host: str, **values) -> bool:
    res = session.execute(sa.update(models.Allocation)
                          .where(*_guarded(alloc_id, host))
                          .values(updated_at=api.utcnow(), **values),
                          execution_options=api.NO_SYNC)
    return res.rowcount == 1


def set_error(context, alloc_id: int, host: str, error: str) -> bool:
    """Record a failed allocation, if it is still this host's to process."""
    with api.writer(context) as session:
        return _finish(session, alloc_id, host,
                       state=states.ALLOCATION_ERROR, last_error=error)


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
