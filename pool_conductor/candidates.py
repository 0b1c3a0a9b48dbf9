"""The allocation preview: which nodes an allocation request matches,
the one the allocator would give it now, and why every other node is
left out. Nothing is locked, reserved or recorded."""
import dataclasses
import datetime
import random

from oslo_config import cfg

from pool_conductor import allocator
from pool_conductor.booking import windows
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import candidates as candidates_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import external
from pool_conductor import states

CONF = cfg.CONF

REASONS = candidates_db.REASONS


@dataclasses.dataclass(frozen=True)
class Request:
    """What an allocation asks for, as the allocator reads it."""

    resource_class: str | None = None
    traits: tuple[str, ...] = ()
    candidate_nodes: tuple[str, ...] = ()
    owner: str | None = None
    pool: str = models.DEFAULT_POOL
    # A free node of this name is taken first, as by an allocation of
    # this name.
    name: str | None = None
    # When the allocation would end (None: never), and its pool's post
    # margin: a node is left out when a slot of it begins before then
    # plus the margin (windows.hold_until).
    lifespan_end: datetime.datetime | None = None
    post_margin: int | None = None
    # Nodes whose external manager's state is unknown are passed over
    # ([external_manager] unknown_blocks_allocation).
    skip_unknown_external: bool = False
    # A window (start_at, end_at): the nodes booking it would find free.
    # One that has begun is an allocation that starts now and ends at
    # end_at, as allocations create it.
    start_at: datetime.datetime | None = None
    end_at: datetime.datetime | None = None

    @property
    def hold_until(self) -> datetime.datetime:
        return windows.hold_until(self.lifespan_end, self.post_margin)


@dataclasses.dataclass(frozen=True)
class Preview:
    """The answer: the matching nodes (up to a limit) with their traits,
    how many match, the node the allocator would pick (None: none
    matches), how many nodes each reason removed, and when."""

    candidates: list[tuple]
    total_matching: int
    would_pick: str | None
    rejected: dict[str, int]
    as_of: datetime.datetime
    # The window booked with the pool's margins (None: none).
    window: windows.Window | None = None

    @property
    def fleet(self) -> int:
        """Every node looked at: the matches and those left out."""
        return self.total_matching + sum(self.rejected.values())


def preview(context, request: Request, project: str | None = None,
            limit: int | None = None, seed: int | None = None) -> Preview:
    """Preview an allocation request among the nodes project owns or
    leases (every node with None).

    :param seed: seeds the random start of the allocator's search, so
        that the pick is the one an allocator seeded alike makes.
    :raises: ObjectNotFound for a pool that does not exist
    """
    pool = pools_db.get(context, models.Pool, request.pool)
    if request.post_margin is None:
        request = dataclasses.replace(
            request, post_margin=pool.reservation_post_margin)
    cap = CONF.api.max_allocation_candidates
    limit = min(limit or cap, cap)
    rng = random.Random(seed) if seed is not None else random
    as_of = db_api.utcnow()
    if request.start_at is not None:
        if request.start_at > as_of:
            return _preview_window(context, request, pool, project, limit,
                                   rng, as_of)
        request = dataclasses.replace(request, lifespan_end=request.end_at,
                                      start_at=None, end_at=None)
    request = dataclasses.replace(
        request,
        skip_unknown_external=CONF.external_manager.unknown_blocks_allocation)
    rejected, rows, matching = candidates_db.preview(
        context, request, project, limit)
    pick = None
    if matching:
        pick = _pick(context, request, rng)
    return Preview(candidates=rows, total_matching=matching, would_pick=pick,
                   rejected=rejected, as_of=as_of)


def _window_reason(node, slots: list, win: windows.Window,
                   post: datetime.timedelta) -> str | None:
    """The reason a member that matches a request is left out of a
    window (windows.not_free), None when booking may take it: held past
    the window's busy_from by an allocation or instance (allocated) or by
    its state, or overlapping a slot."""
    why = windows.not_free(node, slots, win, post)
    if why == windows.OVERLAPPING:
        return 'overlapping_window'
    if why == windows.HELD:
        if node.allocation_id is not None or node.instance_uuid is not None:
            return 'allocated'
        if node.provision_state != states.AVAILABLE:
            return 'provision_state'
        return 'pool_status'
    return None


def _preview_window(context, request: Request, pool, project: str | None,
                    limit: int, rng, as_of: datetime.datetime) -> Preview:
    """The preview of a window ahead: the members booking it would find
    free (windows.free_nodes_for, with the pool's margins), and the one
    it would try first.

    :raises: InvalidParameterValue for a window its pool's lifespan does
        not allow
    """
    windows.check_window(request.start_at, request.end_at, pool.lifespan,
                         pool.name)
    pool_margins = windows.margins(pool.reservation_pre_margin,
                                   pool.reservation_post_margin)
    win = windows.window(request.start_at, request.end_at, pool_margins)
    with db_api.reader(context) as session:
        conn = session.connection()
        rejected = candidates_db.filtered(conn, request, project)
        rejected.pop(None)
        nodes, free, over = windows.free_nodes_for(
            conn, pool.name, {'resource_class': request.resource_class,
                              'traits': request.traits,
                              'owner': request.owner,
                              'candidate_nodes': request.candidate_nodes},
            win, pool_margins.post)
        for node in nodes:
            reason = _window_reason(node, over.get(node.id, []), win,
                                    pool_margins.post)
            if reason is not None:
                rejected[reason] += 1
        traits = candidates_db.traits_of(conn, [n.id for n in free[:limit]])
    pick = windows.order(free, rng)[0].uuid if free else None
    return Preview(candidates=[(n, traits.get(n.id, []))
                               for n in free[:limit]],
                   total_matching=len(free), would_pick=pick,
                   rejected=rejected, as_of=as_of, window=win)


def _pick(context, request: Request, rng) -> str | None:
    """The node the allocator would give the request, as
    allocator.allocate_one() chooses it: a new random start for each
    attempt, passing over the nodes of an external manager whose state is
    unknown. (Whether a manager gives the hardware is not known before
    it is asked.)"""
    max_id = allocations_db.max_node_id(context)
    passed: list[int] = []
    with db_api.reader(context) as session:
        conn = session.connection()
        for _ in range(CONF.external_manager.acquire_attempts + 1):
            chosen = allocator.choose(conn, request,
                                      allocator.pivot(max_id, rng),
                                      lock=False, exclude=passed)
            if not chosen:
                return None
            if not external.skip_candidate(chosen[0]):
                return chosen[0].uuid
            passed.append(chosen[0].id)
    return None
