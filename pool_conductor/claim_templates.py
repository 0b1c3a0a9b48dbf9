"""Claims' changes through the API: a new lifespan_end, and new templates
of bound resources applied to their machines.

The handler checks a change first: each new template against its
provider's update_filters (providers.template_changes()), a new end
against the claim's providers' minimum lifespan policy (changed_end()).
update() then locks the claim, refuses it if it changed since the
request read it, and in one transaction applies what the templates
changed (params, profiles, workflow: providers.node_actions()) to the
claim's machines, each with a compare-and-swap on its generation (lock
order: the claim, then its nodes by id), moves the end of the claim's
allocations with the claim's, and records the events. The binding of a
node to its allocation is not touched here: only pool_conductor.binding
writes it.
"""
import datetime

from pool_conductor import claims
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import claims as claims_db
from pool_conductor.db import providers as providers_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import lifecycle
from pool_conductor import lifespans
from pool_conductor import node_events
from pool_conductor import providers as providers_rules
from pool_conductor import retry
from pool_conductor import states


def _policy(context, claim) -> dict:
    found = providers_db.get_many(context, {
        r['provider'] for r in claim.resources})
    return claims.minimum_policy(p.lifespan for p in found.values())


def changed_end(context, claim, requested: datetime.datetime | None
                ) -> datetime.datetime | None:
    """A new lifespan_end of a claim: within the limits of its providers'
    minimum policy, counted from the claim's creation.

    :raises: InvalidParameterValue
    """
    policy = _policy(context, claim)
    now = db_api.utcnow()
    if requested is None:
        if not lifespans.unlimited(policy):
            raise exception.InvalidParameterValue(
                err='lifespan_end cannot be removed: the lifespan of the '
                    'claim\'s providers has a maximum; the latest end '
                    'allowed is %s.' % lifespans.latest_end(
                        policy, claim.created_at, now).isoformat())
        return None
    return claims.whole_second(lifespans.end(
        policy, claim.created_at, now, requested, claims.HOLDER))


def _node_values(node, actions: dict) -> dict:
    values = lifecycle.apply_actions(node, actions)
    if 'workflow' in actions and not actions['workflow']:
        values.update(workflow=None, stage=None, runnable=True)
    return values


def update(context, claim, values: dict) -> None:
    """Change a claim's lifespan_end and the templates of its bound
    resources (applied to their machines: params, profiles, workflow), in
    one transaction.

    :param values: lifespan_end (resolved by changed_end()), resources
        (already checked by providers.template_changes()).
    :raises: ClaimNotFound, InvalidState for templates of a claim that is
        not bound, ConcurrentUpdate, NodeLocked when a conductor still
        holds a machine locked after the retries
    """
    def work():
        with db_api.writer_connection(context) as conn:
            current = claims_db.lock(conn, claim.id)
            if current is None:
                raise exception.ClaimNotFound(claim=claim.uuid)
            if (current.resources != claim.resources
                    or current.state != claim.state):
                raise exception.ConcurrentUpdate(what='Claim %s'
                                                 % claim.uuid)
            changed = []
            if 'resources' in values:
                changed += _apply_templates(conn, current,
                                            values['resources'])
                changed.append(claims.event(
                    current, event_types.CLAIM_UPDATE_END, None, None,
                    'Changed: resources', changes=values))
            if ('lifespan_end' in values
                    and values['lifespan_end'] != current.lifespan_end):
                claims_db.set_allocations_end(conn, claim.id,
                                              values['lifespan_end'])
                changed.append(claims.event(
                    current, event_types.LIFESPAN_EXTENDED,
                    claims.iso(current.lifespan_end),
                    claims.iso(values['lifespan_end']),
                    'lifespan_end changed', changes=values))
            claims_db.update(conn, claim.id, values)
            events.record(conn, changed)
    retry.on_deadlock(retry.on_node_locked, work)


def check_changeable(claim) -> None:
    """:raises: InvalidState unless the claim's templates may change (it
    is bound)"""
    if claim.state != states.CLAIM_BOUND:
        raise exception.InvalidState(
            err='The templates of claim %s cannot change: it is %s, not '
                'bound.' % (claim.uuid, claim.state))


def _apply_templates(conn, claim, resources: list) -> list[events.Event]:
    """Apply changed templates to the machines of a bound claim.

    :returns: the events of the nodes changed.
    """
    check_changeable(claim)
    allocs = {a.claim_resource: a
              for a in claims_db.allocations_of(conn, claim.id)}
    changes = {}
    for i, (old, new) in enumerate(zip(claim.resources, resources,
                                       strict=True)):
        if old['template'] != new['template'] and i in allocs:
            changes[allocs[i].node_id] = providers_rules.node_actions(
                old['template'], new['template'])
    found = []
    for node in binding_db.lock_nodes(conn, changes):
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid, host=node.reservation)
        values = _node_values(node, changes[node.id])
        if not claims_db.change_node(conn, node, values):
            raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)
        found += node_events.changed(
            node, values, 'Template of claim %s changed' % claim.uuid)
    return found
