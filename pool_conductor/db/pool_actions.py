"""The pool actions on nodes: add, remove, allocate and return, as SQL."""
import dataclasses

from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import filters as node_filters
from pool_conductor import states

ACTION_KEYS = ('workflow', 'add_profiles', 'remove_profiles',
               'add_parameters', 'remove_parameters')


@dataclasses.dataclass
class Request:
    """The parameters of a pool action (Digital Rebar's pool/...)."""

    machine_list: list = dataclasses.field(default_factory=list)
    all_machines: bool = False
    count: int = 1
    partial_success: bool = False
    filters: list = dataclasses.field(default_factory=list)
    actions: dict = dataclasses.field(default_factory=dict)
    wait_for_stage: str | None = None
    force: bool = False


def result(node: models.Node) -> dict:
    """One entry of an action's response, as Digital Rebar's."""
    return {'status': node.pool_status,
            'allocated': bool(node.pool_allocated),
            'name': node.name, 'uuid': node.uuid}


def apply_actions(node: models.Node, *action_sets: dict) -> None:
    """Apply transition actions to a node's fields, in order; each removes
    profiles and params before it adds."""
    profiles = list(node.profiles or [])
    params = dict(node.params or {})
    for actions in action_sets:
        actions = actions or {}
        remove = set(actions.get('remove_profiles') or ())
        profiles = [p for p in profiles if p not in remove]
        profiles += [p for p in actions.get('add_profiles') or ()
                     if p not in profiles]
        for key in actions.get('remove_parameters') or ():
            params.pop(key, None)
        params.update(actions.get('add_parameters') or {})
        if actions.get('workflow'):
            node.workflow = actions['workflow']
            node.stage = None
            node.runnable = True
    node.profiles = profiles
    node.params = params


def _lock_pool(session, name: str) -> models.Pool:
    """The pool, share-locked against deletion and changes until commit;
    actions on one pool do not wait for each other."""
    pool = session.scalars(
        sa.select(models.Pool).where(models.Pool.name == name)
        .with_for_update(read=True)
        .execution_options(populate_existing=True)).one_or_none()
    if pool is None:
        raise exception.ObjectNotFound(kind='Pool', name=name)
    return pool


def _machines(session, request: Request, where) -> list[models.Node]:
    """The nodes a request names (UUIDs, names, Name:x or Key:Value
    params) or, with all_machines, every node matching where; locked."""
    node = models.Node
    q = sa.select(node).order_by(node.id).with_for_update().execution_options(
        populate_existing=True)
    if request.all_machines:
        return list(session.scalars(q.where(*where)))
    found = []
    for item in request.machine_list:
        if uuidutils.is_uuid_like(item):
            cond = node.uuid == item
        else:
            key, sep, value = item.partition(':')
            if not sep:
                cond = node.name == item
            elif key.lower() in ('name', 'uuid'):
                cond = getattr(node, key.lower()) == value
            else:
                cond = node_filters.to_sql(
                    session.get_bind().dialect.name,
                    [node_filters.parse(key, 'Eq(%s)' % value)])
        rows = list(session.scalars(q.where(cond)))
        if not rows:
            raise exception.NodeNotFound(node=item)
        found += [r for r in rows if r not in found]
    return found


def _check(nodes, where_ok, what: str) -> None:
    bad = [n for n in nodes if not where_ok(n)]
    if bad:
        raise exception.InvalidState(err='%s: %s' % (what, ', '.join(
            '%s (%s in pool %s)' % (n.name or n.uuid, n.pool_status, n.pool)
            for n in bad)))


# The node fields a pool action writes.
_WRITTEN = ('pool', 'pool_status', 'pool_allocated', 'pool_wait_stage',
            'profiles', 'params', 'workflow', 'stage', 'runnable',
            'instance_uuid', 'allocation_id', 'pool_conductor_affinity',
            'stage_updated_at')


def _save(session, nodes) -> None:
    """Write the changed nodes (locked by this transaction) in one
    executemany UPDATE instead of one statement per object."""
    now = api.utcnow()
    rows = [{'id': n.id, 'generation': n.generation + 1, 'updated_at': now,
             **{f: getattr(n, f) for f in _WRITTEN}} for n in nodes]
    for n in nodes:
        session.expunge(n)
    if rows:
        session.execute(sa.update(models.Node), rows)


