"""The one writer of the node/allocation binding and of pool membership.

Every path that gives a node to an allocation or an instance (the
allocation worker, backfill, allocateMachines, claims, a node PATCH of
instance_uuid), frees one (deleting an allocation, returnMachines,
returnToPool, a node PATCH, undeploy, deleting a node) or moves one
between pools (addMachines, removeMachines, AutoFill, a stage report)
calls grant(), release(), move(), report() or report_driven() in its
transaction; grant() inserts the allocations it gives nodes to,
activate() makes the allocation worker's active, and delete_handles()
deletes an ending claim's lost handles. Machines brokers make
and destroy enter and leave their pools through begin_creation(),
finish_creation(), abandon_creation() and delete_destroyed(). Each
applies the pool's transition actions (pool_conductor.lifecycle) exactly
once and writes the nodes with one compare-and-swap statement. No other
module calls the write statements of pool_conductor.db.binding.

Lock order: a pool, then its nodes (by id), then their allocations.
"""
import dataclasses
import types

from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from pool_conductor import allocation_events
from pool_conductor.booking import healing
from pool_conductor import brokers
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import machines as machines_db
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import slots as slots_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import lifecycle
from pool_conductor import node_events
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import states


@dataclasses.dataclass(frozen=True)
class Grant:
    """A node given to a consumer: an allocation, or an instance only."""

    node: object
    instance_uuid: str
    allocation_id: int | None = None
    # Traits the allocation asked for, recorded in instance_info.
    traits: tuple = ()
    # The fields of a new active allocation that grant() inserts for the
    # node (its uuid is instance_uuid, its traits the traits above).
    allocation: dict | None = dataclasses.field(default=None,
                                                compare=False)
    # Other fields of the node written with the grant (pool's claim at
    # its external manager); an instance_info here is merged into the
    # node's.
    values: dict | None = dataclasses.field(default=None, compare=False)


def _changed(node, values: dict) -> dict:
    """The values that differ from the node's (action fields a
    transition left as they were are not written)."""
    return {k: v for k, v in values.items()
            if k not in lifecycle.ACTION_FIELDS or getattr(node, k) != v}


def wait_timeout(seconds: int | None) -> int:
    """How long a wait for a stage lasts: the request's wait_timeout,
    else [pool] default_wait_timeout (Digital Rebar's 7200 s)."""
    return CONF.pool.default_wait_timeout if seconds is None else seconds


def grant_values(conn, grants: list[Grant], request_actions=None,
                 wait_for_stage: str | None = None,
                 timeout: int | None = None) -> dict[int, dict]:
    """The fields of the nodes that giving them to consumers changes:
    their pools' allocate actions and the request's, then Building until
    wait_for_stage (or the stage the actions wait for), else InUse. A
    node that serves the instance already (a backfill) keeps its pool
    fields. Either way the traits asked for are recorded in
    instance_info, as Ironic records them.

    :param timeout: the seconds a node Building has to reach its stage
        (wait_timeout()).
    """
    now = db_api.utcnow()
    timeout = wait_timeout(timeout)
    # The searches for free nodes read the pool's actions with the node.
    pools = binding_db.pool_actions(
        conn, {g.node.pool for g in grants
               if not hasattr(g.node, 'allocate_actions')},
        'allocate_actions')
    changes = {}
    for grant in grants:
        node = grant.node
        source = node if hasattr(node, 'allocate_actions') else pools.get(
            node.pool)
        values = {} if node.instance_uuid == grant.instance_uuid else \
            _changed(node, lifecycle.allocated(
                node, getattr(source, 'allocate_actions', None),
                request_actions, wait_for_stage, now, timeout))
        values.update(instance_uuid=grant.instance_uuid,
                      allocation_id=grant.allocation_id)
        if grant.traits:
            values['instance_info'] = {**(node.instance_info or {}),
                                       'traits': list(grant.traits)}
        if grant.values:
            more = dict(grant.values)
            if 'instance_info' in more:
                more['instance_info'] = {
                    **values.get('instance_info', node.instance_info or {}),
                    **more['instance_info']}
            values.update(more)
        changes[node.id] = values
    return changes


