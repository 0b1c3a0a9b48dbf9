"""``openstack pool create|list|show|set|unset|status|delete``, ``pool
machines ...`` and ``pool node return``."""
import argparse
import copy
import logging

from osc_lib.command import command
from osc_lib import exceptions

from pool_client import utils
from pool_client.v1 import fleet

LIST_FIELDS = ('name', 'description', 'parent_pool')
RESULT_FIELDS = ('name', 'uuid', 'status', 'allocated')
# The transitions of a pool; the actions of each are its field
# <transition>_actions.
TRANSITIONS = ('enter', 'allocate', 'release', 'exit')
ACTION_SETS = tuple(t + '_actions' for t in TRANSITIONS)
ACTION_KEYS = ('workflow', 'add_profiles', 'remove_profiles',
               'add_parameters', 'remove_parameters')
# Action set keys that are lists of names.
NAME_LISTS = ('add_profiles', 'remove_profiles', 'remove_parameters')
WHEN = {'enter': 'when they join the pool',
        'allocate': 'when they are allocated',
        'release': 'when they are returned',
        'exit': 'when they leave the pool'}


def _action_group(parser, transition: str):
    return parser.add_argument_group(
        '%s actions' % transition,
        'What happens to nodes %s.' % WHEN[transition])


def add_action_arguments(parser) -> None:
    """The options of create and set for the four transition action sets:
    --<transition>-actions <JSON>, then options that change it."""
    for transition in TRANSITIONS:
        when = WHEN[transition]
        group = _action_group(parser, transition)
        option = '--%s-' % transition
        dest = transition + '_'
        group.add_argument(
            option + 'actions', dest=dest + 'actions', metavar='<JSON>',
            type=utils.json_object,
            help='Replace all the actions with a JSON object of workflow, '
                 'add_profiles, remove_profiles, add_parameters and '
                 'remove_parameters; the options below change it.')
        group.add_argument(
            option + 'workflow', dest=dest + 'workflow',
            metavar='<workflow>',
            help='Workflow to start on nodes %s.' % when)
        group.add_argument(
            option + 'add-profile', dest=dest + 'add_profiles',
            metavar='<profile>', action='append',
            help='Profile to add to nodes %s (repeat option for several).'
                 % when)
        group.add_argument(
            option + 'remove-profile', dest=dest + 'remove_profiles',
            metavar='<profile>', action='append',
            help='Profile to remove from nodes %s (repeat option for '
                 'several).' % when)
        group.add_argument(
            option + 'add-parameter', dest=dest + 'add_parameters',
            metavar='<name=value>', action='append',
            help='Param to set on nodes %s; the value is JSON when it '
                 'parses (repeat option for several).' % when)
        group.add_argument(
            option + 'remove-parameter', dest=dest + 'remove_parameters',
            metavar='<name>', action='append',
            help='Param to remove from nodes %s (repeat option for '
                 'several).' % when)


def action_changes(parsed_args, transition: str) -> dict:
    """The keys of an action set that the options of create or set
    change, with what they add."""
    changes = {}
    for key in ACTION_KEYS:
        value = getattr(parsed_args, '%s_%s' % (transition, key))
        if value is None:
            continue
        if key == 'add_parameters':
            value = utils.key_value_pairs_to_dict(value)
        changes[key] = value
    return changes


def merge_actions(actions: dict, changes: dict) -> dict:
    """An action set with changes: a workflow replaces the one there,
    profiles and params are added to those there."""
    result = copy.deepcopy(actions)
    if 'workflow' in changes:
        result['workflow'] = changes['workflow']
    for key in NAME_LISTS:
        if key in changes:
            result[key] = list(dict.fromkeys([*(result.get(key) or ()),
                                              *changes[key]]))
    if 'add_parameters' in changes:
        result['add_parameters'] = {**(result.get('add_parameters') or {}),
                                    **changes['add_parameters']}
    return result


LIFESPAN_KEYS = ('default', 'maximum', 'relative_maximum', 'unclaimed')


