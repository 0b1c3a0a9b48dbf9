"""``openstack pool allocation ...`` commands."""
import logging

from osc_lib.command import command
from osc_lib import exceptions

from pool_client import utils

FIELDS = ('uuid', 'name', 'state', 'owner', 'node_uuid', 'last_error',
          'resource_class', 'traits', 'candidate_nodes', 'extra',
          'lifespan_end', 'start_at', 'busy_from', 'busy_until',
          'missing_resources', 'created_at', 'updated_at')
LIST_FIELDS = ('uuid', 'name', 'resource_class', 'state', 'node_uuid')
SORT_KEYS = ('uuid', 'name', 'state', 'resource_class', 'owner',
             'lifespan_end', 'created_at', 'updated_at')
ERROR = 'error'


def _request_arguments(parser):
    """The arguments of what an allocation asks for."""
    parser.add_argument(
        '--resource-class', metavar='<resource_class>',
        help='Resource class to request.')
    parser.add_argument(
        '--trait', metavar='<trait>', action='append', dest='traits',
        help='A trait to request. Can be specified multiple times.')
    parser.add_argument(
        '--candidate-node', metavar='<node>', action='append',
        dest='candidate_nodes',
        help='A candidate node for this allocation. Can be specified '
             'multiple times. If at least one is specified, only these '
             'nodes are considered for the allocation.')
    return parser


WINDOW = ('start_at', 'end_at', 'duration')


def window_arguments(parser, start_help: str | None = None):
    """--start, --end and --duration of a windowed allocation."""
    parser.add_argument(
        '--start', dest='start_at', metavar='<time>',
        help=start_help or (
            'Book a window that starts at this time (RFC 3339 with an '
            'offset, such as 2026-12-01T09:00:00Z): the allocation is '
            'scheduled with a node held for it, and becomes active at its '
            'start. Needs --end or --duration.'))
    parser.add_argument(
        '--end', dest='end_at', metavar='<time>',
        help='When the window ends (RFC 3339 with an offset): its '
             'lifespan_end.')
    parser.add_argument(
        '--duration', metavar='<duration>',
        help='How long the window lasts, such as "4h" or "1d12h", '
             'instead of --end.')
    return parser