def grant(conn, grants: list[Grant], free: bool = False,
          request_actions=None, wait_for_stage: str | None = None,
          generations: dict[int, int] | None = None,
          also: list | None = None, conductor: str | None = None,
          timeout: int | None = None) -> bool:
    """Give nodes to consumers (grant_values()) with one compare-and-swap,
    inserting first the new allocations the grants carry, and record the
    events of both.

    :param free: each node must still be free (binding_db.NODE_IS_FREE).
    :param generations: node id -> the generation each must still be.
    :param also: the caller's events of the same change, recorded with
        these (one statement for all).
    :param conductor: the conductor making the change, if one is.
    :param timeout: the seconds a node Building has to reach its stage.
    :returns: whether every node was given (else the caller rolls back).
    :raises: DBDuplicateEntry for a new allocation's uuid or name in use
    """
    granted, created = _insert_allocations(conn, grants, request_actions)
    changes = grant_values(conn, granted, request_actions, wait_for_stage,
                           timeout)
    if binding_db.update_nodes(conn, changes, free=free,
                               generations=generations) != len(changes):
        return False
    by_id = {g.node.id: g.node for g in grants}
    events.record(conn, created + [
        e for node_id, values in changes.items()
        for e in node_events.changed(by_id[node_id], values)] + (also or []),
        conductor=conductor)
    return True


def _insert_allocations(conn, grants: list[Grant], request_actions=None
                        ) -> tuple[list[Grant], list[events.Event]]:
    """The grants, each with the id of the allocation inserted for it
    (which records what request_actions set on its node), and the events
    of the new allocations."""
    new = [g for g in grants if g.allocation is not None]
    rows = [{**g.allocation, 'uuid': g.instance_uuid, 'node_id': g.node.id,
             'node_uuid': g.node.uuid, 'traits': list(g.traits),
             'set_by': lifecycle.set_by(g.node, request_actions)}
            for g in new]
    ids = iter(binding_db.insert_allocations(conn, [
        {k: v for k, v in row.items() if k != 'node_uuid'} for row in rows]))
    created = [allocation_events.created(row=row) for row in rows]
    return [dataclasses.replace(g, allocation_id=next(ids), allocation=None)
            if g.allocation is not None else g for g in grants], created


def activate(conn, grants: list[Grant], host: str) -> bool:
    """Make the allocating allocations of a conductor (allocation_id of
    each grant, given its node by grant()) active on their nodes.

    :returns: whether every one was still host's to activate.
    """
    return binding_db.activate_allocations(
        conn, {g.allocation_id: g.node.id for g in grants},
        host) == len(grants)


def check_release(node, force: bool = False, for_claim: bool = False
                  ) -> None:
    """Whether a node's consumer may be taken from it: a claim's machine
    only by its claim (which holds all of its machines or none).

    :param node: as lock_nodes() reads it (with claim_uuid).
    :raises: NodeLocked, NodeOfClaim, NodeInWrongState
    """
    lifecycle.check_unlocked(node)
    if node.claim_uuid is not None and not for_claim:
        raise exception.NodeOfClaim(node=node.uuid, claim=node.claim_uuid)
    lifecycle.check_release(node, force)