def add_lifespan_arguments(parser) -> None:
    group = parser.add_argument_group(
        'lifespan', 'How long the allocations of the pool live: durations '
                    'such as 30m, 4h, 7d or 1d12h.')
    group.add_argument('--lifespan-default', dest='lifespan_default',
                       metavar='<duration>',
                       help='How long an allocation lives unless it asks.')
    group.add_argument('--lifespan-maximum', dest='lifespan_maximum',
                       metavar='<duration>',
                       help='The latest end, from the allocation\'s '
                            'creation.')
    group.add_argument('--lifespan-relative-maximum',
                       dest='lifespan_relative_maximum', metavar='<duration>',
                       help='The furthest an end may be set from now.')
    group.add_argument('--lifespan-unclaimed', dest='lifespan_unclaimed',
                       metavar='<duration>',
                       help='How long a Free machine the broker made stays '
                            'before the broker destroys it.')


def lifespan_of(parsed_args) -> dict:
    """The lifespan keys the options give."""
    return {key: getattr(parsed_args, 'lifespan_' + key)
            for key in LIFESPAN_KEYS
            if getattr(parsed_args, 'lifespan_' + key) is not None}


# The autofill keys of create and set; create_parameters is a map.
AUTOFILL_KEYS = ('use_autofill', 'min_free', 'max_free', 'acquire_pool',
                 'return_pool', 'create_parameters', 'max_unready',
                 'delete_unhealthy', 'horizon')
# Keys unset puts back to their default (null: none).
AUTOFILL_UNSET_KEYS = ('max_free', 'acquire_pool', 'return_pool',
                       'max_unready', 'horizon')


