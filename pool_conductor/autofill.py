"""AutoFill: pools that keep themselves filled, within min_free and
max_free, from an acquire pool and a broker."""
import concurrent.futures
import dataclasses
import datetime
import threading
import time

from oslo_log import log

from pool_conductor import binding
from pool_conductor import conductors
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import autofill as autofill_db
from pool_conductor.db import binding as binding_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import free_nodes
from pool_conductor.db import machines as machines_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import machines
from pool_conductor import pool_params
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import rounds
from pool_conductor import states

LOG = log.getLogger(__name__)

# The autofill of a pool that has none, and what a pool's autofill
# leaves out.
DEFAULTS = {'use_autofill': False, 'min_free': 0, 'max_free': None,
            'acquire_pool': None, 'return_pool': None,
            'create_parameters': {}, 'max_unready': None,
            'delete_unhealthy': False, 'horizon': None}


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
    # Seconds ahead the windows of scheduled allocations are looked at
    # (None: [windows] autofill_horizon; 0: not at all).
    horizon: int | None = None

    @classmethod
    def of(cls, autofill: dict | None) -> 'Settings':
        return cls(**{**DEFAULTS, **(autofill or {})})


def normalized(autofill: dict | None) -> dict:
    """A pool's autofill with every key, as the API shows it."""
    return {**DEFAULTS, **(autofill or {})}


def check_pool(context, pool: str, broker: str | None,
          autofill: dict | None) -> None:
    """Check a pool's broker and autofill: min_free at most max_free; the
    broker and the acquire and return pools exist and are not the pool
    itself; a pool that fills itself has somewhere to fill from; the
    params of its create_parameters are not pool params.

    :raises: InvalidParameterValue, ObjectNotFound, Invalid
    """
    settings = Settings.of(autofill)
    pool_params.check_names(settings.create_parameters.get('params'))
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


@dataclasses.dataclass
class Round:
    """What one round did to a pool."""

    acquired: int = 0
    requested: int = 0
    created: int = 0
    returned: int = 0
    destroyed: int = 0
    failed: int = 0
    # Failed creations given up (delete_unhealthy).
    abandoned: int = 0
    # Free broker-made nodes older than the pool's unclaimed lifespan.
    expired: int = 0
    # Nodes this round recorded to be created (locked by it).
    requested_ids: list = dataclasses.field(default_factory=list)
    # Free broker-made nodes locked to be destroyed.
    to_destroy: list = dataclasses.field(default_factory=list)
    settings: Settings = dataclasses.field(default_factory=Settings)
    # The last failure of a broker to create, or to destroy, a machine.
    create_error: str | None = None
    destroy_error: str | None = None

    def counts(self) -> dict:
        """What the round did, as its events' payloads say it."""
        return {k: getattr(self, k) for k in (
            'acquired', 'requested', 'created', 'returned', 'destroyed',
            'failed', 'abandoned', 'expired')}

    def scaled_up(self) -> bool:
        return bool(self.acquired or self.requested or self.created
                    or self.create_error)

    def scaled_down(self) -> bool:
        return bool(self.returned or self.to_destroy)


def horizon(settings: Settings) -> int:
    """Seconds ahead a pool's AutoFill looks at windows: its own, else
    [windows] autofill_horizon."""
    if settings.horizon is not None:
        return settings.horizon
    return CONF.windows.autofill_horizon


def booked_soon(conn, pool: str, settings: Settings) -> int:
    """How many Free members of a pool a window's slot holds from within
    the pool's horizon on (those it already holds included)."""
    seconds = horizon(settings)
    if not seconds:
        return 0
    return autofill_db.booked_free_count(
        conn, pool, db_api.utcnow() + datetime.timedelta(seconds=seconds))


def round_event(pool: str, action: str, status: str, done: Round,
                message: str | None = None) -> events.Event:
    """pool.pool.autofill.<action>.<status> of a round of AutoFill on a
    pool (action: scale_up, scale_down)."""
    return events.Event(
        'pool', events.name_uuid('pool', pool),
        event_types.autofill(action, status), object_name=pool,
        level='error' if status == 'error' else 'info',
        message=message or '%s of pool %s: %s' % (
            action.replace('_', ' ').capitalize(), pool, ', '.join(
                '%s %d' % kv for kv in done.counts().items() if kv[1])),
        payload=payloads.autofill(pool, done.counts()))


