"""The interface of an external manager driver."""
import abc
from collections.abc import Iterable, Sequence
import dataclasses

# What a driver sees of a resource: nobody uses it, pool's claim holds
# it, another user holds it, the manager does not have it (any more).
NONE, POOL, OTHER, ABSENT = 'none', 'pool', 'other', 'absent'


@dataclasses.dataclass(frozen=True)
class Observation:
    """One resource as its manager has it: its owner (NONE, POOL, OTHER
    or ABSENT) and, when POOL holds it, the token of that claim."""

    owner: str
    token: str | None = None
    detail: str | None = None


@dataclasses.dataclass(frozen=True)
class Resource:
    """A resource a manager has, as discover() lists it."""

    ref: str
    name: str | None = None
    resource_class: str | None = None
    properties: dict = dataclasses.field(default_factory=dict)


class ExternalManagerDriver(abc.ABC):
    """Talks to a system that owns hardware pool shares.

    A conductor calls observe() once per manager per round, outside any
    transaction; acquire() and release() while it holds the node's row
    lock. Each raises only exception.ExternalManagerError (acquire()
    ExternalTaken when another user holds the resource); the conductor
    records its message.
    """

    def validate(self, parameters: dict) -> None:
        """Check a manager's parameters when it is created or changed.

        :raises: InvalidParameterValue
        """
        return None

    @abc.abstractmethod
    def observe(self, parameters: dict, refs: Sequence[str]
                ) -> dict[str, Observation]:
        """What the manager has of each resource, read in one batch
        (read-only: nothing changes there).

        :returns: ref -> Observation for every ref (ABSENT for one the
            manager does not have).
        :raises: ExternalManagerError when the manager cannot be read
        """

    @abc.abstractmethod
    def acquire(self, parameters: dict, ref: str, key: str, spec: dict
                ) -> str:
        """Make pool the owner of a resource, applying spec; a second
        call with the same key returns the same claim and makes no other.

        :param key: the idempotency key (the allocation's UUID).
        :param spec: what to apply (e.g. a profile template), from the
            node's properties.
        :returns: the token of pool's claim.
        :raises: ExternalTaken when another user holds it,
            ExternalManagerError
        """

    @abc.abstractmethod
    def release(self, parameters: dict, ref: str, token: str) -> None:
        """End pool's claim token on a resource. A claim already gone is
        released; a claim that is not token (another user's, or a newer
        one of pool) is left as it is.

        :raises: ExternalManagerError
        """

    def discover(self, parameters: dict) -> Iterable[Resource]:
        """The resources the manager has, to enroll as nodes.

        :raises: ExternalManagerError
        """
        return []
