"""Queries on claims."""
from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import handles as handles_db
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import states

_CLAIMS = models.Claim.__table__
_ALLOCATIONS = models.Allocation.__table__
_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__
_PROVIDERS = models.Provider.__table__


def _get(session, ident: str) -> models.Claim:
    claim = session.scalars(
        sa.select(models.Claim)
        .where(api.ident_column(models.Claim, ident) == ident)
        .execution_options(populate_existing=True)).one_or_none()
    if claim is None:
        raise exception.ClaimNotFound(claim=ident)
    return claim


def get(context, ident: str) -> models.Claim:
    """A claim by UUID or name.

    :raises: ClaimNotFound
    """
    with api.reader(context) as session:
        return _get(session, ident)


def uuid_of(context, claim_id: int) -> str | None:
    """A claim's UUID by id."""
    with api.reader(context) as session:
        return session.scalar(sa.select(_CLAIMS.c.uuid).where(
            _CLAIMS.c.id == claim_id))


def create(context, values: dict) -> models.Claim:
    """:raises: ClaimAlreadyExists, ClaimDuplicateName"""
    try:
        with api.writer(context) as session:
            session.add(models.Claim(**values))
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        if 'name' in api.duplicate_columns(exc):
            raise exception.ClaimDuplicateName(name=values['name']) from None
        raise exception.ClaimAlreadyExists(uuid=values['uuid']) from None
    return get(context, values['uuid'])


def _resource_count(dialect: str):
    """The number of resources of a claim (the length of its JSON
    array)."""
    resources = _CLAIMS.c.resources
    if dialect == 'postgresql':
        return sa.func.jsonb_array_length(resources)
    if dialect == 'sqlite':
        return sa.func.json_array_length(resources)
    return sa.func.json_length(resources)


def is_ready(dialect: str):
    """Whether a claim is shown ready: the rule of claims.state_of() in
    SQL, which must give the same answer for every claim (change both
    together).

    Stored bound, with as many live allocations (not lost) as
    resources, each on a node InUse (an allocation without a node is
    not).
    """
    allocations = _ALLOCATIONS.c
    live = allocations.state != states.ALLOCATION_ERROR
    allocation_count = (sa.select(sa.func.count())
                        .where(allocations.claim_id == _CLAIMS.c.id, live)
                        .scalar_subquery())
    not_in_use = (
        sa.select(allocations.id)
        .select_from(_ALLOCATIONS.outerjoin(
            _NODES, _NODES.c.id == allocations.node_id))
        .where(allocations.claim_id == _CLAIMS.c.id, live,
               _NODES.c.pool_status.is_distinct_from(states.POOL_IN_USE))
        .exists())
    return sa.and_(_CLAIMS.c.state == states.CLAIM_BOUND,
                   allocation_count == _resource_count(dialect),
                   ~not_in_use)


def _shown_state_is(state: str, dialect: str):
    """Whether a claim's shown state (claims.state_of()) is state: ready
    and bound claims are both stored bound, told apart by is_ready()."""
    if state == states.CLAIM_READY:
        return is_ready(dialect)
    if state == states.CLAIM_BOUND:
        return sa.and_(_CLAIMS.c.state == states.CLAIM_BOUND,
                       sa.not_(is_ready(dialect)))
    return _CLAIMS.c.state == state


def list_claims(context, filters: dict, limit: int | None = None,
                marker: str | None = None, sort_key: str = 'id',
                sort_dir: str = 'asc') -> list[models.Claim]:
    """Claims by shown state and owner, filtered in SQL before the page
    is cut, so that every page but the last is full.

    :raises: ClaimNotFound if the marker does not exist
    """
    claim = models.Claim
    with api.reader(context) as session:
        q = sa.select(claim)
        if filters.get('state') is not None:
            q = q.where(_shown_state_is(filters['state'],
                                        session.get_bind().dialect.name))
        if filters.get('owner') is not None:
            q = q.where(claim.owner == filters['owner'])
        marker_obj = _get(session, marker) if marker else None
        q = api.paginate(q, claim, limit, marker_obj, sort_key, sort_dir)
        return list(session.scalars(q))


def machines(context, claim_ids: list[int]) -> dict[int, list[sa.Row]]:
    """The handles of claims (pool_conductor.db.handles: their
    allocations with the claim and the node), in resource order."""
    with api.reader(context) as session:
        return handles_db.of_claims(session, claim_ids)


def providers(conn, names) -> dict[str, sa.Row]:
    """Providers by name."""
    rows = conn.execute(sa.select(_PROVIDERS).where(
        _PROVIDERS.c.name.in_(sorted(set(names))))).all()
    return {r.name: r for r in rows}


def lock(conn, claim_id: int, *where) -> sa.Row | None:
    """A claim matching where, locked until the transaction ends."""
    return conn.execute(sa.select(_CLAIMS).where(
        _CLAIMS.c.id == claim_id, *where).with_for_update()).first()


def lock_pending(conn, claim_id: int, host: str) -> sa.Row | None:
    """A pending claim of host, locked."""
    return lock(conn, claim_id, _CLAIMS.c.state == states.CLAIM_PENDING,
                _CLAIMS.c.conductor_affinity == host)


