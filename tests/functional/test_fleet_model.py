"""The stateful model of the fleet on PostgreSQL and MariaDB."""
from tests import fleet_machine
from tests.functional import db_fixtures


class PostgreSQLFleetModelTestCase(fleet_machine.FleetModelTests,
                                   db_fixtures.PostgreSQLTestCase):
    pass


class MySQLFleetModelTestCase(fleet_machine.FleetModelTests,
                              db_fixtures.MySQLTestCase):
    pass
