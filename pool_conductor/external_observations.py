"""What an observation of shared hardware at its external manager
changes of its node: the reconciler's rules, pure.

pool_conductor.external's reconciler observes the nodes of a manager and
asks decide() what each observation changes; it writes what the Decision
says. Faults, never the maintenance reason, tell the reconciler's holds
(external hold, external gone, external conflict) from an operator's
maintenance, which only ever has its observed state kept.
"""
import dataclasses
import datetime

from pool_conductor.external_managers import base
from pool_conductor import states

# Nodes whose hardware is pool's to clean or deploy right now.
BUSY_STATES = states.IN_PROGRESS


def hold_values(node, fault: str, state: str, reason: str, now) -> dict:
    """What holding a node for its manager changes: maintenance with the
    fault, out of the available nodes (manageable) unless a consumer
    has it."""
    values = {'maintenance': True, 'fault': fault,
              'maintenance_reason': reason, 'external_state': state,
              'external_state_since': now, 'external_free_streak': 0}
    if not node.instance_uuid and node.provision_state in (
            (states.AVAILABLE,) + BUSY_STATES):
        values.update(provision_state=states.MANAGEABLE,
                      target_provision_state=None,
                      provision_updated_at=now)
    return values


@dataclasses.dataclass(frozen=True)
class Decision:
    """What an observation changes of a node: its values, the events'
    action, level and message; release: a stale claim of pool's to
    release; provide: the node goes through cleaning to available."""

    values: dict
    action: str | None = None
    level: str = 'info'
    message: str | None = None
    release: str | None = None
    provide: bool = False


def observed_state(node, seen: base.Observation) -> str:
    """A node's external state from an observation."""
    if seen.owner == base.NONE:
        return states.EXTERNAL_FREE
    if seen.owner == base.POOL:
        return (states.EXTERNAL_OURS if seen.token == node.external_claim
                else states.EXTERNAL_FREE)
    if seen.owner == base.OTHER:
        return states.EXTERNAL_THEIRS
    return states.EXTERNAL_GONE


def _operator_maintenance(node) -> bool:
    return bool(node.maintenance) and (
        node.fault not in states.EXTERNAL_FAULTS)


@dataclasses.dataclass(frozen=True)
class _Reading:
    """An observation read against its node (outside an operator's
    maintenance): the state it shows and since when, a stale claim of
    pool's to release, whether the reconciler holds the node and whether
    a consumer uses it."""

    state: str
    since: datetime.datetime
    stale: str | None
    held: bool
    in_use: bool

    @property
    def values(self) -> dict:
        return {'external_state': self.state,
                'external_state_since': self.since}


def decide(node, seen: base.Observation, now: datetime.datetime,
           free_confirmations: int, gone_grace: int) -> Decision | None:
    """What an observation of a node's hardware changes; None: nothing.
    Pure: the reconciler writes what it says."""
    state = observed_state(node, seen)
    stale = (seen.token if seen.owner == base.POOL
             and seen.token != node.external_claim else None)
    if _operator_maintenance(node):
        # The operator's maintenance: only the observed state is kept.
        if state != node.external_state:
            return Decision({'external_state': state,
                             'external_state_since': now}, release=stale)
        return Decision({}, release=stale) if stale else None
    read = _Reading(
        state, node.external_state_since if state == node.external_state
        else now, stale,
        node.fault in (states.FAULT_EXTERNAL_HOLD, states.FAULT_EXTERNAL_GONE),
        node.instance_uuid is not None
        or node.provision_state == states.ACTIVE)
    if state == states.EXTERNAL_GONE:
        return _gone(node, read, now, gone_grace)
    if state == states.EXTERNAL_THEIRS:
        return _theirs(node, read, now)
    if read.held and state == states.EXTERNAL_FREE:
        return _freed(node, read, now, free_confirmations)
    return _ours_or_free(node, read)


