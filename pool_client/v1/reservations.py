"""``openstack pool reservation create|list|show|delete``."""
import logging

from osc_lib.command import command
from osc_lib import exceptions

from pool_client import utils

FIELDS = ('uuid', 'name', 'owner', 'state', 'count', 'pool',
          'resource_class', 'traits', 'candidate_nodes', 'extra',
          'start_at', 'end_at', 'allocations', 'created_at', 'updated_at')
LIST_FIELDS = ('uuid', 'name', 'state', 'count', 'start_at', 'end_at')
SORT_KEYS = ('uuid', 'name', 'owner', 'pool', 'start_at', 'end_at',
             'created_at', 'updated_at')


def shown(reservation: dict) -> dict:
    """A reservation as the commands show it: its count as "min" or
    "min-max", each allocation as "<uuid> on <node> (<state>)"."""
    out = dict(reservation)
    count = out.get('count')
    if isinstance(count, dict):
        out['count'] = ('%(min)s' % count if count['min'] == count['max']
                        else '%(min)s-%(max)s' % count)
    if isinstance(out.get('allocations'), list):
        out['allocations'] = ['%s on %s (%s)' % (
            a.get('uuid'), a.get('node_uuid') or '-', a.get('state'))
            for a in out['allocations']]
    return out


class CreateReservation(command.ShowOne):
    """Book windowed allocations of several nodes for one window: as many
    as are free, from --count to --max-count, or none (an error naming
    what holds the nodes)."""

    log = logging.getLogger(__name__ + '.CreateReservation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', nargs='?',
                            help='Unique name of the reservation.')
        parser.add_argument(
            '--count', type=int, metavar='<count>', required=True,
            help='How many nodes at least: with fewer free nodes nothing '
                 'is booked.')
        parser.add_argument(
            '--max-count', dest='max_count', type=int, metavar='<count>',
            help='How many nodes at most, taken when free (default: '
                 '--count).')
        parser.add_argument(
            '--start', dest='start_at', metavar='<time>', required=True,
            help='When the window starts (RFC 3339 with an offset, such as '
                 '2026-12-01T09:00:00Z).')
        parser.add_argument(
            '--end', dest='end_at', metavar='<time>',
            help='When the window ends (RFC 3339 with an offset).')
        parser.add_argument(
            '--duration', metavar='<duration>',
            help='How long the window lasts, such as "4h" or "1d12h", '
                 'instead of --end.')
        parser.add_argument(
            '--resource-class', metavar='<resource_class>',
            help='Resource class of the nodes.')
        parser.add_argument(
            '--trait', metavar='<trait>', action='append', dest='traits',
            help='A trait every node has. Can be specified multiple times.')
        parser.add_argument(
            '--candidate-node', metavar='<node>', action='append',
            dest='candidate_nodes',
            help='A candidate node. Can be specified multiple times; with '
                 'any, only these nodes are considered.')
        parser.add_argument(
            '--pool', metavar='<pool>',
            help='Take the nodes of this pool (default: the default pool).')
        parser.add_argument(
            '--owner', metavar='<owner>', help='Owner of the reservation.')
        parser.add_argument('--uuid', metavar='<uuid>',
                            help='UUID of the reservation.')
        parser.add_argument(
            '--extra', metavar='<key=value>', action='append',
            help='Record arbitrary key/value metadata. Can be specified '
                 'multiple times.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        low = parsed_args.count
        high = low if parsed_args.max_count is None else parsed_args.max_count
        if low < 1 or high < low:
            raise exceptions.CommandError(
                'Expected 1 <= --count <= --max-count, got %s and %s'
                % (low, high))
        fields = {k: getattr(parsed_args, k)
                  for k in ('name', 'uuid', 'start_at', 'end_at', 'duration',
                            'resource_class', 'traits', 'candidate_nodes',
                            'pool', 'owner')
                  if getattr(parsed_args, k) is not None}
        fields['count'] = low if low == high else {'min': low, 'max': high}
        if parsed_args.extra:
            fields['extra'] = utils.key_value_pairs_to_dict(
                parsed_args.extra)
        return utils.show(shown(
            self.app.client_manager.pool.reservation_create(**fields)))


class ListReservation(command.Lister):
    """List reservations."""

    log = logging.getLogger(__name__ + '.ListReservation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        utils.add_list_arguments(parser, 'reservation')
        parser.add_argument('--owner', metavar='<owner>',
                            help='Only list reservations with this owner.')
        parser.add_argument('--pool', metavar='<pool>',
                            help='Only list reservations of this pool.')
        utils.add_display_arguments(parser, 'reservation', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        columns, params = utils.list_query(parsed_args, FIELDS, LIST_FIELDS,
                                           SORT_KEYS)
        params.update({k: getattr(parsed_args, k) for k in ('owner', 'pool')
                       if getattr(parsed_args, k) is not None})
        client = self.app.client_manager.pool

        def listed(**kwargs):
            return [shown(r) for r in client.reservation_list(**kwargs)]
        return utils.list_rows(listed, parsed_args, columns, params)


class ShowReservation(command.ShowOne):
    """Show the details of a reservation: its count, window, state and
    allocations."""

    log = logging.getLogger(__name__ + '.ShowReservation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<reservation>',
                            help='Name or UUID of the reservation.')
        utils.add_fields_argument(parser, 'reservation', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = utils.flatten(parsed_args.fields) or None
        return utils.show(shown(self.app.client_manager.pool.reservation_get(
            parsed_args.reservation, fields=fields)))


class DeleteReservation(command.Command):
    """Delete reservations and all their allocations.

    The API deletes the allocations before it answers: there is nothing
    to wait for.
    """

    log = logging.getLogger(__name__ + '.DeleteReservation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservations', metavar='<reservation>',
                            nargs='+',
                            help='Reservations to delete (name or UUID).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'reservation', parsed_args.reservations,
                          self.app.client_manager.pool.reservation_delete)
