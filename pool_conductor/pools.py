"""Pools: their tree of parents, kept whole under concurrent changes."""
from collections.abc import Callable
import typing

from oslo_db import exception as db_exc
from oslo_log import log

from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import named
from pool_conductor import pool_params
from pool_conductor import retry

LOG = log.getLogger(__name__)

# The transition action sets of a pool.
ACTION_SETS = ('enter_actions', 'allocate_actions', 'release_actions',
               'exit_actions')

T = typing.TypeVar('T')


def check_actions(context, values: dict) -> None:
    """Check the workflows and profiles of action sets exist.

    :param values: fields of a pool, or of a pool action, with action sets.
    :raises: ObjectNotFound; Invalid for one that adds or removes a pool
        param (pool/name, pool/allocated, pool/status)
    """
    for kind in ACTION_SETS:
        actions = values.get(kind) or {}
        pool_params.check_names(list(actions.get('add_parameters') or ())
                                + list(actions.get('remove_parameters')
                                       or ()))
        if actions.get('workflow'):
            pools_db.get(context, models.Workflow, actions['workflow'])
        pools_db.get_many(context, models.Profile,
                          actions.get('add_profiles', ()))


def _lock_parent(context, name: str, parent: str | None) -> None:
    """Share-lock the parent of a pool and the pools above it, in the
    caller's transaction, so that none is deleted or moved under it.

    :raises: ObjectNotFound, Invalid for a pool that would be its own
        ancestor
    """
    if parent is None:
        return
    if parent == name or name in (
            p.name for p in pools_db.ancestors(context, parent)):
        raise exception.Invalid('Pool %s cannot have parent pool %s: pools '
                                'would form a cycle.' % (name, parent))


def _transaction(context, work: Callable[[], T]) -> T:
    """Run work in one write transaction, again if the database aborted
    it to break a deadlock. The locks here deadlock only when two changes
    of parents would together close a cycle; the one run again sees it.

    :raises: ConcurrentUpdate when it still deadlocks
    """
    def attempt() -> T:
        with db_api.writer(context):
            return work()

    return retry.on_deadlock(attempt)


def create_pool(context, values: dict) -> models.Pool:
    """Create a pool under its parent pool, if it has one.

    The parent stays share-locked until the pool is saved: a concurrent
    deletion of the parent waits, then sees its new child.

    :raises: ObjectAlreadyExists, ObjectNotFound, Invalid,
        ConcurrentUpdate
    """
    check_actions(context, values)
    lifespans.check_policy(values.get('lifespan'))

    def create() -> models.Pool:
        _lock_parent(context, values['name'], values.get('parent_pool'))
        return named.create(context, models.Pool, values)

    return _transaction(context, create)


def update_pool(context, name: str, values: dict) -> models.Pool:
    """Change fields of a pool; a new parent is share-locked as on
    creation, and must not be the pool or one of its descendants.

    Two changes that would together make a cycle (a under b, b under a)
    each hold a share lock on the pool the other updates: the database
    aborts one, which runs again and sees the cycle.

    :raises: ObjectNotFound, Invalid, ConcurrentUpdate
    """
    check_actions(context, values)
    lifespans.check_policy(values.get('lifespan'))

    def update() -> models.Pool:
        if 'parent_pool' in values:
            _lock_parent(context, name, values['parent_pool'])
        return named.update(context, models.Pool, name, values)

    return _transaction(context, update)


def delete_pool(context, name: str) -> None:
    """Delete a pool that is not the default one, has no member nodes and
    is no other pool's parent.

    :raises: ObjectNotFound, ObjectInUse, ConcurrentUpdate
    """
    def delete() -> None:
        try:
            named.delete(context, models.Pool, name)
        except db_exc.DBReferenceError:
            # A node joined the pool without taking its lock.
            LOG.warning('Pool %s gained a member while it was deleted',
                        name)
            raise exception.ObjectInUse(
                err='Pool %s cannot be deleted: nodes were added to it '
                    'meanwhile.' % name) from None

    _transaction(context, delete)
