"""The conductors' part in workflows: who drives which pool node, and how."""
from oslo_log import log

from pool_conductor import binding
from pool_conductor import conductors
from pool_conductor.db import api as db_api
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import workflows as workflows_db
from pool_conductor import events
from pool_conductor import provisioners
from pool_conductor import rounds

LOG = log.getLogger(__name__)

# How many nodes one transaction takes.
TAKE_BATCH = 100


def take_nodes(context, host: str) -> int:
    """Drive the waiting nodes (Building, Destroying, held) that no live
    conductor drives: new ones, and those of dead conductors.

    Nothing is taken while this conductor's own heartbeat is stale: it
    may be the one the others consider dead.

    :returns: how many nodes were taken.
    """
    alive = rounds.live_conductors(context, host)
    if alive is None:
        return 0
    taken = 0
    while True:
        with db_api.writer(context) as session:
            rows = workflows_db.take_nodes(context, host, alive, TAKE_BATCH)
            events.record(session, [
                e for uuid, old_host in rows
                for e in conductors.takeover('node', uuid, old_host, host)],
                conductor=host)
        for uuid, old_host in rows:
            if old_host is not None:
                LOG.info('Took over node %(node)s from dead conductor '
                         '%(old)s', {'node': uuid, 'old': old_host})
        taken += len(rows)
        if len(rows) < TAKE_BATCH:
            return taken


def advance_nodes(context, host: str) -> int:
    """Have the provisioner move on the nodes this conductor drives.

    A node the provisioner fails on unexpectedly is held with the error
    as its last_error.

    :returns: how many nodes changed.
    :raises: ProvisionerNotFound, and what reading the nodes raises.
    """
    provisioner = provisioners.get_provisioner()
    moved = 0
    for node in workflows_db.list_driven_nodes(context, host):
        if not provisioner.due(node):
            continue
        try:
            moved += _advance_locked(context, provisioner, node, host)
        except Exception as exc:
            if db_api.is_unavailable(exc):
                LOG.warning('Database unreachable while moving node '
                            '%(node)s on; the next round tries again: '
                            '%(exc)s', {'node': node.uuid, 'exc': exc})
                break
            LOG.exception('The provisioner failed on node %s', node.uuid)
            try:
                binding.report_driven(context, node, host, {
                    'runnable': False,
                    'last_error': 'Unexpected error of the provisioner: %s'
                                  % exc})
            except Exception:
                LOG.exception('Could not record the failure on node %s',
                              node.uuid)
    return moved


def _advance_locked(context, provisioner, node, host: str) -> bool:
    """Have the provisioner move a node on while this conductor holds the
    node's lock, so that nothing else changes the node meanwhile; a node
    locked by another is left for the next round.

    :raises: what the provisioner raises (the lock is released).
    """
    if not nodes_db.reserve(context, node.id, host):
        return False
    try:
        return bool(provisioner.advance(context, node, host))
    finally:
        try:
            nodes_db.unreserve(context, node.id, host)
        except Exception as exc:
            # The lock stays until this conductor restarts or is declared
            # dead; then it is released.
            LOG.warning('Could not release the lock of node %(node)s: '
                        '%(exc)s', {'node': node.uuid, 'exc': exc})


def time_out_waits(context) -> int:
    """Record the allocated nodes waiting for a stage past their
    deadline as timed out (binding.time_out()), every one of them.

    :returns: how many were.
    """
    total = 0
    while True:
        count = binding.time_out(context, TAKE_BATCH)
        total += count
        if count < TAKE_BATCH:
            return total


def check_workflows(context, host: str) -> None:
    """Time out waits past their deadline, claim nodes to drive and move
    them on, when a node waits at all (one read otherwise); never
    raises."""

    def check() -> None:
        if workflows_db.any_waiting(context):
            time_out_waits(context)
            take_nodes(context, host)
            advance_nodes(context, host)
    rounds.once(check, 'checking workflows on %s' % host, None)
