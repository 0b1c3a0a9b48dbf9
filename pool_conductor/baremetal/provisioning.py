"""Provision state changes of a node, as Ironic's fake-hardware makes them.

A node has no hardware behind it: a deployment and an undeployment are
recorded, not executed, but they pass through the states a client waits
through. The API records the first state (``deploying``, ``deleting``,
``rescuing``, ``unrescuing``, ``cleaning``) with the target, and casts
the node to a conductor, which moves it on: ``deploying`` becomes
``active``; ``deleting`` tears the node down (releases its instance and
allocation, empties instance_info) and becomes ``cleaning``, which
becomes its target (``available``, or ``manageable`` after a manual
cleaning); ``rescuing`` becomes ``rescue`` and ``unrescuing`` ``active``.
A deployment or cleaning with steps (pool_conductor.baremetal.steps) runs them
first, one per step. Each step is one transaction under the node's row
lock, so of several conductors moving a node on (a cast and a periodic
check) each step is taken once. A node whose cast was lost, or whose
conductor died, is moved on by any conductor's periodic check.
"""
import datetime

from pool_conductor.baremetal import nodes
from pool_conductor.baremetal import steps
from pool_conductor import binding
from pool_conductor import conductors
from pool_conductor.db import api as db_api
from pool_conductor.db import nodes as nodes_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states

# How many nodes in progress one periodic check reads.
BATCH = 500
# The node param that makes the fake provisioning fail a node in the
# state in progress it names.
FAIL_STATE_PARAM = 'fake/fail-state'
# The field of the step a node runs in each state that runs steps.
STEP_FIELDS = {states.CLEANING: 'clean_step', states.DEPLOYING: 'deploy_step'}


def begin(verb: str, now: datetime.datetime, node=None) -> dict:
    """The fields a verb sets: its first state and its target when it
    passes through states in progress, else its result. A node shared
    with an external manager is provided through cleaning, which cannot
    be skipped: another user may have had its hardware."""
    result = states.VERBS[verb][1]
    first = states.FIRST_STATE.get(verb)
    if verb == 'provide' and getattr(node, 'external_manager', None):
        first = states.CLEANING
    return {'provision_state': first or result,
            'target_provision_state': result if first else None,
            'provision_updated_at': now, 'last_error': None}


def request(context, node, values: dict, rpcapi) -> None:
    """Record a verb's fields (begin() and what comes with them) on a
    node; a state in progress is cast to a live conductor to be moved on.

    :param rpcapi: a pool_conductor.rpcapi.ConductorAPI.
    :raises: NoValidHost when the state needs a conductor and none of
        the node's conductor group is alive; NodeLocked, ConcurrentUpdate
    """
    moving = values['provision_state'] in states.IN_PROGRESS
    host = rpcapi.conductor_for(context, node) if moving else None
    retry.on_node_locked(nodes.update, context, node, values)
    if moving:
        rpcapi.continue_provisioning(context, node.id, host)


def _fails(node) -> bool:
    """Whether the fake provisioning fails a node in its state: the one
    its ``fake/fail-state`` param names."""
    return (node.params or {}).get(FAIL_STATE_PARAM) == node.provision_state


def _following(node) -> str | None:
    if node.provision_state in states.ENDS_IN_TARGET:
        return node.target_provision_state or states.NEXT_STATE.get(
            node.provision_state)
    return states.NEXT_STATE.get(node.provision_state)


def _failed(node, now, error: str) -> dict:
    return {'provision_state': states.FAIL_STATE[node.provision_state],
            'target_provision_state': None, 'provision_updated_at': now,
            'last_error': error, **_no_steps(node)}


def _no_steps(node) -> dict:
    """The step fields of a node that leaves its state in progress."""
    values = {}
    if node.provision_steps is not None:
        values['provision_steps'] = None
    for field in STEP_FIELDS.values():
        if getattr(node, field):
            values[field] = {}
    return values