def count(text: str) -> int:
    """An argparse type: a non-negative integer.

    :raises: ArgumentTypeError for anything else
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            'expected a non-negative integer, not %r' % text)
    return value


def _autofill_group(parser):
    return parser.add_argument_group(
        'autofill', 'How the pool keeps itself filled: machines its broker '
                    'creates or the acquire pool gives.')


def add_autofill_arguments(parser) -> None:
    """The options of create and set for broker and autofill."""
    group = _autofill_group(parser)
    group.add_argument('--broker', metavar='<broker>',
                       help='Broker that creates and destroys the machines '
                            'of the pool.')
    toggle = group.add_mutually_exclusive_group()
    toggle.add_argument('--autofill', dest='use_autofill',
                        action='store_const', const=True,
                        help='Have conductors keep the pool filled.')
    toggle.add_argument('--no-autofill', dest='use_autofill',
                        action='store_const', const=False,
                        help='Stop keeping the pool filled.')
    group.add_argument('--min-free', dest='min_free', metavar='<N>',
                       type=count,
                       help='The fewest members Free or on their way.')
    group.add_argument('--max-free', dest='max_free', metavar='<N>',
                       type=count,
                       help='The most Free members; the excess goes to '
                            'the return pool or is destroyed.')
    group.add_argument('--acquire-pool', dest='acquire_pool',
                       metavar='<pool>',
                       help='Pool Free machines are taken from first.')
    group.add_argument('--return-pool', dest='return_pool',
                       metavar='<pool>',
                       help='Pool the excess goes to.')
    group.add_argument('--create-parameter', dest='create_parameters',
                       metavar='<key=value>', action='append',
                       help='Parameter of the broker\'s create, over the '
                            'broker\'s own; the value is JSON when it '
                            'parses (repeat option for several).')
    group.add_argument('--max-unready', dest='max_unready', metavar='<N>',
                       type=count,
                       help='The most machines being created at once.')
    group.add_argument('--autofill-horizon', dest='horizon',
                       metavar='<seconds>', type=count,
                       help='Free members a window holds from within this '
                            'many seconds on are not counted as Free, so '
                            'that machines are made ahead of its start '
                            '(default: [windows] autofill_horizon; '
                            '0: none).')
    health = group.add_mutually_exclusive_group()
    health.add_argument('--delete-unhealthy', dest='delete_unhealthy',
                        action='store_const', const=True,
                        help='Give up a failed creation and ask for a new '
                             'machine instead.')
    health.add_argument('--keep-unhealthy', dest='delete_unhealthy',
                        action='store_const', const=False,
                        help='Ask for a failed creation again (the '
                             'default).')


def autofill_of(parsed_args) -> dict:
    """The autofill keys the options give."""
    autofill = {key: getattr(parsed_args, key) for key in AUTOFILL_KEYS
                if getattr(parsed_args, key) is not None}
    if 'create_parameters' in autofill:
        autofill['create_parameters'] = utils.key_value_pairs_to_dict(
            autofill['create_parameters'])
    return autofill


def autofill_patch(parsed_args) -> list:
    """The operations of set for the autofill keys the options give, one
    per key (one per parameter of create_parameters)."""
    patch = []
    for key, value in autofill_of(parsed_args).items():
        if key == 'create_parameters':
            patch.extend({'op': 'add', 'path': utils.json_pointer(
                'autofill', 'create_parameters', name), 'value': v}
                for name, v in value.items())
        else:
            patch.append({'op': 'add', 'path': '/autofill/' + key,
                          'value': value})
    return patch


def actions_patch(kind: str, before: dict, after: dict) -> list:
    """The operations that turn the action set kind from before into
    after, one per key: a concurrent change of another key stays."""
    patch = []
    for key in ACTION_KEYS:
        if key in before and key not in after:
            patch.append({'op': 'remove', 'path': '/%s/%s' % (kind, key)})
        elif key in after and after[key] != before.get(key):
            patch.append({'op': 'add', 'path': '/%s/%s' % (kind, key),
                          'value': after[key]})
    return patch


def add_meta_argument(parser) -> None:
    parser.add_argument('--meta', dest='meta', metavar='<key=value>',
                        action='append',
                        help='Metadata of the pool, a string (color, icon '
                             'and title are the well-known keys; repeat '
                             'option for several).')


def meta_of(parsed_args) -> dict:
    """The metadata the --meta options give: strings as typed."""
    meta = {}
    for pair in parsed_args.meta or ():
        key, sep, value = pair.partition('=')
        if not sep or not key:
            raise exceptions.CommandError(
                '--meta takes key=value, not %r' % pair)
        meta[key] = value
    return meta


class CreatePool(command.ShowOne):
    """Create a pool."""

    log = logging.getLogger(__name__ + '.CreatePool')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', help='Pool name.')
        parser.add_argument('--description', metavar='<description>',
                            help='Short description.')
        parser.add_argument('--documentation', metavar='<documentation>',
                            help='Longer text.')
        add_meta_argument(parser)
        parser.add_argument('--parent-pool', dest='parent_pool',
                            metavar='<pool>',
                            help='Pool its nodes come from and go back to '
                                 '(default: the default pool).')
        add_lifespan_arguments(parser)
        add_autofill_arguments(parser)
        add_action_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {k: getattr(parsed_args, k)
                  for k in ('name', 'description', 'documentation',
                            'parent_pool', 'broker')
                  if getattr(parsed_args, k) is not None}
        if meta_of(parsed_args):
            fields['meta'] = meta_of(parsed_args)
        if lifespan_of(parsed_args):
            fields['lifespan'] = lifespan_of(parsed_args)
        if autofill_of(parsed_args):
            fields['autofill'] = autofill_of(parsed_args)
        for transition in TRANSITIONS:
            kind = transition + '_actions'
            actions = getattr(parsed_args, kind)
            changes = action_changes(parsed_args, transition)
            if actions is not None or changes:
                fields[kind] = merge_actions(actions or {}, changes)
        return utils.show(self.app.client_manager.pool.pool_create(**fields))


class ListPool(command.Lister):
    """List pools."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show how many members each pool has in each status, and '
                 'its AutoFill target.')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.pool
        if parsed_args.long:
            return fleet.long_rows(client.pool_list(), client.fleet_get(),
                                   LIST_FIELDS)
        return utils.rows(client.pool_list(), LIST_FIELDS)


class ShowPool(command.ShowOne):
    """Show a pool."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('pool', metavar='<pool>', help='Pool name.')
        return parser

    def take_action(self, parsed_args):
        return utils.show(self.app.client_manager.pool.pool_get(
            parsed_args.pool))


class DeletePool(command.Command):
    """Delete pools without members."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('pools', metavar='<pool>', nargs='+',
                            help='Pool names.')
        return parser

    def take_action(self, parsed_args):
        utils.delete_each(self.app, 'pool', parsed_args.pools,
                          self.app.client_manager.pool.pool_delete)


