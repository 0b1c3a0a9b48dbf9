"""``openstack pool provider create|list|show|set|unset|delete``."""
import argparse
import logging

from osc_lib.command import command

from pool_client import utils
from pool_client.v1 import pools

FIELDS = ('name', 'description', 'pool', 'defaults', 'template',
          'validation', 'match_ignore', 'update_filters', 'lifespan',
          'match', 'override', 'resource_requires_claim', 'on_lost',
          'keep_params')
ON_LOST = ('replace', 'error')
# The boolean fields, each set by --<field> and --no-<field>.
FLAGS = ('resource_requires_claim', 'keep_params')
LIST_FIELDS = ('name', 'pool', 'description')
UPDATE_OPS = ('add', 'replace', 'remove')


def update_filter(text: str) -> dict:
    """An argparse type: an update filter, as a JSON object or
    ``<path_match>[:<op>,<op>]``.

    The part after the last colon is read as operations only when every
    item of it is one, so a pattern with colons (``/params/(?:a|b)``)
    stays whole.

    :raises: ArgumentTypeError for a JSON object without path_match
    """
    if text.lstrip().startswith('{'):
        value = utils.json_object(text)
        if not isinstance(value.get('path_match'), str):
            raise argparse.ArgumentTypeError(
                'an update filter needs a path_match string, not %r' % text)
        return value
    path_match, sep, ops = text.rpartition(':')
    names = [op.strip() for op in ops.split(',')]
    if sep and path_match and all(op in UPDATE_OPS for op in names):
        return {'path_match': path_match, 'allowed_ops': names}
    if not text:
        raise argparse.ArgumentTypeError('an update filter needs a '
                                         'path_match')
    return {'path_match': text}


def add_provider_arguments(parser) -> None:
    """The options of create and set."""
    parser.add_argument('--description', metavar='<description>',
                        help='Short description.')
    parser.add_argument(
        '--defaults', metavar='<JSON>', type=utils.json_object,
        help='Machine request merged under each resource\'s template: a '
             'JSON object of resource_class, traits, params, profiles and '
             'workflow.')
    template = parser.add_mutually_exclusive_group()
    template.add_argument(
        '--template-enable', dest='template_enable', action='store_const',
        const=True, default=None,
        help='Render every string of the defaults as a Jinja2 template.')
    template.add_argument(
        '--template-disable', dest='template_enable', action='store_const',
        const=False,
        help='Use the strings of the defaults as they are.')
    parser.add_argument(
        '--validation', metavar='<JSON schema>', type=utils.json_object,
        help='JSON schema every resolved resource template must satisfy.')
    parser.add_argument(
        '--match-ignore', dest='match_ignore', metavar='<pointer>',
        action='append',
        help='JSON pointer into a template that matching a Free machine '
             'ignores, such as /params/hostname (repeat option for '
             'several).')
    parser.add_argument(
        '--update-filter', dest='update_filters',
        metavar='<path_match>[:<op>,<op>]', action='append',
        type=update_filter,
        help='What a change of a bound claim may touch: an RE2 pattern '
             'the whole JSON pointer of the change must match, and the '
             'operations allowed (add, replace, remove; default all), '
             'or a JSON object {"path_match": ..., "allowed_ops": [...]} '
             '(repeat option for several).')
    parser.add_argument(
        '--match', metavar='<JSON>', type=utils.json_object,
        help='Part of a machine request template: a claim\'s resource '
             'that names no provider gets the provider whose match its '
             'template has.')
    parser.add_argument(
        '--override', metavar='<JSON>', type=utils.json_object,
        help='Machine request template applied over the claimed one when '
             'a machine is bound (rendered then, with templates enabled).')
    parser.add_argument(
        '--on-lost', dest='on_lost', choices=ON_LOST,
        help='What a claim does when a machine of the provider is lost: '
             'bind another (replace) or go to error.')
    for flag, on, off in (
            ('resource_requires_claim',
             'The pool\'s broker makes a machine for each claim; no Free '
             'machine is taken.',
             'Take Free machines of the pool.'),
            ('keep_params',
             'A claim\'s end leaves the params and profiles it set.',
             'A claim\'s end takes off the params and profiles it set.')):
        group = parser.add_mutually_exclusive_group()
        option = flag.replace('_', '-')
        group.add_argument('--' + option, dest=flag, action='store_const',
                           const=True, default=None, help=on)
        group.add_argument('--no-' + option, dest=flag,
                           action='store_const', const=False, help=off)
    pools.add_lifespan_arguments(parser)


class CreateProvider(command.ShowOne):
    """Create a provider: the machines of claims from a pool."""

    log = logging.getLogger(__name__ + '.CreateProvider')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', help='Provider name.')
        parser.add_argument('--pool', metavar='<pool>', required=True,
                            help='Pool whose Free machines satisfy the '
                                 'provider\'s resources.')
        add_provider_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {k: getattr(parsed_args, k)
                  for k in ('name', 'pool', 'description', 'defaults',
                            'validation', 'match_ignore', 'update_filters',
                            'match', 'override', 'on_lost', *FLAGS)
                  if getattr(parsed_args, k) is not None}
        if parsed_args.template_enable is not None:
            fields['template'] = {'enable': parsed_args.template_enable}
        lifespan = pools.lifespan_of(parsed_args)
        if lifespan:
            fields['lifespan'] = lifespan
        return utils.show(
            self.app.client_manager.pool.provider_create(**fields))


