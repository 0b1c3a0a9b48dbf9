"""The allocation preview: which nodes an allocation request matches,
the one the allocator would give it now, and why every other node is
left out. Nothing is locked, reserved or recorded."""
import dataclasses
import datetime
import random

from oslo_config import cfg

from pool_conductor import allocations
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import candidates as candidates_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import external
from pool_conductor import windows

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
    request = dataclasses.replace(
        request,
        skip_unknown_external=CONF.external_manager.unknown_blocks_allocation)
    cap = CONF.api.max_allocation_candidates
    as_of = db_api.utcnow()
    rejected, rows, matching = candidates_db.preview(
        context, request, project, min(limit or cap, cap))
    pick = None
    if matching:
        pick = _pick(context, request, random.Random(seed)
                     if seed is not None else random)
    return Preview(candidates=rows, total_matching=matching, would_pick=pick,
                   rejected=rejected, as_of=as_of)


def _pick(context, request: Request, rng) -> str | None:
    """The node the allocator would give the request, as
    allocations.allocate_one() chooses it: a new random start for each
    attempt, passing over the nodes of an external manager whose state is
    unknown. (Whether a manager gives the hardware is not known before
    it is asked.)"""
    max_id = allocations_db.max_node_id(context)
    passed: list[int] = []
    with db_api.reader(context) as session:
        conn = session.connection()
        for _ in range(CONF.external_manager.acquire_attempts + 1):
            chosen = allocations.choose(conn, request,
                                        allocations.pivot(max_id, rng),
                                        lock=False, exclude=passed)
            if not chosen:
                return None
            if not external.skip_candidate(chosen[0]):
                return chosen[0].uuid
            passed.append(chosen[0].id)
    return None
