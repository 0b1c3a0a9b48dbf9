"""Prometheus metrics: gauges of the fleet counted at scrape time, and
counters and histograms of the work each process does.

Names follow Prometheus' conventions (a ``pool_`` prefix, base units,
``_total`` for counters); no label takes a value per node, allocation or
claim, so the number of series stays bounded by the fleet's states and
pools. A process with [api] workers (pool-api on gunicorn) keeps its
counters in files shared by its workers (prometheus_client's multiprocess
mode), so that a scrape sums every worker's.
"""
import os
import shutil
import tempfile
import time

from oslo_log import log
import prometheus_client
from prometheus_client import core
from prometheus_client import multiprocess
from prometheus_client import values

from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import metrics as metrics_db

LOG = log.getLogger(__name__)

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
            60)

API_REQUESTS = prometheus_client.Counter(
    'pool_api_requests', 'API requests answered, by method, route and '
    'status code.', ['method', 'route', 'status'])
API_SECONDS = prometheus_client.Histogram(
    'pool_api_request_duration_seconds', 'Time to answer an API request.',
    ['method', 'route'], buckets=_SECONDS)
ALLOCATION_SECONDS = prometheus_client.Histogram(
    'pool_allocation_duration_seconds', 'Time from an allocation\'s '
    'creation to its outcome, by outcome (active, error).', ['outcome'],
    buckets=_SECONDS)
BROKER_CALLS = prometheus_client.Counter(
    'pool_broker_calls', 'Calls to resource brokers, by broker driver, '
    'call (create, destroy) and outcome (ok, error).',
    ['driver', 'call', 'outcome'])
PERIODIC_ROUNDS = prometheus_client.Counter(
    'pool_periodic_rounds', 'Rounds of the conductors\' periodic tasks, by '
    'task and outcome (ok, error).', ['task', 'outcome'])
PERIODIC_SECONDS = prometheus_client.Histogram(
    'pool_periodic_round_duration_seconds', 'Time of a round of a periodic '
    'task.', ['task'], buckets=_SECONDS)

_multiprocess_dir: str | None = None


def enable_multiprocess() -> str:
    """Keep the counters of this process and of the processes it forks in
    files of a new directory (before any metric is used): a scrape of any
    of them sums all of theirs.

    :returns: the directory; remove it with disable_multiprocess().
    """
    global _multiprocess_dir
    _multiprocess_dir = tempfile.mkdtemp(prefix='pool-metrics-')
    os.environ['PROMETHEUS_MULTIPROC_DIR'] = _multiprocess_dir
    values.ValueClass = values.MultiProcessValue()
    return _multiprocess_dir


def disable_multiprocess() -> None:
    global _multiprocess_dir
    if _multiprocess_dir is not None:
        shutil.rmtree(_multiprocess_dir, ignore_errors=True)
        _multiprocess_dir = None
        os.environ.pop('PROMETHEUS_MULTIPROC_DIR', None)


def worker_exited(pid: int) -> None:
    """Forget the live gauges of a forked process that exited."""
    if _multiprocess_dir is not None:
        multiprocess.mark_process_dead(pid, _multiprocess_dir)


