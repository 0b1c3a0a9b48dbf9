"""Digital Rebar filters evaluated by PostgreSQL and MariaDB."""
import time

import fixtures
import sqlalchemy as sa

from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import filters
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from tests.functional import db_fixtures
from tests.unit.api import test_filter_limits
from tests.unit import test_filters


class PostgreSQLFilterTestCase(test_filters.FilterQueriesMixin,
                               db_fixtures.PostgreSQLTestCase):
    pass


class MySQLFilterTestCase(test_filters.FilterQueriesMixin,
                          db_fixtures.MySQLTestCase):
    pass


class TimeLimitMixin(test_filter_limits.HostileFilterMixin):
    """A filtered query runs under [api] filter_statement_timeout."""

    def slow_filters(self):
        """Make every filtered query sleep a second per node."""
        sleep = (sa.func.pg_sleep(1).is_not(None)
                 if self.BACKEND == db_fixtures.POSTGRESQL
                 else sa.func.sleep(1) == 0)
        to_sql = filters.to_sql
        self.useFixture(fixtures.MonkeyPatch(
            'pool_conductor.db.filters.to_sql',
            lambda dialect, found: sa.and_(to_sql(dialect, found), sleep)))

    def test_slow_filter_is_400(self):
        self.slow_filters()
        self.useFixture(fixtures.MonkeyPatch(
            'pool_conductor.db.filters.time_limit', lambda: 0.3))
        status, body, seconds = self.filtered('name', 'x')
        self.assertEqual(400, status, body)
        self.assertIn('took too long', test_filter_limits.fault(body))
        self.assertLess(seconds, 1.0)

    def test_slow_pool_action_filter_is_400(self):
        self.slow_filters()
        self.config(filter_statement_timeout=0.3, group='api')
        client = self.app.test_client()
        for body in ({'filter': {'name': 'Re(x)'}},
                     {'machine_list': ['label:%s' % test_filter_limits
                                       .LONG_NAME]}):
            start = time.monotonic()
            resp = client.post('/v1/pools/default/allocateMachines',
                               json=body, headers=test_filter_limits.VERSION)
            self.assertEqual(400, resp.status_code, resp.get_data())
            self.assertIn('took too long',
                          test_filter_limits.fault(resp.get_json()))
            self.assertLess(time.monotonic() - start, 1.0)

    def test_time_limit_is_read_at_call_time(self):
        self.slow_filters()
        self.config(filter_statement_timeout=0.2, group='api')
        self.assertEqual(400, self.filtered('name', 'x')[0])
        self.config(filter_statement_timeout=0, group='api')
        status, body, seconds = self.filtered('name', 'x')
        self.assertEqual(200, status, body)
        self.assertGreater(seconds, 0.9)

    def test_refused_pattern_is_400(self):
        # A pattern that passed no validation, as the database sees it.
        context = pool_context.get_admin_context()
        self.assertRaises(exception.FilterRefused, nodes_db.list_nodes,
                          context,
                          {'match': [filters.Filter('name', 'Re', ('(',))]})

    def test_pattern_is_case_sensitive(self):
        self.assertEqual([], self.filtered('name', '^OTHER$')[1]['nodes'])
        self.assertEqual(1, len(self.filtered('name', '(?i)^OTHER$')[1]
                                ['nodes']))


class PostgreSQLTimeLimitTestCase(TimeLimitMixin,
                                  db_fixtures.PostgreSQLTestCase):

    def test_limit_ends_with_the_statement(self):
        context = pool_context.get_admin_context()
        match = [filters.parse('name', 'Re(x)')]
        with db_api.reader(context) as session:
            nodes_db.list_nodes(context, {'match': match})
            self.assertEqual('0', session.execute(
                sa.text('SHOW statement_timeout')).scalar())


class MySQLTimeLimitTestCase(TimeLimitMixin, db_fixtures.MySQLTestCase):
    pass
