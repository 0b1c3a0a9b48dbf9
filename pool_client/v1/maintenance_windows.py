"""``openstack pool node maintenance window create|list|show|delete`` and
``openstack pool node slot list``."""
import functools
import logging

from osc_lib.command import command

from pool_client import utils

FIELDS = ('uuid', 'start_at', 'end_at', 'state', 'reason')
SLOT_FIELDS = ('purpose', 'busy_from', 'busy_until', 'allocation_uuid',
               'maintenance_window_uuid', 'reason', 'state')


def _node_argument(parser) -> None:
    parser.add_argument(
        'node', metavar='<node>', help='Name or UUID of the node.')


class CreateMaintenanceWindow(command.ShowOne):
    """Book a maintenance window of a node: from its start the node
    enters maintenance (fault "scheduled maintenance") once nothing holds
    it, until its end."""

    log = logging.getLogger(__name__ + '.CreateMaintenanceWindow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _node_argument(parser)
        parser.add_argument(
            '--start', metavar='<time>', required=True,
            help='When the window begins (RFC 3339 with an offset, such as '
                 '2030-01-01T09:00:00Z; a time past is now).')
        parser.add_argument(
            '--end', metavar='<time>', required=True,
            help='When the window ends (RFC 3339 with an offset).')
        parser.add_argument(
            '--reason', metavar='<reason>', required=True,
            help='The maintenance reason the node will show.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        return utils.show(client.node_maintenance_window_create(
            parsed_args.node, parsed_args.start, parsed_args.end,
            parsed_args.reason))


class ListMaintenanceWindow(command.Lister):
    """List the maintenance windows of a node, by start."""

    log = logging.getLogger(__name__ + '.ListMaintenanceWindow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _node_argument(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        return utils.rows(client.node_maintenance_window_list(
            parsed_args.node), FIELDS)


class ShowMaintenanceWindow(command.ShowOne):
    """Show a maintenance window of a node."""

    log = logging.getLogger(__name__ + '.ShowMaintenanceWindow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _node_argument(parser)
        parser.add_argument('window', metavar='<window>',
                            help='UUID of the maintenance window.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        return utils.show(client.node_maintenance_window_show(
            parsed_args.node, parsed_args.window))


class DeleteMaintenanceWindow(command.Command):
    """Delete maintenance windows of a node (an active one takes the node
    out of its maintenance)."""

    log = logging.getLogger(__name__ + '.DeleteMaintenanceWindow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _node_argument(parser)
        parser.add_argument('windows', metavar='<window>', nargs='+',
                            help='UUID(s) of the maintenance window(s).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        utils.delete_each(
            self.app, 'maintenance window', parsed_args.windows,
            functools.partial(client.node_maintenance_window_delete,
                              parsed_args.node))


class ListSlot(command.Lister):
    """List the times a node is held, by start: windowed allocations
    (workload) and maintenance windows."""

    log = logging.getLogger(__name__ + '.ListSlot')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _node_argument(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        return utils.rows(client.node_slot_list(parsed_args.node),
                          SLOT_FIELDS)
