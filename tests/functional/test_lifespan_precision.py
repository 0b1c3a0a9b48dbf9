"""An allocation's lifespan_end is kept to the microsecond on every
backend, so that it is never released before the end it was given."""
import datetime

from pool_conductor import context as pool_context
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from tests.functional import db_fixtures


class PrecisionMixin:

    def test_lifespan_end_keeps_its_microseconds(self):
        context = pool_context.get_admin_context()
        now = db_api.utcnow().replace(microsecond=100000)
        end = now + datetime.timedelta(seconds=2, microseconds=800000)
        alloc = allocations_db.create_allocation(context, {
            'resource_class': 'baremetal', 'state': 'active',
            'lifespan_end': end})
        self.assertEqual(end, allocations_db.get_allocation(
            context, alloc.uuid).lifespan_end)
        # Whole seconds would have made it 2 s after now: expired at
        # now + 2.5 s, before its end.
        half_past = now + datetime.timedelta(seconds=2, microseconds=500000)
        self.assertEqual([], allocations_db.list_expired(
            context, half_past, 'host', ['host'], 10))
        self.assertEqual([alloc.id], allocations_db.list_expired(
            context, end, 'host', ['host'], 10))


class PostgreSQLPrecisionTestCase(PrecisionMixin,
                                  db_fixtures.PostgreSQLTestCase):
    pass


class MySQLPrecisionTestCase(PrecisionMixin, db_fixtures.MySQLTestCase):
    pass
