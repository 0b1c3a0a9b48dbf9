"""Hardware shared with external managers: pool's claim there while a
node is in use, and the reconciler that follows what the other user does.

A node names its manager and its reference there (external_manager,
external_ref). The allocation worker acquires the hardware before the
allocation becomes active (acquire_for_allocation(), in its transaction,
under the node's row lock) and pool releases it once the node is idle
again: after cleaning, or at once when it was never deployed
(release_idle()). Each round of a conductor's reconciler observes every
node of the managers it has affinity for with one batched call per
manager, and pool_conductor.external_observations.decide() says what
each observation changes; faults, never the maintenance reason, tell the
reconciler's holds from an operator's maintenance, which it never
touches.
"""
import dataclasses

from oslo_log import log

from pool_conductor.booking import healing
from pool_conductor import conductors
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import external as external_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import external_managers
from pool_conductor.external_managers import base
from pool_conductor import external_observations
from pool_conductor import payloads
from pool_conductor import rounds
from pool_conductor import states

LOG = log.getLogger(__name__)

# The provision states a node may be given a manager or a reference in.
EDITABLE_STATES = (states.ENROLL, states.MANAGEABLE, states.AVAILABLE)


def manager_of(conn, name: str):
    """A manager's row.

    :raises: ObjectNotFound
    """
    row = external_db.get_manager(conn, name)
    if row is None:
        raise exception.ObjectNotFound(kind='ExternalManager', name=name)
    return row


def check_node_values(context, values: dict, node=None) -> None:
    """A node's manager and reference may be given on creation, and
    changed while it is enrolled, manageable, or available without a
    consumer and without a claim; a manager needs a reference.

    :raises: ObjectNotFound for a manager, InvalidParameterValue,
        NodeInWrongState
    """
    if not {'external_manager', 'external_ref'} & values.keys():
        return
    manager = values.get('external_manager',
                       getattr(node, 'external_manager', None))
    ref = values.get('external_ref', getattr(node, 'external_ref', None))
    if manager and not ref:
        raise exception.InvalidParameterValue(
            err='A node shared with external manager %s needs its '
                'external_ref (its id there).' % manager)
    if node is not None and (
            node.provision_state not in EDITABLE_STATES
            or node.instance_uuid or node.external_claim):
        raise exception.NodeInWrongState(
            err='Cannot change the external manager or reference of node '
                '%s while it is in use (provision state %s%s).' % (
                    node.uuid, node.provision_state,
                    ', claimed there' if node.external_claim else ''))
    if manager:
        with db_api.reader(context) as session:
            manager_of(session.connection(), manager)


# Events -------------------------------------------------------------------

def _event(node, action: str, level: str, message: str,
           prev_state=None, state=None, values=None) -> events.Event:
    return events.Event(
        'node', node.uuid, event_types.external_node(action),
        object_name=node.name, level=level, message=message,
        prev_state=prev_state, state=state,
        payload=payloads.node(node, values or {}),
        owner=node.owner, lessee=node.lessee)


def _manager_event(name: str, action: str, level: str, message: str,
                   **more) -> events.Event:
    return events.Event(
        'external_manager', events.name_uuid('external_manager', name),
        event_types.external_manager(action), object_name=name,
        level=level, message=message,
        payload=payloads.pool('ExternalManagerSyncPayload', '1.0',
                              {'name': name, **more}))


def _driver_call(manager, call, *args):
    """A driver call on a manager; any failure is an
    ExternalManagerError naming the manager, its secrets masked."""
    driver = external_managers.get_driver(manager.driver)
    try:
        return call(driver, manager.parameters or {}, *args)
    except exception.ExternalTaken:
        raise
    except exception.ExternalManagerError as exc:
        raise exception.ExternalManagerError(
            manager=manager.name, reason=str(exc)) from exc
    except Exception as exc:
        LOG.exception('External manager %s failed', manager.name)
        raise exception.ExternalManagerError(
            manager=manager.name, reason=str(exc)) from exc