def update(conn, claim_id: int, values: dict, *where) -> bool:
    """Change a claim (that matches where); whether it did."""
    return conn.execute(sa.update(_CLAIMS).where(
        _CLAIMS.c.id == claim_id, *where).values(
        updated_at=api.utcnow(), **values)).rowcount == 1


def _of_host(host: str, alive: list[str]):
    aff = _CLAIMS.c.conductor_affinity
    return sa.or_(aff == host, aff.is_(None), aff.not_in(alive))


def list_pending(context, host: str, alive: list[str], limit: int
                 ) -> list[sa.Row]:
    """Pending claims (id, conductor_affinity) a conductor binds: its own,
    those of no conductor and of dead ones, oldest first."""
    with api.reader(context) as session:
        return session.execute(
            sa.select(_CLAIMS.c.id, _CLAIMS.c.conductor_affinity)
            .where(_CLAIMS.c.state == states.CLAIM_PENDING,
                   _of_host(host, alive))
            .order_by(_CLAIMS.c.id).limit(limit)).all()


def failed_machines(context, failed_states, limit: int) -> list[int]:
    """The ids of claims' machines in one of failed_states (a failed
    deployment, rescue or cleaning), oldest first."""
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(_NODES.c.id).select_from(_NODES.join(
                _ALLOCATIONS, _ALLOCATIONS.c.id == _NODES.c.allocation_id))
            .where(_ALLOCATIONS.c.claim_id.is_not(None),
                   _NODES.c.provision_state.in_(list(failed_states)))
            .order_by(_NODES.c.id).limit(limit)))


def take_over(context, claim_id: int, old_host: str | None,
              host: str) -> bool:
    """Make a pending claim host's (a compare-and-swap on its
    conductor)."""
    aff = _CLAIMS.c.conductor_affinity
    with api.writer_connection(context) as conn:
        return update(conn, claim_id, {'conductor_affinity': host},
                      _CLAIMS.c.state == states.CLAIM_PENDING,
                      aff.is_(None) if old_host is None
                      else aff == old_host)


_UNEXPIRED = tuple(s for s in states.CLAIM_STATES
                   if s != states.CLAIM_EXPIRED)


def list_expired(context, now, host: str, alive: list[str],
                 limit: int) -> list[int]:
    """Ids of claims past their lifespan_end, not expired yet, that a
    conductor releases: its own, those of no conductor and of dead
    ones."""
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(_CLAIMS.c.id)
            # Along the index of (state, lifespan_end), the states by
            # name; not in the order of the index of lifespan_end, which
            # holds the expired claims too: they stay until deleted, and
            # would be read again at every look.
            .where(_CLAIMS.c.state.in_(_UNEXPIRED),
                   _CLAIMS.c.lifespan_end <= now,
                   _of_host(host, alive))
            .order_by(api.unindexed(_CLAIMS.c.lifespan_end, now))
            .limit(limit)))


def allocations_of(conn, claim_id: int) -> list[sa.Row]:
    """The allocations of a claim (id, uuid, node_id, claim_resource), by
    id."""
    return conn.execute(
        sa.select(_ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid,
                  _ALLOCATIONS.c.node_id, _ALLOCATIONS.c.claim_resource)
        .where(_ALLOCATIONS.c.claim_id == claim_id)
        .order_by(_ALLOCATIONS.c.id)).all()


def held_resources(conn, claim_id: int) -> set[int]:
    """The indexes of the resources of a claim that hold a machine (a
    live allocation: not a lost one)."""
    return set(conn.execute(
        sa.select(_ALLOCATIONS.c.claim_resource).where(
            _ALLOCATIONS.c.claim_id == claim_id,
            _ALLOCATIONS.c.state != states.ALLOCATION_ERROR)).scalars())


def of_allocation(conn, allocation_id: int) -> sa.Row | None:
    """(claim_id, claim_resource) of an allocation."""
    return conn.execute(
        sa.select(_ALLOCATIONS.c.claim_id, _ALLOCATIONS.c.claim_resource)
        .where(_ALLOCATIONS.c.id == allocation_id)).first()


def set_allocations_end(conn, claim_id: int, end) -> None:
    conn.execute(sa.update(_ALLOCATIONS).where(
        _ALLOCATIONS.c.claim_id == claim_id).values(
        lifespan_end=end, updated_at=api.utcnow()))


def delete(conn, claim_id: int) -> None:
    conn.execute(sa.delete(_CLAIMS).where(_CLAIMS.c.id == claim_id))


_ACTION_FIELDS = ('params', 'profiles', 'workflow', 'stage', 'runnable')


def change_node(conn, node, values: dict) -> bool:
    """Change the params, profiles or workflow of a node a claim holds
    (not its binding), if it is still the generation read and not locked
    by a conductor."""
    unknown = set(values) - set(_ACTION_FIELDS)
    if unknown:
        raise ValueError('change_node() cannot change %s'
                         % ', '.join(sorted(unknown)))
    return conn.execute(sa.update(_NODES).where(
        _NODES.c.id == node.id, _NODES.c.generation == node.generation,
        _NODES.c.reservation.is_(None)).values(
        generation=_NODES.c.generation + 1, updated_at=api.utcnow(),
        **values)).rowcount == 1
