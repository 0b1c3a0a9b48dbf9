"""The interface of a provisioner."""
import abc
import typing

if typing.TYPE_CHECKING:
    import sqlalchemy as sa


class Provisioner(abc.ABC):
    """Moves the pool nodes a conductor drives through their workflows.

    A conductor calls advance() every ``[conductor]
    check_workflows_interval`` seconds for each Building or Destroying
    node it drives that is due(), holding the node's lock (its
    reservation) meanwhile. A provisioner changes a node only with
    pool_conductor.binding.report_driven(), a compare-and-swap that moves the
    node's pool status on as a stage report does.
    """

    def due(self, node: 'sa.Row') -> bool:
        """Whether advance() has something to do for the node now; the
        conductor locks only the nodes that are due."""
        return True

    @abc.abstractmethod
    def advance(self, context, node: 'sa.Row', host: str) -> bool:
        """Move a node on in its workflow if it is time to.

        :param node: the node, as db.workflows.list_driven_nodes() reads
            it.
        :param host: the conductor that drives it.
        :returns: whether the node changed.
        :raises: anything; the conductor holds the node with the error as
            its last_error (the database being unreachable aside: then the
            node is tried again in the next round).
        """