def _next_step(node, now) -> tuple[dict, bool]:
    """The step fields of a node running steps (a manual cleaning, a
    deployment with deploy templates): the running step has run (with
    what it changes) and the next one starts. Whether a step started
    (the node stays in its state).

    :raises: InvalidParameterValue where a step fails
    """
    field = STEP_FIELDS.get(node.provision_state)
    if field is None:
        return {}, False
    current = getattr(node, field) or {}
    values = steps.run(node, current, now) if current else {}
    pending = list(node.provision_steps or ())
    if not pending:
        return values, False
    if field == 'clean_step':
        steps.check_clean_step(pending[0])
    return {**values, field: pending[0], 'provision_steps': pending[1:],
            'provision_updated_at': now}, True


def step(node) -> tuple[dict, bool] | None:
    """A node's next state in progress or its result, and whether this
    step tears it down; None for a node with no state in progress.

    A node running clean or deploy steps runs one step at a time, each
    a step of its own (the node's clean_step or deploy_step shows the
    running one), before it moves on. A node whose ``fake/fail-state``
    param names its state fails: it enters that state's failure
    (deploying becomes deploy failed, rescuing rescue failed...) with a
    last_error that says so, as does a node whose step fails.
    """
    following = _following(node)
    if following is None:
        return None
    now = db_api.utcnow()
    if node.provision_state in states.FAIL_STATE:
        if _fails(node):
            return _failed(node, now, (
                'The fake provisioning failed the node in state %s (node '
                'param %s)' % (node.provision_state, FAIL_STATE_PARAM))), False
        try:
            ran, started = _next_step(node, now)
        except exception.Invalid as exc:
            return _failed(node, now, str(exc)), False
        if started:
            return ran, False
    else:
        ran = {}
    if following == states.AVAILABLE and getattr(node, 'retired', False):
        following = states.RETIRED_CLEANED
    values = {'provision_state': following,
              'target_provision_state': (node.target_provision_state
                                         if following in states.IN_PROGRESS
                                         else None),
              'provision_updated_at': now, **_no_steps(node), **ran}
    tears_down = node.provision_state == states.DELETING
    if tears_down:
        values['instance_info'] = {}
    return values, tears_down


def continue_node(context, node_id: int, actor=None,
                  host: str | None = None) -> int:
    """Move a node on until its provision state is no longer in progress.

    :param actor: who asked for the change in progress (events.Actor);
        its events name them.
    :param host: the conductor moving it on.
    :returns: how many steps were taken here (a node another conductor
        moved on, or one locked, is left).
    :raises: what the database raises
    """
    taken = 0
    claimed = []

    def stepping(node):
        claimed.append(node.external_claim is not None)
        return step(node)
    with events.acting(actor, host):
        while retry.on_deadlock(binding.provision_step, context, node_id,
                                stepping):
            taken += 1
        if taken and claimed[-1]:
            # Cleaned: pool's claim at the node's external manager ends
            # now.
            external.release_idle(context, node_id, host)
    return taken


def continue_nodes(context, node_ids, actors: dict | None = None,
                   host: str | None = None) -> int:
    """continue_node() for each node; never raises.

    :param actors: node id -> who asked for its change (events.Actor).
    :returns: how many nodes were moved on.
    """
    actors = actors or {}
    return rounds.run(lambda: node_ids, lambda node_id: continue_node(
        context, node_id, actors.get(node_id), host),
        'moving on provision states')


def check(context, host: str | None = None) -> int:
    """Periodic task: move on every node in progress of this conductor's
    conductor group that is not locked (those whose cast was lost, or
    whose conductor died); never raises.

    :returns: how many nodes were moved on.
    """
    group = conductors.own_group()
    return rounds.run(lambda: nodes_db.list_in_progress(
        context, states.IN_PROGRESS, BATCH, group),
        lambda node_id: continue_node(context, node_id, host=host),
        'moving on provision states')
