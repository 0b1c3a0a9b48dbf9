"""``openstack pool fleet show`` and ``pool list --long``, on a document
of the API itself."""
from pool_client.v1 import fleet
from pool_client.v1 import pools
from pool_conductor.db import conductors as conductors_db
from tests.unit.api import base as api_base
from tests.unit.client import base


class TestFleetCommands(api_base.APITestCase):
    """The commands with a mocked client that answers what the API
    answered."""

    check_parser = base.TestCommand.check_parser
    machine = staticmethod(base.TestCommand.machine)

    def setUp(self):
        super().setUp()
        self.cli = base.FakeApp()
        self.pool_client = self.cli.client_manager.pool
        conductors_db.register_conductor(self.context, 'test-host')
        self.post('/v1/pools', {'name': 'web', 'parent_pool': 'default'})
        for i in range(3):
            self.create_node(name='node-%d' % i)
        self.post('/v1/pools/web/addMachines', {'machine_list': ['node-0']})
        self.document = self.get('/v1/fleet').get_json()
        self.pool_client.fleet_get.return_value = self.document

    def test_show_is_the_document_in_json_and_lines_in_tables(self):
        cmd = fleet.ShowFleet(self.cli, None)
        parsed = self.check_parser(cmd, ['--ending-within', '600'],
                                   [('ending_within', 600)])
        columns, data = cmd.take_action(parsed)
        self.pool_client.fleet_get.assert_called_once_with(ending_within=600)
        shown = self.machine(columns, data)
        for part in ('pools', 'nodes', 'allocations', 'claims',
                     'conductors', 'stranded', 'ending_soon', 'alerts'):
            self.assertEqual(self.document[part], shown[part], part)
        text = dict(zip(columns, data, strict=True))
        self.assertIn('default: 2 (Free 2)',
                      text['pools'].human_readable())
        self.assertIn('web: 1 (Free 1)', text['pools'].human_readable())
        self.assertTrue(text['nodes'].human_readable().startswith(
            '3; available 3'))
        self.assertIn('test-host: alive',
                      text['conductors'].human_readable())

    def test_pool_list_long_counts_per_status(self):
        self.pool_client.pool_list.return_value = self.get(
            '/v1/pools').get_json()['pools']
        cmd = pools.ListPool(self.cli, None)
        labels, rows = cmd.take_action(self.check_parser(cmd, ['--long'],
                                                         [('long', True)]))
        self.assertEqual(('Name', 'Description', 'Parent Pool', 'Total',
                          'Creating', 'Joining', 'Free', 'Building',
                          'InUse', 'Destroying', 'Leaving', 'Hold',
                          'AutoFill'), labels)
        by_name = {row[0]: dict(zip(labels, row, strict=True))
                   for row in rows}
        self.assertEqual(2, by_name['default']['Free'])
        self.assertEqual(1, by_name['web']['Total'])
        self.assertEqual('', by_name['web']['AutoFill'])
        # Without --long, the fleet is not read.
        self.pool_client.fleet_get.reset_mock()
        cmd.take_action(self.check_parser(cmd, [], []))
        self.pool_client.fleet_get.assert_not_called()
