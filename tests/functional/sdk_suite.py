"""openstacksdk's own bare-metal functional tests against a pool deployment.

The tests are those of the installed openstacksdk
(``openstack/tests/functional/baremetal``, shipped in its wheel; if a
wheel stops shipping them, those of the same version's sdist), run
unchanged in a subprocess with stestr, as openstacksdk's CI runs them
against a devstack Ironic: clients built from a clouds.yaml
(``devstack-admin``, ``devstack``, ``devstack-alt``,
``devstack-system-admin``) with tokens of a stand-in Keystone
(tests/functional/identity.py) whose catalog points ``baremetal`` at pool,
and pool checking those tokens with ``auth_strategy = keystone``.

Run it by hand against a pool-server on SQLite or a pool-api and a
pool-conductor on PostgreSQL::

    python -m tests.functional.sdk_suite --deployment server
    python -m tests.functional.sdk_suite --deployment postgresql

It prints how many tests ran, passed, failed and were skipped, and the
name and reason of every failure and skip; it exits non-zero when a test
failed or was skipped for a reason not in EXPECTED_SKIPS_FILE.
"""
import argparse
import dataclasses
import glob
import io
import os
import subprocess
import sys
import tarfile

import fixtures
import openstack
from openstack import version as sdk_version
import subunit
import testtools
import yaml

from tests.functional import cluster
from tests.functional import identity as identity_mod

SUITE = 'openstack.tests.functional.baremetal'
# The skips the suite may report, each with the feature pool states it
# does not have (doc/source/api.rst, differences from Ironic).
EXPECTED_SKIPS_FILE = os.path.join(os.path.dirname(__file__),
                                   'openstacksdk_expected_skips.yaml')
# One at a time, as openstacksdk runs them: some tests list every
# allocation of the cloud and expect only their own.
CONCURRENCY = 1
# Per test (the suite's own default is 5 seconds) and per wait_for_*.
TEST_TIMEOUT = 300
WAIT_TIMEOUT = 120


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What happened to one test of the suite: its id, ``success``,
    ``fail`` or ``skip``, and for a failure or a skip its reason."""
    test_id: str
    status: str
    reason: str = ''
    traceback: str = ''


@dataclasses.dataclass
class Report:
    """The outcomes of a run checked against the expected skips."""
    outcomes: list[Outcome]
    expected_skips: dict[str, str]

    def by_status(self, status: str) -> list[Outcome]:
        return sorted((o for o in self.outcomes if o.status == status),
                      key=lambda o: o.test_id)

    @property
    def unexpected_skips(self) -> list[Outcome]:
        return [o for o in self.by_status('skip')
                if o.test_id not in self.expected_skips]

    @property
    def stale_skips(self) -> list[str]:
        """Listed skips of tests that ran: their entries can go."""
        return sorted(o.test_id for o in self.outcomes
                      if o.status != 'skip'
                      and o.test_id in self.expected_skips)

    def counts(self) -> dict[str, int]:
        return {'ran': len(self.outcomes),
                'passed': len(self.by_status('success')),
                'failed': len(self.by_status('fail')),
                'skipped': len(self.by_status('skip'))}

    def format(self, title: str) -> str:
        counts = self.counts()
        lines = ['%s: %d ran, %d passed, %d failed, %d skipped'
                 % (title, counts['ran'], counts['passed'], counts['failed'],
                    counts['skipped'])]
        for outcome in self.by_status('fail'):
            lines.append('FAIL %s: %s' % (_short(outcome.test_id),
                                          outcome.reason))
        for outcome in self.by_status('skip'):
            known = outcome.test_id in self.expected_skips
            lines.append('SKIP %s: %s%s' % (
                _short(outcome.test_id), outcome.reason,
                '' if known else ' (NOT in %s)'
                % os.path.basename(EXPECTED_SKIPS_FILE)))
        for test_id in self.stale_skips:
            lines.append('ran, but listed as a skip: %s'
                         % _short(test_id))
        return '\n'.join(lines)


def _short(test_id: str) -> str:
    prefix = SUITE + '.'
    return test_id[len(prefix):] if test_id.startswith(prefix) else test_id


def load_expected_skips(path: str = EXPECTED_SKIPS_FILE) -> dict[str, str]:
    """{test id: reason} of the checked-in list: a mapping of the test
    ids, relative to the suite's package, to the reason."""
    with open(path) as f:
        entries = yaml.safe_load(f) or {}
    return {SUITE + '.' + name: reason for name, reason in entries.items()}