class SetPool(command.Command):
    """Set properties of a pool.

    Options that change a part of a transition's actions read the pool
    first and send the new value of each part they change.
    """

    log = logging.getLogger(__name__ + '.SetPool')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('pool', metavar='<pool>', help='Pool name.')
        parser.add_argument('--description', metavar='<description>',
                            help='Set the short description of the pool.')
        parser.add_argument('--documentation', metavar='<documentation>',
                            help='Set the longer text of the pool.')
        add_meta_argument(parser)
        parser.add_argument('--parent-pool', dest='parent_pool',
                            metavar='<pool>',
                            help='Set the pool its nodes come from and go '
                                 'back to.')
        add_lifespan_arguments(parser)
        add_autofill_arguments(parser)
        add_action_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.set_patch(parsed_args, ('description', 'documentation',
                                              'parent_pool', 'broker'))
        patch.extend({'op': 'add', 'path': utils.json_pointer('meta', key),
                      'value': value}
                     for key, value in meta_of(parsed_args).items())
        patch.extend({'op': 'add', 'path': '/lifespan/' + key, 'value': value}
                     for key, value in lifespan_of(parsed_args).items())
        patch.extend(autofill_patch(parsed_args))
        pool = None
        for transition in TRANSITIONS:
            kind = transition + '_actions'
            actions = getattr(parsed_args, kind)
            changes = action_changes(parsed_args, transition)
            if actions is not None:
                patch.append({'op': 'add', 'path': '/' + kind,
                              'value': merge_actions(actions, changes)})
            elif changes:
                if pool is None:
                    pool = client.pool_get(parsed_args.pool)
                before = pool.get(kind) or {}
                patch.extend(actions_patch(
                    kind, before, merge_actions(before, changes)))
        # Nothing to send when the pool already has what the options set.
        if patch or pool is None:
            utils.send_patch(self.log, client.pool_update, parsed_args.pool,
                             patch)


