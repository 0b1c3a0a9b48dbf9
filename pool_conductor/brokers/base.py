"""The interface of a broker driver."""
import abc


class BrokerDriver(abc.ABC):
    """Creates and destroys machines for pools.

    A conductor calls create() and destroy() holding the node's lock and
    outside any database transaction. Each raises only
    exception.BrokerError (the conductor records its message).
    """

    def validate(self, parameters: dict) -> None:
        """Check a broker's parameters when it is created or changed.

        :raises: InvalidParameterValue
        """
        return None

    @abc.abstractmethod
    def create(self, token: str, parameters: dict) -> dict:
        """Make a machine, or return the one made before for token.

        :param token: the request's idempotency token: a second call with
            the same token returns the same machine and makes no other.
        :param parameters: the broker's parameters overlaid with the
            pool's create_parameters.
        :returns: the machine: ``ref`` (the broker's id for it), and
            optionally ``name``, ``driver``, ``resource_class``,
            ``properties``, ``traits``, ``driver_info``.
        :raises: BrokerError
        """

    @abc.abstractmethod
    def destroy(self, ref: str, parameters: dict) -> None:
        """Destroy a machine the broker made; a machine already gone is
        destroyed.

        :raises: BrokerError
        """
