"""The pool actions: add, remove, allocate and return machines.

Digital Rebar's pool/addMachines, removeMachines, allocateMachines and
returnMachines, in one transaction each: the pool is share-locked, then
its nodes (in id order), then their allocations. Nodes are given, freed
and moved only through pool_conductor.binding.
"""
import dataclasses
import datetime

from oslo_utils import uuidutils

from pool_conductor import binding
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import free_nodes
from pool_conductor.db import models
from pool_conductor.db import pool_actions as actions_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import slots as slots_db
from pool_conductor import exception
from pool_conductor import lifecycle
from pool_conductor import lifespans
from pool_conductor import retry
from pool_conductor import states

RETURNABLE = (states.POOL_IN_USE,)
# With force, a node being built, destroyed or held is returned too.
FORCE_RETURNABLE = (states.POOL_IN_USE, states.POOL_BUILDING,
                    states.POOL_HOLD_BUILD, states.POOL_DESTROYING,
                    states.POOL_HOLD_DESTROY)


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
    # How long the nodes have to reach wait_for_stage, from now, whether
    # the caller blocks or not (None: [pool] default_wait_timeout).
    wait_timeout: int | None = None
    force: bool = False
    # allocateMachines: when the allocations end (else the pool's
    # lifespan default).
    lifespan_end: datetime.datetime | None = None
    # The project the action is run for: it touches only the nodes the
    # project owns or leases. None for every node.
    project: str | None = None


def result(node) -> dict:
    """One entry of an action's response, as Digital Rebar's."""
    return {'status': node.pool_status,
            'allocated': bool(node.pool_allocated),
            'name': node.name, 'uuid': node.uuid}


def current(context, uuids: list[str]) -> list[dict]:
    """The entries of nodes as they are now, in the order of uuids (a
    node deleted meanwhile is left out)."""
    with db_api.reader(context) as session:
        rows = {r.uuid: r for r in actions_db.read_by_uuid(
            session.connection(), uuids)}
    return [result(rows[u]) for u in uuids if u in rows]


def parent_of(pool) -> str:
    return pool.parent_pool or models.DEFAULT_POOL


def _lock_pool(conn, name: str):
    pool = pools_db.lock_pool(conn, name, share=True)
    if pool is None:
        raise exception.ObjectNotFound(kind='Pool', name=name)
    return pool


def _named_ids(conn, request: Request, *where) -> list[int]:
    """The ids of the nodes a request names, or with all_machines of
    every node matching where; only the project's nodes for a request of
    a project.

    :raises: NodeNotFound for an entry that names no node (of the
        project), the same for a node of another project as for none
    """
    scope = actions_db.project_nodes(request.project)
    if request.all_machines:
        return actions_db.member_ids(conn, *where, *scope)
    ids: dict[int, None] = {}
    for item in request.machine_list:
        found = actions_db.machine_ids(conn, item, *scope)
        if not found:
            raise exception.NodeNotFound(node=item)
        ids.update(dict.fromkeys(found))
    return list(ids)


def _check(nodes, ok, what: str) -> None:
    bad = [n for n in nodes if not ok(n)]
    if bad:
        raise exception.InvalidState(err='%s: %s' % (what, ', '.join(
            '%s (%s in pool %s)' % (n.name or n.uuid, n.pool_status, n.pool)
            for n in bad)))


def _results(conn, nodes) -> list[dict]:
    return [result(n) for n in actions_db.read_nodes(conn,
                                                     [n.id for n in nodes])]


def _move(context, request: Request, pool_name: str, adding: bool
          ) -> list[dict]:
    """Move Free members of a pool's parent into it (adding), or of the
    pool into its parent (binding.move). The pool is locked before its
    parent is read, so a concurrent change of the parent waits."""
    node = models.Node.__table__.c
    with db_api.writer_connection(context) as conn:
        pool = _lock_pool(conn, pool_name)
        if pool.name == models.DEFAULT_POOL:
            raise exception.Invalid(
                'Nodes cannot be %s the default pool; %s them %s another '
                'pool.' % (('added to', 'remove', 'from') if adding
                           else ('removed from', 'add', 'to')))
        parent = _lock_pool(conn, parent_of(pool)).name
        source, target = (parent, pool.name) if adding else (pool.name,
                                                            parent)
        nodes = binding_db.lock_nodes(conn, _named_ids(
            conn, request, node.pool == source,
            node.pool_status == states.POOL_FREE,
            node.reservation.is_(None)))
        # A named node a conductor holds locked for a moment (moving it
        # on in its workflow) is waited for: the action runs again
        # (retry.on_node_locked), as Ironic waits for a node's lock.
        lifecycle.check_unlocked(*nodes)
        _check(nodes, lambda n: (n.pool == source and n.pool_status ==
                                 states.POOL_FREE and not n.pool_allocated
                                 and n.instance_uuid is None
                                 and not n.reservation),
               'Cannot %s nodes: only Free, unallocated nodes of pool %s '
               'can be moved' % ('add' if adding else 'remove', source))
        if not request.force:
            nodes = _unbooked(conn, nodes, request.all_machines,
                              'add' if adding else 'remove', source)
        # With force, the windows the nodes hold move to other nodes of
        # their pools, or are flagged (pool_conductor.booking.healing).
        binding.move(conn, nodes, target)
        return _results(conn, nodes)


