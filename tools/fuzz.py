"""Fuzz the API with schemathesis against its own OpenAPI document.

Starts a pool-server on a free port with a temporary SQLite state
directory, seeds a few nodes and allocations, and runs schemathesis with
a fixed seed and a bounded number of examples. Exits non-zero when
schemathesis finds a server error or a response that does not match the
document.

Usage: tools/fuzz.py [--max-examples N] [--seed N]
"""
import argparse
import json
import os
import subprocess
import sys
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, ROOT)

from tests.functional import cluster  # noqa: E402

VERSION = '1.60'
CHECKS = ('not_a_server_error', 'response_schema_conformance',
          'status_code_conformance', 'content_type_conformance',
          'response_headers_conformance')


def _call(url: str, method: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        url, method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={'Content-Type': 'application/json',
                 'X-OpenStack-Ironic-API-Version': VERSION})
    with urllib.request.urlopen(request, timeout=30) as resp:
        data = resp.read()
    return json.loads(data) if data else {}


def seed(url: str) -> None:
    """A few nodes in several states, and allocations."""
    for i in range(4):
        node = _call(url + '/v1/nodes', 'POST', {
            'driver': 'fake-hardware', 'name': 'node-%d' % i,
            'resource_class': 'baremetal', 'owner': 'project-a'})
        for verb in ('manage', 'provide')[:i % 3]:
            _call(url + '/v1/nodes/%s/states/provision' % node['uuid'],
                  'PUT', {'target': verb})
    _call(url + '/v1/allocations', 'POST',
          {'resource_class': 'baremetal', 'name': 'alloc-0'})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--max-examples', type=int, default=10,
                        help='examples per operation')
    parser.add_argument('--seed', type=int, default=20261123)
    args = parser.parse_args()
    with cluster.PoolServer('auth_strategy = noauth') as server:
        seed(server.url)
        st = os.path.join(os.path.dirname(sys.executable), 'st')
        command = [
            st, 'run', server.url + '/v1/openapi.json',
            '--base-url', server.url,
            '--header', 'X-OpenStack-Ironic-API-Version: %s' % VERSION,
            '--checks', ','.join(CHECKS),
            '--hypothesis-max-examples', str(args.max_examples),
            '--hypothesis-seed', str(args.seed),
            '--hypothesis-derandomize',
            '--hypothesis-suppress-health-check', 'all',
            '--request-timeout', '10000',
            '--experimental', 'openapi-3.1',
            '--no-color', '--show-trace',
        ]
        rc = subprocess.call(command)
        if rc != 0:
            print('pool-server log:\n' + server.log()[-20000:])
        return rc


if __name__ == '__main__':
    sys.exit(main())