class UnsetPool(command.Command):
    """Unset properties of a pool.

    Options that take profiles or params off a transition's actions, or
    parameters off autofill's create parameters, read the pool first;
    names that are not there are ignored.
    """

    log = logging.getLogger(__name__ + '.UnsetPool')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('pool', metavar='<pool>', help='Pool name.')
        for option, what in (('--description', 'short description'),
                             ('--documentation', 'longer text')):
            parser.add_argument(option, action='store_true', default=False,
                                help='Unset the %s of the pool.' % what)
        parser.add_argument(
            '--parent-pool', dest='parent_pool', action='store_true',
            default=False,
            help='Unset the parent pool: nodes come from the default pool.')
        parser.add_argument(
            '--meta', dest='meta', metavar='<key>', action='append',
            help='Metadata key to take off the pool (repeat option for '
                 'several).')
        for key in LIFESPAN_KEYS:
            parser.add_argument(
                '--lifespan-' + key.replace('_', '-'),
                dest='lifespan_' + key, action='store_true', default=False,
                help='Unset the %s of the lifespan of the pool\'s '
                     'allocations.' % key.replace('_', ' '))
        group = _autofill_group(parser)
        group.add_argument('--broker', action='store_true', default=False,
                           help='Unset the broker of the pool.')
        group.add_argument('--autofill', action='store_true', default=False,
                           help='Unset all of autofill: every key back to '
                                'its default, the pool no longer filled.')
        for key in AUTOFILL_UNSET_KEYS[:-1]:
            group.add_argument(
                '--' + key.replace('_', '-'), dest=key, action='store_true',
                default=False,
                help='Unset the %s of autofill (no %s).'
                     % (key.replace('_', ' '),
                        'limit' if key.startswith('max') else 'pool'))
        group.add_argument(
            '--autofill-horizon', dest='horizon', action='store_true',
            default=False,
            help='Unset the horizon of autofill (back to [windows] '
                 'autofill_horizon).')
        group.add_argument(
            '--create-parameter', dest='create_parameters', metavar='<key>',
            action='append',
            help='Parameter to take off the broker\'s create parameters '
                 '(repeat option for several).')
        for transition in TRANSITIONS:
            when = WHEN[transition]
            group = _action_group(parser, transition)
            option = '--%s-' % transition
            dest = transition + '_'
            group.add_argument(
                option + 'actions', dest=dest + 'actions',
                action='store_true', default=False,
                help='Unset all the actions on nodes %s.' % when)
            group.add_argument(
                option + 'workflow', dest=dest + 'workflow',
                action='store_true', default=False,
                help='Unset the workflow started on nodes %s.' % when)
            for part, metavar, what in (
                    ('add-profile', '<profile>',
                     'Profile to take off the profiles added to'),
                    ('remove-profile', '<profile>',
                     'Profile to take off the profiles removed from'),
                    ('add-parameter', '<name>',
                     'Param to take off the params set on'),
                    ('remove-parameter', '<name>',
                     'Param to take off the params removed from')):
                group.add_argument(
                    option + part,
                    dest=dest + part.replace('-', '_') + 's',
                    metavar=metavar, action='append',
                    help='%s nodes %s (repeat option for several).'
                         % (what, when))
        return parser

    @staticmethod
    def unset_actions(actions: dict, parsed_args, transition: str) -> dict:
        """The action set without what the options take off; lists and
        maps left empty go."""
        result = copy.deepcopy(actions)
        if getattr(parsed_args, transition + '_workflow'):
            result.pop('workflow', None)
        for key in (*NAME_LISTS, 'add_parameters'):
            names = getattr(parsed_args, '%s_%s' % (transition, key))
            if not names or key not in result:
                continue
            if key == 'add_parameters':
                result[key] = {k: v for k, v in result[key].items()
                               if k not in names}
            else:
                result[key] = [v for v in result[key] if v not in names]
            if not result[key]:
                del result[key]
        return result

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.unset_patch(parsed_args, ('description',
                                                'documentation',
                                                'parent_pool', 'broker',
                                                'autofill'))
        if not parsed_args.autofill:
            patch.extend({'op': 'remove', 'path': '/autofill/' + key}
                         for key in AUTOFILL_UNSET_KEYS
                         if getattr(parsed_args, key))
        pool = None
        lifespan = [key for key in LIFESPAN_KEYS
                    if getattr(parsed_args, 'lifespan_' + key)]
        if lifespan:
            pool = client.pool_get(parsed_args.pool)
            patch.extend({'op': 'remove', 'path': '/lifespan/' + key}
                         for key in lifespan
                         if key in (pool.get('lifespan') or {}))
        if parsed_args.meta:
            pool = client.pool_get(parsed_args.pool)
            patch.extend({'op': 'remove',
                          'path': utils.json_pointer('meta', key)}
                         for key in dict.fromkeys(parsed_args.meta)
                         if key in (pool.get('meta') or {}))
        if parsed_args.create_parameters and not parsed_args.autofill:
            if pool is None:
                pool = client.pool_get(parsed_args.pool)
            there = (pool.get('autofill') or {}).get('create_parameters')
            patch.extend(
                {'op': 'remove', 'path': utils.json_pointer(
                    'autofill', 'create_parameters', name)}
                for name in dict.fromkeys(parsed_args.create_parameters)
                if name in (there or {}))
        for transition in TRANSITIONS:
            kind = transition + '_actions'
            if getattr(parsed_args, kind):
                patch.append({'op': 'remove', 'path': '/' + kind})
                continue
            if not any(getattr(parsed_args, '%s_%s' % (transition, key))
                       for key in ACTION_KEYS):
                continue
            if pool is None:
                pool = client.pool_get(parsed_args.pool)
            before = pool.get(kind) or {}
            patch.extend(actions_patch(kind, before, self.unset_actions(
                before, parsed_args, transition)))
        # Nothing to send when the pool has none of what the options take
        # off.
        if patch or pool is None:
            utils.send_patch(self.log, client.pool_update, parsed_args.pool,
                             patch, 'unset')


