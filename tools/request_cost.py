"""The CPU a request costs in pool-api's whole WSGI stack, in-process:
to compare trees alternately on one machine, where throughput end to end
is too noisy for a change of a tenth of a millisecond.

Builds the application (middlewares included) on a new SQLite database
with a few nodes, calls it directly with WSGI environments (no HTTP
server, no test client), and prints, for each request, the process CPU
time per call: the median and the minimum over rounds.

    cd <tree> && PYTHONPATH=<tree> .venv/bin/python tools/request_cost.py
"""
import argparse
import io
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

_ENVIRON = {'SERVER_NAME': 'localhost', 'SERVER_PORT': '6388',
            'SERVER_PROTOCOL': 'HTTP/1.1', 'HTTP_HOST': 'localhost',
            'REMOTE_ADDR': '127.0.0.1', 'wsgi.url_scheme': 'http',
            'HTTP_X_OPENSTACK_IRONIC_API_VERSION': '1.60'}


def call(app, method: str, path: str, body: bytes = b'') -> bytes:
    """One request through the WSGI application; its body."""
    environ = dict(_ENVIRON, REQUEST_METHOD=method, PATH_INFO=path,
                   **{'wsgi.input': io.BytesIO(body),
                      'wsgi.errors': sys.stderr})
    if body:
        environ.update(CONTENT_LENGTH=str(len(body)),
                       CONTENT_TYPE='application/json')
    statuses = []
    result = app(environ, lambda status, headers, exc_info=None:
                 statuses.append(status))
    try:
        data = b''.join(result)
    finally:
        getattr(result, 'close', lambda: None)()
    if not statuses[0].startswith(('200', '201', '204')):
        raise RuntimeError('%s %s: %s %s' % (method, path, statuses[0],
                                             data[:200]))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--calls', type=int, default=200,
                        help='calls of each request per round')
    args = parser.parse_args()
    from pool_api import app as pool_app
    from pool_conductor.conf import CONF
    from tools import benchmark

    CONF([], project='pool')
    with benchmark.sqlite_in_process(100):
        app = pool_app.create_app().wsgi_app
        post = json.dumps({'resource_class': 'rc-1'}).encode()
        uuid = json.loads(call(app, 'POST', '/v1/allocations',
                               post))['uuid']
        requests = [
            ('GET /v1', lambda: call(app, 'GET', '/v1')),
            ('GET /v1/allocations/<uuid>',
             lambda: call(app, 'GET', '/v1/allocations/' + uuid)),
            ('POST /v1/allocations and its DELETE', lambda: call(
                app, 'DELETE', '/v1/allocations/' + json.loads(
                    call(app, 'POST', '/v1/allocations',
                         post))['uuid'])),
        ]
        spent = {name: [] for name, _ in requests}
        for _ in range(args.rounds):
            for name, request in requests:
                started = time.process_time()
                for _ in range(args.calls):
                    request()
                spent[name].append((time.process_time() - started)
                                   * 1000 / args.calls)
    for name, times in spent.items():
        print('%s: %-36s median %.3f ms, min %.3f ms of CPU per call'
              % (ROOT, name, statistics.median(times), min(times)))


if __name__ == '__main__':
    main()
