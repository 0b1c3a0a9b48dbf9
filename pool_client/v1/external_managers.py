"""``openstack pool external manager ...`` commands."""
import logging

from osc_lib.command import command

from pool_client import utils

LIST_FIELDS = ('name', 'driver', 'enabled', 'conductor_affinity',
               'last_sync_at', 'last_error')


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


def _add_sync_arguments(parser) -> None:
    parser.add_argument(
        '--sync-interval', metavar='<seconds>', type=int,
        dest='sync_interval',
        help='Seconds between two rounds of its reconciler (else '
             '[external_manager] sync_interval).')
    enabled = parser.add_mutually_exclusive_group()
    enabled.add_argument('--enable', dest='enabled', action='store_const',
                         const=True, help='Reconcile the manager.')
    enabled.add_argument('--disable', dest='enabled', action='store_const',
                         const=False,
                         help='Stop reconciling the manager (its nodes '
                              'stay as they are).')


class CreateExternalManager(command.ShowOne):
    """Create an external manager: a system that owns hardware pool
    shares."""

    log = logging.getLogger(__name__ + '.CreateExternalManager')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>',
                            help='External manager name.')
        parser.add_argument('--driver', metavar='<driver>', required=True,
                            help='Driver of the manager (ironic, fake).')
        parser.add_argument('--description', metavar='<description>',
                            help='Description of the manager.')
        _add_sync_arguments(parser)
        _add_parameter_arguments(parser, 'Give')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {'name': parsed_args.name, 'driver': parsed_args.driver}
        for key in ('description', 'sync_interval', 'enabled'):
            if getattr(parsed_args, key) is not None:
                fields[key] = getattr(parsed_args, key)
        parameters = {**(parsed_args.parameters or {}),
                      **utils.key_value_pairs_to_dict(parsed_args.parameter)}
        if parsed_args.parameters is not None or parameters:
            fields['parameters'] = parameters
        return utils.show(
            self.app.client_manager.pool.external_manager_create(**fields))


class ListExternalManager(command.Lister):
    """List external managers."""

    log = logging.getLogger(__name__ + '.ListExternalManager')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--long', action='store_true', default=False,
                            help='Show the parameters of the managers too '
                                 '(secrets masked).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = LIST_FIELDS + (('parameters',) if parsed_args.long else ())
        return utils.rows(
            self.app.client_manager.pool.external_manager_list(), fields)


class ShowExternalManager(command.ShowOne):
    """Show an external manager; secret parameters read ****** unless
    policy allows."""

    log = logging.getLogger(__name__ + '.ShowExternalManager')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('manager', metavar='<manager>',
                            help='External manager name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.show(self.app.client_manager.pool.external_manager_get(
            parsed_args.manager))


class SetExternalManager(command.Command):
    """Set properties of an external manager."""

    log = logging.getLogger(__name__ + '.SetExternalManager')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('manager', metavar='<manager>',
                            help='External manager name.')
        parser.add_argument('--driver', metavar='<driver>',
                            help='Set the driver of the manager.')
        parser.add_argument('--description', metavar='<description>',
                            help='Set the description of the manager.')
        _add_sync_arguments(parser)
        _add_parameter_arguments(parser, 'Replace')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        patch = utils.set_patch(parsed_args, ('driver', 'description',
                                              'sync_interval', 'enabled'))
        if parsed_args.parameters is not None:
            patch.append({'op': 'add', 'path': '/parameters',
                          'value': parsed_args.parameters})
        patch.extend(utils.param_patch('add', 'parameters',
                                       parsed_args.parameter))
        utils.send_patch(self.log,
                         self.app.client_manager.pool.external_manager_update,
                         parsed_args.manager, patch)


class UnsetExternalManager(command.Command):
    """Unset properties of an external manager."""

    log = logging.getLogger(__name__ + '.UnsetExternalManager')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('manager', metavar='<manager>',
                            help='External manager name.')
        parser.add_argument('--description', action='store_true',
                            default=False,
                            help='Unset the description of the manager.')
        parser.add_argument('--sync-interval', action='store_true',
                            default=False,
                            help='Unset its own interval: [external_manager] '
                                 'sync_interval applies.')
        parser.add_argument('--parameter', metavar='<key>', action='append',
                            dest='parameter',
                            help='Parameter to unset (repeat option to '
                                 'unset several).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        patch = (utils.unset_patch(parsed_args, ('description',
                                                 'sync_interval'))
                 + utils.param_patch('remove', 'parameters',
                                     parsed_args.parameter))
        utils.send_patch(self.log,
                         self.app.client_manager.pool.external_manager_update,
                         parsed_args.manager, patch, 'unset')


class DeleteExternalManager(command.Command):
    """Delete external managers no node is shared with."""

    log = logging.getLogger(__name__ + '.DeleteExternalManager')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('managers', metavar='<manager>', nargs='+',
                            help='External manager names.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(
            self.app, 'external manager', parsed_args.managers,
            self.app.client_manager.pool.external_manager_delete)


class ShowExternalManagerStatus(command.ShowOne):
    """Show the nodes of an external manager by external state, and its
    last round."""

    log = logging.getLogger(__name__ + '.ShowExternalManagerStatus')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('manager', metavar='<manager>',
                            help='External manager name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        body = self.app.client_manager.pool.external_manager_status(
            parsed_args.manager)
        body.update(body.pop('states'))
        return utils.show(body)