# The allocation path --------------------------------------------------------

def _write(conn, node, values: dict, extra: list, host: str | None
           ) -> bool:
    """Write a node's values (compare-and-swap on its generation) with
    the events of the change and the caller's."""
    if not external_db.update_node(conn, node.id, node.generation, values):
        return False
    # A node held for its manager gives up the windows it holds.
    healing.node_changed(conn, [node], {node.id: values}, host=host,
                         also=extra, booked_known=False)
    return True


def hold_taken(conn, node, host: str | None, reason: str) -> bool:
    """Hold a node the other user took (fault external hold)."""
    now = db_api.utcnow()
    values = external_observations.hold_values(
        node, states.FAULT_EXTERNAL_HOLD, states.EXTERNAL_THEIRS, reason,
        now)
    return _write(conn, node, values, [_event(
        node, 'taken', 'warning', reason, node.external_state,
        states.EXTERNAL_THEIRS, values)], host)


def skip_candidate(node) -> bool:
    """Whether an allocation passes over a node: its manager's state is
    not known ([external_manager] unknown_blocks_allocation)."""
    return (node.external_manager is not None
            and node.external_state == states.EXTERNAL_UNKNOWN
            and CONF.external_manager.unknown_blocks_allocation)


def acquire_for_allocation(conn, node, key: str) -> dict:
    """Acquire a node's hardware from its manager for an allocation,
    under the node's row lock in the allocation's transaction: a claim
    pool left there before (a crash between acquiring and committing)
    is released first.

    :param key: the idempotency key (the allocation's UUID).
    :returns: the node's values that record the claim and the spec
        applied (instance_info's external_spec), for the binding writer
        to write with the grant.
    :raises: ExternalTaken, ExternalManagerError
    """
    manager = manager_of(conn, node.external_manager)
    spec = external_db.node_spec(conn, node.id,
                                 CONF.external_manager.spec_property) or {}
    ref = node.external_ref
    if node.external_claim and node.external_claim != key:
        _driver_call(manager, lambda d, p: d.release(p, ref,
                                                     node.external_claim))
    try:
        token = _driver_call(manager, lambda d, p: d.acquire(p, ref, key,
                                                             spec))
    except exception.ExternalTaken:
        seen = _driver_call(manager, lambda d, p: d.observe(p, [ref]))
        stale = seen.get(ref)
        if stale is None or stale.owner != base.POOL or stale.token == key:
            raise
        # The row lock says no claim of pool's is live on the node.
        _driver_call(manager, lambda d, p: d.release(p, ref, stale.token))
        token = _driver_call(manager, lambda d, p: d.acquire(p, ref, key,
                                                             spec))
    return {'external_claim': token, 'external_state': states.EXTERNAL_OURS,
            'external_state_since': db_api.utcnow(),
            'external_free_streak': 0,
            'instance_info': {'external_spec': spec}}


def acquired_event(node, values: dict) -> events.Event:
    return _event(node, 'acquire.success', 'info',
                  'Acquired %s from external manager %s (claim %s)' % (
                      node.external_ref, node.external_manager,
                      values['external_claim']),
                  node.external_state, states.EXTERNAL_OURS)


# Releasing ----------------------------------------------------------------

def _idle(node) -> bool:
    return (node.external_claim is not None and node.allocation_id is None
            and node.instance_uuid is None
            and node.provision_state not in external_observations.BUSY_STATES
            and node.provision_state != states.ACTIVE)


def release_idle(context, node_id: int, host: str | None = None,
                 token: str | None = None) -> bool:
    """Release pool's claim on a node's hardware once the node is idle
    (no consumer, not deploying, deleting nor cleaning), or a claim of
    pool's the node does not record (token: left by a crash between
    acquiring and committing). Never raises.

    :returns: whether a claim was released.
    """
    return rounds.once(lambda: _release(context, node_id, host, token),
                       'releasing the external claim of node %s (the '
                       'reconciler tries again)' % node_id, False)