def release(conn, nodes: list, *, force: bool = False, request_actions=None,
            wait_for_stage: str | None = None, values: dict | None = None,
            for_claim: bool = False, also: list | None = None,
            keep_params: bool = False, lost: str | None = None,
            timeout: int | None = None) -> None:
    """Take nodes (locked by this transaction, as lock_nodes() reads
    them) back from their consumers, with their pools' release actions,
    and delete their allocations. The params and profiles an allocation
    set on its node (its set_by) are taken off first, unless keep_params
    or the node's pool keeps them.

    :param force: release a deployed node too.
    :param values: other fields of every node to change at the same time.
    :param for_claim: the claim of the nodes releases them.
    :param also: the caller's events of the same change.
    :param keep_params: leave what the allocations set.
    :param lost: why the nodes are lost to their claims: their
        allocations stay, in error with this message and no node (the
        claims' lost handles), instead of being deleted.
    :param timeout: the seconds a node Destroying has to reach its stage
        (wait_timeout()).
    :raises: NodeLocked, NodeOfClaim, NodeInWrongState, ConcurrentUpdate
    """
    for node in nodes:
        check_release(node, force, for_claim)
    now = db_api.utcnow()
    timeout = wait_timeout(timeout)
    pools = binding_db.pool_actions(conn, {n.pool for n in nodes},
                                    'release_actions', 'keep_params')
    changes = {}
    for node in nodes:
        pool = pools.get(node.pool)
        keep = keep_params or bool(pool and pool.keep_params)
        # A claim's request actions take off what its template set.
        taken_off = None if keep and for_claim else request_actions
        changes[node.id] = {**_changed(node, lifecycle.released(
            node, pool.release_actions if pool else None, taken_off,
            wait_for_stage, now, None if keep else lifecycle.undo(
                getattr(node, 'set_by', None)), timeout)),
            **(values or {})}
    held = [n for n in nodes if n.allocation_id is not None]
    # A node without slots (booked_from) holds none of its allocation's.
    booked = [n.allocation_id for n in held if n.booked_from is not None]
    # The nodes' events and their allocations' go in one insert.
    if lost is not None:
        _write(conn, nodes, changes, also=(also or []) + [events.Event(
            'allocation', n.instance_uuid, event_types.ALLOCATION_LOST,
            level='warning', message=lost, prev_state='active',
            state=states.ALLOCATION_ERROR, owner=getattr(n, 'owner', None),
            lessee=getattr(n, 'lessee', None),
            payload=payloads.allocation(None, {
                'uuid': n.instance_uuid, 'node_uuid': None,
                'state': states.ALLOCATION_ERROR, 'last_error': lost}))
            for n in held])
        slots_db.drop(conn, booked)
        binding_db.lose_allocations(conn, [n.allocation_id for n in nodes],
                                    lost)
        return
    _write(conn, nodes, changes, also=(also or []) + [events.Event(
        'allocation', n.instance_uuid, event_types.ALLOCATION_DELETE_END,
        prev_state='active', owner=getattr(n, 'owner', None),
        lessee=getattr(n, 'lessee', None),
        payload=payloads.allocation(None, {'uuid': n.instance_uuid,
                                           'node_uuid': n.uuid}))
        for n in held])
    slots_db.drop(conn, booked)
    binding_db.delete_allocations(conn, [n.allocation_id for n in nodes])


def delete_handles(conn, allocation_ids: list[int]) -> None:
    """Delete the allocations of an ending claim that hold no node (its
    lost handles); those that hold one go with release()."""
    binding_db.delete_allocations(conn, allocation_ids)


def move(conn, nodes: list, target: str) -> None:
    """Send Free nodes (locked by this transaction) from their pool to
    target: the exit actions of their pool, Leaving until the stage those
    wait for, then the enter actions of target, Joining until the stage
    those wait for, then Free.

    :raises: ConcurrentUpdate
    """
    now = db_api.utcnow()
    pools = binding_db.pool_actions(
        conn, {n.pool for n in nodes} | {target}, 'exit_actions',
        'enter_actions')
    changes = {}
    for node in nodes:
        source = pools.get(node.pool)
        changes[node.id] = _changed(node, lifecycle.moved(
            node, target, source.exit_actions if source else None,
            pools[target].enter_actions, now))
    _write(conn, nodes, changes)


def time_out(context, limit: int = 100,
             uuids: list[str] | None = None) -> int:
    """Record as timed out the allocated nodes (Building, Destroying,
    held) still waiting for their stage past their deadline, each with
    its event (pool.node.wait_timeout.error), at most limit at once.

    :param uuids: only these nodes.
    :returns: how many nodes were timed out.
    """
    now = db_api.utcnow()
    with db_api.writer_connection(context) as conn:
        nodes = binding_db.lock_nodes(conn, binding_db.past_deadline(
            conn, now, limit, uuids))
        changes = {n.id: lifecycle.timed_out(n, now) for n in nodes}
        changes = {k: v for k, v in changes.items() if v}
        nodes = [n for n in nodes if n.id in changes]
        if nodes:
            _write(conn, nodes, changes)
        return len(nodes)


