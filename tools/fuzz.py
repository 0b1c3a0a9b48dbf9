"""Fuzz the API with schemathesis against its own OpenAPI document.

Starts a pool-server on a free port with a temporary SQLite state
directory, seeds a few nodes and allocations, and runs schemathesis with
a fixed seed and a bounded number of examples: with valid requests
(positive), and with requests each made invalid in one part (negative:
path, query, version header or body), which must be refused with a 4xx
error in the document's shape. The two runs go at the same time (one
core each); then each run's output and the operations it covered are
printed. Exits non-zero when schemathesis finds a server error, a
response that does not match the document, invalid input accepted, or an
operation it could not generate requests for.

Usage: tools/fuzz.py [--max-examples N] [--negative-max-examples N]
                     [--seed N] [--mode positive|negative|all]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from xml.etree import ElementTree as ET

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, ROOT)

from tests.functional import cluster  # noqa: E402

VERSION = '1.60'
CHECKS = {
    'positive': ('not_a_server_error', 'response_schema_conformance',
                 'status_code_conformance', 'content_type_conformance',
                 'response_headers_conformance'),
    # Invalid input is refused with a 4xx error in the document's shape.
    'negative': ('negative_data_rejection', 'not_a_server_error',
                 'content_type_conformance', 'response_schema_conformance'),
}


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


NO_INPUT, INPUT, JSON_PATCH = 'no input', 'input', 'JSON Patch'


def _input(op: dict) -> str:
    """What a negative run can make invalid in an operation."""
    body = op.get('requestBody', {}).get('content', {}).get(
        'application/json', {}).get('schema', {})
    if body.get('$ref', '').endswith('/JSONPatch'):
        return JSON_PATCH
    return INPUT if op.get('parameters') or op.get('requestBody') \
        else NO_INPUT


def _operations(url: str) -> dict[str, str]:
    """Each operation of the document ("GET /v1"), and what input it
    takes (_input())."""
    with urllib.request.urlopen(url + '/v1/openapi.json', timeout=30) as r:
        document = json.load(r)
    return {'%s %s' % (method.upper(), path): _input(op)
            for path, methods in document['paths'].items()
            for method, op in methods.items()}


def _outcomes(report: str) -> dict[str, str]:
    """The outcome of each operation in a JUnit report of schemathesis:
    passed, failure, error or skipped."""
    outcomes = {}
    for case in ET.parse(report).iter('testcase'):
        found = [child.tag for child in case
                 if child.tag in ('failure', 'error', 'skipped')]
        outcomes[case.get('name')] = found[0] if found else 'passed'
    return outcomes


def _start(server_url: str, mode: str, args, report: str,
           output) -> subprocess.Popen:
    """schemathesis's run of one mode, its output into the file output."""
    st = os.path.join(os.path.dirname(sys.executable), 'st')
    command = [
        st, 'run', server_url + '/v1/openapi.json',
        '--base-url', server_url,
        '--data-generation-method', mode,
        '--checks', ','.join(CHECKS[mode]),
        '--hypothesis-max-examples', str(
            args.max_examples if mode == 'positive'
            else args.negative_max_examples),
        '--hypothesis-seed', str(args.seed),
        '--hypothesis-derandomize',
        '--hypothesis-suppress-health-check', 'all',
        # Shrinking a failing example can take minutes; the report shows
        # the failing request as it was.
        '--hypothesis-no-phases', 'shrink',
        '--request-timeout', '10000',
        '--experimental', 'openapi-3.1',
        '--junit-xml', report,
        '--no-color', '--show-trace',
    ]
    env = dict(os.environ)
    if mode == 'positive':
        command += ['--header',
                    'X-OpenStack-Ironic-API-Version: %s' % VERSION]
    else:
        # The version header is generated: tools/fuzz_hooks.py keeps the
        # invalid ones and makes the others the newest version.
        env['SCHEMATHESIS_HOOKS'] = 'fuzz_hooks'
        # The server runs without authentication: a token is no input.
        command += ['--generation-with-security-parameters', 'false']
        env['PYTHONPATH'] = os.pathsep.join(
            [os.path.dirname(os.path.abspath(__file__)), ROOT,
             env.get('PYTHONPATH', '')])
    return subprocess.Popen(command, env=env, stdout=output,
                            stderr=subprocess.STDOUT)