class FleetCollector:
    """The fleet's gauges, counted with grouped queries at each scrape."""

    def describe(self):
        # No queries when the collector is registered.
        return []

    def collect(self):
        counts = metrics_db.fleet(pool_context.get_admin_context(),
                                  CONF.conductor.heartbeat_timeout)
        nodes = core.GaugeMetricFamily(
            'pool_nodes', 'Nodes by provision state, power state and '
            'maintenance.',
            labels=['provision_state', 'power_state', 'maintenance'])
        for provision, power, maintenance, count in counts['nodes']:
            nodes.add_metric([provision or '', power or '',
                              'true' if maintenance else 'false'], count)
        yield nodes
        members = core.GaugeMetricFamily(
            'pool_pool_nodes', 'Nodes by pool and pool status.',
            labels=['pool', 'status'])
        for pool, status, count in counts['members']:
            members.add_metric([pool or '', status or ''], count)
        yield members
        for name, rows in (('allocations', counts['allocations']),
                           ('claims', counts['claims'])):
            family = core.GaugeMetricFamily(
                'pool_%s' % name, '%s by state.' % name.capitalize(),
                labels=['state'])
            for state, count in rows:
                family.add_metric([state or ''], count)
            yield family
        free = {(pool, status): count
                for pool, status, count in counts['members']}
        targets = core.GaugeMetricFamily(
            'pool_autofill_free_target', 'The Free nodes AutoFill keeps in '
            'a pool, by bound (min, max).', labels=['pool', 'bound'])
        actual = core.GaugeMetricFamily(
            'pool_autofill_free', 'The Free nodes of a pool that AutoFill '
            'keeps filled.', labels=['pool'])
        for pool, autofill in counts['autofill']:
            autofill = autofill or {}
            if not autofill.get('use_autofill'):
                continue
            targets.add_metric([pool, 'min'], autofill.get('min_free') or 0)
            if autofill.get('max_free') is not None:
                targets.add_metric([pool, 'max'], autofill['max_free'])
            actual.add_metric([pool], free.get((pool, 'Free'), 0))
        yield targets
        yield actual
        shared = core.GaugeMetricFamily(
            'pool_external_nodes', 'Nodes shared with an external manager, '
            'by manager and external state (free, ours, theirs, gone, '
            'unknown; unknown too before the first observation).',
            labels=['manager', 'state'])
        by_state: dict[tuple, int] = {}
        for manager, state, count in counts['external']:
            key = (manager, state or 'unknown')
            by_state[key] = by_state.get(key, 0) + count
        for key, count in sorted(by_state.items()):
            shared.add_metric(list(key), count)
        yield shared
        conductors = core.GaugeMetricFamily(
            'pool_conductors', 'Conductors by liveness (alive, dead).',
            labels=['state'])
        alive = sum(1 for _, ok in counts['conductors'] if ok)
        conductors.add_metric(['alive'], alive)
        conductors.add_metric(['dead'], len(counts['conductors']) - alive)
        yield conductors
        stranded = core.GaugeMetricFamily(
            'pool_stranded', 'Work held by conductors that are not alive, '
            'until a live one takes it over: allocations in progress, '
            'pending claims, node locks.', labels=['kind'])
        for kind, count in sorted(counts['stranded'].items()):
            stranded.add_metric([kind], count or 0)
        yield stranded
        unsequenced, unpublished, oldest = counts['events']
        yield core.GaugeMetricFamily(
            'pool_events_unsequenced', 'Events recorded that watchers '
            'cannot see yet (no cursor given).', value=unsequenced or 0)
        yield core.GaugeMetricFamily(
            'pool_events_unpublished', 'Events not yet published as '
            'notifications.', value=unpublished or 0)
        lag = 0.0
        if oldest is not None:
            lag = max(0.0, (db_api.utcnow() - oldest).total_seconds())
        yield core.GaugeMetricFamily(
            'pool_events_publish_lag_seconds', 'Age of the oldest event '
            'not yet published (0 when none is waiting).', value=lag)


def registry() -> prometheus_client.CollectorRegistry:
    """What a scrape of this process shows: its counters (every worker's
    in multiprocess mode) and the fleet's gauges."""
    reg = prometheus_client.CollectorRegistry(auto_describe=False)
    if _multiprocess_dir is not None:
        multiprocess.MultiProcessCollector(reg, path=_multiprocess_dir)
    else:
        for collector in (API_REQUESTS, API_SECONDS, ALLOCATION_SECONDS,
                          BROKER_CALLS, PERIODIC_ROUNDS, PERIODIC_SECONDS):
            reg.register(collector)
    reg.register(FleetCollector())
    return reg


def exposition() -> bytes:
    """The metrics in Prometheus' text format."""
    return prometheus_client.generate_latest(registry())


def observe_round(task: str, started: float, ok: bool) -> None:
    PERIODIC_ROUNDS.labels(task, 'ok' if ok else 'error').inc()
    PERIODIC_SECONDS.labels(task).observe(time.monotonic() - started)


def serve(host: str, port: int):
    """Serve this process's metrics at http://host:port/metrics in a
    thread (a conductor's [conductor] metrics_port).

    :returns: the server, to shut down.
    """
    server, _thread = prometheus_client.start_wsgi_server(
        port, host, registry=registry())
    return server
