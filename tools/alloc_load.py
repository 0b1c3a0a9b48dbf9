"""A load generator for an Ironic-compatible /v1 allocation API.

It speaks plain HTTP/JSON with the standard library, so the same command
measures pool and OpenStack Ironic side by side::

    .venv/bin/python tools/alloc_load.py --url http://127.0.0.1:6388 \\
        -n 1000 -c 32 --modes normal,contention

Each round enrolls (or reuses) N nodes of a resource class and drives them
to ``available`` (create, power off, manage, provide); C client threads
create the round's allocations (N in ``normal`` mode, 2N in
``contention``, where exactly N must end active and N in error); it waits
until every allocation is ``active`` or ``error``, learning outcomes as
Ironic's clients do, by polling (``--wait-by poll``: one list of the
round's allocations every ``--poll-interval`` seconds), or from pool's
event watch (``--wait-by watch``: a long poll of ``/v1/events``); then it
checks that no node is held by two allocations and that every active
allocation's node carries it, and deletes them all.

Progress goes to stderr; the last line of stdout is one JSON object with
every figure: per round, allocations/s from the first POST to the last
allocation seen active, POST latency and time-to-active percentiles,
deletes/s, the checks, and the CPU seconds of the processes named with
``--watch NAME=REGEX`` (matched against their command lines) while
allocating. The exit status is 1 when a check failed.
"""
import argparse
import http.client
import json
import os
import queue
import re
import sys
import threading
import time
import urllib.parse
import uuid


def log(message: str) -> None:
    print('[%.1f] %s' % (time.monotonic(), message), file=sys.stderr,
          flush=True)


def summary(seconds: list[float]) -> dict:
    """Percentiles of durations, in milliseconds."""
    if not seconds:
        return {'count': 0}
    ordered = sorted(seconds)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1,
                                 int(p / 100 * len(ordered)))] * 1000, 1)
    return {'count': len(ordered), 'p50_ms': pct(50), 'p90_ms': pct(90),
            'p99_ms': pct(99), 'max_ms': round(ordered[-1] * 1000, 1)}


