"""``openstack pool broker ...`` commands."""
import logging

from osc_lib.command import command

from pool_client import utils

LIST_FIELDS = ('name', 'driver', 'description')


def _add_parameter_arguments(parser, verb: str) -> None:
    parser.add_argument(
        '--parameters', metavar='<JSON>', type=utils.json_object,
        help='%s the parameters of the driver with a JSON object; '
             '--parameter options apply on top of it.' % verb)
    parser.add_argument(
        '--parameter', metavar='<key=value>', action='append',
        dest='parameter',
        help='Parameter of the driver; the value is JSON when it parses '
             '(repeat option to set several).')


class CreateBroker(command.ShowOne):
    """Create a broker: a driver that creates and destroys machines for
    pools."""

    log = logging.getLogger(__name__ + '.CreateBroker')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', help='Broker name.')
        parser.add_argument('--driver', metavar='<driver>', required=True,
                            help='Driver of the broker (fake, exec, '
                                 'baremetal).')
        parser.add_argument('--description', metavar='<description>',
                            help='Description of the broker.')
        _add_parameter_arguments(parser, 'Give')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {'name': parsed_args.name, 'driver': parsed_args.driver}
        if parsed_args.description is not None:
            fields['description'] = parsed_args.description
        parameters = {**(parsed_args.parameters or {}),
                      **utils.key_value_pairs_to_dict(parsed_args.parameter)}
        if parsed_args.parameters is not None or parameters:
            fields['parameters'] = parameters
        return utils.show(
            self.app.client_manager.pool.broker_create(**fields))


class ListBroker(command.Lister):
    """List brokers."""

    log = logging.getLogger(__name__ + '.ListBroker')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--long', action='store_true', default=False,
                            help='Show the parameters of the brokers too '
                                 '(secrets masked).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = LIST_FIELDS + (('parameters',) if parsed_args.long else ())
        return utils.rows(self.app.client_manager.pool.broker_list(), fields)


class ShowBroker(command.ShowOne):
    """Show a broker; secret parameters read ****** unless policy
    allows."""

    log = logging.getLogger(__name__ + '.ShowBroker')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('broker', metavar='<broker>',
                            help='Broker name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.show(self.app.client_manager.pool.broker_get(
            parsed_args.broker))


class SetBroker(command.Command):
    """Set properties of a broker."""

    log = logging.getLogger(__name__ + '.SetBroker')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('broker', metavar='<broker>',
                            help='Broker name.')
        parser.add_argument('--driver', metavar='<driver>',
                            help='Set the driver of the broker.')
        parser.add_argument('--description', metavar='<description>',
                            help='Set the description of the broker.')
        _add_parameter_arguments(parser, 'Replace')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        patch = utils.set_patch(parsed_args, ('driver', 'description'))
        if parsed_args.parameters is not None:
            patch.append({'op': 'add', 'path': '/parameters',
                          'value': parsed_args.parameters})
        patch.extend(utils.param_patch('add', 'parameters',
                                       parsed_args.parameter))
        utils.send_patch(self.log,
                         self.app.client_manager.pool.broker_update,
                         parsed_args.broker, patch)


class UnsetBroker(command.Command):
    """Unset properties of a broker."""

    log = logging.getLogger(__name__ + '.UnsetBroker')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('broker', metavar='<broker>',
                            help='Broker name.')
        parser.add_argument('--description', action='store_true',
                            default=False,
                            help='Unset the description of the broker.')
        parser.add_argument('--parameter', metavar='<key>', action='append',
                            dest='parameter',
                            help='Parameter to unset (repeat option to '
                                 'unset several).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        patch = (utils.unset_patch(parsed_args, ('description',))
                 + utils.param_patch('remove', 'parameters',
                                     parsed_args.parameter))
        utils.send_patch(self.log,
                         self.app.client_manager.pool.broker_update,
                         parsed_args.broker, patch, 'unset')


class DeleteBroker(command.Command):
    """Delete brokers no pool names and no node was made by."""

    log = logging.getLogger(__name__ + '.DeleteBroker')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('brokers', metavar='<broker>', nargs='+',
                            help='Broker names.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'broker', parsed_args.brokers,
                          self.app.client_manager.pool.broker_delete)