class ShowPoolStatus(command.ShowOne):
    """Show how many members of a pool are in each status."""

    log = logging.getLogger(__name__ + '.ShowPoolStatus')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('pool', metavar='<pool>', help='Pool name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        status = self.app.client_manager.pool.pool_status(parsed_args.pool)
        # Statuses in the server's order: the order of the lifecycle.
        statuses = status.get('statuses') or {}
        # How many of those being created failed (the server's "creating"
        # is the Creating status, shown already).
        autofill = tuple(k for k in ('unhealthy',) if k in status)
        columns = ('name', 'total', *statuses, *autofill)
        return columns, (status.get('name'), status.get('total'),
                         *statuses.values(), *(status[k] for k in autofill))


class _MachinesAction(command.Lister):
    """A pool action; its nodes and their statuses are listed."""

    action = ''
    # Whether the command takes --machine and --all, and must have one.
    selects_machines = True
    machines_required = True

    def add_target(self, parser) -> None:
        parser.add_argument('pool', metavar='<pool>', help='Pool name.')

    def send(self, client, parsed_args, body: dict) -> list:
        return client.pool_action(parsed_args.pool, self.action, **body)

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_target(parser)
        if self.selects_machines:
            group = parser.add_mutually_exclusive_group(
                required=self.machines_required)
            group.add_argument('--machine', dest='machine_list',
                               action='append',
                               help='Node UUID, name, Name:<name> or '
                                    '<param>:<value> (repeatable).')
            group.add_argument('--all', dest='all_machines',
                               action='store_true', default=None,
                               help='Every node the action applies to.')
        return parser

    def body(self, parsed_args) -> dict:
        return {k: getattr(parsed_args, k)
                for k in ('machine_list', 'all_machines')
                if getattr(parsed_args, k, None) is not None}

    def take_action(self, parsed_args):
        results = self.send(self.app.client_manager.pool, parsed_args,
                            self.body(parsed_args))
        return utils.rows(results, RESULT_FIELDS)


class AddMachines(_MachinesAction):
    """Move Free nodes of the parent pool into a pool."""

    action = 'addMachines'


class RemoveMachines(_MachinesAction):
    """Move Free nodes of a pool back to its parent pool."""

    action = 'removeMachines'


class _Transition(_MachinesAction):
    """Allocate or return: workflow, profile and param changes, waits."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--workflow', dest='new_workflow',
                            help='Workflow the nodes start.')
        parser.add_argument('--add-profile', dest='add_profiles',
                            action='append', help='Profile to add.')
        parser.add_argument('--remove-profile', dest='remove_profiles',
                            action='append', help='Profile to remove.')
        parser.add_argument('--add-parameter', dest='add_parameters',
                            action='append', metavar='<name=JSON value>',
                            help='Param to set (repeatable).')
        parser.add_argument('--remove-parameter', dest='remove_parameters',
                            action='append', help='Param to remove.')
        parser.add_argument('--wait-for-stage', dest='wait_for_stage',
                            help='Stage the nodes must reach (their pool '
                                 'status is Building or Destroying until '
                                 'then).')
        wait = parser.add_mutually_exclusive_group()
        wait.add_argument('--wait', dest='wait_timeout', type=int,
                          nargs='?', const=0, metavar='<timeout>',
                          help='With --wait-for-stage, poll the nodes until '
                               'they reach the stage and show their status '
                               'then; an error if they have not after '
                               '<timeout> seconds (0, the default, waits '
                               'forever).')
        wait.add_argument('--blocking', dest='blocking_timeout', type=int,
                          nargs='?', const=0, metavar='<timeout>',
                          help='With --wait-for-stage, have the server '
                               'answer once the nodes reach the stage, '
                               'for at most <timeout> seconds (0, the '
                               'default, leaves it to the server: [pool] '
                               'default_wait_timeout, never more than '
                               '[pool] max_blocking_wait); nodes still on '
                               'their way then show "timeout".')
        parser.add_argument('--timeout', dest='stage_timeout', type=int,
                            metavar='<seconds>',
                            help='With --wait-for-stage, the seconds the '
                                 'nodes have to reach the stage '
                                 '(wait_timeout), whether the command waits '
                                 'or not: past it the server records them '
                                 'as timed out (pool/status "timeout"). '
                                 'Default: the <timeout> of --blocking, '
                                 'else the server\'s [pool] '
                                 'default_wait_timeout.')
        return parser

    def check_waits(self, parsed_args) -> None:
        """:raises: CommandError for a wait without a stage or a negative
        time-out"""
        for option, value in (('--wait', parsed_args.wait_timeout),
                              ('--blocking', parsed_args.blocking_timeout),
                              ('--timeout', parsed_args.stage_timeout)):
            if value is None:
                continue
            if not parsed_args.wait_for_stage:
                raise exceptions.CommandError(
                    '%s needs --wait-for-stage: without a stage there is '
                    'nothing to wait for' % option)
            if value < 0:
                raise exceptions.CommandError(
                    'Expected a non-negative %s time-out, got %s'
                    % (option, value))

    def take_action(self, parsed_args):
        self.check_waits(parsed_args)
        client = self.app.client_manager.pool
        results = self.send(client, parsed_args, self.body(parsed_args))
        if parsed_args.wait_timeout is not None:
            results = client.nodes_wait(
                results, timeout=parsed_args.wait_timeout,
                progress=utils.Progress('Nodes'))
        return utils.rows(results, RESULT_FIELDS)

    def body(self, parsed_args) -> dict:
        body = super().body(parsed_args)
        for key in ('new_workflow', 'add_profiles', 'remove_profiles',
                    'remove_parameters', 'wait_for_stage'):
            if getattr(parsed_args, key) is not None:
                body[key] = getattr(parsed_args, key)
        if parsed_args.add_parameters:
            body['add_parameters'] = utils.key_value_pairs_to_dict(
                parsed_args.add_parameters)
        if parsed_args.blocking_timeout is not None:
            body['blocking'] = True
            if parsed_args.blocking_timeout:
                body['wait_timeout'] = parsed_args.blocking_timeout
        if parsed_args.stage_timeout is not None:
            body['wait_timeout'] = parsed_args.stage_timeout
        return body


class AllocateMachines(_Transition):
    """Allocate nodes of a pool, all in one transaction."""

    action = 'allocateMachines'
    machines_required = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--count', type=int, default=None,
                            help='Number of Free nodes to take (default 1); '
                                 '--machine names them instead, --all takes '
                                 'every Free node that matches.')
        parser.add_argument('--partial-success', dest='partial_success',
                            action='store_true', default=None,
                            help='Allocate fewer nodes rather than none.')
        parser.add_argument('--filter', dest='filter', action='append',
                            metavar='<key=Function(args)>',
                            help='Filter such as inventory/data/CPUS=Gte(4) '
                                 '(repeatable, ANDed).')
        parser.add_argument('--lifespan-end', dest='lifespan_end',
                            metavar='<time>',
                            help='When the allocations end by themselves '
                                 '(ISO 8601), within the pool\'s lifespan '
                                 '(default: the pool\'s).')
        return parser

    def body(self, parsed_args) -> dict:
        body = super().body(parsed_args)
        if parsed_args.count is not None:
            body['count'] = parsed_args.count
        if parsed_args.partial_success:
            body['partial_success'] = True
        if parsed_args.lifespan_end:
            body['lifespan_end'] = parsed_args.lifespan_end
        if parsed_args.filter:
            body['filter'] = dict(f.split('=', 1) if '=' in f else (f, '')
                                  for f in parsed_args.filter)
        return body


class ReturnMachines(_Transition):
    """Return allocated nodes to their pool."""

    action = 'returnMachines'

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--force', action='store_true', default=None,
                            help='Return nodes still building or held, '
                                 'straight to Free.')
        return parser

    def body(self, parsed_args) -> dict:
        body = super().body(parsed_args)
        if parsed_args.force:
            body['force'] = True
        return body


class ReturnNode(ReturnMachines):
    """Return an allocated node to its pool (returnToPool)."""

    selects_machines = False

    def add_target(self, parser) -> None:
        parser.add_argument('node', metavar='<node>',
                            help='Name or UUID of the node.')

    def send(self, client, parsed_args, body: dict) -> list:
        return client.node_return(parsed_args.node, **body)

    def take_action(self, parsed_args):
        # The API answers "Success" (an error is raised), as Digital
        # Rebar's returnToPool; with --wait, the node is shown once it is
        # through.
        self.check_waits(parsed_args)
        client = self.app.client_manager.pool
        result = self.send(client, parsed_args, self.body(parsed_args))
        if parsed_args.wait_timeout is None:
            return ('Result',), [(result,)]
        node = client.node_get(parsed_args.node, fields=[
            'uuid', 'name', 'pool_status', 'pool_allocated'])
        results = client.nodes_wait([{
            'uuid': node['uuid'], 'name': node.get('name'),
            'status': node.get('pool_status'),
            'allocated': node.get('pool_allocated')}],
            timeout=parsed_args.wait_timeout,
            progress=utils.Progress('Nodes'))
        return utils.rows(results, RESULT_FIELDS)
