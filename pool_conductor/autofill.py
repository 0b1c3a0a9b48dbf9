"""AutoFill: pools that keep themselves filled, within min_free and
max_free, from an acquire pool and a broker."""
import dataclasses

from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import exception

# The autofill of a pool that has none, and what a pool's autofill
# leaves out.
DEFAULTS = {'use_autofill': False, 'min_free': 0, 'max_free': None,
            'acquire_pool': None, 'return_pool': None,
            'create_parameters': {}, 'max_unready': None,
            'delete_unhealthy': False}


@dataclasses.dataclass(frozen=True)
class Settings:
    """A pool's autofill, with its defaults."""

    use_autofill: bool = False
    min_free: int = 0
    max_free: int | None = None
    acquire_pool: str | None = None
    return_pool: str | None = None
    create_parameters: dict = dataclasses.field(default_factory=dict)
    max_unready: int | None = None
    delete_unhealthy: bool = False

    @classmethod
    def of(cls, autofill: dict | None) -> 'Settings':
        return cls(**{**DEFAULTS, **(autofill or {})})


def normalized(autofill: dict | None) -> dict:
    """A pool's autofill with every key, as the API shows it."""
    return {**DEFAULTS, **(autofill or {})}


def check(context, pool: str, broker: str | None,
          autofill: dict | None) -> None:
    """Check a pool's broker and autofill: min_free at most max_free; the
    broker and the acquire and return pools exist and are not the pool
    itself; a pool that fills itself has somewhere to fill from.

    :raises: InvalidParameterValue, ObjectNotFound
    """
    settings = Settings.of(autofill)
    if broker:
        pools_db.get(context, models.Broker, broker)
    if settings.max_free is not None and settings.min_free > \
            settings.max_free:
        raise exception.InvalidParameterValue(
            err='autofill.min_free (%d) of pool %s is more than its '
                'max_free (%d).' % (settings.min_free, pool,
                                    settings.max_free))
    for key in ('acquire_pool', 'return_pool'):
        other = getattr(settings, key)
        if other is None:
            continue
        if other == pool:
            raise exception.InvalidParameterValue(
                err='autofill.%s of pool %s cannot be the pool itself.'
                    % (key, pool))
        pools_db.get(context, models.Pool, other)
    if (settings.use_autofill and settings.min_free > 0
            and not broker and not settings.acquire_pool):
        raise exception.InvalidParameterValue(
            err='Pool %s cannot fill itself: autofill.min_free is %d but '
                'it has neither a broker nor an autofill.acquire_pool.'
                % (pool, settings.min_free))
