"""The pool lifecycle of a node: statuses, transitions and their actions.

Pure rules: each function reads a node (an ORM object or a row with the
node's columns) and returns the fields a transition changes. The one
writer of those fields is pool_conductor.binding.
"""
from collections.abc import Callable
import datetime

from pool_conductor import exception
from pool_conductor import states


def check_unlocked(*nodes) -> None:
    """:raises: NodeLocked for the first node a conductor holds locked"""
    for node in nodes:
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid,
                                       host=node.reservation)


# The node fields the transition actions change.
ACTION_FIELDS = ('profiles', 'params', 'workflow', 'stage', 'runnable')


# Where a node goes when it reaches the stage it waits for.
_DONE = {
    states.POOL_JOINING: states.POOL_FREE,
    states.POOL_BUILDING: states.POOL_IN_USE,
    states.POOL_DESTROYING: states.POOL_FREE,
}
_UNHOLD = {hold: moving for moving, hold in states.POOL_HOLD.items()}


def apply_actions(node, *action_sets: dict | None) -> dict:
    """The action fields of a node after transition actions, in order;
    each removes profiles and params before it adds, and a workflow
    starts from no stage."""
    profiles = list(node.profiles or [])
    params = dict(node.params or {})
    values = {}
    for actions in action_sets:
        actions = actions or {}
        remove = set(actions.get('remove_profiles') or ())
        profiles = [p for p in profiles if p not in remove]
        profiles += [p for p in actions.get('add_profiles') or ()
                     if p not in profiles]
        for key in actions.get('remove_parameters') or ():
            params.pop(key, None)
        params.update(actions.get('add_parameters') or {})
        if actions.get('workflow'):
            values.update(workflow=actions['workflow'], stage=None,
                          runnable=True)
    values.update(profiles=profiles, params=params)
    return values


def _wait_stage(*action_sets: dict | None) -> str | None:
    """The last wait_for_stage the action sets name."""
    stage = None
    for actions in action_sets:
        stage = (actions or {}).get('wait_for_stage') or stage
    return stage


class After:
    """A node's fields as a transition (or a change before it) leaves
    them."""

    def __init__(self, node, values: dict):
        self._node, self._values = node, values

    def __getattr__(self, name):
        if name in self._values:
            return self._values[name]
        return getattr(self._node, name)


def deadline(now: datetime.datetime | None, timeout: int | None
             ) -> datetime.datetime | None:
    """When a wait that starts now for timeout seconds is over."""
    if now is None or timeout is None:
        return None
    return now + datetime.timedelta(seconds=timeout)


def _enter(node, values: dict, status: str, stage: str | None,
           now: datetime.datetime | None,
           enter_actions: Callable[[str], dict | None] | None = None,
           timeout: int | None = None) -> dict:
    """Enter status; a moving status waits for stage, driven by no
    conductor yet, and a node already at that stage is through at once.
    An allocated node (Building, Destroying) waits until timeout seconds
    from now at most, then it is timed out (timed_out())."""
    waits = status in states.POOL_HOLD
    values.update(pool_status=status,
                  pool_allocated=status in states.POOL_ALLOCATED,
                  pool_wait_stage=stage if waits else None,
                  pool_conductor_affinity=None,
                  pool_wait_deadline=deadline(now, timeout) if (
                      waits and status in states.POOL_ALLOCATED) else None,
                  pool_wait_timed_out=False)
    if waits:
        values['stage_updated_at'] = now
        values.update(progress(After(node, values), {}, enter_actions,
                               now))
    return values


def allocated(node, pool_actions: dict | None,
              request_actions: dict | None = None,
              wait_for_stage: str | None = None,
              now: datetime.datetime | None = None,
              wait_timeout: int | None = None) -> dict:
    """A Free node given to a consumer: the pool's allocate actions and
    the request's, then Building until wait_for_stage (for wait_timeout
    seconds at most), else InUse."""
    values = apply_actions(node, pool_actions, request_actions)
    stage = wait_for_stage or _wait_stage(pool_actions)
    return _enter(node, values, states.POOL_BUILDING if stage
                  else states.POOL_IN_USE, stage, now,
                  timeout=wait_timeout)


def set_by(node, request_actions: dict | None) -> dict | None:
    """What a consumer's request actions set on a node, as undo()
    takes it off: the params' values before (or that they were unset) and
    the profiles added."""
    request_actions = request_actions or {}
    added = request_actions.get('add_parameters') or {}
    profiles = [p for p in request_actions.get('add_profiles') or ()
                if p not in (node.profiles or ())]
    if not added and not profiles:
        return None
    params = node.params or {}
    return {'params': {k: params[k] for k in added if k in params},
            'unset': sorted(k for k in added if k not in params),
            'profiles': profiles}


def undo(recorded: dict | None) -> dict | None:
    """The actions that take off what set_by() recorded: params set back
    to their values before (removed when they had none), profiles added
    removed."""
    if not recorded:
        return None
    return {'remove_parameters': list(recorded.get('unset') or ()),
            'add_parameters': dict(recorded.get('params') or {}),
            'remove_profiles': list(recorded.get('profiles') or ())}