def _move(context, request: Request, source: str, target: str,
          what: str) -> list[dict]:
    """Move Free unallocated members of source into target, with the
    exit actions of source and the enter actions of target."""
    node = models.Node
    with api.writer(context) as session:
        pools = {name: _lock_pool(session, name)
                 for name in sorted({source, target})}
        free = (node.pool == source, node.pool_status == states.POOL_FREE,
                sa.func.coalesce(node.pool_allocated, False).is_(False),
                node.reservation.is_(None))
        nodes = _machines(session, request, free)
        _check(nodes, lambda n: (n.pool == source and n.pool_status ==
                                 states.POOL_FREE and not n.pool_allocated
                                 and not n.reservation),
               '%s: only Free, unallocated nodes of pool %s can be moved'
               % (what, source))
        for n in nodes:
            apply_actions(n, pools[source].exit_actions,
                          pools[target].enter_actions)
            n.pool = target
            n.pool_status = states.POOL_FREE
        _save(session, nodes)
        return [result(n) for n in nodes]


def parent_of(pool: models.Pool) -> str:
    return pool.parent_pool or models.DEFAULT_POOL


def add_machines(context, pool_name: str, request: Request) -> list[dict]:
    """Move Free nodes of the parent pool (default) into a pool.

    :raises: ObjectNotFound, NodeNotFound, InvalidState
    """
    pool = _get_pool(context, pool_name)
    if pool.name == models.DEFAULT_POOL:
        raise exception.Invalid('Nodes cannot be added to the default '
                                'pool; remove them from their pool.')
    return _move(context, request, parent_of(pool), pool.name,
                 'Cannot add nodes')


def remove_machines(context, pool_name: str, request: Request
                    ) -> list[dict]:
    """Move Free nodes of a pool back to its parent pool (default).

    :raises: ObjectNotFound, NodeNotFound, InvalidState
    """
    pool = _get_pool(context, pool_name)
    if pool.name == models.DEFAULT_POOL:
        raise exception.Invalid('Nodes cannot be removed from the default '
                                'pool; add them to another pool.')
    return _move(context, request, pool.name, parent_of(pool),
                 'Cannot remove nodes')


def _get_pool(context, name: str) -> models.Pool:
    with api.reader(context) as session:
        pool = session.scalars(sa.select(models.Pool).where(
            models.Pool.name == name)).one_or_none()
    if pool is None:
        raise exception.ObjectNotFound(kind='Pool', name=name)
    return pool


def _allocatable(pool_name: str):
    node = models.Node
    return (node.pool == pool_name, node.pool_status == states.POOL_FREE,
            sa.func.coalesce(node.pool_allocated, False).is_(False),
            node.instance_uuid.is_(None), node.allocation_id.is_(None),
            node.reservation.is_(None), node.maintenance.is_(False))


def _enter_workflow(node: models.Node, now) -> None:
    """Leave a node that starts waiting for a stage to the conductors:
    none drives it yet, and its current stage counts from now."""
    node.pool_conductor_affinity = None
    if node.pool_status in IN_WORKFLOW:
        node.stage_updated_at = now


def _allocate(session, nodes, pool: models.Pool, request: Request) -> None:
    """Mark locked Free nodes allocated, each with an active Allocation."""
    status = (states.POOL_BUILDING if request.wait_for_stage
              else states.POOL_IN_USE)
    uuids = [uuidutils.generate_uuid() for _ in nodes]
    if nodes:
        session.execute(sa.insert(models.Allocation), [
            {'uuid': u, 'state': states.ALLOCATION_ACTIVE, 'node_id': n.id,
             'resource_class': n.resource_class, 'traits': [],
             'candidate_nodes': [], 'extra': {'pool': pool.name},
             'created_at': api.utcnow()}
            for u, n in zip(uuids, nodes, strict=True)])
        ids = dict(session.execute(
            sa.select(models.Allocation.uuid, models.Allocation.id)
            .where(models.Allocation.uuid.in_(uuids))).all())
    now = api.utcnow()
    for n, uuid in zip(nodes, uuids, strict=True):
        apply_actions(n, pool.allocate_actions, request.actions)
        n.pool_status = status
        n.pool_allocated = True
        n.pool_wait_stage = request.wait_for_stage
        n.instance_uuid = uuid
        n.allocation_id = ids[uuid]
        _enter_workflow(n, now)
    _save(session, nodes)


