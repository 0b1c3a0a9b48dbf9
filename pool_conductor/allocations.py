"""Allocations: what requests do to them, create, backfill, update, delete.

The API calls these: pool_api/handlers/allocations.py, and the
reservations and candidates handlers candidate_uuids(). create() takes
the booking decision: a window that starts in the future is booked in
pool_conductor.booking.windows, else the allocation is written
allocating, its lifespan settled in its pool's limits, and handed to a
conductor, whose algorithm and worker are pool_conductor.allocator.
backfill() gives a deployed node to a new active allocation through the
one binding writer, as the conductor gives one. update() applies every
limit of a new lifespan_end: its pool's lifespan limits, then those of a
window. delete() releases the node through the binding writer (the node
locked first, then the allocation: the lock order of every writer), or
drops a scheduled allocation's slot; reservations delete theirs with it.
"""
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from pool_conductor import allocation_events
from pool_conductor import binding
from pool_conductor.booking import window_policy
from pool_conductor.booking import windows
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import slots as slots_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import lifespans
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import states


def pool_of(alloc) -> str:
    """The pool an allocation takes a node from: the one its pool field
    names, else the default pool (never its extra: that is the user's)."""
    return alloc.pool or models.DEFAULT_POOL


def create(context, values: dict, rpcapi, pool: str | None = None,
           node=None, candidates=(), project: str | None = None,
           start=None, end=None) -> models.Allocation:
    """Create an allocation and hand it to a conductor, backfill one for
    node, or book one for a window (start, end).

    A window that starts in the future is booked
    (pool_conductor.booking.windows); a window that has begun is an
    allocation that starts now and ends at the window's end.

    An allocation takes a node of its pool: the one it names, else the
    default pool, so that pools partition the fleet for Ironic clients
    too.

    Its lifespan_end is the one values asks for, else its pool's default,
    within the pool's lifespan limits.

    :param rpcapi: a pool_conductor.rpcapi.ConductorAPI.
    :param project: the project whose nodes the candidates must be.
    :raises: ObjectNotFound for a pool, Invalid without a resource
        class, InvalidParameterValue for a candidate node that does not
        exist or is in another pool, NoValidHost, what backfill(),
        create_allocation and windows.book() raise.
    """
    values = dict(values)
    if start is not None:
        if start > db_api.utcnow():
            return windows.book(
                context, {**values, 'candidate_nodes': candidate_uuids(
                    context, candidates, pool, project)
                    if candidates else []},
                pool, start, end, project)
        values['lifespan_end'] = end
    if pool:
        values['pool'] = pool
    if node is not None:
        policy = (pools_db.get(context, models.Pool, pool).lifespan if pool
                  else lifespans.policy_of(context, models.DEFAULT_POOL))
        values['lifespan_end'] = lifespans.new_end(
            policy, values.get('lifespan_end'))
        return backfill(context, values, node)
    if not values.get('resource_class'):
        raise exception.Invalid('The resource_class field is mandatory when '
                                'not backfilling.')
    if candidates:
        values['candidate_nodes'] = candidate_uuids(context, candidates,
                                                    pool, project)
    host = rpcapi.pick_conductor(context, 'allocation/%s/%s' % (
        pool or models.DEFAULT_POOL, values['resource_class']))
    values.update(state=states.ALLOCATING, conductor_affinity=host)
    # The INSERT reads the pool's lifespan policy; the end is settled in
    # its transaction, then the event recorded.
    alloc = allocations_db.create_allocation(
        context, values, lifespans.settle_new(pool, values.get(
            'lifespan_end')), _created)
    rpcapi.create_allocation(context, alloc.id, host)
    return alloc


def candidate_uuids(context, candidates, pool: str | None,
                    project: str | None = None) -> list[str]:
    """The UUIDs of the candidate nodes of an allocation request, named
    by name or UUID, which must be in the allocation's pool.

    :param project: the project whose nodes the candidates must be.
    :raises: InvalidParameterValue for a node that does not exist (or is
        not the project's) or is in another pool
    """
    try:
        uuids = nodes_db.get_node_uuids(context, candidates, project=project)
    except exception.NodeNotFound as exc:
        raise exception.InvalidParameterValue(err=exc.message) from None
    found = list(dict.fromkeys(uuids[c] for c in candidates))
    wanted = pool or models.DEFAULT_POOL
    elsewhere = {u: p for u, p in nodes_db.pools_of(context, found).items()
                 if p != wanted}
    if elsewhere:
        raise exception.InvalidParameterValue(
            err='Candidate nodes must be in pool %s, the pool of the '
                'allocation: %s.' % (wanted, ', '.join(
                    '%s is in pool %s' % item
                    for item in sorted(elsewhere.items()))))
    return found


def _created(conn, alloc) -> None:
    events.record(conn, [allocation_events.created(alloc)])