def _release(context, node_id: int, host: str | None,
             token: str | None) -> bool:
    with db_api.writer_connection(context) as conn:
        node = binding_db.lock_node(conn, node_id, external_db.NODE_COLUMNS)
        if node is None or node.external_manager is None:
            return False
        stale = token is not None and token != node.external_claim
        if not stale and not _idle(node):
            return False
        if stale and node.allocation_id is not None and (
                node.external_claim is None):
            # A claim being recorded by an allocation: not stale.
            return False
        manager = manager_of(conn, node.external_manager)
        released = token if stale else node.external_claim
        _driver_call(manager, lambda d, p: d.release(
            p, node.external_ref, released))
        values = {} if stale else {
            'external_claim': None,
            'external_state': states.EXTERNAL_FREE,
            'external_state_since': db_api.utcnow()}
        event = _event(node, 'release.success', 'info',
                       'Released %sclaim %s on %s at external manager '
                       '%s' % ('the stale ' if stale else '', released,
                               node.external_ref,
                               node.external_manager),
                       node.external_state,
                       values.get('external_state',
                                  node.external_state))
        if values:
            return _write(conn, node, values, [event], host)
        events.record(conn, [event], conductor=host)
        return True


# The reconciler -------------------------------------------------------------

@dataclasses.dataclass
class Round:
    """What one round did to one manager."""

    observed: int = 0
    calls: int = 0
    changed: int = 0
    released: int = 0
    error: str | None = None
    # Nodes freed by the other user, now cleaning: to move on.
    provided: list = dataclasses.field(default_factory=list)


