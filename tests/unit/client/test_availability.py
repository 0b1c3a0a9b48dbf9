"""The ``openstack pool availability show`` command."""
from pool_client.v1 import availability
from tests.unit.client import base


class TestShowAvailability(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = availability.ShowAvailability(self.app, None)
        self.client.availability.return_value = {
            'earliest_start': '2030-01-01T11:30:00+00:00',
            'after': '2030-01-01T09:00:00+00:00',
            'before': '2030-01-08T09:00:00+00:00',
            'duration': '2h', 'count': 2,
            'nodes': [{'uuid': base.NODE_UUID, 'name': 'node-1', 'free': [
                {'from': '2030-01-01T09:00:00+00:00',
                 'until': '2030-01-01T10:00:00+00:00'},
                {'from': '2030-01-01T11:30:00+00:00',
                 'until': '2030-01-08T09:00:00+00:00'}]},
                {'uuid': 'u2', 'name': None, 'free': []}]}

    def test_show(self):
        args = self.check_parser(self.cmd, [
            '--duration', '2h', '--count', '2', '--resource-class', 'gold',
            '--trait', 'CUSTOM_A', '--pool', 'lab',
            '--after', '2030-01-01T09:00:00Z'],
            [('duration', '2h'), ('count', 2), ('traits', ['CUSTOM_A'])])
        columns, data = self.cmd.take_action(args)
        self.client.availability.assert_called_once_with(
            duration='2h', count=2, resource_class='gold',
            traits=['CUSTOM_A'], pool='lab', after='2030-01-01T09:00:00Z')
        shown = dict(zip(columns, data, strict=True))
        self.assertEqual('2030-01-01T11:30:00+00:00', shown['earliest_start'])
        self.assertIn('node-1: 2030-01-01T09:00:00+00:00 to '
                      '2030-01-01T10:00:00+00:00, 2030-01-01T11:30:00+00:00',
                      str(shown['nodes']))
        self.assertIn('u2: busy', str(shown['nodes']))

    def test_duration_is_required(self):
        self.assertRaises(base.ParserError, self.check_parser, self.cmd,
                          [], [])
