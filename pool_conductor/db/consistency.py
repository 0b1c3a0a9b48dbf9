"""Consistency checks of nodes and allocations, for operators and tests."""
import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor.db import pool_actions
from pool_conductor import states


def _rows(session, query, describe) -> list[str]:
    return [describe(row) for row in session.execute(query)]


def find_problems(context, heartbeat_timeout: int,
                  stuck_after: int) -> list[str]:
    """Every broken invariant, one line each; empty when all is well.

    - no node is held by two allocations;
    - an active allocation's node carries it (allocation_uuid and
      instance_uuid are the allocation's) and a node's allocation exists,
      is active and points back at the node;
    - an allocation in error or allocating holds no node;
    - no node is locked by a conductor that is not alive;
    - no node waiting for a stage is driven by a conductor that is not
      alive;
    - no allocation has been allocating for longer than stuck_after
      seconds.
    """
    node, alloc = models.Node, models.Allocation
    alive_since = api.utcnow() - datetime.timedelta(
        seconds=heartbeat_timeout)
    stuck_since = api.utcnow() - datetime.timedelta(seconds=stuck_after)
    other = orm.aliased(models.Allocation)
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
                          node.allocation_id != alloc.id,
                          node.instance_uuid.is_(None),
                          node.instance_uuid != alloc.uuid)),
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
        problems += _rows(session, sa.select(alloc.uuid, alloc.state)
            .where(alloc.state != states.ALLOCATION_ACTIVE,
                   alloc.node_id.is_not(None)),
            lambda r: 'allocation %s in state %s holds a node' % tuple(r))
        problems += _rows(session, sa.select(node.uuid, node.reservation)
            .where(node.reservation.is_not(None),
                   node.reservation.not_in(alive)),
            lambda r: 'node %s is locked by %s, which is not alive'
                      % tuple(r))
        problems += _rows(session, sa.select(
            node.uuid, node.pool_status, node.pool_conductor_affinity)
            .where(node.pool_status.in_(pool_actions.IN_WORKFLOW),
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
