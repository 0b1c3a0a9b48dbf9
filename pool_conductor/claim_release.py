"""The end of a claim's machines: a claim deleted, its lifespan ended, or
one machine lost to it.

destroy() (the API), expire() and lose_failed() (a conductor's periodic
rounds, which never raise) and lose_machine() (in the caller's
transaction: a node deleted, a machine an external manager took) each
lock the claim, then its machines (by id), and give the machines back
through pool_conductor.binding, the one writer of the binding: what the
claim's template set is taken off a machine unless its provider keeps
it, a deployed one is torn down, and the allocations go with their
nodes. A lost machine leaves its allocation as the claim's lost handle,
in error; the claim, per its provider's on_lost, goes back to pending
for pool_conductor.claims to bind another, or to error. When a claim
ends, its lost handles are deleted through the writer too.
"""
import datetime

from pool_conductor import binding
from pool_conductor import claims
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import claims as claims_db
from pool_conductor.db import models
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import expiry
from pool_conductor import providers as providers_rules
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states


def _taken_off(template: dict, node) -> dict:
    """The params and profiles of a claim's template that its end takes
    off a machine besides what the binding recorded it set (set_by, set
    back as it was): those a change of the template added later."""
    recorded = getattr(node, 'set_by', None) or {}
    known = set(recorded.get('params') or ()) | set(
        recorded.get('unset') or ())
    actions = providers_rules.release_actions(template)
    actions['remove_parameters'] = [k for k in actions['remove_parameters']
                                    if k not in known]
    return actions


def _release(conn, claim, now: datetime.datetime) -> list[int]:
    """Release the machines of a locked claim through the binding writer
    (force: a deployed one is torn down, as at the end of a lifespan),
    which deletes their allocations, then the claim's lost handles.

    :returns: the ids of the machines torn down (left deleting).
    :raises: NodeLocked
    """
    allocs = claims_db.allocations_of(conn, claim.id)
    nodes = binding_db.lock_nodes(conn, [a.node_id for a in allocs
                                         if a.node_id is not None])
    resource_of = {a.id: a.claim_resource for a in allocs}
    held = [n for n in nodes if n.allocation_id in resource_of]
    found = claims_db.providers(conn, [r['provider']
                                       for r in claim.resources])
    torn_down = []
    for node in held:
        values = expiry.torn_down(node, now)
        index = resource_of[node.allocation_id]
        resource = (claim.resources[index]
                    if index is not None and index < len(claim.resources)
                    else {})
        provider = found.get(resource.get('provider'))
        keep = bool(provider is not None and provider.keep_params)
        binding.release(conn, [node], force=True, values=values,
                        for_claim=True, keep_params=keep,
                        request_actions=None if keep else _taken_off(
                            resource.get('template') or {}, node))
        if values:
            torn_down.append(node.id)
    released = {n.allocation_id for n in held}
    binding.delete_handles(conn, [a.id for a in allocs
                                  if a.id not in released])
    return torn_down


def destroy(context, claim, rpcapi) -> None:
    """Delete a claim, releasing its machines; those deployed are cast to
    a conductor that undeploys them.

    :param rpcapi: a pool_conductor.rpcapi.ConductorAPI.
    :raises: ClaimNotFound, NodeLocked when a conductor still holds a
        machine locked after the retries (retry.on_node_locked())
    """
    def work():
        with db_api.writer_connection(context) as conn:
            current = claims_db.lock(conn, claim.id)
            if current is None:
                raise exception.ClaimNotFound(claim=claim.uuid)
            torn_down = _release(conn, current, db_api.utcnow())
            claims_db.delete(conn, claim.id)
            events.record(conn, [claims.event(
                current, event_types.CLAIM_DELETED, current.state, None)])
        return torn_down
    torn_down = retry.on_deadlock(retry.on_node_locked, work)
    if torn_down:
        # With no live conductor, the first one's provisioning check
        # moves them on.
        try:
            host = rpcapi.pick_conductor(context)
        except exception.NoValidHost:
            return
        for node_id in torn_down:
            rpcapi.continue_provisioning(context, node_id, host)


# Lost machines -------------------------------------------------------------

# What a claim does when a machine of one of its providers is lost
# (the provider's on_lost): bind another to the resource, or go to error.
ON_LOST_REPLACE = 'replace'
ON_LOST_ERROR = 'error'


