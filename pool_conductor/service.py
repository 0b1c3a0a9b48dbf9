"""A conductor: RPC server, allocation workers, workflows, heartbeat."""
import dataclasses
import threading
import time

import futurist
from futurist import periodics
from oslo_log import log

from pool_conductor.allocator import AllocationWorker
from pool_conductor.autofill import AutoFiller
from pool_conductor.baremetal import provisioning
from pool_conductor.booking import healing
from pool_conductor.booking import maintenance_windows
from pool_conductor.booking import windows
from pool_conductor import claim_release
from pool_conductor import claims
from pool_conductor import conductors
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor import events
from pool_conductor import expiry
from pool_conductor import external
from pool_conductor.manager import ConductorManager
from pool_conductor import metrics
from pool_conductor import notifications
from pool_conductor import provisioners
from pool_conductor import rounds
from pool_conductor import rpc
from pool_conductor import sequencer
from pool_conductor import workflows

LOG = log.getLogger(__name__)


def _periodic(method, spacing: float):
    """A futurist periodic task calling a bound method every spacing s,
    counted in the metrics."""
    def task():
        started, ok = time.monotonic(), False
        try:
            method()
            ok = True
        finally:
            metrics.observe_round(method.__name__, started, ok)
    task.__name__ = method.__name__
    return periodics.periodic(spacing)(task), None, None


@dataclasses.dataclass(frozen=True)
class Periodic:
    """A periodic task of a conductor: the method it calls, and the
    option of its interval (read when the conductor starts); an interval
    of 0 turns the task off."""

    method: str
    group: str
    option: str
    # The longest spacing of the task, whatever its interval.
    most: float | None = None

    def spacing(self, interval: float) -> float:
        return interval if self.most is None else min(interval, self.most)


PERIODICS = (
    Periodic('heartbeat', 'conductor', 'heartbeat_interval'),
    Periodic('check_allocations', 'conductor', 'check_allocations_interval'),
    Periodic('check_workflows', 'conductor', 'check_workflows_interval'),
    Periodic('check_lifespans', 'conductor', 'check_lifespans_interval'),
    Periodic('check_autofill', 'conductor', 'check_autofill_interval'),
    Periodic('check_provisioning', 'conductor',
             'check_provisioning_interval'),
    Periodic('check_claims', 'conductor', 'check_claims_interval'),
    Periodic('check_windows', 'windows', 'check_interval'),
    # Each manager runs when its own interval has passed.
    Periodic('check_external', 'external_manager', 'sync_interval', most=10),
    # self.sequencer gives the events their cursors.
    Periodic('publish_events', 'events', 'publish_interval'),
    Periodic('prune_events', 'events', 'cleanup_interval'),
)