def top_dir(directory: str) -> str:
    """The folder that holds an ``openstack`` package with the suite: the
    installed one when its wheel ships the tests, else the sdist of the
    installed version, downloaded from PyPI and unpacked in directory.

    :raises: RuntimeError when the sdist cannot be had
    """
    installed = os.path.dirname(os.path.dirname(openstack.__file__))
    if os.path.isdir(os.path.join(installed, *SUITE.split('.'))):
        return installed
    version = sdk_version.__version__
    proc = subprocess.run(
        [sys.executable, '-m', 'pip', 'download', '-q', '--no-deps',
         '--no-binary', ':all:', '-d', directory,
         'openstacksdk==%s' % version],
        capture_output=True, text=True, timeout=600)
    archives = glob.glob(os.path.join(directory, 'openstacksdk-*.tar.gz'))
    if proc.returncode or not archives:
        raise RuntimeError('cannot download the sdist of openstacksdk %s: %s'
                           % (version, proc.stderr[-2000:]))
    with tarfile.open(archives[0]) as archive:
        archive.extractall(directory, filter='data')
    return archives[0][:-len('.tar.gz')]


def write_clouds(ident: identity_mod.Identity, directory: str,
                 operator_scope: str = 'system') -> str:
    """A clouds.yaml with the clouds the suite's base class uses; the
    path of the file.

    ``devstack-system-admin`` is the system administrator; ``devstack``
    and ``devstack-alt`` are members of two projects. ``devstack-admin``
    (the suite's operator, who creates and deletes nodes) is the admin
    user scoped as ``operator_scope`` says: ``system`` (what pool's
    policy asks of whoever creates nodes) or ``project`` (a devstack's
    project admin, for whom Ironic has the self-owned node rules).
    """
    clouds = {
        'devstack-admin': ident.cloud(
            'admin', system_scope=operator_scope == 'system'),
        'devstack-system-admin': ident.cloud('admin', system_scope=True),
        'devstack': ident.cloud('demo'),
        'devstack-alt': ident.cloud('alt_demo'),
    }
    path = os.path.join(directory, 'clouds.yaml')
    with open(path, 'w') as f:
        yaml.safe_dump({'clouds': clouds}, f)
    return path


