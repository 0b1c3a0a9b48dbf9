"""Queries on handles: the allocations of claims, with their nodes."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import states

_CLAIMS = models.Claim.__table__
_ALLOCATIONS = models.Allocation.__table__
_NODES = models.Node.__table__

# What a handle shows, read in one statement.
COLUMNS = (
    _ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid, _ALLOCATIONS.c.claim_id,
    _ALLOCATIONS.c.claim_resource, _ALLOCATIONS.c.state,
    _ALLOCATIONS.c.last_error, _ALLOCATIONS.c.created_at,
    _ALLOCATIONS.c.updated_at,
    _NODES.c.uuid.label('node_uuid'), _NODES.c.name.label('node_name'),
    _NODES.c.pool_status, _NODES.c.provision_state,
    _CLAIMS.c.uuid.label('claim_uuid'), _CLAIMS.c.name.label('claim_name'),
    _CLAIMS.c.owner, _CLAIMS.c.resources)

_FROM = _ALLOCATIONS.join(_CLAIMS, _CLAIMS.c.id == _ALLOCATIONS.c.claim_id
                          ).outerjoin(_NODES,
                                      _NODES.c.id == _ALLOCATIONS.c.node_id)


def state_is(state: str):
    """Whether a handle's state (pool_conductor.handles.state_of()) is
    state, in SQL: the same rule, change both together."""
    live = _ALLOCATIONS.c.state != states.ALLOCATION_ERROR
    in_use = _NODES.c.pool_status == states.POOL_IN_USE
    if state == states.HANDLE_LOST:
        return ~live
    if state == states.HANDLE_READY:
        return sa.and_(live, in_use)
    return sa.and_(live, sa.or_(_NODES.c.pool_status.is_(None),
                                ~in_use))


def of_claims(session, claim_ids: list[int]) -> dict[int, list[sa.Row]]:
    """The handles of claims, by claim id, in resource order."""
    if not claim_ids:
        return {}
    rows = session.execute(
        sa.select(*COLUMNS).select_from(_FROM)
        .where(_ALLOCATIONS.c.claim_id.in_(claim_ids))
        .order_by(_ALLOCATIONS.c.claim_resource, _ALLOCATIONS.c.id)).all()
    result: dict[int, list] = {}
    for row in rows:
        result.setdefault(row.claim_id, []).append(row)
    return result


def get(context, uuid: str) -> sa.Row:
    """A handle by its allocation's UUID.

    :raises: HandleNotFound
    """
    with api.reader(context) as session:
        row = session.execute(sa.select(*COLUMNS).select_from(_FROM).where(
            _ALLOCATIONS.c.uuid == uuid)).first()
    if row is None:
        raise exception.HandleNotFound(handle=uuid)
    return row


def list_handles(context, filters: dict, limit: int | None = None,
                 marker: str | None = None) -> list[sa.Row]:
    """Handles in allocation order, filtered in SQL before the page is
    cut.

    :param filters: claim (UUID or name), owner, node (UUID or name),
        state, resources: [(claim id, resource index)] (a provider's).
    :raises: HandleNotFound for a marker that is not one
    """
    q = sa.select(*COLUMNS).select_from(_FROM)
    claim = filters.get('claim')
    if claim is not None:
        q = q.where(api.ident_column(models.Claim, claim) == claim)
    if filters.get('owner') is not None:
        q = q.where(_CLAIMS.c.owner == filters['owner'])
    node = filters.get('node')
    if node is not None:
        q = q.where(api.ident_column(models.Node, node) == node)
    if filters.get('state') is not None:
        q = q.where(state_is(filters['state']))
    if filters.get('resources') is not None:
        q = q.where(sa.or_(sa.false(), *(
            sa.and_(_ALLOCATIONS.c.claim_id == c,
                    _ALLOCATIONS.c.claim_resource == i)
            for c, i in filters['resources'])))
    with api.reader(context) as session:
        if marker is not None:
            after = session.scalar(sa.select(_ALLOCATIONS.c.id).where(
                _ALLOCATIONS.c.uuid == marker,
                _ALLOCATIONS.c.claim_id.is_not(None)))
            if after is None:
                raise exception.HandleNotFound(handle=marker)
            q = q.where(_ALLOCATIONS.c.id > after)
        q = q.order_by(_ALLOCATIONS.c.id)
        if limit:
            q = q.limit(limit)
        return session.execute(q).all()


def claims_of_provider(context, name: str) -> list[tuple[int, int]]:
    """(claim id, resource index) of every resource of a claim that names
    the provider."""
    like = '%%"%s"%%' % name.replace('_', '\\_')
    with api.reader(context) as session:
        rows = session.execute(sa.select(_CLAIMS.c.id, _CLAIMS.c.resources)
                               .where(sa.cast(_CLAIMS.c.resources, sa.Text)
                                      .like(like, escape='\\'))).all()
    return [(row.id, i) for row in rows
            for i, r in enumerate(row.resources or ())
            if r.get('provider') == name]
