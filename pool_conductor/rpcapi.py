"""Client side of the conductor RPC API."""
import random
import threading
import time

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor import conductors
from pool_conductor import context as pool_context
from pool_conductor.db import conductors as conductors_db
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import rpc

LOG = log.getLogger(__name__)


# The argument that carries the ids of each cast method.
_ID_ARGUMENT = {'create_allocations': 'allocation_ids',
                'continue_provisioning': 'node_ids'}


class ConductorAPI:
    """Hands allocations, and nodes in a provision state in progress, to
    live conductors.

    Both are cast in batches: a sender thread casts at most one message
    per conductor and method every ``[api] allocation_cast_interval``
    seconds, with every id queued for that conductor meanwhile, and the
    conductor picked changes at the same pace. A lone id is cast at once;
    under load, one message carries many, which saves both sides the cost
    of a message each.

    API version history:
        1.0 - create_allocation
        1.1 - create_allocations
        2.0 - create_allocation removed (API and conductors are upgraded
              together)
        2.1 - continue_provisioning
        2.2 - create_allocations and continue_provisioning take actors:
              who asked for each id (request id, user, project)
    """

    RPC_API_VERSION = '2.2'
    # How long the list of live conductors is reused before it is read
    # from the database again.
    ALIVE_CACHE_SECONDS = 1.0

    def __init__(self):
        self._client = None
        self._alive: list[tuple[str, str]] = []
        self._alive_at = 0.0
        self._lock = threading.Lock()
        self._picked: str | None = None
        self._picked_at = 0.0
        # (host, method) -> [(id, who asked for it)]
        self._outbox: dict[tuple[str, str], list[tuple]] = {}
        self._wakeup = threading.Condition(self._lock)
        self._sender: threading.Thread | None = None
        self._last_cast = 0.0

    @property
    def client(self):
        if self._client is None:
            self._client = rpc.get_client(CONF, self.RPC_API_VERSION)
        return self._client

    def alive_with_groups(self, context) -> list[tuple[str, str]]:
        """(hostname, conductor group) of the live conductors."""
        now = time.monotonic()
        with self._lock:
            if now - self._alive_at < self.ALIVE_CACHE_SECONDS:
                return self._alive
        alive = conductors_db.list_alive(
            context, CONF.conductor.heartbeat_timeout)
        with self._lock:
            self._alive, self._alive_at = alive, now
        return alive

    def alive_conductors(self, context) -> list[str]:
        return [host for host, _group in self.alive_with_groups(context)]

    def conductor_for(self, context, node) -> str:
        """The live conductor that serves a node (conductors.serving()).

        :raises: NoValidHost when none of the node's group is alive
        """
        group = node.conductor_group or ''
        host = conductors.serving(self.alive_with_groups(context),
                                  node.uuid, group)
        if host is None:
            raise exception.NoValidHost(group=group)
        return host

    def pick_conductor(self, context, key: str | None = None) -> str:
        """The live conductor for work of key, else a random live one,
        the same for a cast interval.

        Work of the same key (allocations asking for the same resource
        class of the same pool) goes to the same conductor, by rendezvous
        hashing over the live ones: its claims share transactions and no
        two conductors look for the same free nodes at once, and a
        conductor coming or going moves only the keys it gains or had.

        :raises: NoValidHost when no conductor is alive
        """
        alive = self.alive_conductors(context)
        if not alive:
            raise exception.NoValidHost()
        if key is not None:
            return conductors.serving([(host, '') for host in alive], key,
                                      '')
        now = time.monotonic()
        with self._lock:
            if (self._picked not in alive or now - self._picked_at
                    >= CONF.api.allocation_cast_interval):
                self._picked, self._picked_at = random.choice(alive), now
            return self._picked

    def create_allocation(self, context, allocation_id: int,
                          host: str) -> None:
        """Queue an allocation to be cast to its conductor; never blocks.

        An allocation whose message is lost (the message bus is down, the
        process dies first) is recorded with its conductor's name, and the
        conductor finds it by itself on its next check.
        """
        self._queue(host, 'create_allocations', allocation_id, context)

    def continue_provisioning(self, context, node_id: int,
                              host: str) -> None:
        """Queue a node in a provision state in progress to be cast to a
        conductor, which moves it on; never blocks.

        A node whose message is lost is moved on by a conductor's periodic
        check (``[conductor] check_provisioning_interval``).
        """
        self._queue(host, 'continue_provisioning', node_id, context)

    def _queue(self, host: str, method: str, ident: int, context) -> None:
        actor = events.Actor.of(context)
        with self._lock:
            self._outbox.setdefault((host, method), []).append(
                (ident, actor))
            if self._sender is None or not self._sender.is_alive():
                self._sender = threading.Thread(
                    target=self._send_forever, name='pool-rpc-sender',
                    daemon=True)
                self._sender.start()
            self._wakeup.notify()

    def _send_forever(self) -> None:
        while True:
            with self._lock:
                while not self._outbox:
                    self._wakeup.wait()
            # At most one cast per conductor and interval: what arrives
            # meanwhile goes with the next one.
            pause = (self._last_cast + CONF.api.allocation_cast_interval
                     - time.monotonic())
            if pause > 0:
                time.sleep(pause)
            with self._lock:
                outbox, self._outbox = self._outbox, {}
            self._last_cast = time.monotonic()
            for (host, method), items in outbox.items():
                self._cast(host, method, items)

    def _cast(self, host: str, method: str, items: list[tuple]) -> None:
        """Cast ids to a conductor's method; never raises.

        The cast gives up after one reconnection attempt when the message
        bus is down.
        """
        ids = [ident for ident, _ in items]
        actors = {str(ident): list(events.astuple(actor))
                  for ident, actor in items if actor != events.NOBODY}
        try:
            cctxt = self.client.prepare(server=host, retry=1)
            cctxt.cast(pool_context.get_admin_context(), method,
                       actors=actors, **{_ID_ARGUMENT[method]: ids})
        except Exception as exc:
            LOG.warning('Could not cast %(method)s of %(ids)s to conductor '
                        '%(host)s, a periodic check picks them up: %(exc)s',
                        {'method': method, 'ids': ids, 'host': host,
                         'exc': exc})
