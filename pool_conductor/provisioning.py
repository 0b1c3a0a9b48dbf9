"""Provision state changes of a node, as Ironic's fake-hardware makes them.

A node has no hardware behind it: a deployment and an undeployment are
recorded, not executed, but they pass through the states a client waits
through. The API records the first state (``deploying``, ``deleting``)
with the target, and casts the node to a conductor, which moves it on:
``deploying`` becomes ``active``; ``deleting`` tears the node down
(releases its instance and allocation, empties instance_info) and becomes
``cleaning``, which becomes ``available``. Each step is one transaction
under the node's row lock, so of several conductors moving a node on (a
cast and a periodic check) each step is taken once. A node whose cast was
lost, or whose conductor died, is moved on by any conductor's periodic
check.
"""
import datetime

from pool_conductor import binding
from pool_conductor.db import api as db_api
from pool_conductor.db import nodes as nodes_db
from pool_conductor import events
from pool_conductor import external
from pool_conductor import nodes
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states

# How many nodes in progress one periodic check reads.
BATCH = 500


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
    :raises: NoValidHost when the state needs a conductor and none is
        alive; NodeLocked, ConcurrentUpdate
    """
    moving = values['provision_state'] in states.IN_PROGRESS
    host = rpcapi.pick_conductor(context) if moving else None
    retry.on_node_locked(nodes.update, context, node, values)
    if moving:
        rpcapi.continue_provisioning(context, node.id, host)


def step(node) -> tuple[dict, bool] | None:
    """A node's next state in progress or its result, and whether this
    step tears it down; None for a node with no state in progress."""
    following = states.NEXT_STATE.get(node.provision_state)
    if following is None:
        return None
    values = {'provision_state': following,
              'target_provision_state': (node.target_provision_state
                                         if following in states.IN_PROGRESS
                                         else None),
              'provision_updated_at': db_api.utcnow()}
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
    """Periodic task: move on every node in progress that is not locked
    (those whose cast was lost, or whose conductor died); never raises.

    :returns: how many nodes were moved on.
    """
    return rounds.run(lambda: nodes_db.list_in_progress(
        context, states.IN_PROGRESS, BATCH), lambda node_id: continue_node(
        context, node_id, host=host), 'moving on provision states')
