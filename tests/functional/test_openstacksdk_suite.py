"""openstacksdk's own bare-metal functional tests, unchanged, against pool.

One test per deployment: a pool-server on SQLite, and a pool-api with a
pool-conductor on PostgreSQL (tests/functional/sdk_suite.py starts them,
a stand-in Keystone and a clouds.yaml, and runs the suite with stestr).
Each prints the suite's figures and the name and reason of every failure
and skip, and fails when a skip is not one of
openstacksdk_expected_skips.yaml (each a feature pool states it does not
have). With STRICT, a failure of one of the suite's tests fails it too;
without, a run with failures ends as a skip whose reason is the report,
so that CI shows it without failing.
"""
import os
import sys

import testtools

from tests.functional import sdk_suite

# Every failure of the suite fails CI (pool implements what its tests
# need); False would only report them. POOL_SDK_SUITE_STRICT=1 in the
# environment makes one run strict.
STRICT = True


class SuiteTestMixin:

    DEPLOYMENT: str

    def test_openstacksdk_baremetal_suite(self):
        run = self.useFixture(sdk_suite.SuiteRun(self.DEPLOYMENT))
        self.addOnException(lambda _exc: self.addDetail(
            'pool-log', testtools.content.text_content(run.pool.logs())))
        report = run.report
        text = report.format('openstacksdk baremetal suite on %s'
                             % self.DEPLOYMENT)
        self.addDetail('openstacksdk-suite',
                       testtools.content.text_content(text))
        # For testtools.run; stestr keeps the detail above.
        print(text, file=sys.stderr)
        counts = report.counts()
        self.assertGreater(counts['passed'], 0, text)
        self.assertEqual([], [o.test_id for o in report.unexpected_skips],
                         'skips not in %s\n%s' % (
                             os.path.basename(sdk_suite.EXPECTED_SKIPS_FILE),
                             text))
        if STRICT or os.environ.get('POOL_SDK_SUITE_STRICT') == '1':
            self.assertEqual(0, counts['failed'], text)
        elif counts['failed']:
            self.skipTest('not strict, %d failed: %s' % (counts['failed'],
                                                         text))


class TestPoolServer(SuiteTestMixin, testtools.TestCase):
    DEPLOYMENT = 'server'


class TestPoolAPIPostgreSQL(SuiteTestMixin, testtools.TestCase):
    DEPLOYMENT = 'postgresql'