def _gone(node, read: _Reading, now: datetime.datetime,
          gone_grace: int) -> Decision | None:
    """The hardware is gone from the manager: held (fault external gone)
    once gone_grace has passed."""
    if node.fault == states.FAULT_EXTERNAL_GONE or (
            (now - read.since).total_seconds() < gone_grace):
        return (Decision(read.values) if read.state != node.external_state
                else None)
    values = hold_values(node, states.FAULT_EXTERNAL_GONE, read.state,
                         'gone from external manager %s'
                         % node.external_manager, now)
    if read.in_use:
        values = {k: v for k, v in values.items()
                  if k not in ('provision_state', 'target_provision_state')}
    values['external_state_since'] = read.since
    return Decision(values, 'gone', 'error', values['maintenance_reason'])


def _theirs(node, read: _Reading, now: datetime.datetime
            ) -> Decision | None:
    """Another user has the hardware: a node pool's consumer uses is in
    conflict; an idle one is held (fault external hold)."""
    if read.held:
        changed = {k: v for k, v in {
            **read.values, 'external_free_streak': 0,
            'fault': states.FAULT_EXTERNAL_HOLD}.items()
            if getattr(node, k) != v}
        return Decision(changed) if changed else None
    if read.in_use and node.provision_state not in BUSY_STATES:
        if node.fault == states.FAULT_EXTERNAL_CONFLICT:
            return None
        reason = ('taken by another user of external manager %s while '
                  'pool\'s allocation uses it' % node.external_manager)
        return Decision({**read.values, 'maintenance': True,
                         'fault': states.FAULT_EXTERNAL_CONFLICT,
                         'maintenance_reason': reason},
                        'conflict', 'error', reason)
    if node.provision_state in (states.AVAILABLE,) + BUSY_STATES:
        reason = 'taken by another user of external manager %s' % (
            node.external_manager)
        return Decision(hold_values(node, states.FAULT_EXTERNAL_HOLD,
                                    read.state, reason, now),
                        'taken', 'warning', reason)
    return (Decision(read.values) if read.state != node.external_state
            else None)


def _freed(node, read: _Reading, now: datetime.datetime,
           free_confirmations: int) -> Decision:
    """A held node's hardware is free: provided after free_confirmations
    observations in a row."""
    streak = (node.external_free_streak or 0) + 1
    if streak < free_confirmations:
        return Decision({**read.values, 'external_free_streak': streak},
                        release=read.stale)
    # Provided through cleaning, which cannot be skipped: the other
    # user's data is erased before pool gives the node to anyone.
    values = {**read.values, 'external_free_streak': 0,
              'maintenance': False, 'fault': None,
              'maintenance_reason': None}
    if node.provision_state == states.MANAGEABLE:
        values.update(provision_state=states.CLEANING,
                      target_provision_state=states.AVAILABLE,
                      provision_updated_at=now)
    return Decision(values, 'freed', 'info',
                    'Freed by external manager %s after %d observations; '
                    'cleaning' % (node.external_manager, streak),
                    release=read.stale, provide=True)


def _ours_or_free(node, read: _Reading) -> Decision | None:
    """Pool's claim, or free hardware of a node the reconciler does not
    hold: a conflict resolved, a claim lost under a consumer, or a claim
    forgotten."""
    if node.fault == states.FAULT_EXTERNAL_CONFLICT and (
            read.state == states.EXTERNAL_OURS):
        return Decision({**read.values, 'maintenance': False, 'fault': None,
                         'maintenance_reason': None},
                        'conflict_resolved', 'info',
                        'External manager %s gives the node back to pool'
                        % node.external_manager)
    free_claim = read.state == states.EXTERNAL_FREE and node.external_claim
    if (free_claim and read.in_use
            and node.fault != states.FAULT_EXTERNAL_CONFLICT):
        reason = ('pool\'s claim at external manager %s is gone while '
                  'pool\'s allocation uses the node' % node.external_manager)
        return Decision({**read.values, 'maintenance': True,
                         'fault': states.FAULT_EXTERNAL_CONFLICT,
                         'maintenance_reason': reason},
                        'claim_lost', 'error', reason)
    values = read.values
    if free_claim and not read.in_use and (
            node.provision_state not in BUSY_STATES):
        # The claim is gone there already: forget it.
        values['external_claim'] = None
    changed = {k: v for k, v in values.items() if getattr(node, k) != v}
    if changed or read.stale:
        return Decision(changed, release=read.stale)
    return None
