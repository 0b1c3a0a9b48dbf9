"""RPC endpoint of a conductor."""
import oslo_messaging as messaging

from pool_conductor.allocator import AllocationWorker
from pool_conductor.baremetal import provisioning
from pool_conductor import context as pool_context
from pool_conductor import events


class ConductorManager:
    """Receives the RPC calls of the API and hands them to workers."""

    RPC_API_VERSION = '2.2'
    target = messaging.Target(version=RPC_API_VERSION)

    def __init__(self, allocation_worker: AllocationWorker):
        self.allocation_worker = allocation_worker

    def create_allocations(self, context, allocation_ids: list[int],
                           actors: dict | None = None) -> None:
        """Start processing allocations the API wrote as allocating.

        :param actors: str(id) -> (request id, user, project) of the
            request that created each allocation.
        """
        self.allocation_worker.submit_many(allocation_ids,
                                           events.actors_from(actors))

    def continue_provisioning(self, context, node_ids: list[int],
                              actors: dict | None = None) -> None:
        """Move on nodes the API recorded in a provision state in progress
        (deploying, deleting); never raises.

        :param actors: str(id) -> (request id, user, project) of the
            request that set each node's state.
        """
        provisioning.continue_nodes(pool_context.get_admin_context(),
                                    node_ids, events.actors_from(actors),
                                    self.allocation_worker.host)
