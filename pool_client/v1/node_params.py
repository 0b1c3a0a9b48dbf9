"""``openstack pool node param list|set|unset``: the params of a node."""
import logging

from osc_lib.command import command

from pool_client import utils


class ListNodeParam(command.Lister):
    """List the params of a node."""

    log = logging.getLogger(__name__ + '.ListNodeParam')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        parser.add_argument(
            '--aggregate', action='store_true', default=False,
            help="The node's effective params: those of its profiles "
                 'overlaid by its own.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        params = self.app.client_manager.pool.node_params(
            parsed_args.node, aggregate=parsed_args.aggregate)
        return (('Name', 'Value'),
                [(name, utils.format_value(params[name]))
                 for name in sorted(params)])


class SetNodeParam(command.Command):
    """Set params of a node."""

    log = logging.getLogger(__name__ + '.SetNodeParam')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        parser.add_argument(
            '--param', metavar='<name=value>', action='append',
            dest='params', required=True,
            help='Param to set; the value is JSON when it parses (repeat '
                 'option to set several).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        self.app.client_manager.pool.node_update_params(
            parsed_args.node,
            utils.param_patch('add', None, parsed_args.params))


class UnsetNodeParam(command.Command):
    """Unset params of a node."""

    log = logging.getLogger(__name__ + '.UnsetNodeParam')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument(
            '--param', metavar='<name>', action='append', dest='params',
            help='Param to unset (repeat option to unset several).')
        group.add_argument(
            '--all', dest='unset_all', action='store_true',
            help='Unset all the params of the node.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        if parsed_args.unset_all:
            client.node_set_params(parsed_args.node, {})
        else:
            client.node_update_params(
                parsed_args.node,
                utils.param_patch('remove', None, parsed_args.params))