def allocate_machines(context, pool_name: str, request: Request
                      ) -> list[dict]:
    """Allocate count Free nodes of a pool in one transaction.

    Nodes are claimed with SKIP LOCKED where the backend has it, so
    concurrent allocations take different nodes. Unless partial_success,
    fewer nodes than count is an error and nothing is allocated.

    :raises: ObjectNotFound, InsufficientNodes
    """
    node = models.Node
    with api.writer(context) as session:
        pool = _lock_pool(session, pool_name)
        # Traits are not needed: no second query for them.
        q = (sa.select(node).where(*_allocatable(pool.name))
             .options(orm.noload(node.traits))
             .order_by(node.id).limit(request.count)
             .execution_options(populate_existing=True))
        if request.filters:
            q = q.where(node_filters.to_sql(
                session.get_bind().dialect.name, request.filters))
        if request.all_machines:
            q = q.limit(None)
        if api.backend_supports_skip_locked(session):
            q = q.with_for_update(skip_locked=True)
        nodes = list(session.scalars(q))
        if (len(nodes) < request.count and not request.partial_success
                and not request.all_machines):
            raise exception.InsufficientNodes(pool=pool.name,
                                              count=request.count,
                                              found=len(nodes))
        _allocate(session, nodes, pool, request)
        return [result(n) for n in nodes]


def _release(session, nodes, pool: models.Pool, request: Request) -> None:
    """Return allocated nodes: release actions, and their Allocation rows
    go; Free at once unless a stage is to be waited for."""
    ids = [n.allocation_id for n in nodes if n.allocation_id]
    status = (states.POOL_DESTROYING
              if request.wait_for_stage and not request.force
              else states.POOL_FREE)
    now = api.utcnow()
    for n in nodes:
        apply_actions(n, pool.release_actions, request.actions)
        n.pool_status = status
        n.pool_allocated = status != states.POOL_FREE
        n.pool_wait_stage = (request.wait_for_stage
                             if status != states.POOL_FREE else None)
        n.instance_uuid = None
        n.allocation_id = None
        _enter_workflow(n, now)
    _save(session, nodes)
    if ids:
        session.execute(sa.delete(models.Allocation)
                        .where(models.Allocation.id.in_(ids)),
                        execution_options=api.NO_SYNC)


# The statuses of a node that waits for a stage, held or not: a conductor
# drives it (pool_conductor_affinity).
IN_WORKFLOW = (states.POOL_BUILDING, states.POOL_HOLD_BUILD,
               states.POOL_DESTROYING, states.POOL_HOLD_DESTROY)
RETURNABLE = (states.POOL_IN_USE,)
# With force, a node being built or held is returned too.
FORCE_RETURNABLE = (states.POOL_IN_USE, states.POOL_BUILDING,
                    states.POOL_HOLD_BUILD, states.POOL_DESTROYING,
                    states.POOL_HOLD_DESTROY)


def return_machines(context, pool_name: str, request: Request
                    ) -> list[dict]:
    """Return InUse nodes of a pool (with force, any allocated ones).

    :raises: ObjectNotFound, NodeNotFound, InvalidState
    """
    node = models.Node
    allowed = FORCE_RETURNABLE if request.force else RETURNABLE
    with api.writer(context) as session:
        pool = _lock_pool(session, pool_name)
        nodes = _machines(session, request, (
            node.pool == pool.name, node.pool_status.in_(allowed),
            node.reservation.is_(None)))
        _check(nodes, lambda n: (n.pool == pool.name and n.pool_status in
                                 allowed and not n.reservation),
               'Cannot return nodes: only %s nodes of pool %s can be '
               'returned' % (' or '.join(allowed), pool.name))
        _release(session, nodes, pool, request)
        return [result(n) for n in nodes]


