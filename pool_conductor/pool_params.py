"""Digital Rebar's pool params of a node, derived from its pool fields.

pool/name, pool/allocated and pool/status are read (and filtered on) as
params of every node, with Digital Rebar's values, but never stored: the
node's pool, pool_allocated, pool_status and pool_wait_timed_out, which
only pool_conductor.binding writes, are their one source.
"""
from pool_conductor import exception
from pool_conductor import states

NAME = 'pool/name'
ALLOCATED = 'pool/allocated'
STATUS = 'pool/status'
KEYS = (NAME, ALLOCATED, STATUS)

# The values of pool/status (Digital Rebar's).
UNALLOCATED = 'unallocated'
ALLOCATED_STATUS = 'allocated'
COMPLETE = 'complete'
TIMEOUT = 'timeout'
ERROR = 'error'
STATUSES = (UNALLOCATED, ALLOCATED_STATUS, COMPLETE, TIMEOUT, ERROR)

# Allocated nodes held while waiting for their stage (not runnable).
HELD = (states.POOL_HOLD_BUILD, states.POOL_HOLD_DESTROY)


def status(pool_status: str | None, allocated: bool | None,
           timed_out: bool | None) -> str:
    """pool/status of a node: unallocated unless allocated; timeout past
    the deadline of its wait for a stage; error while held in it (not
    runnable); complete once InUse (its stage reached, or none waited
    for); else allocated (being built, or destroyed after its use)."""
    if not allocated:
        return UNALLOCATED
    if timed_out:
        return TIMEOUT
    if pool_status in HELD:
        return ERROR
    if pool_status == states.POOL_IN_USE:
        return COMPLETE
    return ALLOCATED_STATUS


def of(node) -> dict:
    """The pool params of a node."""
    return {NAME: node.pool, ALLOCATED: bool(node.pool_allocated),
            STATUS: status(node.pool_status, node.pool_allocated,
                           getattr(node, 'pool_wait_timed_out', False))}


def with_params(node, params: dict | None) -> dict:
    """params with the node's pool params over them."""
    return {**(params or {}), **of(node)}


def without(node, params: dict) -> dict:
    """params to store for a node: its pool params left out when they
    hold the node's values (a map read with them, written back).

    :raises: Invalid for one that changes them: the pool actions do
    """
    current = of(node)
    changed = sorted(k for k in KEYS
                     if k in params and params[k] != current[k])
    if changed:
        raise exception.Invalid(
            'Cannot set %s: the pool params follow the node\'s pool '
            'membership; the pool actions (POST /v1/pools/<pool>/<action>, '
            'returnToPool) change it.' % ', '.join(changed))
    return {k: v for k, v in params.items() if k not in KEYS}


def check_names(names) -> None:
    """Transition actions may not add or remove the pool params.

    :raises: Invalid
    """
    found = sorted(set(KEYS).intersection(names or ()))
    if found:
        raise exception.Invalid(
            'Cannot add or remove %s: the pool params follow the node\'s '
            'pool membership.' % ', '.join(found))
