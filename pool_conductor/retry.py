"""Retries of database work, built at call time from the configuration."""
from collections.abc import Callable
from typing import TypeVar

from oslo_db import exception as db_exc
import tenacity

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import waiting

T = TypeVar('T')


def on_deadlock(func: Callable[..., T], *args, **kwargs) -> T:
    """Run a transaction, again when the database aborts it to break a
    deadlock ([conductor] deadlock_retries times, with a short random
    pause).

    :raises: ConcurrentUpdate when it still deadlocks.
    """
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(db_exc.DBDeadlock),
        stop=tenacity.stop_after_attempt(CONF.conductor.deadlock_retries
                                         + 1),
        wait=tenacity.wait_random_exponential(multiplier=0.01, max=0.5),
        sleep=waiting.sleep,
        reraise=True)
    try:
        return retrying(func, *args, **kwargs)
    except db_exc.DBDeadlock:
        raise exception.ConcurrentUpdate(
            what='The data this request changes') from None


def on_node_locked(func: Callable[..., T], *args, **kwargs) -> T:
    """Run a change of a node, again while a conductor holds the node
    locked ([conductor] node_locked_retry_attempts and
    node_locked_retry_interval, as Ironic's conductor waits for a lock).

    :raises: NodeLocked when the node stays locked.
    """
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(exception.NodeLocked),
        stop=tenacity.stop_after_attempt(
            CONF.conductor.node_locked_retry_attempts + 1),
        wait=tenacity.wait_fixed(CONF.conductor.node_locked_retry_interval),
        sleep=waiting.sleep,
        reraise=True)
    return retrying(func, *args, **kwargs)


def while_result(func: Callable[[], T], busy: T, first: float,
                 most: float) -> T:
    """Call func until it returns something else than busy, pausing
    between calls a random time that grows from first to at most most
    seconds."""
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_result(lambda result: result == busy),
        wait=tenacity.wait_random_exponential(multiplier=first, max=most),
        sleep=waiting.sleep)
    return retrying(func)