def _unbooked(conn, nodes: list, all_machines: bool, verb: str,
              pool: str) -> list:
    """The nodes that hold no window of a scheduled allocation: with
    all_machines the others are left out, else they are refused.

    :raises: WindowConflict
    """
    booked = slots_db.scheduled_on(conn, [n.id for n in nodes
                                          if n.booked_from is not None])
    if not booked:
        return nodes
    if all_machines:
        held = {row.node_id for row in booked}
        return [n for n in nodes if n.id not in held]
    raise exception.WindowConflict(
        err='Cannot %s nodes: %s; with force their windows move to other '
            'nodes of pool %s free for them, or are left without a node '
            '(missing_resources).' % (verb, '; '.join(
                'node %s holds the window of scheduled allocation %s from '
                '%s' % (row.node_uuid, row.uuid,
                        row.start_at.replace(microsecond=0).isoformat()
                        + 'Z') for row in booked[:5]), pool))


def add_machines(context, pool_name: str, request: Request) -> list[dict]:
    """Move Free nodes of the parent pool (default) into a pool; with
    force, nodes holding windows of scheduled allocations too, whose
    windows are healed.

    :raises: ObjectNotFound, NodeNotFound, InvalidState, WindowConflict
        for a named node holding a window, without force, NodeLocked for
        a named node still locked after the retries
    """
    return retry.on_deadlock(retry.on_node_locked, _move, context, request,
                             pool_name, True)


def remove_machines(context, pool_name: str, request: Request
                    ) -> list[dict]:
    """Move Free nodes of a pool back to its parent pool (default); with
    force, nodes holding windows of scheduled allocations too, whose
    windows are healed.

    :raises: ObjectNotFound, NodeNotFound, InvalidState, WindowConflict
        for a named node holding a window, without force, NodeLocked for
        a named node still locked after the retries
    """
    return retry.on_deadlock(retry.on_node_locked, _move, context, request,
                             pool_name, False)


def _allocatable_named(conn, pool: str, request: Request) -> list:
    """The nodes machine_list names, locked; all of them must be
    allocatable members of the pool unless partial_success.

    :raises: NodeNotFound, InvalidState
    """
    nodes = binding_db.lock_nodes(conn, _named_ids(conn, request))
    # A node shared with an external manager is given only by the
    # allocation worker, which acquires its hardware there.
    ok = [n for n in nodes if n.pool == pool and lifecycle.allocatable(n)
          and n.external_manager is None]
    if not request.partial_success:
        lifecycle.check_unlocked(*nodes)
        _check(nodes, lambda n: n in ok,
               'Cannot allocate nodes: only Free members of pool %s that '
               'an allocation could take (available, power state known, '
               'not in maintenance, no instance, not locked, not shared '
               'with an external manager) can be '
               'allocated' % pool)
    return ok


def _allocate(context, pool_name: str, request: Request) -> list[dict]:
    with db_api.writer_connection(context) as conn:
        pool = _lock_pool(conn, pool_name)
        now = db_api.utcnow()
        end = lifespans.end(pool.lifespan, now, now, request.lifespan_end)
        if request.machine_list:
            nodes = _allocatable_named(conn, pool.name, request)
        else:
            nodes = free_nodes.filtered(
                conn, pool.name,
                None if request.all_machines else request.count,
                request.filters, request.project)
            if (len(nodes) < request.count and not request.partial_success
                    and not request.all_machines):
                raise exception.InsufficientNodes(
                    pool=pool.name, count=request.count, found=len(nodes))
        grants = [binding.Grant(
            node=n, instance_uuid=uuidutils.generate_uuid(), allocation={
                'owner': request.project, 'pool': pool.name,
                'resource_class': n.resource_class, 'lifespan_end': end})
            for n in nodes]
        if not binding.grant(conn, grants, free=True,
                             request_actions=request.actions,
                             wait_for_stage=request.wait_for_stage,
                             timeout=request.wait_timeout):
            raise exception.ConcurrentUpdate(what='A node of pool %s'
                                             % pool.name)
        return _results(conn, nodes)


def allocate_machines(context, pool_name: str, request: Request
                      ) -> list[dict]:
    """Allocate Free members of a pool in one transaction, each with an
    active allocation: the nodes machine_list names, or count (or all)
    of those matching the filters.

    Unless partial_success, fewer nodes than asked for is an error and
    nothing is allocated.

    :raises: ObjectNotFound, NodeNotFound, InsufficientNodes,
        InvalidState, NodeLocked for a named node still locked after the
        retries (without partial_success)
    """
    return retry.on_deadlock(retry.on_node_locked, _allocate, context,
                             pool_name, request)


def _return(context, pool_name: str, request: Request) -> list[dict]:
    allowed = FORCE_RETURNABLE if request.force else RETURNABLE
    node = models.Node.__table__.c
    with db_api.writer_connection(context) as conn:
        pool = _lock_pool(conn, pool_name)
        # All machines: those of claims are left to their claims.
        nodes = binding_db.lock_nodes(conn, _named_ids(
            conn, request, node.pool == pool.name,
            node.pool_status.in_(allowed), node.reservation.is_(None),
            binding_db.NOT_OF_A_CLAIM))
        lifecycle.check_unlocked(*nodes)
        _check(nodes, lambda n: (n.pool == pool.name
                                 and n.pool_status in allowed),
               'Cannot return nodes: only %s nodes of pool %s can be '
               'returned' % (' or '.join(allowed), pool.name))
        binding.release(
            conn, nodes, force=request.force,
            request_actions=request.actions,
            wait_for_stage=None if request.force else request.wait_for_stage,
            timeout=request.wait_timeout)
        return _results(conn, nodes)


def return_machines(context, pool_name: str, request: Request
                    ) -> list[dict]:
    """Return InUse nodes of a pool (with force, any allocated ones, and
    deployed ones): their release actions, and their allocations go.

    :raises: ObjectNotFound, NodeNotFound, InvalidState, NodeInWrongState
        for a deployed node without force, NodeLocked
    """
    return retry.on_deadlock(retry.on_node_locked, _return, context,
                             pool_name, request)