# Operations schemathesis 3.39 cannot make invalid requests for, and why.
# The negative run fails when another operation is not covered, and says
# when one of these is.
NEGATIVE_UNCOVERED = {
    # A host is free text: only a length over 255 is invalid, and such
    # random strings nearly always hold a "/", "{" or "}", which
    # schemathesis leaves out of paths.
    'GET /v1/conductors/{hostname}':
        'an invalid host name would need a "/"',
    # Every operation with a JSON Patch body too (_input()): negating its
    # items ("value": any JSON) gives schemathesis a list of elements from
    # an empty strategy.
    # The only invalid reason query parameter is one of over 4096
    # characters, and unknown parameters are left out (fuzz_hooks.py).
    'PUT /v1/nodes/{node_ident}/maintenance':
        'an invalid reason would need over 4096 characters',
}


def _coverage(mode: str, operations: dict[str, str],
              outcomes: dict[str, str]) -> list[str]:
    """Print what the run covered; the operations it did not cover and
    should have."""
    print('\n%s run: %d operations in the document, %s'
          % (mode, len(operations), ', '.join(
              '%d %s' % (list(outcomes.values()).count(outcome), outcome)
              for outcome in ('passed', 'failure', 'error', 'skipped'))))
    missing = []
    for name, given in sorted(operations.items()):
        outcome = outcomes.get(name)
        covered = outcome in ('passed', 'failure')
        # With no input there is nothing to make invalid.
        if mode == 'negative' and given == NO_INPUT:
            continue
        known = None
        if mode == 'negative':
            known = NEGATIVE_UNCOVERED.get(name) or (
                'JSON Patch body' if given == JSON_PATCH else None)
        if known and not covered:
            print('  not covered (known: %s): %s' % (known, name))
        elif known and name in NEGATIVE_UNCOVERED:
            # Not said of a JSON Patch operation, which its path's
            # parameters cover in some runs and not in others.
            print('  covered now, remove it from NEGATIVE_UNCOVERED: '
                  + name)
        elif not covered:
            missing.append('%s: %s' % (name, outcome or 'not run'))
    for line in missing:
        print('  not covered: ' + line)
    return missing


def _outcome(mode: str, run: subprocess.Popen, output, operations: dict,
             report: str, started: float) -> int:
    """Wait for a run, print its output and what it covered; 1 when it
    found a problem, else 0."""
    st_rc = run.wait()
    print('%s run: done after %.0f s' % (mode, time.monotonic() - started))
    output.seek(0)
    sys.stdout.write(output.read())
    output.close()
    sys.stdout.flush()
    if not os.path.exists(report):
        return 1
    outcomes = _outcomes(report)
    # schemathesis exits non-zero for the operations it could not
    # generate for too: the known ones are not a failure.
    failed = _coverage(mode, operations, outcomes) or (
        'failure' in outcomes.values()) or (st_rc != 0 and mode == 'positive')
    return int(bool(failed))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--max-examples', type=int, default=10,
                        help='examples per operation (positive run)')
    parser.add_argument('--negative-max-examples', type=int, default=5,
                        help='examples per operation (negative run)')
    parser.add_argument('--seed', type=int, default=20261123)
    parser.add_argument('--mode', choices=('positive', 'negative', 'all'),
                        default='all',
                        help='valid requests, invalid ones, or both runs')
    args = parser.parse_args()
    # A time limit's SIGTERM ends the runs and the server too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    modes = ('positive', 'negative') if args.mode == 'all' else (args.mode,)
    rc = 0
    with cluster.PoolServer('auth_strategy = noauth') as server, \
            tempfile.TemporaryDirectory() as tmp:
        seed(server.url)
        operations = _operations(server.url)
        # The runs at the same time, one core each: generating requests
        # is most of their time. Their outputs follow one another.
        started = time.monotonic()
        runs = {}
        try:
            for mode in modes:
                output = open(os.path.join(tmp, mode + '.log'), 'w+')
                runs[mode] = (_start(server.url, mode, args,
                                     os.path.join(tmp, mode + '.xml'),
                                     output), output)
            for mode, (run, output) in runs.items():
                rc |= _outcome(mode, run, output, operations,
                               os.path.join(tmp, mode + '.xml'), started)
        finally:
            # Stopped early (a time limit): no run goes on without us.
            for run, _output in runs.values():
                if run.poll() is None:
                    run.kill()
        if rc != 0:
            print('pool-server log:\n' + server.log()[-20000:])
    return rc


if __name__ == '__main__':
    sys.exit(main())