def released(node, pool_actions: dict | None,
             request_actions: dict | None = None,
             wait_for_stage: str | None = None,
             now: datetime.datetime | None = None,
             undone: dict | None = None,
             wait_timeout: int | None = None) -> dict:
    """A node taken back from its consumer: what the consumer set taken
    off (undone: undo()'s actions), the release actions, then Destroying
    until wait_for_stage (for wait_timeout seconds at most), else Free."""
    values = apply_actions(node, undone, pool_actions, request_actions)
    values.update(instance_uuid=None, allocation_id=None)
    stage = wait_for_stage or _wait_stage(pool_actions)
    return _enter(node, values, states.POOL_DESTROYING if stage
                  else states.POOL_FREE, stage, now, timeout=wait_timeout)


def timed_out(node, now: datetime.datetime) -> dict:
    """The fields of an allocated node still waiting for its stage past
    its deadline: timed out (Digital Rebar's pool/status "timeout"). It
    stays in its status: reaching the stage later still completes it.
    Nothing for any other node."""
    if (node.pool_status not in states.POOL_WAITING
            or not node.pool_allocated or node.pool_wait_timed_out
            or node.pool_wait_deadline is None
            or node.pool_wait_deadline > now):
        return {}
    return {'pool_wait_timed_out': True}


def joined(node, pool: str, enter_actions: dict | None,
           now: datetime.datetime | None = None) -> dict:
    """A node landing in a pool: its enter actions, then Joining until
    their wait_for_stage, else Free."""
    values = apply_actions(node, enter_actions)
    values.update(pool=pool, pool_destination=None)
    stage = _wait_stage(enter_actions)
    return _enter(node, values, states.POOL_JOINING if stage
                  else states.POOL_FREE, stage, now)


def moved(node, target: str, exit_actions: dict | None,
          enter_actions: dict | None,
          now: datetime.datetime | None = None) -> dict:
    """A Free node sent from its pool to target: the exit actions, then
    Leaving until their wait_for_stage; then (or at once) it joins
    target."""
    values = apply_actions(node, exit_actions)
    stage = _wait_stage(exit_actions)
    if stage:
        values['pool_destination'] = target
        return _enter(node, values, states.POOL_LEAVING, stage, now,
                      lambda _pool: enter_actions)
    return {**values, **joined(After(node, values), target, enter_actions,
                               now)}


def progress(node, report: dict,
             enter_actions: Callable[[str], dict | None] | None = None,
             now: datetime.datetime | None = None) -> dict:
    """The pool fields a stage or runnable report changes.

    A node waiting for a stage (Joining, Building, Destroying, Leaving)
    that is at that stage and runnable is through: Joining becomes Free,
    Building InUse, Destroying Free and unallocated, Leaving joins the
    pool it was sent to. A node that is not runnable is held in the hold
    status of its status until it is runnable again. Every report is
    evaluated, a repeated one too.

    :param report: the fields the report changes (stage, runnable).
    :param enter_actions: the enter actions of a pool by name, for a
        Leaving node that arrives.
    :param now: the time a node that arrives starts Joining.
    """
    status = node.pool_status
    moving = _UNHOLD.get(status, status)
    if moving not in states.POOL_HOLD:
        return {}
    stage = report.get('stage', node.stage)
    runnable = report.get('runnable', node.runnable) is not False
    if runnable and stage is not None and stage == node.pool_wait_stage:
        done = {'pool_wait_stage': None, 'pool_conductor_affinity': None,
                'pool_wait_deadline': None, 'pool_wait_timed_out': False}
        if moving == states.POOL_LEAVING:
            target = node.pool_destination or node.pool
            after = After(node, {**report, **done})
            return {**done, **joined(
                after, target,
                enter_actions(target) if enter_actions else None, now)}
        status = _DONE[moving]
        return {**done, 'pool_status': status,
                'pool_allocated': status in states.POOL_ALLOCATED}
    target = moving if runnable else states.POOL_HOLD[moving]
    return {'pool_status': target} if target != status else {}


def check_release(node, force: bool = False) -> None:
    """A deployed node (active, not in maintenance) keeps its consumer
    unless forced, as Ironic keeps its allocation.

    :raises: NodeInWrongState
    """
    if (not force and not node.maintenance
            and node.provision_state not in states.UPDATE_ALLOWED_STATES):
        raise exception.NodeInWrongState(
            err='Cannot release node %s: it is in provision state "%s" and '
                'not in maintenance.' % (node.uuid, node.provision_state))


def allocatable(node) -> bool:
    """Whether a node may be given to a consumer: what an Ironic
    allocation could take (available, power state known, not in
    maintenance, no instance, not locked) and Free in its pool."""
    return (node.provision_state == states.AVAILABLE
            and node.power_state is not None and not node.maintenance
            and node.instance_uuid is None and node.allocation_id is None
            and node.reservation is None
            and node.pool_status == states.POOL_FREE)
