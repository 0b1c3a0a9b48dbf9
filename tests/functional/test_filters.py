"""Digital Rebar filters evaluated by PostgreSQL and MariaDB."""
from tests.functional import db_fixtures
from tests.unit import test_filters


class PostgreSQLFilterTestCase(test_filters.FilterQueriesMixin,
                               db_fixtures.PostgreSQLTestCase):
    pass


class MySQLFilterTestCase(test_filters.FilterQueriesMixin,
                          db_fixtures.MySQLTestCase):
    pass