class Client:
    """One keep-alive connection to the API (one per thread)."""

    def __init__(self, url: str, version: str, token: str | None):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.prefix = parts.path.rstrip('/')
        self.headers = {'Content-Type': 'application/json',
                        'X-OpenStack-Ironic-API-Version': version}
        if token:
            self.headers['X-Auth-Token'] = token
        self.conn = None

    def call(self, method: str, path: str, body=None,
             timeout: float = 60) -> tuple[int, object]:
        data = None if body is None else json.dumps(body)
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port,
                                                       timeout=timeout)
            try:
                self.conn.request(method, self.prefix + path, data,
                                  self.headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                if resp.getheader('Connection', '').lower() == 'close':
                    self.conn.close()
                    self.conn = None
                return resp.status, json.loads(raw) if raw else None
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
                time.sleep(0.1)

    def ok(self, method: str, path: str, body=None, expect=(200, 201, 202,
                                                             204)):
        """call() that retries a busy answer (409, 503) for a minute."""
        deadline = time.monotonic() + 60
        while True:
            status, answer = self.call(method, path, body)
            if status in expect:
                return answer
            if status not in (409, 503) or time.monotonic() > deadline:
                raise RuntimeError('%s %s: %s %s' % (method, path, status,
                                                     answer))
            time.sleep(0.2)


def run_threads(count: int, work, items: list) -> list:
    """work(client_index, item) over items with count threads; results in
    the order of items."""
    todo: queue.Queue = queue.Queue()
    for i, item in enumerate(items):
        todo.put((i, item))
    results: list = [None] * len(items)
    errors: list = []

    def loop(index: int) -> None:
        while True:
            try:
                i, item = todo.get_nowait()
            except queue.Empty:
                return
            try:
                results[i] = work(index, item)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    threads = [threading.Thread(target=loop, args=(n,))
               for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def list_all(client: Client, collection: str, query: dict) -> list[dict]:
    """Every item of a collection, following the pages."""
    items, marker = [], None
    while True:
        q = dict(query, limit=1000, **({'marker': marker} if marker else {}))
        page = client.ok('GET', '/v1/%s?%s' % (collection,
                                               urllib.parse.urlencode(q)))
        items.extend(page[collection])
        if len(page[collection]) < 1000:
            return items
        marker = page[collection][-1]['uuid']


class CpuSampler:
    """CPU seconds of processes by group, from /proc, and the load
    generator's own (group load)."""

    def __init__(self, watches: list[str]):
        self.groups = [(name, re.compile(regex)) for name, regex in
                       (w.split('=', 1) for w in watches)]
        self.tick = os.sysconf('SC_CLK_TCK')

    def snapshot(self) -> dict[int, tuple[str, float]]:
        found = {}
        for pid in os.listdir('/proc'):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open('/proc/%s/cmdline' % pid, 'rb') as f:
                    cmd = f.read().replace(b'\0', b' ').decode(
                        errors='replace')
                with open('/proc/%s/stat' % pid) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            for name, regex in self.groups:
                if regex.search(cmd):
                    found[int(pid)] = (name, (int(fields[11]) + int(
                        fields[12])) / self.tick)
                    break
        # The load generator's own share of the machine.
        times = os.times()
        found[os.getpid()] = ('load', times.user + times.system)
        return found

    @staticmethod
    def delta(before: dict, after: dict, wall: float) -> dict:
        groups: dict[str, float] = {}
        for pid, (name, cpu) in after.items():
            groups[name] = groups.get(name, 0.0) + max(
                0.0, cpu - before.get(pid, (name, 0.0))[1])
        out = {'wall_s': round(wall, 3)}
        for name, cpu in sorted(groups.items()):
            out[name + '_cpu_s'] = round(cpu, 2)
            out[name + '_cores'] = round(cpu / wall, 2) if wall else None
        return out


class Load:
    def __init__(self, args):
        self.args = args
        self.clients = [Client(args.url, args.api_version, args.token)
                        for _ in range(args.concurrency + 1)]
        self.main = self.clients[-1]
        self.sampler = CpuSampler(args.watch)

    # Nodes -------------------------------------------------------------

    def enroll(self, count: int) -> list[str]:
        rc = self.args.resource_class
        have = []
        if self.args.reuse_nodes:
            have = [n['uuid'] for n in list_all(
                self.main, 'nodes', {'resource_class': rc,
                                     'fields': 'uuid,provision_state'})
                if n['provision_state'] == 'available'][:count]
        missing = count - len(have)
        started = time.monotonic()

        def create(index: int, i: int) -> str:
            client = self.clients[index]
            node = client.ok('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'resource_class': rc,
                'name': '%s-%s-%d' % (rc, uuid.uuid4().hex[:6], i)})
            base = '/v1/nodes/%s/states/' % node['uuid']
            client.ok('PUT', base + 'power', {'target': 'power off'})
            for target in ('manage', 'provide'):
                client.ok('PUT', base + 'provision', {'target': target})
            return node['uuid']

        made = run_threads(self.args.concurrency, create, list(
            range(missing))) if missing > 0 else []
        self.wait_nodes(made)
        log('nodes: %d reused, %d enrolled in %.1f s' % (
            len(have), len(made), time.monotonic() - started))
        return have + made

    def wait_nodes(self, uuids: list[str]) -> None:
        want = set(uuids)
        deadline = time.monotonic() + 600
        while want and time.monotonic() < deadline:
            nodes = list_all(self.main, 'nodes', {
                'resource_class': self.args.resource_class,
                'fields': 'uuid,provision_state'})
            want -= {n['uuid'] for n in nodes
                     if n['provision_state'] == 'available'}
            if want:
                time.sleep(0.5)
        if want:
            raise RuntimeError('%d nodes never became available' % len(want))

    # Allocations -------------------------------------------------------

    def allocate(self, count: int) -> tuple[dict, dict]:
        """Create count allocations; wait for their outcomes.

        :returns: (figures, uuid -> record)
        """
        records: dict[str, dict] = {}
        lock = threading.Lock()
        posted = threading.Event()
        done = threading.Event()
        post_latency = []
        waiter = threading.Thread(
            target=self.watch if self.args.wait_by == 'watch'
            else self.poll, args=(records, lock, posted, done))
        cursor = self.cursor() if self.args.wait_by == 'watch' else None
        self._cursor = cursor
        self._polls: list[float] = []
        waiter.start()
        first = time.monotonic()

        def post(index: int, _i: int) -> None:
            client = self.clients[index]
            sent = time.monotonic()
            alloc = client.ok('POST', '/v1/allocations', {
                'resource_class': self.args.resource_class})
            took = time.monotonic() - sent
            with lock:
                post_latency.append(took)
                record = records.setdefault(alloc['uuid'], {})
                record.update(sent=sent)
                if alloc['state'] != 'allocating':
                    record.setdefault('state', alloc['state'])
                    record.setdefault('done', time.monotonic())

        run_threads(self.args.concurrency, post, list(range(count)))
        posted_at = time.monotonic()
        posted.set()
        waiter.join(self.args.timeout)
        done.set()
        waiter.join()
        active = [r for r in records.values() if r.get('state') == 'active']
        error = [r for r in records.values() if r.get('state') == 'error']
        last = max((r['done'] for r in active), default=None)
        figures = {
            'requested': count, 'posted': len(records),
            'active': len(active), 'error': len(error),
            'unfinished': len(records) - len(active) - len(error),
            'post_wall_s': round(posted_at - first, 3),
            'post_latency': summary(post_latency),
            'time_to_active': summary([r['done'] - r['sent']
                                       for r in active]),
            'time_to_error': summary([r['done'] - r['sent']
                                      for r in error]),
            'allocs_per_s': round(len(active) / (last - first), 2)
            if last and last > first else 0,
            'wait_by': self.args.wait_by,
            # How long each list of the round's allocations took.
            'polls': summary(self._polls),
        }
        return figures, records

    def poll(self, records, lock, posted, done) -> None:
        """Learn outcomes by listing the class's allocations, as Ironic's
        clients learn them by polling."""
        client = Client(self.args.url, self.args.api_version,
                        self.args.token)
        while not done.is_set():
            started = time.monotonic()
            items = list_all(client, 'allocations', {
                'resource_class': self.args.resource_class,
                'fields': 'uuid,state'})
            seen = time.monotonic()
            self._polls.append(seen - started)
            with lock:
                for item in items:
                    record = records.get(item['uuid'])
                    if record is not None and 'state' not in record and \
                            item['state'] in ('active', 'error'):
                        record.update(state=item['state'], done=seen)
                finished = posted.is_set() and all(
                    'state' in r for r in records.values())
            if finished:
                return
            time.sleep(max(self.args.poll_interval,
                           4 * (time.monotonic() - started)))

    def cursor(self) -> int:
        return self.main.ok('GET', '/v1/events?limit=1')['cursor']

    def watch(self, records, lock, posted, done) -> None:
        """Learn outcomes from pool's event watch: a long poll that
        answers as soon as an allocation's outcome is recorded."""
        client = Client(self.args.url, self.args.api_version,
                        self.args.token)
        cursor = self._cursor
        early: dict[str, tuple] = {}
        while not done.is_set():
            page = client.ok('GET', '/v1/events?' + urllib.parse.urlencode({
                'since': cursor, 'object_type': 'allocation',
                'event_type_prefix': 'pool.allocation.state_set.',
                'wait': 5, 'limit': 1000}))
            seen = time.monotonic()
            cursor = page['cursor']
            with lock:
                for event in page['events']:
                    state = event.get('state')
                    if state not in ('active', 'error'):
                        continue
                    record = records.get(event['object_uuid'])
                    if record is None:
                        # The outcome came before the POST's answer.
                        early[event['object_uuid']] = (state, seen)
                    elif 'state' not in record:
                        record.update(state=state, done=seen)
                for ident, (state, at) in list(early.items()):
                    if ident in records and 'state' not in records[ident]:
                        records[ident].update(state=state, done=at)
                        del early[ident]
                finished = posted.is_set() and all(
                    'state' in r for r in records.values())
            if finished:
                return

    # Checks and deletion ----------------------------------------------

    def verify(self, records: dict, nodes: int, mode: str) -> dict:
        allocs = {a['uuid']: a for a in list_all(
            self.main, 'allocations', {
                'resource_class': self.args.resource_class,
                'fields': 'uuid,state,node_uuid'}) if a['uuid'] in records}
        held: dict[str, list] = {}
        for alloc in allocs.values():
            if alloc['state'] == 'active':
                held.setdefault(alloc['node_uuid'], []).append(alloc['uuid'])
        double = sum(1 for owners in held.values() if len(owners) > 1)
        node_of = {n['uuid']: n for n in list_all(
            self.main, 'nodes', {'resource_class': self.args.resource_class,
                                 'fields': 'uuid,allocation_uuid'})}
        mismatched = sum(1 for node_uuid, owners in held.items()
                         if node_of.get(node_uuid, {}).get(
                             'allocation_uuid') != owners[0])
        states: dict[str, int] = {}
        for alloc in allocs.values():
            states[alloc['state']] = states.get(alloc['state'], 0) + 1
        expected = nodes if mode == 'contention' else len(records)
        ok = (double == 0 and mismatched == 0
              and states.get('active', 0) == min(expected, nodes)
              and len(allocs) == len(records))
        if mode == 'contention':
            ok = ok and states.get('error', 0) == len(records) - nodes
        return {'states': states, 'double_allocated_nodes': double,
                'node_mismatches': mismatched,
                'missing_allocations': len(records) - len(allocs),
                'ok': ok}

    def delete(self, uuids: list[str]) -> dict:
        latency = []

        def one(index: int, ident: str) -> None:
            sent = time.monotonic()
            self.clients[index].ok('DELETE', '/v1/allocations/' + ident,
                                   expect=(204, 404))
            latency.append(time.monotonic() - sent)

        started = time.monotonic()
        run_threads(self.args.concurrency, one, uuids)
        wall = time.monotonic() - started
        return {'deleted': len(uuids), 'wall_s': round(wall, 3),
                'deletes_per_s': round(len(uuids) / wall, 2) if wall else 0,
                'latency': summary(latency)}

    def round(self, nodes: int, mode: str, number: int) -> dict:
        count = 2 * nodes if mode == 'contention' else nodes
        before, t0 = self.sampler.snapshot(), time.monotonic()
        figures, records = self.allocate(count)
        cpu = CpuSampler.delta(before, self.sampler.snapshot(),
                               time.monotonic() - t0)
        checks = self.verify(records, nodes, mode)
        deleted = self.delete(list(records))
        log('%s round %d: %d active, %d error, %.1f allocations/s, POST '
            'p50 %s ms, active p50 %s ms p99 %s ms, checks %s'
            % (mode, number, figures['active'], figures['error'],
               figures['allocs_per_s'],
               figures['post_latency'].get('p50_ms'),
               figures['time_to_active'].get('p50_ms'),
               figures['time_to_active'].get('p99_ms'),
               'ok' if checks['ok'] else 'FAILED %s' % checks))
        return {'round': number, 'mode': mode, 'nodes': nodes,
                'allocations': count, 'concurrency': self.args.concurrency,
                'allocate': figures, 'verify': checks, 'delete': deleted,
                'cpu_allocate': cpu}

    def purge(self) -> None:
        """Delete the nodes of the class (after the last round)."""
        nodes = list_all(self.main, 'nodes', {
            'resource_class': self.args.resource_class, 'fields': 'uuid'})
        run_threads(self.args.concurrency, lambda i, n: self.clients[i].ok(
            'DELETE', '/v1/nodes/' + n['uuid'], expect=(204, 404)), nodes)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='\n'.join(__doc__.splitlines()[2:]))
    parser.add_argument('--url', required=True)
    parser.add_argument('-n', '--nodes', type=int, default=100)
    parser.add_argument('-c', '--concurrency', type=int, default=32)
    parser.add_argument('--modes', default='normal',
                        help='rounds, comma-separated: normal, contention')
    parser.add_argument('--api-version', default='1.60')
    parser.add_argument('--token', help='an X-Auth-Token to send')
    parser.add_argument('--resource-class', default='load')
    parser.add_argument('--reuse-nodes', action='store_true',
                        help='use available nodes of the class already there')
    parser.add_argument('--keep-nodes', action='store_true',
                        help='leave the nodes enrolled after the rounds')
    parser.add_argument('--wait-by', choices=('poll', 'watch'),
                        default='poll')
    parser.add_argument('--poll-interval', type=float, default=0.25)
    parser.add_argument('--timeout', type=float, default=600,
                        help='seconds to wait for a round\'s outcomes')
    parser.add_argument('--watch', action='append', default=[],
                        metavar='NAME=REGEX',
                        help='count the CPU of processes whose command line '
                             'matches REGEX as NAME (its own CPU is counted '
                             'as load)')
    args = parser.parse_args()
    load = Load(args)
    nodes = load.enroll(args.nodes)
    rounds = [load.round(len(nodes), mode, number) for number, mode in
              enumerate(args.modes.split(','), 1)]
    if not args.keep_nodes:
        load.purge()
    result = {'url': args.url, 'nodes': len(nodes), 'rounds': rounds}
    print(json.dumps(result))
    sys.exit(0 if all(r['verify']['ok'] for r in rounds) else 1)


if __name__ == '__main__':
    main()
