"""The input boundary and the errors of PostgreSQL and MariaDB, through the
in-process API."""
import json
from unittest import mock

import sqlalchemy as sa

from pool_conductor.db import api as db_api
from pool_conductor.db import nodes as nodes_db
from pool_conductor import rpcapi
from tests.functional import db_fixtures
from tests import base

EMOJI = '\U0001f600'
SNAKE = '\U0001f40d'


class InputMixin:

    VERSION = {'X-OpenStack-Ironic-API-Version': '1.60'}
    # Statements the backend refuses with an OperationalError that says
    # nothing of the connection.
    REFUSED_STATEMENTS: tuple[str, ...]

    def setUp(self):
        super().setUp()
        self.app = base.noauth_app(self)
        alive = mock.patch.object(rpcapi.ConductorAPI, 'alive_with_groups',
                                  lambda _self, _ctx: [('test-host', '')])
        alive.start()
        self.addCleanup(alive.stop)
        status, text = self.call('POST', '/v1/nodes',
                                 {'driver': 'fake-hardware', 'name': 'n1'})
        self.assertEqual(201, status, text)

    def call(self, method: str, path: str, body=None, raw=None):
        """A request through the application: (status, text)."""
        kwargs = {'json': body} if raw is None else {
            'data': raw, 'content_type': 'application/json'}
        resp = self.app.test_client().open(
            path, method=method, headers=self.VERSION, **kwargs)
        return resp.status_code, resp.get_data(as_text=True)

    def own_params(self) -> dict:
        """The params of n1 less the pool params derived for it."""
        status, text = self.call('GET', '/v1/nodes/n1/params')
        self.assertEqual(200, status, text)
        return {k: v for k, v in json.loads(text).items()
                if not k.startswith('pool/')}

    def fault(self, text: str) -> str:
        return json.loads(json.loads(text)['error_message'])['faultstring']

    def test_numbers_out_of_range_are_400_and_not_stored(self):
        for raw in (b'{"k": %d}' % 2 ** 63, b'{"k": %d}' % -2 ** 63,
                    b'{"k": 1e19}', b'{"k": 1e999}', b'{"k": NaN}'):
            status, text = self.call('PUT', '/v1/nodes/n1/params', raw=raw)
            self.assertEqual(400, status, text)
        status, text = self.call(
            'PUT', '/v1/nodes/n1/states/provision',
            raw=b'{"target": "manage", "timeout": %d}' % 2 ** 63)
        self.assertEqual(400, status, text)
        self.assertEqual({}, self.own_params())

    def test_numbers_at_the_limits_are_stored_and_filtered(self):
        stored = {'big': 2 ** 63 - 1, 'small': -2 ** 63 + 1,
                  'float': -9.2e18, 'fraction': 0.5}
        status, text = self.call('PUT', '/v1/nodes/n1/params', stored)
        self.assertEqual(200, status, text)
        self.assertEqual(stored, self.own_params())
        for query in ('small=Lt(0)', 'big=Gte(%d)' % (2 ** 63 - 1),
                      'float=Lte(-9.2e18)'):
            status, text = self.call('GET', '/v1/nodes?' + query)
            self.assertEqual(200, status, text)
            self.assertEqual(['n1'], [n['name'] for n in
                                      json.loads(text)['nodes']], query)
        status, text = self.call('GET', '/v1/nodes?big=Gt(%d)' % 2 ** 63)
        self.assertEqual(400, status, text)

    def test_four_byte_utf8_is_stored_and_read_back(self):
        status, text = self.call('PUT', '/v1/nodes/n1/params',
                                 {EMOJI: SNAKE})
        self.assertEqual(200, status, text)
        status, text = self.call(
            'PATCH', '/v1/nodes/n1',
            [{'op': 'add', 'path': '/extra/' + SNAKE, 'value': EMOJI}])
        self.assertEqual(200, status, text)
        status, text = self.call(
            'PATCH', '/v1/nodes/n1',
            [{'op': 'add', 'path': '/description', 'value': SNAKE},
             {'op': 'add', 'path': '/owner', 'value': EMOJI}])
        self.assertEqual(200, status, text)
        status, text = self.call('POST', '/v1/pools',
                                 {'name': 'web', 'description': EMOJI})
        self.assertEqual(201, status, text)
        self.assertEqual({EMOJI: SNAKE}, self.own_params())
        node = json.loads(self.call('GET', '/v1/nodes/n1')[1])
        self.assertEqual({SNAKE: EMOJI}, node['extra'])
        self.assertEqual((SNAKE, EMOJI),
                         (node['description'], node['owner']))
        self.assertEqual(EMOJI, json.loads(
            self.call('GET', '/v1/pools/web')[1])['description'])

    def test_a_refused_statement_is_400_not_503(self):
        def refused(context, *args, **kwargs):
            with db_api.writer(context) as session:
                for statement in self.REFUSED_STATEMENTS:
                    session.execute(sa.text(statement))

        with mock.patch.object(nodes_db, 'list_nodes', side_effect=refused):
            status, text = self.call('GET', '/v1/nodes')
        self.assertEqual(400, status, text)
        self.assertIn('database refused', self.fault(text))

    def test_a_refused_connection_is_unavailable(self):
        url = self.engine.url.set(host='127.0.0.1', port=1)
        engine = sa.create_engine(url, connect_args={'connect_timeout': 2})
        self.addCleanup(engine.dispose)
        with self.assertRaises(sa.exc.OperationalError) as caught:
            engine.connect()
        self.assertTrue(db_api.is_unavailable(caught.exception))


class PostgreSQLInputTestCase(InputMixin, db_fixtures.PostgreSQLTestCase):
    # statement_timeout cancels it: SQLSTATE 57014, an OperationalError.
    REFUSED_STATEMENTS = ('SET LOCAL statement_timeout = 1',
                          'SELECT pg_sleep(1)')


class MySQLInputTestCase(InputMixin, db_fixtures.MySQLTestCase):
    # The CHECK (json_valid) of a JSON column: error 4025, an
    # OperationalError.
    REFUSED_STATEMENTS = ("UPDATE nodes SET extra = 'not JSON'",)

    def test_connections_use_utf8mb4_whatever_the_url_says(self):
        self.assertNotIn('charset=utf8mb4', str(self.engine.url))
        with self.engine.connect() as conn:
            self.assertEqual('utf8mb4', conn.exec_driver_sql(
                'SELECT @@character_set_client').scalar())
