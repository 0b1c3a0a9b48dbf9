"""``openstack pool profile ...`` commands."""
import logging

from osc_lib.command import command

from pool_client import utils

LIST_FIELDS = ('name', 'description')
LONG_FIELDS = ('name', 'description', 'params', 'secret_params')


def _add_param_argument(parser, metavar: str, help_text: str) -> None:
    parser.add_argument(
        '--param', metavar=metavar, action='append', dest='params',
        help=help_text)


def _add_secret_argument(parser, help_text: str) -> None:
    parser.add_argument(
        '--secret-param', metavar='<name>', action='append',
        dest='secret_params', help=help_text)


class CreateProfile(command.ShowOne):
    """Create a profile: a named set of params nodes take on."""

    log = logging.getLogger(__name__ + '.CreateProfile')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', help='Profile name.')
        parser.add_argument('--description', metavar='<description>',
                            help='Description of the profile.')
        _add_param_argument(
            parser, '<name=value>',
            'Param of the profile; the value is JSON when it parses (repeat '
            'option to set several).')
        _add_secret_argument(
            parser, 'Name of a param only those who may read the profile '
                    'see (repeat option to name several).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {'name': parsed_args.name}
        if parsed_args.description is not None:
            fields['description'] = parsed_args.description
        if parsed_args.params:
            fields['params'] = utils.key_value_pairs_to_dict(
                parsed_args.params)
        if parsed_args.secret_params:
            fields['secret_params'] = parsed_args.secret_params
        return utils.show(
            self.app.client_manager.pool.profile_create(**fields))


class ListProfile(command.Lister):
    """List profiles."""

    log = logging.getLogger(__name__ + '.ListProfile')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--long', action='store_true', default=False,
                            help='Show the params of the profiles too.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.rows(self.app.client_manager.pool.profile_list(),
                          LONG_FIELDS if parsed_args.long else LIST_FIELDS)


class ShowProfile(command.ShowOne):
    """Show a profile."""

    log = logging.getLogger(__name__ + '.ShowProfile')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('profile', metavar='<profile>',
                            help='Profile name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.show(self.app.client_manager.pool.profile_get(
            parsed_args.profile))


class SetProfile(command.Command):
    """Set properties of a profile."""

    log = logging.getLogger(__name__ + '.SetProfile')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('profile', metavar='<profile>',
                            help='Profile name.')
        parser.add_argument('--description', metavar='<description>',
                            help='Set the description of the profile.')
        _add_param_argument(
            parser, '<name=value>',
            'Param to set on the profile; the value is JSON when it parses '
            '(repeat option to set several).')
        _add_secret_argument(
            parser, 'Name of a param only those who may read the profile '
                    'see; the names given replace the list (repeat option '
                    'to name several).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = (utils.set_patch(parsed_args, ('description',))
                 + utils.param_patch('add', 'params', parsed_args.params))
        if parsed_args.secret_params:
            patch.append({'op': 'replace', 'path': '/secret_params',
                          'value': parsed_args.secret_params})
        utils.send_patch(self.log, client.profile_update,
                         parsed_args.profile, patch)


class UnsetProfile(command.Command):
    """Unset properties of a profile."""

    log = logging.getLogger(__name__ + '.UnsetProfile')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('profile', metavar='<profile>',
                            help='Profile name.')
        parser.add_argument('--description', action='store_true',
                            default=False,
                            help='Unset the description of the profile.')
        _add_param_argument(
            parser, '<name>',
            'Param to unset on the profile (repeat option to unset '
            'several).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = (utils.unset_patch(parsed_args, ('description',))
                 + utils.param_patch('remove', 'params', parsed_args.params))
        utils.send_patch(self.log, client.profile_update,
                         parsed_args.profile, patch, 'unset')


class DeleteProfile(command.Command):
    """Delete profiles no node has."""

    log = logging.getLogger(__name__ + '.DeleteProfile')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('profiles', metavar='<profile>', nargs='+',
                            help='Profile names.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'profile', parsed_args.profiles,
                          self.app.client_manager.pool.profile_delete)
