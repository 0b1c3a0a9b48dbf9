"""``openstack pool conductor ...`` commands."""
import logging

from osc_lib.command import command

from pool_client import utils

LIST_FIELDS = ('hostname', 'alive')
LONG_FIELDS = ('hostname', 'alive', 'created_at', 'updated_at')


class ListConductor(command.Lister):
    """List the conductors and whether each is alive."""

    log = logging.getLogger(__name__ + '.ListConductor')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show when each conductor registered and last '
                 'heartbeated.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        conductors = client.conductor_list(detail=parsed_args.long)
        return utils.rows(conductors,
                          LONG_FIELDS if parsed_args.long else LIST_FIELDS)


class ShowConductor(command.ShowOne):
    """Show the details of a conductor."""

    log = logging.getLogger(__name__ + '.ShowConductor')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('hostname', metavar='<hostname>',
                            help='Host name of the conductor.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        return utils.show(client.conductor_get(parsed_args.hostname))