def progress(context, node, report: dict) -> dict:
    """What a stage or runnable report would change of a node's pool
    fields (_progress()), read in a transaction of its own."""
    with db_api.reader(context) as session:
        return _progress(session.connection(), node, report)


def _progress(conn, node, report: dict) -> dict:
    """The pool fields a stage or runnable report on a node changes
    (lifecycle.progress), with the enter actions of the pool a Leaving
    node arrives in."""
    def enter_actions(pool: str):
        rows = binding_db.pool_actions(conn, [pool], 'enter_actions')
        return rows[pool].enter_actions if pool in rows else None
    return lifecycle.progress(node, report, enter_actions, db_api.utcnow())


def _write(conn, nodes: list, changes: dict[int, dict],
           also: list | None = None, conductor: str | None = None) -> None:
    if binding_db.update_nodes(
            conn, changes,
            generations={n.id: n.generation for n in nodes}) != len(nodes):
        raise exception.ConcurrentUpdate(what='Node %s' % ', '.join(
            n.uuid for n in nodes))
    # A node the change loses (out of its pool, failed cleaning) gives
    # up the windows it holds.
    healing.node_changed(conn, nodes, changes, host=conductor, also=also)


def _delete(conn, node, events_of: list, host: str | None = None) -> None:
    """Delete a node (locked by this transaction) with its events; the
    windows it holds move to other nodes first."""
    if node.booked_from is not None:
        healing.heal(conn, [node.id], 'deleted', host)
    nodes_db.delete_node(conn, node.id)
    events.record(conn, node_events.deleted(node) + events_of,
                  conductor=host)


# Nodes through the node API ---------------------------------------------

def _locked_node(conn, node):
    """The node, locked, if it is still the generation read before.

    :raises: NodeNotFound, NodeLocked, ConcurrentUpdate
    """
    current = binding_db.lock_nodes(conn, [node.id])
    if not current:
        raise exception.NodeNotFound(node=node.uuid)
    if current[0].reservation:
        raise exception.NodeLocked(node=node.uuid,
                                   host=current[0].reservation)
    if current[0].generation != node.generation:
        raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)
    return current[0]


def _node_transaction(context, node, work, values: dict | None = None
                      ) -> None:
    def run():
        try:
            with db_api.writer_connection(context) as conn:
                work(conn, _locked_node(conn, node))
        except db_exc.DBDuplicateEntry as exc:
            nodes_db.raise_duplicate(exc, {'uuid': node.uuid,
                                           **(values or {})})
    retry.on_deadlock(retry.on_node_locked, run)


def set_instance(context, node, instance_uuid: str, values: dict) -> None:
    """Give a node to an instance (a node PATCH of instance_uuid), with
    its pool's allocate actions, and change other fields with it.

    :raises: NodeAssociated, NodeInWrongState for a node that is not Free
        in its pool, InstanceAssociated, NodeLocked, ConcurrentUpdate
    """
    def work(conn, current):
        if current.instance_uuid or current.allocation_id:
            raise exception.NodeAssociated(node=node.uuid,
                                           instance=current.instance_uuid)
        if current.pool_status != states.POOL_FREE:
            raise exception.NodeInWrongState(
                err='Cannot set the instance_uuid of node %s: it is %s in '
                    'pool %s, not Free.' % (node.uuid, current.pool_status,
                                            current.pool))
        changes = grant_values(conn, [Grant(current, instance_uuid)])
        changes[current.id].update(values)
        binding_db.update_nodes(conn, changes)
        # The PATCH may put the node into maintenance with it.
        healing.node_changed(conn, [current], changes)
    _node_transaction(context, node, work)


# Machines brokers make for pools ------------------------------------------


