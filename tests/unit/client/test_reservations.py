"""pool_client.v1.reservations: the reservation commands, and the
client's paths."""
import copy

from oslotest import base as oslotest_base

from pool_client import client
from pool_client.v1 import reservations
from tests.unit.client import base
from tests.unit.client import test_client

RESERVATION_UUID = '8e2a1d3b-4c5f-4a6b-8d7e-2f3a4b5c6d7e'
RESERVATION = {
    'uuid': RESERVATION_UUID,
    'name': 'lab',
    'owner': None,
    'state': 'scheduled',
    'count': {'min': 2, 'max': 3},
    'pool': 'default',
    'resource_class': 'gold',
    'traits': [],
    'candidate_nodes': [],
    'extra': {},
    'start_at': '2030-01-01T09:00:00+00:00',
    'end_at': '2030-01-01T13:00:00+00:00',
    'allocations': [{'uuid': base.ALLOCATION_UUID,
                     'node_uuid': base.NODE_UUID, 'state': 'scheduled'},
                    {'uuid': 'a2', 'node_uuid': 'n2', 'state': 'scheduled'}],
    'created_at': '2029-12-01T09:00:00+00:00',
    'updated_at': None,
    'links': base.LINKS,
}


def reservation(**values):
    result = copy.deepcopy(RESERVATION)
    result.update(values)
    return result


class TestClientReservations(oslotest_base.BaseTestCase):

    def test_paths(self):
        session = test_client.FakeSession(
            test_client.response(201, RESERVATION),
            test_client.response(200, {'reservations': [RESERVATION]}),
            test_client.response(200, RESERVATION),
            test_client.response(204))
        c = client.Client(session, test_client.ENDPOINT)
        c.reservation_create(count=2, start_at='2030-01-01T09:00:00Z',
                             duration='4h')
        self.assertEqual([RESERVATION], c.reservation_list(owner='p',
                                                           limit=5))
        c.reservation_get('lab', fields=['state', 'allocations'])
        c.reservation_delete('lab')
        url = test_client.ENDPOINT + '/v1/reservations'
        self.assertEqual(
            [('POST', url), ('GET', url), ('GET', url + '/lab'),
             ('DELETE', url + '/lab')],
            [call[:2] for call in session.calls])
        self.assertEqual({'count': 2, 'start_at': '2030-01-01T09:00:00Z',
                          'duration': '4h'}, session.calls[0][2]['json'])
        self.assertEqual({'owner': 'p', 'limit': 5},
                         session.calls[1][2]['params'])
        self.assertEqual({'fields': 'state,allocations'},
                         session.calls[2][2]['params'])


class TestCreateReservation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = reservations.CreateReservation(self.app, None)
        self.client.reservation_create.return_value = reservation()

    def test_create_min_and_max(self):
        args = self.check_parser(self.cmd, [
            'lab', '--count', '2', '--max-count', '3',
            '--start', '2030-01-01T09:00:00Z', '--duration', '4h',
            '--resource-class', 'gold', '--trait', 'CUSTOM_A',
            '--candidate-node', 'n1', '--pool', 'p', '--extra', 'k=v'],
            [('count', 2), ('max_count', 3)])
        columns, data = self.cmd.take_action(args)
        self.client.reservation_create.assert_called_once_with(
            name='lab', count={'min': 2, 'max': 3},
            start_at='2030-01-01T09:00:00Z', duration='4h',
            resource_class='gold', traits=['CUSTOM_A'],
            candidate_nodes=['n1'], pool='p', extra={'k': 'v'})
        shown = dict(zip(columns, data, strict=True))
        self.assertNotIn('links', shown)
        self.assertEqual('2-3', shown['count'])
        self.assertEqual(['%s on %s (scheduled)' % (base.ALLOCATION_UUID,
                                                    base.NODE_UUID),
                          'a2 on n2 (scheduled)'],
                         list(shown['allocations'].machine_readable()))

    def test_create_exact_count(self):
        args = self.check_parser(self.cmd, [
            '--count', '2', '--start', '2030-01-01T09:00:00Z',
            '--end', '2030-01-01T13:00:00Z'], [('max_count', None)])
        self.cmd.take_action(args)
        self.client.reservation_create.assert_called_once_with(
            count=2, start_at='2030-01-01T09:00:00Z',
            end_at='2030-01-01T13:00:00Z')

    def test_create_needs_count_and_start(self):
        self.assertRaises(base.ParserError, self.check_parser, self.cmd,
                          ['--start', '2030-01-01T09:00:00Z'], [])
        self.assertRaises(base.ParserError, self.check_parser, self.cmd,
                          ['--count', '2'], [])

    def test_create_bad_counts(self):
        for argv in (['--count', '0'], ['--count', '3', '--max-count', '2']):
            args = self.check_parser(self.cmd, argv + [
                '--start', '2030-01-01T09:00:00Z', '--duration', '1h'], [])
            self.assertRaises(reservations.exceptions.CommandError,
                              self.cmd.take_action, args)
        self.client.reservation_create.assert_not_called()


class TestListReservation(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = reservations.ListReservation(self.app, None)
        self.client.reservation_list.return_value = [
            reservation(), reservation(uuid='r2', name='b',
                                       count={'min': 1, 'max': 1})]

    def test_list(self):
        args = self.check_parser(self.cmd, ['--owner', 'p', '--pool', 'lab'],
                                 [])
        columns, rows = self.cmd.take_action(args)
        self.client.reservation_list.assert_called_once_with(
            limit=None, marker=None, owner='p', pool='lab')
        self.assertEqual(('UUID', 'Name', 'State', 'Count', 'Start At',
                          'End At'), columns)
        self.assertEqual([(RESERVATION_UUID, 'lab', 'scheduled', '2-3'),
                          ('r2', 'b', 'scheduled', '1')],
                         [r[:4] for r in rows])


class TestShowDeleteReservation(base.TestCommand):

    def test_show(self):
        cmd = reservations.ShowReservation(self.app, None)
        self.client.reservation_get.return_value = reservation()
        args = self.check_parser(cmd, ['lab'], [('reservation', 'lab')])
        columns, data = cmd.take_action(args)
        self.client.reservation_get.assert_called_once_with('lab',
                                                            fields=None)
        self.assertEqual('scheduled',
                         dict(zip(columns, data, strict=True))['state'])

    def test_delete(self):
        cmd = reservations.DeleteReservation(self.app, None)
        args = self.check_parser(cmd, ['lab', 'r2'], [])
        cmd.take_action(args)
        self.assertEqual([(('lab',),), (('r2',),)],
                         [tuple(c)[:1] for c in
                          self.client.reservation_delete.call_args_list])
        self.assertIn('Deleted reservation lab', self.app.stdout.getvalue())