class AutoFiller:
    """One conductor's AutoFill: keeps the pools it fills within bounds.

    A pool is filled by one conductor at a time, its autofill_conductor,
    taken by compare-and-swap when no live conductor fills it. Each round
    counts the pool's members under the lock of its row, so that even two
    conductors that both think they fill it never make more than
    min_free; brokers are called after that transaction, under the node
    locks, never inside a transaction.
    """

    def __init__(self, host: str):
        self.host = host
        # Node id -> (failures, monotonic time before which it waits).
        self._backoff: dict[int, tuple[int, float]] = {}
        # Guards the back-offs and a round's counts across broker threads.
        self._lock = threading.Lock()

    def check(self, context) -> dict[str, Round]:
        """Take the pools no live conductor fills and fill this
        conductor's. Never raises.

        :returns: pool name -> what the round did to it.
        """
        try:
            alive = rounds.live_conductors(context, self.host)
            pools = autofill_db.list_pools(context)
            if alive is not None:
                # Nodes a dead conductor was creating become free to
                # resume.
                conductors_db.clear_dead_reservations(context, alive)
        except Exception as exc:
            LOG.warning('Listing the pools to fill on %s failed: %s',
                        self.host, exc)
            return {}
        done = {}
        for pool in pools:
            if not Settings.of(pool.autofill).use_autofill:
                continue
            owner = pool.autofill_conductor
            try:
                if owner != self.host:
                    if alive is None or owner in alive:
                        continue
                    if not self._take(context, pool.name, owner):
                        continue
                    LOG.info('Conductor %(host)s fills pool %(pool)s now '
                             '(before: %(old)s)', {'host': self.host,
                                                   'pool': pool.name,
                                                   'old': owner})
                done[pool.name] = self.fill(context, pool.name)
            except exception.PoolException as exc:
                LOG.warning('Filling pool %(pool)s failed: %(exc)s',
                            {'pool': pool.name, 'exc': exc})
                self._pool_error(context, pool.name,
                                 'Filling the pool failed: %s' % exc)
            except Exception as exc:
                LOG.exception('Filling pool %s failed', pool.name)
                self._pool_error(context, pool.name,
                                 'Filling the pool failed: %s' % exc)
        return done

    def _take(self, context, name: str, owner: str | None) -> bool:
        """Make this conductor the one that fills a pool, if owner still
        is, and record the takeover."""
        with db_api.writer_connection(context) as conn:
            if not autofill_db.take_pool(context, name, owner, self.host):
                return False
            events.record(conn, conductors.takeover('pool', name, owner,
                                                    self.host),
                          conductor=self.host)
            return True

    def fill(self, context, name: str) -> Round:
        """One round of a pool this conductor fills: plan under the
        pool's lock, then call its broker.

        :raises: database errors
        """
        done = retry.on_deadlock(self._plan, context, name)
        if done is None:
            return Round()
        self._create(context, name, done)
        self._destroy(context, name, done)
        self._finish(context, name, done)
        return done

    def _finish(self, context, name: str, done: Round) -> None:
        """The end of a round: the pool's last_error (the round's last
        broker failure, or none when it did something without failing)
        and pool.pool.autofill.scale_{up,down}.{end,error}, in one
        transaction."""
        ends = []
        for action, happened, error in (
                ('scale_up', done.scaled_up(), done.create_error),
                ('scale_down', done.scaled_down(), done.destroy_error)):
            if happened:
                ends.append(round_event(name, action,
                                        'error' if error else 'end', done,
                                        error))
        if not ends:
            return
        error = done.destroy_error or done.create_error

        def record() -> None:
            with db_api.writer_connection(context) as conn:
                autofill_db.set_pool_error(context, name, error)
                events.record(conn, ends, conductor=self.host)
        rounds.once(record, 'recording the end of a round of pool %s' % name,
                    None)

    def _plan(self, context, name: str) -> Round | None:
        """Count the pool's members under its lock; move machines from
        the acquire pool, record the machines to create, send the excess
        to the return pool or lock it to be destroyed."""
        done = Round()
        with db_api.writer_connection(context) as conn:
            pool = pools_db.lock_pool(conn, name)
            if pool is None or pool.autofill_conductor != self.host:
                return None
            settings = done.settings = Settings.of(pool.autofill)
            if not settings.use_autofill:
                return None
            counts = autofill_db.member_counts(conn, name)
            # Free members a window takes soon are not counted: the
            # broker is asked for their replacements ahead of its start.
            booked = booked_soon(conn, name, settings)
            free = counts.get(states.POOL_FREE, 0) - booked
            coming = -booked + sum(counts.get(s, 0) for s in (
                states.POOL_FREE, states.POOL_CREATING, states.POOL_JOINING,
                states.POOL_HOLD_JOIN)) + autofill_db.incoming_count(
                conn, name)
            need = settings.min_free - coming
            if need > 0 and settings.acquire_pool:
                nodes = free_nodes.newest(
                    conn, settings.acquire_pool, need)
                if nodes:
                    binding.move(conn, nodes, name)
                    done.acquired = len(nodes)
                    need -= len(nodes)
            if need > 0 and pool.broker:
                room = machines.room(conn, pool)
                room = need if room is None else min(need, room)
                if room:
                    done.requested_ids = binding.begin_creation(
                        conn, name, pool.broker, self.host, room,
                        settings.create_parameters.get('resource_class'))
                    done.requested = room
            if settings.max_free is not None and free > settings.max_free:
                excess = free - settings.max_free
                target = settings.return_pool
                if target:
                    if not binding_db.pool_actions(conn, [target]):
                        raise exception.ObjectNotFound(kind='Pool',
                                                       name=target)
                    nodes = free_nodes.newest(conn, name, excess)
                    if nodes:
                        binding.move(conn, nodes, target)
                        done.returned = len(nodes)
                else:
                    done.to_destroy = self._lock_to_destroy(
                        conn, name, free_nodes.newest(
                            conn, name, excess, broker_made=True))
            unclaimed = (pool.lifespan or {}).get('unclaimed')
            if unclaimed:
                # Broker-made machines Free longer than the pool's
                # unclaimed lifespan after they were made: destroyed, and
                # replaced by a later round while under min_free.
                taken = [n.id for n in done.to_destroy]
                old = free_nodes.newest(
                    conn, name, max(free - len(taken), 0), broker_made=True,
                    made_before=db_api.utcnow() - lifespans.duration(
                        unclaimed, 'lifespan.unclaimed'))
                done.expired = len(old)
                done.to_destroy += self._lock_to_destroy(conn, name, old)
            events.record(conn, [
                round_event(name, action, 'start', done)
                for action, happened in (
                    ('scale_up', done.acquired or done.requested),
                    ('scale_down', done.scaled_down())) if happened],
                conductor=self.host)
        if done.acquired or done.requested or done.returned:
            LOG.info('Pool %(pool)s: %(acq)d machines taken from its acquire '
                     'pool, %(req)d asked of its broker, %(ret)d sent to its '
                     'return pool', {'pool': name, 'acq': done.acquired,
                                     'req': done.requested,
                                     'ret': done.returned})
        return done

    def _lock_to_destroy(self, conn, pool: str, nodes: list) -> list:
        """Lock Free nodes for this conductor, to be destroyed after the
        transaction (no allocation takes a locked node).

        :raises: ConcurrentUpdate
        """
        if autofill_db.reserve_nodes(conn, [n.id for n in nodes],
                                     self.host) != len(nodes):
            raise exception.ConcurrentUpdate(
                what='The Free nodes of pool %s' % pool)
        return nodes

    def _due(self, node_id: int) -> bool:
        return time.monotonic() >= self._backoff.get(node_id, (0, 0.0))[1]

    def _failed(self, context, pool: str, node, error: str,
                done: Round) -> None:
        """A creation failed: recorded on the node (and on the pool at
        the end of the round), and asked for again after a back-off; with
        delete_unhealthy, the request is given up instead (its node
        deleted) and a later round asks for a replacement with a new
        token."""
        node_id = node.id
        with self._lock:
            done.failed += 1
            done.create_error = error
        LOG.warning('Pool %(pool)s, node %(node)s: %(error)s',
                    {'pool': pool, 'node': node_id, 'error': error})
        if done.settings.delete_unhealthy:
            with self._lock:
                self._backoff.pop(node_id, None)
            if machines.failed(context, node, self.host, 'create', error,
                               abandon=True):
                with self._lock:
                    done.abandoned += 1
                return
        with self._lock:
            failures = self._backoff.get(node_id, (0, 0.0))[0] + 1
            wait = CONF.conductor.broker_retry_interval * min(
                2 ** (failures - 1), 32)
            self._backoff[node_id] = (failures, time.monotonic() + wait)
        machines.failed(context, node, self.host, 'create', error)

    def _pool_error(self, context, pool: str, error: str) -> None:
        """A round failed: its error is the pool's, and
        pool.pool.autofill.error records it (once while it stays the
        same)."""

        def record() -> None:
            with db_api.writer_connection(context) as conn:
                if autofill_db.set_pool_error(context, pool, error):
                    events.record(conn, [events.Event(
                        'pool', events.name_uuid('pool', pool),
                        event_types.POOL_AUTOFILL_ERROR, object_name=pool,
                        level='error', message=error)],
                        conductor=self.host)
        rounds.once(record, 'recording the error of pool %s' % pool, None)

    def _in_parallel(self, work, items: list) -> None:
        """Run work on each item, [conductor] broker_workers at once (a
        broker call may take minutes), and wait for all."""
        if len(items) <= 1:
            for item in items:
                work(item)
            return
        workers = min(CONF.conductor.broker_workers, len(items))
        with concurrent.futures.ThreadPoolExecutor(workers) as executor:
            for future in [executor.submit(work, i) for i in items]:
                future.result()

    def _create(self, context, name: str, done: Round) -> None:
        """Have the brokers make the pool's machines being created: those
        this round recorded (locked by it), and those no conductor holds,
        left by a dead or restarted conductor (asked for again with their
        token, so the broker gives the machine it may have made already).
        """
        mine = []
        for node in machines_db.creating_nodes(context, name,
                                               done.requested_ids):
            if not self._due(node.id):
                continue
            if node.reservation is None and not nodes_db.reserve(
                    context, node.id, self.host):
                continue
            mine.append(node)
        self._in_parallel(
            lambda node: self._create_one(context, name, node, done), mine)

    def _create_one(self, context, name: str, node, done: Round) -> None:
        """Ask a node's broker for its machine and record it; never
        raises."""
        try:
            finished = machines.make(context, node, machines.request_of(
                node, done.settings.create_parameters), self.host)
        except Exception as exc:
            try:
                self._failed(context, name, node, str(exc), done)
            except Exception as again:
                LOG.warning('Recording the failure of node %(node)s '
                            'failed: %(exc)s', {'node': node.uuid,
                                                'exc': again})
            return
        with self._lock:
            self._backoff.pop(node.id, None)
            if finished:
                done.created += 1
        if not finished:
            LOG.info('Node %s was taken from conductor %s while its broker '
                     'made it', node.uuid, self.host)

    def _destroy(self, context, name: str, done: Round) -> None:
        """Have the brokers destroy the Free machines locked for it, then
        delete their nodes; a failure unlocks the node, Free again."""
        self._in_parallel(
            lambda node: self._destroy_one(context, name, node, done),
            done.to_destroy)
        if done.destroyed:
            LOG.info('Pool %(pool)s: %(num)d machines destroyed by their '
                     'broker', {'pool': name, 'num': done.destroyed})

    def _destroy_one(self, context, name: str, node, done: Round) -> None:
        """Destroy one machine and delete its node; never raises."""
        try:
            deleted = machines.destroy(context, node, self.host)
        except Exception as exc:
            with self._lock:
                done.failed += 1
                done.destroy_error = str(exc)
            LOG.warning('Pool %(pool)s, node %(node)s: %(error)s',
                        {'pool': name, 'node': node.uuid, 'error': exc})
            try:
                machines.failed(context, node, self.host, 'destroy',
                                str(exc))
            except Exception as again:
                LOG.warning('Unlocking node %(node)s failed: %(exc)s',
                            {'node': node.uuid, 'exc': again})
            return
        if deleted:
            with self._lock:
                done.destroyed += 1
