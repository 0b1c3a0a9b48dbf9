"""``openstack pool create|list|show|delete`` and ``pool machines ...``."""
import logging

from osc_lib.command import command

from pool_client import utils

LIST_FIELDS = ('name', 'description', 'parent_pool')
RESULT_FIELDS = ('name', 'uuid', 'status', 'allocated')
ACTION_SETS = ('enter_actions', 'allocate_actions', 'release_actions',
               'exit_actions')


class CreatePool(command.ShowOne):
    """Create a pool."""

    log = logging.getLogger(__name__ + '.CreatePool')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', help='Pool name.')
        parser.add_argument('--description', help='Short description.')
        parser.add_argument('--documentation', help='Longer text.')
        parser.add_argument('--parent-pool', dest='parent_pool',
                            help='Pool its nodes come from and go back to '
                                 '(default: the default pool).')
        for kind in ACTION_SETS:
            parser.add_argument(
                '--' + kind.replace('_', '-'), dest=kind,
                metavar='<JSON>', type=utils.json_object,
                help='%s: a JSON object of workflow, add_profiles, '
                     'remove_profiles, add_parameters, remove_parameters.'
                     % kind.replace('_', ' ').capitalize())
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {k: getattr(parsed_args, k)
                  for k in ('name', 'description', 'documentation',
                            'parent_pool', *ACTION_SETS)
                  if getattr(parsed_args, k) is not None}
        return utils.show(self.app.client_manager.pool.pool_create(**fields))


class ListPool(command.Lister):
    """List pools."""

    def take_action(self, parsed_args):
        return utils.rows(self.app.client_manager.pool.pool_list(),
                          LIST_FIELDS)


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


class _MachinesAction(command.Lister):
    """A pool action; its nodes and their statuses are listed."""

    action = ''
    selects_machines = True

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('pool', metavar='<pool>', help='Pool name.')
        if self.selects_machines:
            group = parser.add_mutually_exclusive_group(required=True)
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
        results = self.app.client_manager.pool.pool_action(
            parsed_args.pool, self.action, **self.body(parsed_args))
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
                            help='Stage the nodes must reach.')
        parser.add_argument('--wait', dest='wait_timeout', type=int,
                            nargs='?', const=0, metavar='<timeout>',
                            help='Block until the nodes reach the stage, '
                                 'for at most <timeout> seconds (the '
                                 "server's default when not given).")
        return parser

    def body(self, parsed_args) -> dict:
        body = super().body(parsed_args)
        for key in ('new_workflow', 'add_profiles', 'remove_profiles',
                    'remove_parameters', 'wait_for_stage'):
            if getattr(parsed_args, key) is not None:
                body[key] = getattr(parsed_args, key)
        if parsed_args.add_parameters:
            body['add_parameters'] = utils.key_value_pairs_to_dict(
                parsed_args.add_parameters)
        if parsed_args.wait_timeout is not None:
            body['blocking'] = True
            if parsed_args.wait_timeout:
                body['wait_timeout'] = parsed_args.wait_timeout
        return body


class AllocateMachines(_Transition):
    """Allocate nodes of a pool, all in one transaction."""

    action = 'allocateMachines'
    selects_machines = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--count', type=int, default=1,
                            help='Number of nodes (default 1).')
        parser.add_argument('--partial-success', dest='partial_success',
                            action='store_true', default=None,
                            help='Allocate fewer nodes rather than none.')
        parser.add_argument('--filter', dest='filter', action='append',
                            metavar='<key=Function(args)>',
                            help='Filter such as inventory/data/CPUS=Gte(4) '
                                 '(repeatable, ANDed).')
        return parser

    def body(self, parsed_args) -> dict:
        body = super().body(parsed_args)
        body['count'] = parsed_args.count
        if parsed_args.partial_success:
            body['partial_success'] = True
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