# The driver of a node a broker is making, until the broker names one.
BROKER_NODE_DRIVER = 'fake-hardware'
# The key of a node's extra that holds what its broker is asked.
BROKER_REQUEST = 'broker_request'


def begin_creation(conn, pool: str, broker: str, host: str, count: int,
                   resource_class: str | None = None, *,
                   token_prefix: str = '', request: dict | None = None,
                   lessee: str | None = None) -> list[int]:
    """Record machines a broker is to make for a pool, before it is
    asked: nodes Creating in the pool, locked by host, each with a fresh
    idempotency token (the broker makes one machine per token).

    :param token_prefix: the start of each token (what the machine is
        made for, e.g. a claim's resource), at most 35 characters.
    :param request: the parameters the broker is to be asked with,
        recorded on the node (extra.broker_request) for whichever
        conductor calls the broker; without it, the pool's
        create_parameters.
    :param lessee: the project the machines are made for (a claim's that
        binds only its project's nodes).
    :returns: the new nodes' ids.
    """
    extra = {} if request is None else {BROKER_REQUEST: request}
    rows = [{
        'uuid': uuidutils.generate_uuid(),
        'driver': BROKER_NODE_DRIVER, 'resource_class': resource_class,
        'provision_state': states.ENROLL, 'pool': pool,
        'pool_status': states.POOL_CREATING, 'pool_allocated': False,
        'broker': broker, 'extra': extra, 'lessee': lessee,
        'broker_token': (token_prefix + uuidutils.generate_uuid(
            dashed=False))[:64],
        'reservation': host} for _ in range(count)]
    ids = binding_db.insert_nodes(conn, rows)
    events.record(conn, [e for row in rows for e in node_events.created(
        types.SimpleNamespace(**row))], conductor=host)
    return ids


def finish_creation(conn, node, machine: dict, also: list | None = None,
                    conductor: str | None = None,
                    params: dict | None = None) -> None:
    """A node Creating (locked by this transaction and by its conductor)
    becomes the machine its broker made: its fields, available and
    powered off, unlocked, and into its pool with the pool's enter
    actions (Joining until their wait_for_stage, else Free).

    :param machine: the broker's answer (brokers.check_machine()).
    :param also: the caller's events of the same change.
    :param conductor: the conductor that asked the broker.
    :param params: the params the machine was asked with (its pool's
        autofill create_parameters.params, or a claim's): the node's,
        with those the broker gave the machine over them, before the
        enter actions.
    :raises: ConcurrentUpdate; DBDuplicateEntry for a name in use
    """
    now = db_api.utcnow()
    values = {k: machine[k] for k in brokers.MACHINE_FIELDS
              if machine.get(k) is not None}
    values['params'] = {**(node.params or {}), **(params or {}),
                        **(machine.get('params') or {})}
    values.update(broker_ref=machine['ref'],
                  provision_state=states.AVAILABLE,
                  power_state=states.POWER_OFF, last_error=None,
                  reservation=None, provision_updated_at=now)
    pools = binding_db.pool_actions(conn, [node.pool], 'enter_actions')
    pool = pools.get(node.pool)
    values.update(_changed(node, lifecycle.joined(
        lifecycle.After(node, values), node.pool,
        pool.enter_actions if pool else None, now)))
    _write(conn, [node], {node.id: values}, also, conductor)
    nodes_db.replace_traits(conn, node.id, machine.get('traits'))


def abandon_creation(context, node_id: int, host: str,
                     also: list | None = None) -> bool:
    """Delete a node Creating that host holds locked (its creation
    failed and is given up; the broker made no machine for it).

    :param also: the caller's events of the same change.
    :returns: whether host still held it.
    """
    with db_api.writer_connection(context) as conn:
        node = machines_db.held_by(conn, node_id, host)
        if node is None or node.pool_status != states.POOL_CREATING:
            return False
        _delete(conn, node, also or [], host)
        return True


