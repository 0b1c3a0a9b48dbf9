"""Consistency checks of the fleet, for operators and tests."""
import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

# The statuses of a pool member that is not given to a consumer.
POOL_UNALLOCATED = tuple(s for s in states.POOL_STATUSES
                         if s not in states.POOL_ALLOCATED)


def _rows(session, query, describe) -> list[str]:
    return [describe(row) for row in session.execute(query)]


def _not_in(column, values):
    """column is NULL or not one of values (NOT IN alone is NULL, so
    false, on a NULL column)."""
    return sa.or_(column.is_(None), column.not_in(values))


def _in_pool(row) -> str:
    if row[1] is None:
        return 'node %s is in no pool' % row[0]
    return 'node %s is in pool %s, which does not exist' % tuple(row)


def find_problems(context, heartbeat_timeout: int,
                  stuck_after: int) -> list[str]:
    """Every broken invariant, one line each; empty when all is well.

    - no node is held by two allocations;
    - an active allocation's node points back at it, and a node's
      allocation exists, is active and points back at the node;
    - a node with an allocation carries its uuid as instance_uuid;
    - an allocation in error or allocating holds no node;
    - a node with an instance or an allocation is pool_allocated, in one of
      the allocated pool statuses (InUse, or Building, Destroying or their
      Hold statuses while a workflow runs);
    - a node is pool_allocated exactly when its pool status is one of the
      allocated ones (the others are Free, Joining, Leaving and their Hold
      statuses);
    - every node is in a pool that exists, and a pool's parent pool
      exists;
    - no node is locked by a conductor that is not alive;
    - no node waiting for a stage is driven by a conductor that is not
      alive;
    - no allocation has been allocating for longer than stuck_after
      seconds.
    """
    node, alloc, pool = models.Node, models.Allocation, models.Pool
    alive_since = api.utcnow() - datetime.timedelta(
        seconds=heartbeat_timeout)
    stuck_since = api.utcnow() - datetime.timedelta(seconds=stuck_after)
    other = orm.aliased(models.Allocation)
    parent = orm.aliased(models.Pool)
    allocated = sa.func.coalesce(node.pool_allocated, False)
    with api.reader(context) as session:
        alive = sa.select(models.Conductor.hostname).where(
            models.Conductor.online.is_(True),
            models.Conductor.updated_at >= alive_since)
        problems = []
        problems += _rows(session, sa.select(
            node.uuid, sa.func.count(alloc.id))
            .join(alloc, alloc.node_id == node.id)
            .where(alloc.state == states.ALLOCATION_ACTIVE)
            .group_by(node.uuid).having(sa.func.count(alloc.id) > 1),
            lambda r: 'node %s is held by %d allocations' % tuple(r))
        problems += _rows(session, sa.select(alloc.uuid, node.uuid)
            .join(node, alloc.node_id == node.id)
            .where(alloc.state == states.ALLOCATION_ACTIVE,
                   sa.or_(node.allocation_id.is_(None),
                          node.allocation_id != alloc.id)),
            lambda r: 'active allocation %s is not carried by its node %s'
                      % tuple(r))
        problems += _rows(session, sa.select(alloc.uuid).where(
            alloc.state == states.ALLOCATION_ACTIVE,
            alloc.node_id.is_(None)),
            lambda r: 'active allocation %s has no node' % r[0])
        problems += _rows(session, sa.select(node.uuid, node.allocation_id)
            .outerjoin(other, other.id == node.allocation_id)
            .where(node.allocation_id.is_not(None),
                   sa.or_(other.id.is_(None),
                          other.state != states.ALLOCATION_ACTIVE,
                          other.node_id.is_(None),
                          other.node_id != node.id)),
            lambda r: 'node %s points at allocation %s, which is missing, '
                      'not active or not its own' % tuple(r))
        problems += _rows(session, sa.select(
            node.uuid, node.instance_uuid, other.uuid)
            .join(other, other.id == node.allocation_id)
            .where(sa.or_(node.instance_uuid.is_(None),
                          node.instance_uuid != other.uuid)),
            lambda r: 'node %s has instance_uuid %s, not the uuid of its '
                      'allocation %s' % tuple(r))
        problems += _rows(session, sa.select(alloc.uuid, alloc.state)
            .where(alloc.state != states.ALLOCATION_ACTIVE,
                   alloc.node_id.is_not(None)),
            lambda r: 'allocation %s in state %s holds a node' % tuple(r))
        problems += _rows(session, sa.select(
            node.uuid, node.pool_status, allocated)
            .where(sa.or_(node.instance_uuid.is_not(None),
                          node.allocation_id.is_not(None)),
                   sa.or_(allocated.is_(False),
                          _not_in(node.pool_status,
                                  states.POOL_ALLOCATED))),
            lambda r: 'node %s has an instance or an allocation but is %s '
                      'with pool_allocated %s' % (r[0], r[1], bool(r[2])))
        problems += _rows(session, sa.select(node.uuid, node.pool_status)
            .where(allocated.is_(True),
                   _not_in(node.pool_status, states.POOL_ALLOCATED)),
            lambda r: 'node %s is pool_allocated but %s' % tuple(r))
        problems += _rows(session, sa.select(node.uuid, node.pool_status)
            .where(allocated.is_(False),
                   _not_in(node.pool_status, POOL_UNALLOCATED)),
            lambda r: 'node %s is not pool_allocated but %s' % tuple(r))
        problems += _rows(session, sa.select(node.uuid, node.pool)
            .outerjoin(pool, pool.name == node.pool)
            .where(pool.id.is_(None)),
            _in_pool)
        problems += _rows(session, sa.select(pool.name, pool.parent_pool)
            .outerjoin(parent, parent.name == pool.parent_pool)
            .where(pool.parent_pool.is_not(None), parent.id.is_(None)),
            lambda r: 'pool %s has parent pool %s, which does not exist'
                      % tuple(r))
        problems += _rows(session, sa.select(node.uuid, node.reservation)
            .where(node.reservation.is_not(None),
                   node.reservation.not_in(alive)),
            lambda r: 'node %s is locked by %s, which is not alive'
                      % tuple(r))
        problems += _rows(session, sa.select(
            node.uuid, node.pool_status, node.pool_conductor_affinity)
            .where(node.pool_status.in_(states.POOL_WAITING),
                   node.pool_conductor_affinity.is_not(None),
                   node.pool_conductor_affinity.not_in(alive)),
            lambda r: 'node %s in %s is driven by %s, which is not alive'
                      % tuple(r))
        problems += _rows(session, sa.select(
            alloc.uuid, alloc.conductor_affinity)
            .where(alloc.state == states.ALLOCATING,
                   alloc.created_at < stuck_since),
            lambda r: 'allocation %s has been allocating for more than %d s '
                      '(conductor %s)' % (r[0], stuck_after, r[1]))
    return problems