class CreateAllocation(command.ShowOne):
    """Create a new allocation: reserve a node of the pool."""

    log = logging.getLogger(__name__ + '.CreateAllocation')

    def get_parser(self, prog_name):
        parser = _request_arguments(super().get_parser(prog_name))
        parser.add_argument(
            '--name', metavar='<name>',
            help='Unique name of the allocation.')
        parser.add_argument(
            '--uuid', metavar='<uuid>', help='UUID of the allocation.')
        parser.add_argument(
            '--owner', metavar='<owner>', help='Owner of the allocation.')
        parser.add_argument(
            '--extra', metavar='<key=value>', action='append',
            help='Record arbitrary key/value metadata. Can be specified '
                 'multiple times.')
        parser.add_argument(
            '--pool', metavar='<pool>',
            help='Take a Free node of this pool, with the pool\'s allocate '
                 'actions (default: the default pool); deleting the '
                 'allocation returns the node to the pool.')
        parser.add_argument(
            '--lifespan-end', dest='lifespan_end', metavar='<time>',
            help='When the allocation ends by itself (ISO 8601, UTC unless '
                 'an offset is given), within its pool\'s lifespan '
                 '(default: the pool\'s).')
        window_arguments(parser)
        parser.add_argument(
            '--node', metavar='<node>',
            help='Backfill this allocation from the given node, which '
                 'already has an instance. Bypasses the normal allocation '
                 'process.')
        parser.add_argument(
            '--wait', type=int, dest='wait_timeout', default=None,
            metavar='<time-out>', const=0, nargs='?',
            help='Wait for the new allocation to become active. An error is '
                 'returned if the allocation fails. Optionally takes a '
                 'timeout in seconds; the default, 0, waits indefinitely.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        if not parsed_args.node and not parsed_args.resource_class:
            raise exceptions.CommandError(
                '--resource-class is required except when --node is used')
        wait = parsed_args.wait_timeout
        if wait is not None and wait < 0:
            raise exceptions.CommandError(
                'Expected a non-negative --wait time-out, got %s'
                % parsed_args.wait_timeout)
        fields = {k: getattr(parsed_args, k)
                  for k in ('resource_class', 'traits', 'candidate_nodes',
                            'name', 'uuid', 'owner', 'node', 'pool',
                            'lifespan_end', 'start_at', 'end_at',
                            'duration')
                  if getattr(parsed_args, k) is not None}
        if parsed_args.extra:
            fields['extra'] = utils.key_value_pairs_to_dict(
                parsed_args.extra)
        allocation = client.allocation_create(**fields)
        if parsed_args.wait_timeout is not None:
            allocation = client.allocation_wait(
                allocation['uuid'], timeout=parsed_args.wait_timeout,
                progress=utils.Progress('Allocation %s'
                                        % allocation['uuid']))
            if allocation.get('state') == ERROR:
                raise exceptions.CommandError(
                    'Allocation %s failed: %s'
                    % (allocation['uuid'],
                       allocation.get('last_error') or 'unknown error'))
        return utils.show(allocation)


class PreviewAllocation(command.ShowOne):
    """Preview an allocation: the nodes it would match, the one it would
    get now and how many nodes each filter left out. Nothing is reserved.
    """

    log = logging.getLogger(__name__ + '.PreviewAllocation')

    def get_parser(self, prog_name):
        parser = _request_arguments(super().get_parser(prog_name))
        parser.add_argument(
            '--name', metavar='<name>',
            help='The name of the allocation: a free node of this name is '
                 'taken first.')
        parser.add_argument(
            '--owner', metavar='<owner>', help='Owner of the allocation.')
        parser.add_argument(
            '--pool', metavar='<pool>',
            help='Take a Free node of this pool (default: the default '
                 'pool).')
        parser.add_argument(
            '--seed', type=int, metavar='<seed>',
            help='Seed the random start of the allocator\'s search, to '
                 'get the same pick again.')
        parser.add_argument(
            '--limit', type=int, metavar='<count>',
            help='List at most this many matching nodes (all are counted).')
        window_arguments(parser, start_help=(
            'Preview a window that starts at this time (RFC 3339 with an '
            'offset): the nodes booking it would find free, with the '
            'pool\'s margins. Needs --end or --duration.'))
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        request = {k: getattr(parsed_args, k)
                   for k in ('resource_class', 'traits', 'candidate_nodes',
                             'name', 'owner', 'pool', 'seed', 'limit',
                             *WINDOW)
                   if getattr(parsed_args, k) is not None}
        answer = client.allocation_candidates(**request)
        answer['candidates'] = [c['name'] or c['uuid']
                                for c in answer['candidates']]
        # The reasons that left nodes out, in the order they are tested.
        answer['rejected'] = ', '.join(
            '%s=%d' % item for item in answer['rejected'].items()
            if item[1]) or 'none'
        return utils.show(answer)


class ListAllocation(command.Lister):
    """List allocations."""

    log = logging.getLogger(__name__ + '.ListAllocation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        utils.add_list_arguments(parser, 'allocation')
        parser.add_argument(
            '--node', metavar='<node>',
            help='Only list allocations of this node (name or UUID).')
        parser.add_argument(
            '--resource-class', metavar='<resource_class>',
            help='Only list allocations with this resource class.')
        parser.add_argument(
            '--state', metavar='<state>',
            help='Only list allocations in this state.')
        parser.add_argument(
            '--owner', metavar='<owner>',
            help='Only list allocations with this owner.')
        utils.add_display_arguments(parser, 'allocation', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        columns, params = utils.list_query(parsed_args, FIELDS, LIST_FIELDS,
                                           SORT_KEYS)
        params.update({k: getattr(parsed_args, k)
                       for k in ('node', 'resource_class', 'state', 'owner')
                       if getattr(parsed_args, k) is not None})
        return utils.list_rows(client.allocation_list, parsed_args, columns,
                               params)


class ShowAllocation(command.ShowOne):
    """Show the details of an allocation."""

    log = logging.getLogger(__name__ + '.ShowAllocation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'allocation', metavar='<allocation>',
            help='Name or UUID of the allocation.')
        utils.add_fields_argument(parser, 'allocation', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        fields = utils.flatten(parsed_args.fields) or None
        allocation = client.allocation_get(parsed_args.allocation,
                                           fields=fields)
        return utils.show(allocation)


class SetAllocation(command.Command):
    """Set properties of an allocation."""

    log = logging.getLogger(__name__ + '.SetAllocation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'allocation', metavar='<allocation>',
            help='Name or UUID of the allocation.')
        parser.add_argument(
            '--name', metavar='<name>',
            help='Set the name of the allocation.')
        parser.add_argument(
            '--extra', metavar='<key=value>', action='append',
            help='Extra to set on the allocation (repeat option to set '
                 'multiple extras).')
        parser.add_argument(
            '--lifespan-end', dest='lifespan_end', metavar='<time>',
            help='Set when the allocation ends (ISO 8601), within its '
                 'pool\'s lifespan.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.set_patch(parsed_args, ('name', 'lifespan_end'),
                                {'extra': 'extra'})
        utils.send_patch(self.log, client.allocation_update,
                         parsed_args.allocation, patch)


class UnsetAllocation(command.Command):
    """Unset properties of an allocation."""

    log = logging.getLogger(__name__ + '.UnsetAllocation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'allocation', metavar='<allocation>',
            help='Name or UUID of the allocation.')
        parser.add_argument(
            '--name', action='store_true', default=False,
            help='Unset the name of the allocation.')
        parser.add_argument(
            '--extra', metavar='<key>', action='append',
            help='Extra to unset on the allocation (repeat option to unset '
                 'multiple extras).')
        parser.add_argument(
            '--lifespan-end', dest='lifespan_end', action='store_true',
            default=False,
            help='Let the allocation live until it is deleted (only where '
                 'its pool\'s lifespan has no maximum).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.unset_patch(parsed_args, ('name', 'lifespan_end'),
                                  {'extra': 'extra'})
        utils.send_patch(self.log, client.allocation_update,
                         parsed_args.allocation, patch, 'unset')


class DeleteAllocation(command.Command):
    """Delete allocation(s), releasing their nodes."""

    log = logging.getLogger(__name__ + '.DeleteAllocation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'allocations', metavar='<allocation>', nargs='+',
            help='Allocation(s) to delete (name or UUID).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'allocation', parsed_args.allocations,
                          self.app.client_manager.pool.allocation_delete)
