"""What ends by itself: the periodic rounds that end allocations, claims'
machines and windows, and release their nodes through the binding writer.

* Lifespan expiry: an allocation whose ``lifespan_end`` has passed is
  released (``pool.lifespan.expired``, and ``pool.allocation.ended`` for a
  window), its deployed node undeployed; claim_release.expire() runs the same
  round over claims.
* The notice before a window's end (``pool.allocation.before_end``), once
  per end.
* Idle reclaim: a started window whose node saw no deployment is warned at
  half of ``[windows] idle_reclaim_after`` and released when all of it has
  passed.

The rules these rounds apply live below the writer, in
pool_conductor.lifespans (when a lifespan ends) and
pool_conductor.booking.window_policy (bounds, caps, idle and notice
times); this module sits above the writer, so that the rule modules never
call back up into it. Service's periodic tasks call the rounds; every
round never raises.
"""
import datetime

from oslo_log import log

from pool_conductor import allocation_events
from pool_conductor.baremetal import provisioning
from pool_conductor import binding
from pool_conductor.booking import window_policy
from pool_conductor.booking import windows
from pool_conductor.conf import CONF
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import window_policy as policy_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import external
from pool_conductor import lifespans
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states

LOG = log.getLogger(__name__)

# Rows a conductor ends per round and kind.
BATCH = 100
_SECOND = datetime.timedelta(seconds=1)


# Lifespan expiry -------------------------------------------------------

def expire(context, host: str) -> int:
    """Release the allocations whose lifespan has ended: those of this
    conductor, of no conductor, and of dead ones (a takeover, so that a
    dead conductor does not stop expiry). Never raises.

    :returns: how many allocations this call released.
    """
    return expire_each(context, host, allocations_db.list_expired,
                       _expire_one, 'allocation')


def expire_each(context, host: str, list_expired, expire_one,
                kind: str) -> int:
    """One expiry round over rows of a kind (allocations, claims): those
    list_expired(context, now, host, hosts, limit) finds past their end
    among the rows this conductor serves, each released by
    expire_one(context, id) (with a deadlock retry), which says whether
    it released it. Never raises.

    :returns: how many rows this round released.
    """
    def expire(row_id) -> bool:
        if not retry.on_deadlock(expire_one, context, row_id):
            return False
        LOG.info('%s %s reached the end of its lifespan and was released',
                 kind.capitalize(), row_id)
        return True
    return rounds.run(lambda: list_expired(
        context, db_api.utcnow(), host, rounds.hosts_to_serve(context, host),
        BATCH), expire, 'releasing expired %ss' % kind)


def _expire_one(context, alloc_id: int) -> bool:
    """Release one expired allocation and its node, in one transaction.

    The node is locked before the allocation (the lock order of every
    writer), and the allocation's end is read again under its lock, so
    that an extension or a deletion that came first wins.
    """
    now = db_api.utcnow()
    with db_api.writer_connection(context) as conn:
        found = allocations_db.expired(conn, alloc_id, now)
        if found is None:
            return False
        nodes = (binding_db.lock_nodes(conn, [found.node_id])
                 if found.node_id is not None else [])
        if allocations_db.expired(conn, alloc_id, now, lock=True) is None:
            return False
        alloc = allocations_db.by_id(conn, alloc_id)
        expired = events.Event(
            'allocation', alloc.uuid, event_types.LIFESPAN_EXPIRED,
            object_name=alloc.name, prev_state=alloc.state,
            message='The lifespan of allocation %s ended at %s' % (
                alloc.uuid, lifespans.iso(alloc.lifespan_end)),
            owner=alloc.owner, payload=payloads.allocation(alloc))
        # A window's end is a transition of its own.
        also = [expired] + ([window_policy.ended(alloc)]
                            if alloc.start_at is not None else [])
        if nodes and nodes[0].allocation_id == alloc_id:
            binding.release(conn, nodes, force=True,
                            values=torn_down(nodes[0], now), also=also)
        else:
            windows.drop(conn, [alloc_id])
            allocations_db.delete(conn, alloc_id)
            events.record(conn, also + [allocation_events.deleted(alloc)])
        return True


def torn_down(node, now: datetime.datetime) -> dict:
    """The fields an expiry changes besides the binding: a deployed node
    is undeployed (deleting, then moved on to available by a conductor's
    provisioning check, as the provision state API undeploys), for the
    end of a lifespan is a hard end."""
    if node.provision_state not in states.VERBS['undeploy'][0]:
        return {}
    return {**provisioning.begin('undeploy', now), 'instance_info': {}}


# Windows near their end ------------------------------------------------

