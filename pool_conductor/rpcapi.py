"""Client side of the conductor RPC API."""
import random
import threading
import time

from pool_conductor.conf import CONF
from pool_conductor.db import conductors as conductors_db
from pool_conductor import exception
from pool_conductor import rpc


class ConductorAPI:
    """Casts work to live conductors.

    API version history:
        1.0 - create_allocation
    """

    RPC_API_VERSION = '1.0'
    # How long the list of live conductors is reused before it is read
    # from the database again.
    ALIVE_CACHE_SECONDS = 1.0

    def __init__(self):
        self._client = None
        self._alive: list[str] = []
        self._alive_at = 0.0
        self._lock = threading.Lock()

    @property
    def client(self):
        if self._client is None:
            self._client = rpc.get_client(CONF, self.RPC_API_VERSION)
        return self._client

    def alive_conductors(self, context) -> list[str]:
        now = time.monotonic()
        with self._lock:
            if now - self._alive_at < self.ALIVE_CACHE_SECONDS:
                return self._alive
        alive = conductors_db.list_alive_hostnames(
            context, CONF.conductor.heartbeat_timeout)
        with self._lock:
            self._alive, self._alive_at = alive, now
        return alive

    def pick_conductor(self, context) -> str:
        """A random live conductor.

        :raises: NoValidHost when no conductor is alive
        """
        alive = self.alive_conductors(context)
        if not alive:
            raise exception.NoValidHost()
        return random.choice(alive)

    def create_allocation(self, context, allocation_id: int,
                          host: str) -> None:
        """Ask a conductor to process an allocation (a cast: no reply).

        The cast gives up after one reconnection attempt when the message
        bus is down: the allocation is recorded with the conductor's name,
        and the conductor finds it by itself on its next check.
        """
        cctxt = self.client.prepare(server=host, retry=1)
        cctxt.cast(context, 'create_allocation', allocation_id=allocation_id)