def suite_environment(clouds_yaml: str, directory: str) -> dict:
    """The environment of the suite: ours without OS_* variables, and
    what the suite's base class reads."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OS_', 'OPENSTACKSDK_'))}
    env.update(
        OS_CLIENT_CONFIG_FILE=clouds_yaml,
        OS_CLIENT_SECURE_FILE=os.path.join(directory, 'secure.yaml'),
        OS_CLOUD='devstack-admin',
        OPENSTACKSDK_OPERATOR_CLOUD='devstack-admin',
        OPENSTACKSDK_SYSTEM_ADMIN_CLOUD='devstack-system-admin',
        OPENSTACKSDK_DEMO_CLOUD='devstack',
        OPENSTACKSDK_DEMO_CLOUD_ALT='devstack-alt',
        OPENSTACKSDK_FUNC_TEST_TIMEOUT=str(WAIT_TIMEOUT),
        OS_TEST_TIMEOUT=str(TEST_TIMEOUT),
        # No cache of keystoneauth's discovery across runs.
        XDG_CACHE_HOME=os.path.join(directory, 'cache'),
        HOME=directory)
    return env


def run_suite(clouds_yaml: str, directory: str,
              concurrency: int = CONCURRENCY,
              test_filter: str | None = None) -> list[Outcome]:
    """Run the suite with stestr in a subprocess; the outcome of every
    test it ran.

    :raises: RuntimeError when the suite produced no result (it did not
        even load)
    """
    env = suite_environment(clouds_yaml, directory)
    stestr = [sys.executable, '-m', 'stestr.cli']
    work = os.path.join(directory, 'stestr')
    os.makedirs(work, exist_ok=True)
    top = top_dir(directory)
    path = os.path.join(top, *SUITE.split('.'))
    proc = subprocess.run(
        stestr + ['--test-path', path, '--top-dir', top, 'run',
                  '--subunit', '--concurrency', str(concurrency)]
        + ([test_filter] if test_filter else []),
        cwd=work, env=env, capture_output=True, timeout=3600)
    outcomes = parse_subunit(proc.stdout)
    if not outcomes:
        raise RuntimeError('the suite produced no result (exit code %d): %s'
                           % (proc.returncode,
                              proc.stderr.decode(errors='replace')[-4000:]))
    return outcomes


def parse_subunit(stream: bytes) -> list[Outcome]:
    """The outcomes of the tests of a subunit v2 stream."""
    outcomes = []

    def collect(test: dict) -> None:
        status = test['status']
        if status in ('exists', 'inprogress', None):
            return
        if status in ('success', 'xfail'):
            outcomes.append(Outcome(test['id'], 'success'))
            return
        if status == 'skip':
            reason = _detail(test, 'reason')
            outcomes.append(Outcome(test['id'], 'skip', reason))
            return
        traceback = _detail(test, 'traceback')
        lines = [line for line in traceback.splitlines() if line.strip()]
        outcomes.append(Outcome(test['id'], 'fail',
                                _reason(lines) if lines else status,
                                traceback))

    result = testtools.StreamToDict(collect)
    result.startTestRun()
    try:
        subunit.ByteStreamToStreamResult(
            io.BytesIO(stream), non_subunit_name='stdout').run(result)
    finally:
        result.stopTestRun()
    return outcomes


def _reason(lines: list[str]) -> str:
    """The exception line of a traceback and what follows it (testtools'
    mismatches take several lines)."""
    for index in range(len(lines) - 1, -1, -1):
        if not lines[index].startswith(' ') and ':' in lines[index] and (
                index == 0 or lines[index - 1].startswith(' ')):
            return ' '.join(line.strip() for line in lines[index:])[:500]
    return lines[-1].strip()[:500]


def _detail(test: dict, name: str) -> str:
    content = test['details'].get(name)
    if content is None:
        return ''
    return ''.join(content.iter_text()).strip()


class ServerDeployment(fixtures.Fixture):
    """A pool-server on SQLite that checks tokens of ``ident``."""

    def __init__(self, ident: identity_mod.Identity):
        super().__init__()
        self.ident = ident

    def _setUp(self):
        self.server = self.useFixture(cluster.PoolServer(
            options='auth_strategy = keystone',
            sections={'keystone_authtoken':
                      self.ident.authtoken_options()}))
        self.url = self.server.url

    def logs(self) -> str:
        return self.server.log()


class ClusterDeployment(fixtures.Fixture):
    """A pool-api and a pool-conductor on a new PostgreSQL database."""

    def __init__(self, ident: identity_mod.Identity):
        super().__init__()
        self.ident = ident

    def _setUp(self):
        db = self.useFixture(cluster.Database('postgresql'))
        self.cluster = self.useFixture(cluster.Cluster(
            db.url, conductors=1, apis=1, auth_strategy='keystone',
            sections={'keystone_authtoken':
                      self.ident.authtoken_options()}))
        self.cluster.wait_for_conductors(1)
        self.url = self.cluster.url

    def logs(self) -> str:
        return '\n'.join('== %s\n%s' % (name, self.cluster.log(name))
                         for name in self.cluster.apis + self.cluster.hosts)


DEPLOYMENTS = {'server': ServerDeployment, 'postgresql': ClusterDeployment}


class SuiteRun(fixtures.Fixture):
    """A stand-in Keystone, a pool deployment whose endpoint its catalog
    names ``baremetal``, a clouds.yaml, and the suite run against them:
    ``report``."""

    def __init__(self, deployment: str, operator_scope: str = 'system',
                 concurrency: int = CONCURRENCY,
                 test_filter: str | None = None):
        super().__init__()
        self.deployment = deployment
        self.operator_scope = operator_scope
        self.concurrency = concurrency
        self.test_filter = test_filter

    def _setUp(self):
        directory = self.useFixture(fixtures.TempDir()).path
        ident = self.useFixture(identity_mod.Identity())
        self.pool = self.useFixture(DEPLOYMENTS[self.deployment](ident))
        ident.set_endpoint('baremetal', self.pool.url)
        clouds = write_clouds(ident, directory, self.operator_scope)
        self.report = Report(
            run_suite(clouds, directory, self.concurrency,
                      self.test_filter),
            load_expected_skips())


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Run openstacksdk's bare-metal functional tests against "
                    "a pool deployment started for the run.")
    parser.add_argument('--deployment', choices=sorted(DEPLOYMENTS),
                        default='server',
                        help='server: pool-server on SQLite; postgresql: '
                             'pool-api and pool-conductor on PostgreSQL')
    parser.add_argument('--operator-scope', choices=['system', 'project'],
                        default='system',
                        help="the scope of devstack-admin's token")
    parser.add_argument('--concurrency', type=int, default=CONCURRENCY)
    parser.add_argument('--log', action='store_true',
                        help="print pool's log at the end")
    parser.add_argument('--tracebacks', action='store_true',
                        help='print the traceback of every failure')
    parser.add_argument('filter', nargs='?',
                        help='a regular expression of the tests to run')
    args = parser.parse_args()
    with SuiteRun(args.deployment, args.operator_scope, args.concurrency,
                  args.filter) as run:
        report = run.report
        print(report.format('openstacksdk %s baremetal functional tests, '
                            'pool %s' % (sdk_version.__version__,
                                         args.deployment)))
        if args.tracebacks:
            for outcome in report.by_status('fail'):
                print('\n== %s\n%s' % (outcome.test_id, outcome.traceback))
        if args.log:
            print(run.pool.logs())
    counts = report.counts()
    sys.exit(1 if counts['failed'] or report.unexpected_skips else 0)


if __name__ == '__main__':
    main()