class ConductorService:
    """One conductor, named by ``[DEFAULT] host``.

    On start it registers itself, releases the node locks a previous run
    of the same host left behind and resumes that host's allocations. Its
    periodic tasks heartbeat, take over allocations of dead conductors,
    queue again its own allocations that no worker holds (after a lost
    message or a database outage), move on nodes left deploying, deleting
    or cleaning, bind pending claims, release
    allocations and claims whose lifespan has ended, keep pools with
    autofill filled, and drive pool nodes through their workflows with the
    provisioner: nodes no live conductor drives are taken, and those this
    host drove before a restart are resumed.
    """

    def __init__(self, host: str | None = None):
        self.host = host or CONF.host
        self.context = pool_context.get_admin_context()
        self.worker: AllocationWorker | None = None
        self._rpc_server = None
        self._periodics: periodics.PeriodicWorker | None = None
        self._periodic_thread: threading.Thread | None = None
        self._metrics_server = None
        self.autofiller = AutoFiller(self.host)
        self.reconciler = external.Reconciler(self.host)
        self.publisher = notifications.Publisher(self.host)
        self.sequencer = sequencer.Sequencer(self.sequence_events)

    def start(self) -> None:
        """:raises: ProvisionerNotFound"""
        # A provisioner that cannot be loaded stops the start.
        provisioners.get_provisioner()
        conductors.register(self.context, self.host, start=True)
        released = conductors_db.clear_node_reservations(self.context,
                                                         self.host)
        if released:
            LOG.info('Released %d node locks left by a previous run of %s',
                     released, self.host)
        # The outcome of a batch of allocations is sequenced at once.
        self.worker = AllocationWorker(
            self.host, CONF.conductor.allocation_workers,
            CONF.conductor.allocation_batch_size, self.sequencer.poke)
        self._rpc_server = rpc.get_server(
            CONF, self.host, [ConductorManager(self.worker)])
        self._rpc_server.start()
        self._start_periodics()
        self.sequencer.start()
        if CONF.conductor.metrics_port:
            self._metrics_server = metrics.serve(
                CONF.conductor.metrics_host, CONF.conductor.metrics_port)
        resumed = self.requeue_own_allocations()
        LOG.info('Conductor %(host)s started, %(num)d allocations resumed',
                 {'host': self.host, 'num': resumed})

    def _start_periodics(self) -> None:
        tasks = []
        for task in PERIODICS:
            interval = getattr(getattr(CONF, task.group), task.option)
            if interval > 0:
                tasks.append(_periodic(getattr(self, task.method),
                                       task.spacing(interval)))
        # A thread per task: a long round of one (many nodes to move on)
        # does not hold back the heartbeat.
        self._periodics = periodics.PeriodicWorker(
            tasks, executor_factory=lambda: futurist.ThreadPoolExecutor(
                max_workers=len(tasks)))
        self._periodic_thread = threading.Thread(
            target=self._periodics.start, name='pool-periodics',
            daemon=True)
        self._periodic_thread.start()

    def stop(self) -> None:
        """Stop taking work, finish what is running, and go offline."""
        if self._rpc_server is not None:
            self._rpc_server.stop()
            self._rpc_server.wait()
        if self._periodics is not None:
            self._periodics.stop()
            self._periodics.wait()
        self.sequencer.stop()
        if self.worker is not None:
            self.worker.stop(wait=True)
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
            self._metrics_server.server_close()
        self.publisher.cleanup()
        try:
            conductors.unregister(self.context, self.host)
        except Exception:
            LOG.exception('Could not mark conductor %s offline', self.host)
        LOG.info('Conductor %s stopped', self.host)

    def sequence_events(self) -> None:
        """Give committed events their cursors (self.sequencer's pass);
        never raises."""
        started, ok = time.monotonic(), True
        try:
            # Another conductor sequencing now gives these events theirs.
            # Without notifications they are published as they are
            # sequenced: one update of each event instead of two.
            events.sequence(wait=False,
                            published=not notifications.sending())
        except Exception as exc:
            ok = False
            LOG.warning('Sequencing events on %s failed: %s', self.host,
                        exc)
        metrics.observe_round('sequence_events', started, ok)

    def publish_events(self) -> None:
        """Periodic task: publish events as notifications; never
        raises."""
        self.publisher.publish()

    def prune_events(self) -> None:
        """Periodic task: delete the events past retention; never
        raises."""
        events.prune()

    def heartbeat(self) -> None:
        """Record that this conductor is alive; never raises."""
        try:
            conductors.register(self.context, self.host)
        except Exception as exc:
            LOG.warning('Heartbeat of conductor %s failed: %s', self.host,
                        exc)

    def requeue_own_allocations(self) -> int:
        """Queue this host's allocating rows that no worker holds."""
        ids = allocations_db.list_allocating_ids(self.context, self.host)
        return sum(1 for i in ids if self.worker.submit(i))

    def take_over_orphans(self) -> int:
        """Take over allocations whose conductor is dead.

        Each takeover is a compare-and-swap on conductor_affinity, so of
        several conductors doing this at once exactly one wins each
        allocation. Node locks of dead conductors are released as well.
        """
        alive = rounds.live_conductors(self.context, self.host)
        if alive is None:
            return 0
        conductors.mark_dead(self.context, self.host)
        taken = 0
        for alloc_id, old_host in allocations_db.list_orphaned(self.context,
                                                               alive):
            if conductors.take_over_allocation(self.context, alloc_id,
                                               old_host, self.host):
                LOG.info('Took over allocation %(id)s from dead conductor '
                         '%(old)s', {'id': alloc_id, 'old': old_host})
                self.worker.submit(alloc_id)
                taken += 1
        released = conductors_db.clear_dead_reservations(self.context, alive)
        if released:
            LOG.info('Released %d node locks of dead conductors', released)
        return taken

    def check_allocations(self) -> None:
        """Periodic task: takeover and requeue; never raises."""
        try:
            self.take_over_orphans()
            self.requeue_own_allocations()
        except Exception as exc:
            LOG.warning('Checking allocations on %s failed: %s', self.host,
                        exc)

    def check_lifespans(self) -> None:
        """Periodic task: release allocations and claims whose lifespan
        has ended, and undeploy their deployed nodes; never raises."""
        if (expiry.expire(self.context, self.host)
                + claim_release.expire(self.context, self.host)):
            provisioning.check(self.context, self.host)

    def check_provisioning(self) -> None:
        """Periodic task: move on the nodes in a provision state in
        progress that nothing moved on; never raises."""
        provisioning.check(self.context, self.host)

    def check_windows(self) -> None:
        """Periodic task: give the scheduled allocations that lost their
        node another one (or fail them at their start), start those whose
        slot has begun, begin and end maintenance windows, announce the
        windows near their end and reclaim the idle ones; never raises."""
        healing.check(self.context, self.host)
        windows.start_due(self.context, self.host, self.worker.submit)
        expiry.notify_before_end(self.context)
        if expiry.reclaim_idle(self.context)[1]:
            # A reclaimed node's release actions move on as an expiry's.
            provisioning.check(self.context, self.host)
        maintenance_windows.check(self.context, self.host)

    def check_claims(self) -> None:
        """Periodic task: take from their claims the machines that failed,
        then bind pending claims; never raises."""
        claim_release.lose_failed(self.context)
        claims.bind_pending(self.context, self.host)

    def check_autofill(self) -> None:
        """Periodic task: keep the pools this conductor fills within
        their bounds; never raises."""
        self.autofiller.check(self.context)

    def check_external(self, force: bool = False) -> None:
        """Periodic task: a round of each external manager this
        conductor reconciles (taking those no live conductor does), then
        the nodes they freed moved on through cleaning; never raises."""
        done = self.reconciler.check(self.context, force)
        provisioning.continue_nodes(
            self.context, [i for r in done.values() for i in r.provided],
            host=self.host)

    def check_workflows(self) -> None:
        """Periodic task: claim pool nodes and move them on in their
        workflows; never raises."""
        workflows.check_workflows(self.context, self.host)