class Reconciler:
    """One conductor's reconciler: takes the managers no live conductor
    reconciles, and runs a round of each of its own whose interval has
    passed."""

    def __init__(self, host: str):
        self.host = host

    def check(self, context, force: bool = False) -> dict[str, Round]:
        """One pass over the managers; never raises.

        :param force: run every manager of this conductor's now.
        :returns: manager name -> its round.
        """
        try:
            alive = rounds.live_conductors(context, self.host)
            managers = external_db.list_managers(context)
        except Exception as exc:
            LOG.warning('Listing the external managers on %s failed: %s',
                        self.host, exc)
            return {}
        done = {}
        now = db_api.utcnow()
        for manager in managers:
            if not manager.enabled:
                continue
            owner = manager.conductor_affinity
            try:
                # A manager taken over has a round at once.
                now_due = force
                if owner != self.host:
                    if alive is None or owner in alive:
                        continue
                    if not self._take(context, manager.name, owner):
                        continue
                    now_due = True
                interval = (manager.sync_interval
                            if manager.sync_interval is not None
                            else CONF.external_manager.sync_interval)
                if not now_due and manager.last_sync_at is not None and (
                        now - manager.last_sync_at).total_seconds() < (
                        interval * 0.9):
                    continue
                done[manager.name] = self.reconcile(context, manager)
            except Exception:
                LOG.exception('Reconciling external manager %s failed',
                              manager.name)
        return done

    def _take(self, context, name: str, owner: str | None) -> bool:
        with db_api.writer_connection(context) as conn:
            if not external_db.take_manager(conn, name, owner, self.host):
                return False
            events.record(conn, conductors.takeover(
                'external_manager', name, owner, self.host),
                conductor=self.host)
            return True

    def reconcile(self, context, manager) -> Round:
        """One round of a manager: its nodes page by page, each page
        observed with one call, then what changed written node by node.

        :raises: database errors
        """
        done = Round()
        batch = CONF.external_manager.observe_batch_size
        after = 0
        failed = None
        while True:
            nodes = external_db.list_nodes(context, manager.name, after,
                                           batch)
            if not nodes:
                break
            after = nodes[-1].id
            try:
                done.calls += 1
                refs = [n.external_ref for n in nodes]
                seen = _driver_call(manager,
                                    lambda d, p, refs=refs: d.observe(p,
                                                                      refs))
            except exception.ExternalManagerError as exc:
                failed = str(exc)
                break
            done.observed += len(nodes)
            now = db_api.utcnow()
            for node in nodes:
                observation = seen.get(node.external_ref)
                if observation is None:
                    continue
                decision = external_observations.decide(
                    node, observation, now,
                                  CONF.external_manager.free_confirmations,
                                  CONF.external_manager.gone_grace)
                if decision is None:
                    if _idle(node) and observation.owner == base.POOL:
                        done.released += release_idle(context, node.id,
                                                      self.host)
                    continue
                written = self._apply(context, node, decision)
                done.changed += written
                if written and decision.provide:
                    done.provided.append(node.id)
                if decision.release:
                    done.released += release_idle(
                        context, node.id, self.host, decision.release)
        self._finish(context, manager, failed, done)
        return done

    def _apply(self, context, node,
               decision: external_observations.Decision) -> bool:
        """Write a decision on a node unless the node changed since it
        was read or another transaction holds it."""
        if not decision.values:
            return False
        with db_api.writer_connection(context) as conn:
            current = binding_db.lock_node(conn, node.id,
                                           external_db.NODE_COLUMNS)
            if current is None or current.generation != node.generation:
                return False
            extra = []
            if decision.action:
                extra.append(_event(node, decision.action, decision.level,
                                    decision.message, node.external_state,
                                    decision.values.get(
                                        'external_state'),
                                    decision.values))
            return _write(conn, node, decision.values, extra, self.host)

    def _finish(self, context, manager, failed: str | None,
                done: Round) -> None:
        """Record the round on the manager: a failure adds to its error
        streak, and past [external_manager] unknown_threshold its nodes'
        state is unknown; nothing else of them changes."""
        now = db_api.utcnow()
        done.error = failed
        with db_api.writer_connection(context) as conn:
            if failed is None:
                if not manager.error_streak and manager.last_error is None:
                    external_db.set_sync(conn, manager.name, self.host,
                                         {'last_sync_at': now})
                    return
                external_db.set_sync(conn, manager.name, self.host, {
                    'last_sync_at': now, 'last_error': None,
                    'error_streak': 0})
                events.record(conn, [_manager_event(
                    manager.name, 'sync.success', 'info',
                    'External manager %s answers again' % manager.name,
                    observed=done.observed)], conductor=self.host)
                return
            streak = (manager.error_streak or 0) + 1
            external_db.set_sync(conn, manager.name, self.host, {
                'last_sync_at': now, 'last_error': failed,
                'error_streak': streak})
            found = [_manager_event(
                manager.name, 'sync.error', 'error', failed,
                error_streak=streak)]
            if streak >= CONF.external_manager.unknown_threshold:
                for node in external_db.mark_unknown(conn, manager.name,
                                                     now):
                    found.append(_event(
                        node, 'unknown', 'warning',
                        'External manager %s has not answered for %d '
                        'rounds' % (manager.name, streak),
                        node.external_state, states.EXTERNAL_UNKNOWN,
                        {'external_state': states.EXTERNAL_UNKNOWN}))
            events.record(conn, found, conductor=self.host)
        LOG.warning('Observing external manager %(name)s failed '
                    '(%(streak)d in a row): %(err)s',
                    {'name': manager.name, 'streak': streak, 'err': failed})


def status(context, name: str) -> dict:
    """A manager's nodes by external state, and its last round.

    :raises: ObjectNotFound
    """
    manager = pools_db.get(context, models.ExternalManager, name)
    counts = dict.fromkeys(states.EXTERNAL_STATES, 0)
    for state, count in external_db.node_state_counts(context,
                                                       name).items():
        counts[state or states.EXTERNAL_UNKNOWN] = (
            counts.get(state or states.EXTERNAL_UNKNOWN, 0) + count)
    return {'name': name, 'states': counts,
            'last_sync_at': manager.last_sync_at,
            'last_error': manager.last_error,
            'error_streak': manager.error_streak,
            'conductor': manager.conductor_affinity}
