"""Errors of the database: 503 only when it cannot be reached."""
import sqlite3
from unittest import mock

from oslo_db import exception as db_exc
import pymysql
import sqlalchemy as sa

from pool_conductor import allocator
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import nodes as nodes_db
from tests.unit.api import base


class _PgError(Exception):
    """A psycopg2 error with its SQLSTATE (the driver's own cannot be
    given one)."""

    def __init__(self, pgcode, message='error'):
        super().__init__(message)
        self.pgcode = pgcode


_PgError.__module__ = 'psycopg2.errors'


def operational(orig) -> sa.exc.OperationalError:
    return sa.exc.OperationalError('SELECT 1', {}, orig)


UNAVAILABLE = [
    ('pg connection refused', operational(_PgError(None))),
    ('pg admin shutdown', operational(_PgError('57P01'))),
    ('pg connection failure', operational(_PgError('08006'))),
    ('pg too many connections', operational(_PgError('53300'))),
    ('mysql cannot connect', operational(
        pymysql.err.OperationalError(2003, "Can't connect"))),
    ('mysql gone away', operational(
        pymysql.err.OperationalError(2006, 'MySQL server has gone away'))),
    ('mysql lost connection', operational(
        pymysql.err.OperationalError(2013, 'Lost connection'))),
    ('sqlite busy', operational(sqlite3.OperationalError(
        'database is locked'))),
    ('oslo.db connection error', db_exc.DBConnectionError()),
    ('pool exhausted', sa.exc.TimeoutError('QueuePool limit')),
]
REFUSED = [
    ('pg statement too complex', operational(
        _PgError('54001', 'stack depth limit exceeded'))),
    ('pg query canceled', operational(_PgError('57014', 'canceled'))),
    ('pg bad json', sa.exc.DataError('SELECT 1', {}, _PgError(
        '22P02', 'invalid input syntax for type json'))),
    ('mysql json path', operational(pymysql.err.OperationalError(
        4042, 'Syntax error in JSON path'))),
    ('mysql check constraint', operational(pymysql.err.OperationalError(
        4025, 'CONSTRAINT `params` failed'))),
    ('mysql out of range', db_exc.DBDataError(sa.exc.DataError(
        'SELECT 1', {}, pymysql.err.DataError(1264, 'Out of range')))),
    ('sqlite malformed json', operational(sqlite3.OperationalError(
        'malformed JSON'))),
    ('sqlite too many terms', operational(sqlite3.OperationalError(
        'Expression tree is too large (maximum depth 1000)'))),
    ('check constraint', db_exc.DBConstraintError('nodes', 'ck')),
]
CONFLICTS = [
    ('duplicate', db_exc.DBDuplicateEntry(['name'])),
    ('missing reference', db_exc.DBReferenceError('nodes', 'fk', 'id',
                                                  'pools')),
]


class TestClassification(base.APITestCase):

    def test_unavailable(self):
        for name, error in UNAVAILABLE:
            self.assertTrue(db_api.is_unavailable(error), name)

    def test_client_errors_are_not_unavailable(self):
        for name, error in REFUSED + CONFLICTS:
            self.assertFalse(db_api.is_unavailable(error), name)

    def test_answers(self):
        for status, table in ((503, UNAVAILABLE), (400, REFUSED),
                              (409, CONFLICTS)):
            for name, error in table:
                with mock.patch.object(nodes_db, 'list_nodes',
                                       side_effect=error):
                    message = self.assertError(status, self.get('/v1/nodes'))
                if status == 503:
                    self.assertIn('not reachable', message, name)
                else:
                    self.assertIn('database', message, name)

    def test_the_driver_message_is_named(self):
        error = operational(pymysql.err.OperationalError(
            4042, 'Syntax error in JSON path'))
        with mock.patch.object(nodes_db, 'list_nodes', side_effect=error):
            self.assertError(400, self.get('/v1/nodes'),
                             'Syntax error in JSON path')

    def test_programming_errors_stay_500(self):
        error = sa.exc.ProgrammingError('SELECT', {}, _PgError('42601'))
        with mock.patch.object(nodes_db, 'list_nodes', side_effect=error):
            self.assertError(500, self.get('/v1/nodes'))


class TestWorker(base.APITestCase):
    """The allocation worker retries an outage and records a refusal."""

    def setUp(self):
        super().setUp()
        self.worker = allocator.AllocationWorker('test-host', 1)
        self.addCleanup(self.worker.stop)
        self.alloc = allocations_db.create_allocation(
            self.context, {'resource_class': 'baremetal',
                           'state': 'allocating',
                           'conductor_affinity': 'test-host'})

    def state(self) -> str:
        return allocations_db.get_allocation(self.context,
                                             self.alloc.uuid).state

    def test_outage_is_left_to_retry(self):
        for name, error in UNAVAILABLE:
            with mock.patch.object(allocator, 'allocate_one',
                                   side_effect=error):
                self.assertIsNone(self.worker.process(self.alloc.id), name)
            self.assertEqual('allocating', self.state(), name)

    def test_refusal_is_recorded(self):
        error = operational(pymysql.err.OperationalError(
            4042, 'Syntax error in JSON path'))
        with mock.patch.object(allocator, 'allocate_one',
                               side_effect=error):
            self.worker.process(self.alloc.id)
        self.assertEqual('error', self.state())