def lose_machine(conn, node, reason: str) -> None:
    """Take a claim's machine from its claim because it is lost (deleted,
    failed, taken by an external manager), in the caller's transaction:
    the node is released through the binding writer (what the claim set
    taken off, unless its provider keeps it), its allocation stays as
    the claim's lost handle (error, with reason), and the claim, per its
    provider's on_lost, goes back to pending to be given another machine
    (replace, the default) or to error.

    :param node: the node, locked by this transaction, as
        binding_db.lock_nodes() reads it; nothing is done unless it is a
        claim's machine.
    :raises: NodeLocked, ConcurrentUpdate
    """
    if node.claim_uuid is None or node.allocation_id is None:
        return
    held = claims_db.of_allocation(conn, node.allocation_id)
    claim = claims_db.lock(conn, held.claim_id)
    index = held.claim_resource
    resource = (claim.resources[index]
                if index is not None and index < len(claim.resources or ())
                else {})
    provider = claims_db.providers(conn, [resource.get('provider')]).get(
        resource.get('provider'))
    keep = bool(provider is not None and provider.keep_params)
    message = 'Resource %s lost its machine %s: %s' % (index, node.uuid,
                                                       reason)
    policy = (provider.on_lost if provider is not None and provider.on_lost
              else ON_LOST_REPLACE)
    state = claim.state
    if claim.state in (states.CLAIM_BOUND, states.CLAIM_PENDING):
        state = (states.CLAIM_PENDING if policy == ON_LOST_REPLACE
                 else states.CLAIM_ERROR)
    changes = {'state': state}
    if state == states.CLAIM_ERROR:
        changes['last_error'] = message
    lost = claims.event(claim, event_types.CLAIM_HANDLE_LOST, claim.state,
                        state, message, 'warning', changes=changes)
    binding.release(conn, [node], force=True, for_claim=True,
                    keep_params=keep, lost=reason, also=[lost],
                    request_actions=None if keep else _taken_off(
                        resource.get('template') or {}, node))
    claims_db.update(conn, claim.id, changes)


def machine_lost(context, node_id: int, reason: str) -> bool:
    """lose_machine() in a transaction of its own: for whatever finds a
    claim's machine lost (an external manager took it, it failed).

    :returns: whether the node was a claim's machine, and is lost to it.
    :raises: NodeLocked
    """
    def work():
        with db_api.writer_connection(context) as conn:
            nodes = binding_db.lock_nodes(conn, [node_id])
            if not nodes or nodes[0].claim_uuid is None:
                return False
            if nodes[0].reservation:
                raise exception.NodeLocked(node=nodes[0].uuid,
                                           host=nodes[0].reservation)
            lose_machine(conn, nodes[0], reason)
            return True
    return retry.on_deadlock(work)


def lose_failed(context) -> int:
    """Periodic: a claim's machine whose deployment, rescue or cleaning
    failed is lost to its claim (machine_lost()), which gets another or
    goes to error per its provider's on_lost. Never raises.

    :returns: how many machines this call found lost.
    """
    return rounds.run(lambda: claims_db.failed_machines(
        context, states.FAIL_STATE.values(), claims.BATCH),
        lambda node_id: machine_lost(
            context, node_id, 'its provision state failed'),
        'losing failed machines')


def _expire_one(context, claim_id: int) -> bool:
    now = db_api.utcnow()
    with db_api.writer_connection(context) as conn:
        # Read again under its lock: an extension that came first wins.
        current = claims_db.lock(
            conn, claim_id, models.Claim.lifespan_end <= now,
            models.Claim.state != states.CLAIM_EXPIRED)
        if current is None:
            return False
        _release(conn, current, now)
        claims_db.update(conn, claim_id, {'state': states.CLAIM_EXPIRED})
        events.record(conn, [claims.event(
            current, event_types.LIFESPAN_EXPIRED, current.state,
            states.CLAIM_EXPIRED, 'The lifespan of claim %s ended at %s'
            % (current.uuid, claims.iso(current.lifespan_end)))])
        return True


def expire(context, host: str) -> int:
    """Release the machines of claims whose lifespan has ended and make
    them expired: those of this conductor, of no conductor and of dead
    ones (a takeover, as expiry.expire()). Never raises.

    :returns: how many claims this call expired.
    """
    return expiry.expire_each(context, host, claims_db.list_expired,
                                 _expire_one, 'claim')