def progress(node: models.Node, values: dict) -> dict:
    """The pool status a stage or runnable report moves a node to.

    A Building (Destroying) node that reaches the stage it waits for
    becomes InUse (Free); one that stops being runnable is held in
    HoldBuild (HoldDestroy) until it is runnable again.

    :param values: the fields the report changes.
    :returns: the pool fields to change too; a node that stops waiting
        is no conductor's to drive any more.
    """
    status = node.pool_status
    stage = values.get('stage', node.stage)
    runnable = values.get('runnable', node.runnable) is not False
    building = status in (states.POOL_BUILDING, states.POOL_HOLD_BUILD)
    destroying = status in (states.POOL_DESTROYING,
                            states.POOL_HOLD_DESTROY)
    if not (building or destroying):
        return {}
    if runnable and stage is not None and stage == node.pool_wait_stage:
        if building:
            return {'pool_status': states.POOL_IN_USE,
                    'pool_wait_stage': None, 'pool_conductor_affinity': None}
        return {'pool_status': states.POOL_FREE, 'pool_allocated': False,
                'pool_wait_stage': None, 'pool_conductor_affinity': None}
    held = HOLD[states.POOL_BUILDING if building
                else states.POOL_DESTROYING]
    target = held[1] if not runnable else held[0]
    return {'pool_status': target} if target != status else {}


# A waiting status and its hold status.
HOLD = {states.POOL_BUILDING: (states.POOL_BUILDING, states.POOL_HOLD_BUILD),
        states.POOL_DESTROYING: (states.POOL_DESTROYING,
                                 states.POOL_HOLD_DESTROY)}


# The columns of a node that pool transitions read or change.
POOL_FIELDS = tuple(models.Node.__table__.c[name] for name in (
    'pool', 'pool_allocated', 'params', 'profiles', 'workflow', 'stage',
    'runnable'))

_SET_FIELDS = sa.update(models.Node.__table__).where(
    models.Node.__table__.c.id == sa.bindparam('node_id'),
).values(pool_status=sa.bindparam('pool_status'),
         pool_allocated=sa.bindparam('pool_allocated'),
         pool_wait_stage=sa.bindparam('pool_wait_stage'),
         pool_conductor_affinity=sa.bindparam('pool_conductor_affinity'),
         params=sa.bindparam('params', type_=models.JSONType),
         profiles=sa.bindparam('profiles', type_=models.JSONType),
         workflow=sa.bindparam('workflow'), stage=sa.bindparam('stage'),
         runnable=sa.bindparam('runnable'))


def _node_fields(node) -> dict:
    return {'profiles': node.profiles, 'params': node.params,
            'workflow': node.workflow, 'stage': node.stage,
            'runnable': node.runnable}


def _transition(bind, node, pool_name: str, which: str) -> dict:
    """A node's fields after a pool's transition actions (which: the
    column of the action set) are applied to a copy of them."""
    pools = models.Pool.__table__
    actions = bind.execute(
        sa.select(pools.c[which]).where(pools.c.name == pool_name)
    ).scalar_one_or_none()
    fields = models.Node(**_node_fields(node))
    apply_actions(fields, actions or {})
    return _node_fields(fields)


def release_values(bind, node) -> dict:
    """The fields of a node that deleting its allocation changes: an
    allocated pool member is returned with its pool's release actions.

    :param bind: a session or connection in the transaction.
    :param node: the node, or a row with its POOL_FIELDS.
    """
    if not node.pool_allocated:
        return {}
    return {'pool_status': states.POOL_FREE, 'pool_allocated': False,
            'pool_wait_stage': None, 'pool_conductor_affinity': None,
            **_transition(bind, node, node.pool, 'release_actions')}


def return_to_pool(conn, node) -> None:
    """Apply release_values() to a node whose allocation is deleted."""
    values = release_values(conn, node)
    if values:
        conn.execute(_SET_FIELDS, {'node_id': node.id, **values})


def apply_allocate_actions(conn, pool_name: str, node) -> None:
    """Apply a pool's allocate actions to a node an allocation with that
    pool took (a row with id, params, profiles and workflow)."""
    fields = _transition(conn, node, pool_name, 'allocate_actions')
    conn.execute(_SET_FIELDS, {
        'node_id': node.id, 'pool_status': states.POOL_IN_USE,
        'pool_allocated': True, 'pool_wait_stage': None,
        'pool_conductor_affinity': None, **fields})