class ListProvider(command.Lister):
    """List providers."""

    log = logging.getLogger(__name__ + '.ListProvider')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--long', action='store_true', default=False,
                            help='Show all the fields of the providers.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        providers = self.app.client_manager.pool.provider_list()
        return utils.rows(providers,
                          FIELDS if parsed_args.long else LIST_FIELDS)


class ShowProvider(command.ShowOne):
    """Show a provider."""

    log = logging.getLogger(__name__ + '.ShowProvider')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('provider', metavar='<provider>',
                            help='Provider name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.show(self.app.client_manager.pool.provider_get(
            parsed_args.provider))


class SetProvider(command.Command):
    """Set properties of a provider.

    --match-ignore and --update-filter add to the provider's lists;
    --defaults and --validation replace what is there.
    """

    log = logging.getLogger(__name__ + '.SetProvider')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('provider', metavar='<provider>',
                            help='Provider name.')
        parser.add_argument('--pool', metavar='<pool>',
                            help='Set the pool the machines come from.')
        add_provider_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        patch = utils.set_patch(parsed_args, ('pool', 'description',
                                              'defaults', 'validation',
                                              'match', 'override', 'on_lost',
                                              *FLAGS))
        if parsed_args.template_enable is not None:
            patch.append({'op': 'add', 'path': '/template/enable',
                          'value': parsed_args.template_enable})
        for field in ('match_ignore', 'update_filters'):
            patch.extend({'op': 'add', 'path': '/%s/-' % field,
                          'value': value}
                         for value in getattr(parsed_args, field) or ())
        patch.extend({'op': 'add', 'path': '/lifespan/' + key,
                      'value': value}
                     for key, value in pools.lifespan_of(parsed_args).items())
        utils.send_patch(self.log,
                         self.app.client_manager.pool.provider_update,
                         parsed_args.provider, patch)


class UnsetProvider(command.Command):
    """Unset properties of a provider.

    Options that take items off its lists or lifespan read the provider
    first; items that are not there are ignored.
    """

    log = logging.getLogger(__name__ + '.UnsetProvider')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('provider', metavar='<provider>',
                            help='Provider name.')
        for option, what in (
                ('description', 'the short description'),
                ('defaults', 'the defaults'),
                ('template', 'the template settings (templates off)'),
                ('validation', 'the validation schema')):
            parser.add_argument('--' + option, action='store_true',
                                default=False, help='Unset %s.' % what)
        parser.add_argument(
            '--match-ignore', dest='match_ignore', metavar='<pointer>',
            action='append',
            help='Pointer to take off the ones matching ignores (repeat '
                 'option for several).')
        parser.add_argument(
            '--update-filter', dest='update_filters',
            metavar='<path_match>', action='append',
            help='Take off the update filters of this path_match (repeat '
                 'option for several).')
        parser.add_argument(
            '--all-match-ignore', dest='all_match_ignore',
            action='store_true', default=False,
            help='Unset every pointer that matching ignores.')
        parser.add_argument(
            '--all-update-filters', dest='all_update_filters',
            action='store_true', default=False,
            help='Unset every update filter: a bound claim cannot change.')
        for key in pools.LIFESPAN_KEYS:
            parser.add_argument(
                '--lifespan-' + key.replace('_', '-'),
                dest='lifespan_' + key, action='store_true', default=False,
                help='Unset the %s of the lifespan of the provider\'s '
                     'claims.' % key.replace('_', ' '))
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.unset_patch(parsed_args, ('description', 'defaults',
                                                'template', 'validation'))
        if parsed_args.all_match_ignore:
            patch.append({'op': 'remove', 'path': '/match_ignore'})
        if parsed_args.all_update_filters:
            patch.append({'op': 'remove', 'path': '/update_filters'})
        lifespan = [key for key in pools.LIFESPAN_KEYS
                    if getattr(parsed_args, 'lifespan_' + key)]
        provider = None
        if lifespan or parsed_args.match_ignore or parsed_args.update_filters:
            provider = client.provider_get(parsed_args.provider)
            patch.extend({'op': 'remove', 'path': '/lifespan/' + key}
                         for key in lifespan
                         if key in (provider.get('lifespan') or {}))
            before = provider.get('match_ignore') or []
            after = [p for p in before
                     if p not in (parsed_args.match_ignore or ())]
            if after != before and not parsed_args.all_match_ignore:
                patch.append({'op': 'add', 'path': '/match_ignore',
                              'value': after})
            before = provider.get('update_filters') or []
            after = [f for f in before
                     if f.get('path_match') not in (
                         parsed_args.update_filters or ())]
            if after != before and not parsed_args.all_update_filters:
                patch.append({'op': 'add', 'path': '/update_filters',
                              'value': after})
        # Nothing to send when the provider has none of what the options
        # take off.
        if patch or provider is None:
            utils.send_patch(self.log, client.provider_update,
                             parsed_args.provider, patch, 'unset')


class DeleteProvider(command.Command):
    """Delete providers that no claim uses."""

    log = logging.getLogger(__name__ + '.DeleteProvider')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('providers', metavar='<provider>', nargs='+',
                            help='Provider names.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'provider', parsed_args.providers,
                          self.app.client_manager.pool.provider_delete)