def delete_destroyed(context, node_id: int, host: str,
                     also: list | None = None) -> bool:
    """Delete a Free node whose broker destroyed its machine, that host
    held locked meanwhile.

    :param also: the caller's events of the same change.
    :returns: whether host still held it.
    """
    with db_api.writer_connection(context) as conn:
        node = machines_db.held_by(conn, node_id, host)
        if node is None or node.instance_uuid or node.allocation_id:
            return False
        _delete(conn, node, also or [], host)
        return True


def release_node(context, node, values: dict, force: bool = False) -> None:
    """Take a node back from its instance and allocation (a node PATCH
    removing instance_uuid, undeploy), and change other fields with it.

    :param force: release a deployed node too (undeploy tears it down).
    :raises: NodeInWrongState, NodeLocked, ConcurrentUpdate
    """
    _node_transaction(context, node, lambda conn, current: release(
        conn, [current], force=force, values=values))


def provision_step(context, node_id: int, step) -> bool:
    """Move a node's provision state one step on, as step(node) decides:
    (the fields, whether the step tears the node down), or None when the
    node has nothing in progress. A step that tears the node down takes
    it back from its instance and allocation, with its pool's release
    actions, unless it is a claim's machine: that stays the claim's
    (undeployed, as a reserved node), for only the claim releases it. A
    node locked by a conductor is left.

    :returns: whether the node changed.
    """
    with db_api.writer_connection(context) as conn:
        nodes = binding_db.lock_nodes(conn, [node_id])
        if not nodes or nodes[0].reservation:
            return False
        decided = step(nodes[0])
        if decided is None:
            return False
        values, tears_down = decided
        if (tears_down and nodes[0].claim_uuid is None
                and (nodes[0].instance_uuid or nodes[0].allocation_id)):
            release(conn, nodes, force=True, values=values)
        else:
            _write(conn, nodes, {node_id: values})
        return True


def delete_node(context, node, lose=None) -> None:
    """Delete a node, releasing it first (a node in maintenance goes away
    with its instance and allocation).

    :param lose: lose(conn, node, reason) takes a claim's machine from
        its claim (pool_conductor.claim_release.lose_machine()); without
        it, a claim's machine is refused.
    :raises: NodeLocked, ConcurrentUpdate, NodeNotFound, NodeOfClaim
    """
    def work(conn, current):
        if current.claim_uuid is not None and lose is not None:
            lose(conn, current, 'Node %s was deleted.' % current.uuid)
        elif current.instance_uuid or current.allocation_id:
            release(conn, [current], force=True)
        _delete(conn, current, [])
    _node_transaction(context, node, work)


def report(context, node, values: dict) -> None:
    """A stage or runnable report on a node through the API (a node
    PATCH): the node's fields, and its pool status as the report moves it
    (a repeated report too), with other fields changed with it.

    :param values: the changed fields, stage and runnable among them.
    :raises: NodeLocked, ConcurrentUpdate, DuplicateName
    """
    def work(conn, current):
        changes = {**values, **_progress(conn, current, values)}
        if changes.get('stage', current.stage) != current.stage:
            changes['stage_updated_at'] = db_api.utcnow()
        binding_db.update_nodes(conn, {current.id: changes})
        # The PATCH may put the node into maintenance with its report.
        healing.node_changed(conn, [current], {current.id: changes})
    _node_transaction(context, node, work, values)


def report_driven(context, node, host: str, values: dict) -> bool:
    """Change a node a conductor drives through its workflow (its stage,
    runnable, last_error) and its pool status as that report moves it:
    the provisioners' one way to change a node.

    :param node: the node, as db.workflows.list_driven_nodes() reads it.
    :returns: whether the node changed (a compare-and-swap on its status,
        its stage and the conductor driving it).
    """
    with db_api.writer_connection(context) as conn:
        changes = {**values, **_progress(conn, node, values)}
        if not binding_db.move_node(conn, node, host, changes):
            return False
        # No healing: a provisioner changes only the stage, runnable and
        # last_error, and the pool status they move, which lose no
        # booked node (a Leaving node gave up its windows when move()
        # sent it out of its pool).
        node_events.record(conn, [node], {node.id: changes},
                           conductor=host)
        return True
