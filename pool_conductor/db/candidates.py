"""The queries of the allocation preview: why each node of the fleet
would or would not be taken, counted in one grouped statement."""
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import states

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__

# The reasons a node is left out, in the order they are tested: a node
# counts once, under the first that removes it. The conditions are those
# of the allocator's search for free nodes (free_nodes.ALLOCATABLE); a
# test checks that the nodes left are exactly the ones it finds.
REASONS = ('pool', 'resource_class', 'traits', 'candidate_nodes', 'owner',
           'maintenance', 'provision_state', 'allocated', 'reserved',
           'pool_status', 'power_state', 'overlapping_window',
           'external_state')


def _has_trait(trait: str):
    return sa.exists().where(_TRAITS.c.node_id == _NODES.c.id,
                             _TRAITS.c.trait == trait)


def _filters(request) -> list[tuple[str, object]]:
    """(reason, the condition a node must meet) for the request's
    filters and maintenance: the members a window may be booked on
    (slots.matching)."""
    node = _NODES.c
    tests = [('pool', node.pool == request.pool)]
    if request.resource_class:
        tests.append(('resource_class',
                      node.resource_class == request.resource_class))
    if request.traits:
        tests.append(('traits', sa.and_(*map(_has_trait, request.traits))))
    if request.candidate_nodes:
        tests.append(('candidate_nodes',
                      node.uuid.in_(list(request.candidate_nodes))))
    if request.owner:
        tests.append(('owner', sa.or_(node.owner == request.owner,
                                      node.lessee == request.owner)))
    return tests + [('maintenance', node.maintenance.is_(False))]


def _tests(request) -> list[tuple[str, object]]:
    """(reason, the condition a node must meet) for the request's
    filters and the allocator's own."""
    node = _NODES.c
    return _filters(request) + [
        ('provision_state', node.provision_state == states.AVAILABLE),
        ('allocated', sa.and_(node.instance_uuid.is_(None),
                              node.allocation_id.is_(None))),
        ('reserved', node.reservation.is_(None)),
        ('pool_status', node.pool_status == states.POOL_FREE),
        ('power_state', node.power_state.is_not(None)),
        # A slot of the node begins before the allocation would let it go
        # (free_nodes.FREE_UNTIL).
        ('overlapping_window', sa.or_(
            node.booked_from.is_(None),
            node.booked_from >= sa.literal(request.hold_until,
                                           models.Node.booked_from.type))),
    ] + ([('external_state', sa.or_(
        node.external_manager.is_(None), node.external_state.is_(None),
        node.external_state != states.EXTERNAL_UNKNOWN))]
        if request.skip_unknown_external else [])


def _reason(tests):
    """The first reason that removes a node, NULL for a match (a test on
    a NULL column fails it)."""
    return sa.case(*((sa.not_(sa.func.coalesce(condition, sa.false())),
                      reason) for reason, condition in tests),
                   else_=sa.null())


def _visible(project: str | None) -> tuple:
    if project is None:
        return ()
    return (sa.or_(_NODES.c.owner == project, _NODES.c.lessee == project),)


def preview(context, request, project: str | None, limit: int
            ) -> tuple[dict[str, int], list[tuple[sa.Row, list[str]]], int]:
    """(nodes removed by each reason, the first limit matching nodes in
    id order with their traits, how many match) among the nodes project
    may see (all with None)."""
    node = _NODES.c
    with api.reader(context) as session:
        conn = session.connection()
        counts = _counts(conn, _tests(request), project)
        rows = conn.execute(
            sa.select(node.id, node.uuid, node.name, node.pool,
                      node.resource_class)
            .where(*_visible(project), _reason(_tests(request)).is_(None))
            .order_by(node.id).limit(limit)).all()
        traits = traits_of(conn, [r.id for r in rows])
        matching = counts.pop(None, 0)
    rejected = {r: counts.get(r, 0) for r in REASONS}
    return (rejected, [(row, traits.get(row.id, [])) for row in rows],
            matching)


def _counts(conn, tests, project: str | None) -> dict:
    counted = sa.select(_reason(tests).label('reason')).where(
        *_visible(project)).subquery()
    return dict(conn.execute(
        sa.select(counted.c.reason, sa.func.count())
        .group_by(counted.c.reason)).all())


def filtered(conn, request, project: str | None) -> dict[str, int]:
    """The nodes project may see (all with None) that the request's
    filters or maintenance remove, by reason (every reason), and under
    None how many pass them: the members a window may be booked on."""
    counts = _counts(conn, _filters(request), project)
    return {**{r: counts.get(r, 0) for r in REASONS},
            None: counts.get(None, 0)}


def traits_of(conn, node_ids) -> dict[int, list[str]]:
    """The traits of nodes, sorted, by node id."""
    traits: dict[int, list[str]] = {}
    if node_ids:
        for node_id, trait in conn.execute(
                sa.select(_TRAITS.c.node_id, _TRAITS.c.trait)
                .where(_TRAITS.c.node_id.in_(list(node_ids)))
                .order_by(_TRAITS.c.trait)):
            traits.setdefault(node_id, []).append(trait)
    return traits