def notify_before_end(context) -> int:
    """Emit pool.allocation.before_end for each started window whose end
    is within [windows] before_end, once per end (any conductor: a
    compare-and-swap records it). Never raises.

    :returns: how many this call emitted.
    """
    ahead = CONF.windows.before_end
    if not ahead:
        return 0

    def one(row) -> bool:
        with db_api.writer_connection(context) as conn:
            if not policy_db.mark_end_notified(conn, row.id,
                                               row.lifespan_end):
                return False
            alloc = allocations_db.by_id(conn, row.id)
            events.record(conn, [events.Event(
                'allocation', row.uuid, event_types.ALLOCATION_BEFORE_END,
                object_name=row.name, state=row.state, owner=row.owner,
                message='The window of allocation %s ends at %s.'
                        % (row.uuid, windows.iso(row.lifespan_end)),
                payload=payloads.allocation(alloc))])
            return True

    def ending() -> list:
        now = db_api.utcnow()
        with db_api.reader(context) as session:
            return policy_db.ending(session.connection(), now,
                                    now + ahead * _SECOND, BATCH)
    return rounds.run(ending, lambda row: retry.on_deadlock(one, row),
                      'announcing the end of windows', _allocation)


# Idle reclaim ----------------------------------------------------------

def reclaim_idle(context) -> tuple[int, int]:
    """Warn (pool.allocation.idle_warning) the started windows whose node
    saw no deployment for half of [windows] idle_reclaim_after since
    their start, and release (pool.allocation.reclaimed) those for which
    all of it passed. Never raises.

    :returns: (warned, reclaimed) by this call.
    """
    after = CONF.windows.idle_reclaim_after
    if not after:
        return 0, 0
    now = db_api.utcnow()
    warned = 0

    def idle() -> list:
        with db_api.reader(context) as session:
            return policy_db.idle_candidates(
                session.connection(), now - after / 2 * _SECOND,
                now - after * _SECOND, BATCH)

    def handle(row) -> bool:
        nonlocal warned
        if window_policy.deployed(row):
            return False
        if row.start_at + after * _SECOND > now:
            if row.idle_warned_at is None:
                warned += retry.on_deadlock(_warn, context, row, now)
            return False
        node = retry.on_deadlock(_reclaim, context, row.id, now)
        if node is None:
            return False
        LOG.info('Allocation %s was reclaimed: its node saw no deployment',
                 row.uuid)
        if node.external_claim is not None:
            external.release_idle(context, node.id)
        return True
    reclaimed = rounds.run(idle, handle, 'reclaiming idle windows',
                           _allocation)
    return warned, reclaimed


def _allocation(row) -> str:
    """How a round's log names the allocation of a row."""
    return 'allocation %s' % row.uuid


def _warn(context, row, now: datetime.datetime) -> bool:
    after = CONF.windows.idle_reclaim_after
    with db_api.writer_connection(context) as conn:
        if not policy_db.mark_idle_warned(conn, row.id, now):
            return False
        alloc = allocations_db.by_id(conn, row.id)
        events.record(conn, [events.Event(
            'allocation', row.uuid, event_types.ALLOCATION_IDLE_WARNING,
            object_name=row.name, state=row.state, owner=row.owner,
            level='warning',
            message='Node %s of allocation %s saw no deployment since the '
                    'window started at %s; the allocation is released at '
                    '%s unless the node is deployed.'
                    % (row.node_uuid, row.uuid, windows.iso(row.start_at),
                       windows.iso(row.start_at + after * _SECOND)),
            payload=payloads.allocation(alloc))])
        return True


def _reclaim(context, alloc_id: int, now: datetime.datetime):
    """Release an idle window and its node, its node's lock first, the
    window read again under it (a deployment that came first wins).

    :returns: the node as locked, None when it was not released.
    """
    after = CONF.windows.idle_reclaim_after
    with db_api.writer_connection(context) as conn:
        row = policy_db.started_window(conn, alloc_id)
        if row is None:
            return None
        nodes = binding_db.lock_nodes(conn, [row.node_id])
        row = policy_db.started_window(conn, alloc_id)
        if (row is None or not nodes or nodes[0].allocation_id != alloc_id
                or window_policy.deployed(row)
                or row.start_at + after * _SECOND > now):
            return None
        alloc = allocations_db.by_id(conn, alloc_id)
        binding.release(conn, nodes, also=[events.Event(
            'allocation', alloc.uuid, event_types.ALLOCATION_RECLAIMED,
            object_name=alloc.name, prev_state=alloc.state,
            owner=alloc.owner, level='warning',
            message='Allocation %s was released: its node %s saw no '
                    'deployment in the %s since the window started at %s '
                    '([windows] idle_reclaim_after).'
                    % (alloc.uuid, row.node_uuid, window_policy.span(after),
                       windows.iso(row.start_at)),
            payload=payloads.allocation(alloc))])
        return nodes[0]