def backfill(context, values: dict, node) -> models.Allocation:
    """Create an active allocation for a node that is already deployed
    (Ironic's backfilling), giving the node to it through the binding
    writer.

    :param node: the node, as read before (a compare-and-swap on its
        generation).
    :raises: InvalidParameterValue if the node does not match the request,
        NodeAssociated, AllocationAlreadyExists, InstanceUUIDInUse,
        AllocationDuplicateName, ConcurrentUpdate
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
    pool = values.get('pool') or models.DEFAULT_POOL
    if node.pool != pool:
        errors.append('it is in pool %s, not in pool %s' % (node.pool, pool))
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
    elif node.pool_status != states.POOL_FREE:
        raise exception.NodeInWrongState(
            err='Cannot backfill an allocation for node %s: it is %s in '
                'pool %s.' % (node.uuid, node.pool_status, node.pool))
    values.setdefault('uuid', uuidutils.generate_uuid())
    values['resource_class'] = (values.get('resource_class')
                                or node.resource_class)
    return retry.on_deadlock(_backfill, context, values, node)


def _backfill(context, values: dict, node) -> models.Allocation:
    """Give the node to a new allocation through the binding writer, as
    the conductor gives one (a node serving the instance already keeps
    its pool fields)."""
    fields = {k: v for k, v in values.items() if k not in ('uuid',
                                                           'traits')}
    try:
        with db_api.writer_connection(context) as conn:
            holder = allocations_db.instance_holder(conn, values['uuid'],
                                                    node.id)
            if holder:
                raise exception.InstanceUUIDInUse(
                    instance_uuid=values['uuid'], node=holder)
            current = binding_db.lock_nodes(conn, [node.id])
            if not current or not binding.grant(conn, [binding.Grant(
                    node=current[0], instance_uuid=values['uuid'],
                    traits=tuple(values.get('traits') or ()),
                    allocation=fields),
            ], generations={node.id: node.generation}):
                raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)
    except db_exc.DBDuplicateEntry as exc:
        allocations_db.raise_duplicate(exc, values)
    return allocations_db.get_allocation(context, values['uuid'])


def _iso(value) -> str | None:
    return None if value is None else value.isoformat()


def update(context, alloc: models.Allocation,
           values: dict) -> models.Allocation:
    """Change the name, extra or lifespan_end of an allocation and
    record baremetal.allocation.update.end, and pool.lifespan.extended
    for a new lifespan_end.

    Every limit of a new lifespan_end applies here: its pool's lifespan
    limits (as at its creation), then those of a window.

    :raises: AllocationDuplicateName, AllocationNotFound,
        InvalidParameterValue for a lifespan_end out of its pool's
        limits, InvalidParameterValue and WindowLimitExceeded for a
        window's end the operators' policy does not allow, WindowConflict
    """
    if 'lifespan_end' in values:
        values = {**values, 'lifespan_end': lifespans.changed_end(
            context, pool_of(alloc), alloc.start_at or alloc.created_at,
            values['lifespan_end'])}
    with db_api.writer(context) as session:
        if 'lifespan_end' in values:
            window_policy.check_extension(session.connection(), alloc,
                                          values['lifespan_end'])
            windows.check_end(session.connection(), alloc,
                              values['lifespan_end'])
        updated = allocations_db.update_allocation(context, alloc, values)
        found = [events.Event(
            'allocation', updated.uuid, event_types.ALLOCATION_UPDATE_END,
            object_name=updated.name, state=updated.state,
            message='Changed: %s' % ', '.join(sorted(values)),
            owner=updated.owner, payload=payloads.allocation(updated))]
        if 'lifespan_end' in values:
            found.append(events.Event(
                'allocation', updated.uuid, event_types.LIFESPAN_EXTENDED,
                object_name=updated.name, prev_state=_iso(alloc.lifespan_end),
                state=_iso(updated.lifespan_end),
                message='lifespan_end changed', owner=updated.owner,
                payload=payloads.allocation(updated)))
        events.record(session, found)
    return updated


def destroy(context, ident: str) -> None:
    """Delete an allocation (by UUID or name), releasing its node through
    the binding writer, in one transaction.

    :raises: AllocationNotFound, NodeInWrongState when the node is active
        and not in maintenance, NodeLocked when a conductor still holds
        the node locked after the retries (retry.on_node_locked())
    """
    node_id = retry.on_deadlock(retry.on_node_locked, _destroy, context,
                                ident)
    if node_id is not None:
        # A node never deployed is idle at once: pool's claim at its
        # external manager ends now (else after its cleaning).
        external.release_idle(context, node_id)


def _destroy(context, ident: str) -> int | None:
    """Delete the allocation; the id of its node shared with an external
    manager where pool holds a claim, if it had one."""
    with db_api.writer_connection(context) as conn:
        current = allocations_db.find(conn, ident)
        if current is None:
            raise exception.AllocationNotFound(allocation=ident)
        return delete(conn, current, ident)


def delete(conn, current, ident: str | None = None) -> int | None:
    """Delete an allocation (allocations_db.find's row) in the caller's
    transaction: its node released through the binding writer, or its
    slot dropped, with its events.

    :returns: the id of its node shared with an external manager where
        pool holds a claim, if it had one (external.release_idle after
        the commit).
    :raises: AllocationNotFound, NodeInWrongState when the node is active
        and not in maintenance, NodeLocked
    """
    ident = ident or current.uuid
    if current.node_id is not None:
        # The node first, then the allocation: the lock order of
        # every writer.
        nodes = binding_db.lock_nodes(conn, [current.node_id])
        if nodes and nodes[0].allocation_id == current.id:
            binding.release(conn, nodes)
            return (nodes[0].id if nodes[0].external_claim is not None
                    else None)
    slot = slots_db.of_allocation(conn, current.id)
    if slot is not None:
        # A scheduled allocation: its node's lock first, then its slot
        # goes with it.
        binding_db.lock_nodes(conn, [slot.node_id])
    if allocations_db.lock(conn, current.id) is None:
        raise exception.AllocationNotFound(allocation=ident)
    if slot is not None:
        windows.drop(conn, [current.id])
    allocations_db.delete(conn, current.id)
    # current holds the columns the deletion reads, not the name and
    # owner allocation_events.deleted() would show.
    events.record(conn, [events.Event(
        'allocation', current.uuid, event_types.ALLOCATION_DELETE_END,
        payload=payloads.allocation(current))])
    return None
