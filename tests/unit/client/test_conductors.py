"""``openstack pool conductor list|show``."""
from pool_client.v1 import conductors
from tests.unit.client import base

ALIVE = {'hostname': 'c1', 'conductor_group': '', 'alive': True,
         'drivers': ['fake-hardware'],
         'created_at': '2026-11-22T10:00:00+00:00',
         'updated_at': '2026-11-22T10:05:00+00:00', 'links': base.LINKS}
DEAD = dict(ALIVE, hostname='c2', alive=False)


class TestListConductor(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = conductors.ListConductor(self.app, None)
        self.client.conductor_list.return_value = [ALIVE, DEAD]

    def test_list(self):
        args = self.check_parser(self.cmd, [], [('long', False)])
        columns, rows = self.cmd.take_action(args)
        self.client.conductor_list.assert_called_once_with(detail=False)
        self.assertEqual(2, len(columns))
        self.assertEqual([('c1', True), ('c2', False)], list(rows))

    def test_list_long(self):
        args = self.check_parser(self.cmd, ['--long'], [('long', True)])
        columns, rows = self.cmd.take_action(args)
        self.client.conductor_list.assert_called_once_with(detail=True)
        self.assertEqual(4, len(columns))
        self.assertEqual('2026-11-22T10:05:00+00:00', rows[0][3])


class TestShowConductor(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = conductors.ShowConductor(self.app, None)
        self.client.conductor_get.return_value = DEAD

    def test_show(self):
        args = self.check_parser(self.cmd, ['c2'], [('hostname', 'c2')])
        columns, data = self.cmd.take_action(args)
        self.client.conductor_get.assert_called_once_with('c2')
        shown = self.machine(columns, data)
        self.assertEqual('c2', shown['hostname'])
        self.assertIs(False, shown['alive'])

    def test_hostname_is_required(self):
        self.assertParserFails(self.cmd, [])
