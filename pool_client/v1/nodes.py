"""``openstack pool node ...`` commands."""
import logging

from osc_lib.command import command
from osc_lib import exceptions

from pool_client import utils

FIELDS = ('uuid', 'name', 'description', 'driver', 'resource_class',
          'traits', 'properties', 'extra', 'instance_info', 'driver_info',
          'instance_uuid', 'allocation_uuid', 'provision_state',
          'target_provision_state', 'provision_updated_at', 'power_state',
          'target_power_state', 'maintenance', 'maintenance_reason',
          'owner', 'lessee', 'reservation', 'last_error', 'created_at',
          'updated_at', 'pool', 'pool_status', 'pool_allocated', 'params',
          'profiles', 'workflow', 'stage', 'runnable', 'fault',
          'external_manager', 'external_ref', 'external_claim',
          'external_state')
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')
SORT_KEYS = ('uuid', 'name', 'created_at', 'updated_at', 'provision_state',
             'power_state', 'resource_class', 'maintenance', 'owner',
             'lessee', 'driver', 'instance_uuid', 'provision_updated_at',
             'pool', 'pool_status', 'workflow', 'stage')
# Query parameters of the node list that a --filter may not name.
RESERVED_PARAMS = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir',
                   'detail')


def filter_arguments(pool, pool_status, filters) -> dict:
    """{key: [value, ...]} of --pool, --pool-status and --filter
    KEY=EXPR options, for the API's filter query.

    :raises: CommandError for a filter without "=" or on a list parameter
    """
    match: dict = {}
    for key, value in (('pool', pool), ('pool_status', pool_status)):
        if value is not None:
            match.setdefault(key, []).append(value)
    for text in filters or ():
        key, sep, value = text.partition('=')
        if not sep or not key or not value:
            raise exceptions.CommandError(
                'Expected --filter KEY=EXPRESSION, such as '
                '"inventory/data/CPUS=Gte(4)", not "%s"' % text)
        if key in RESERVED_PARAMS:
            raise exceptions.CommandError(
                '--filter cannot set the list parameter %s' % key)
        match.setdefault(key, []).append(value)
    return match


class CreateNode(command.ShowOne):
    """Register a new node with the pool."""

    log = logging.getLogger(__name__ + '.CreateNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--driver', metavar='<driver>', required=True,
            help='Driver of the node (for example fake-hardware).')
        parser.add_argument(
            '--name', metavar='<name>', help='Unique name of the node.')
        parser.add_argument(
            '--uuid', metavar='<uuid>', help='UUID of the node.')
        parser.add_argument(
            '--resource-class', metavar='<resource_class>',
            help='Resource class of the node, which allocations request.')
        parser.add_argument(
            '--property', metavar='<key=value>', action='append',
            dest='properties',
            help='Property of the node. Can be specified multiple times.')
        parser.add_argument(
            '--extra', metavar='<key=value>', action='append',
            help='Arbitrary key/value metadata. Can be specified multiple '
                 'times.')
        parser.add_argument(
            '--owner', metavar='<owner>', help='Owner of the node.')
        parser.add_argument(
            '--lessee', metavar='<lessee>', help='Lessee of the node.')
        parser.add_argument(
            '--description', metavar='<description>',
            help='Description of the node.')
        parser.add_argument(
            '--external-manager', metavar='<manager>',
            help='Name the external manager that owns the node\'s hardware.')
        parser.add_argument(
            '--external-ref', metavar='<ref>',
            help='Give the id of the node\'s hardware in its external '
                 'manager.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        fields = {k: getattr(parsed_args, k)
                  for k in ('driver', 'name', 'uuid', 'resource_class',
                            'owner', 'lessee', 'description',
                            'external_manager', 'external_ref')
                  if getattr(parsed_args, k) is not None}
        for key in ('properties', 'extra'):
            if getattr(parsed_args, key):
                fields[key] = utils.key_value_pairs_to_dict(
                    getattr(parsed_args, key))
        node = client.node_create(**fields)
        return utils.show(node)


class ListNode(command.Lister):
    """List the nodes of the pool."""

    log = logging.getLogger(__name__ + '.ListNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        utils.add_list_arguments(parser, 'node')
        maintenance = parser.add_mutually_exclusive_group()
        maintenance.add_argument(
            '--maintenance', dest='maintenance', action='store_true',
            default=None, help='Only list nodes in maintenance mode.')
        maintenance.add_argument(
            '--no-maintenance', dest='maintenance', action='store_false',
            default=None, help='Only list nodes not in maintenance mode.')
        associated = parser.add_mutually_exclusive_group()
        associated.add_argument(
            '--associated', dest='associated', action='store_true',
            default=None, help='Only list nodes with an instance.')
        associated.add_argument(
            '--unassociated', dest='associated', action='store_false',
            default=None, help='Only list nodes without an instance.')
        parser.add_argument(
            '--provision-state', metavar='<provision state>',
            help='Only list nodes in this provision state.')
        parser.add_argument(
            '--resource-class', metavar='<resource class>',
            help='Only list nodes of this resource class.')
        parser.add_argument(
            '--driver', metavar='<driver>',
            help='Only list nodes with this driver.')
        parser.add_argument(
            '--owner', metavar='<owner>',
            help='Only list nodes with this owner.')
        parser.add_argument(
            '--lessee', metavar='<lessee>',
            help='Only list nodes with this lessee.')
        parser.add_argument(
            '--pool', metavar='<pool>',
            help='Only list the members of this pool.')
        parser.add_argument(
            '--pool-status', metavar='<status>',
            help='Only list nodes with this status in their pool (Free, '
                 'Joining, Building, InUse, ...).')
        parser.add_argument(
            '--filter', metavar='<key=Expression(args)>', action='append',
            dest='filters',
            help='Only list nodes whose field or param KEY matches, such '
                 'as "inventory/data/CPUS=Gte(4)" or "stage=In(install, '
                 'complete)" (the functions of the API\'s node filters; '
                 'repeat option for several, all must match).')
        utils.add_display_arguments(parser, 'node', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        columns, params = utils.list_query(parsed_args, FIELDS, LIST_FIELDS,
                                           SORT_KEYS, detail=True)
        params.update({k: getattr(parsed_args, k)
                       for k in ('provision_state', 'resource_class',
                                 'driver', 'owner', 'lessee', 'maintenance',
                                 'associated')
                       if getattr(parsed_args, k) is not None})
        match = filter_arguments(parsed_args.pool, parsed_args.pool_status,
                                 parsed_args.filters)
        if match:
            params['match'] = match
        return utils.list_rows(client.node_list, parsed_args, columns,
                               params)


class ShowNode(command.ShowOne):
    """Show the details of a node."""

    log = logging.getLogger(__name__ + '.ShowNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        utils.add_fields_argument(parser, 'node', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        fields = utils.flatten(parsed_args.fields) or None
        node = client.node_get(parsed_args.node, fields=fields)
        return utils.show(node)


class SetNode(command.Command):
    """Set properties of a node."""

    log = logging.getLogger(__name__ + '.SetNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        parser.add_argument(
            '--name', metavar='<name>', help='Set the name of the node.')
        parser.add_argument(
            '--resource-class', metavar='<resource_class>',
            help='Set the resource class of the node.')
        parser.add_argument(
            '--driver', metavar='<driver>',
            help='Set the driver of the node.')
        parser.add_argument(
            '--property', metavar='<key=value>', action='append',
            dest='properties',
            help='Property to set on the node (repeat option to set '
                 'multiple properties).')
        parser.add_argument(
            '--extra', metavar='<key=value>', action='append',
            help='Extra to set on the node (repeat option to set multiple '
                 'extras).')
        parser.add_argument(
            '--instance-uuid', metavar='<uuid>',
            help='Set the UUID of the instance on the node.')
        parser.add_argument(
            '--owner', metavar='<owner>', help='Set the owner of the node.')
        parser.add_argument(
            '--lessee', metavar='<lessee>',
            help='Set the lessee of the node.')
        parser.add_argument(
            '--description', metavar='<description>',
            help='Set the description of the node.')
        parser.add_argument(
            '--external-manager', metavar='<manager>',
            help='Set the external manager that owns the node\'s hardware.')
        parser.add_argument(
            '--external-ref', metavar='<ref>',
            help='Set the id of the node\'s hardware in its external '
                 'manager.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.set_patch(
            parsed_args, ('name', 'resource_class', 'driver',
                          'instance_uuid', 'owner', 'lessee', 'description',
                          'external_manager', 'external_ref'),
            {'properties': 'properties', 'extra': 'extra'})
        utils.send_patch(self.log, client.node_update, parsed_args.node,
                         patch)


class UnsetNode(command.Command):
    """Unset properties of a node."""

    log = logging.getLogger(__name__ + '.UnsetNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        for option, what in (('--name', 'name'),
                             ('--resource-class', 'resource class'),
                             ('--instance-uuid', 'instance UUID'),
                             ('--owner', 'owner'),
                             ('--lessee', 'lessee'),
                             ('--description', 'description'),
                             ('--external-manager', 'external manager'),
                             ('--external-ref', 'external reference')):
            parser.add_argument(
                option, action='store_true', default=False,
                help='Unset the %s of the node.' % what)
        parser.add_argument(
            '--property', metavar='<key>', action='append',
            dest='properties',
            help='Property to unset on the node (repeat option to unset '
                 'multiple properties).')
        parser.add_argument(
            '--extra', metavar='<key>', action='append',
            help='Extra to unset on the node (repeat option to unset '
                 'multiple extras).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.unset_patch(
            parsed_args, ('name', 'resource_class', 'instance_uuid',
                          'owner', 'lessee', 'description',
                          'external_manager', 'external_ref'),
            {'properties': 'properties', 'extra': 'extra'})
        utils.send_patch(self.log, client.node_update, parsed_args.node,
                         patch, 'unset')


class DeleteNode(command.Command):
    """Unregister node(s) from the pool."""

    log = logging.getLogger(__name__ + '.DeleteNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'nodes', metavar='<node>', nargs='+',
            help='Node(s) to delete (name or UUID).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'node', parsed_args.nodes,
                          self.app.client_manager.pool.node_delete)


class _ProvisionStateCommand(command.Command):
    VERB = ''

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        client.node_set_provision_state(parsed_args.node, self.VERB)


class ManageNode(_ProvisionStateCommand):
    """Set the provision state of a node to 'manageable'."""

    log = logging.getLogger(__name__ + '.ManageNode')
    VERB = 'manage'


class ProvideNode(_ProvisionStateCommand):
    """Set the provision state of a node to 'available'."""

    log = logging.getLogger(__name__ + '.ProvideNode')
    VERB = 'provide'


class MaintenanceSetNode(command.Command):
    """Put a node into maintenance mode."""

    log = logging.getLogger(__name__ + '.MaintenanceSetNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        parser.add_argument(
            '--reason', metavar='<reason>',
            help='Reason for setting maintenance mode.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        client.node_set_maintenance(parsed_args.node,
                                    reason=parsed_args.reason)


class MaintenanceUnsetNode(command.Command):
    """Take a node out of maintenance mode."""

    log = logging.getLogger(__name__ + '.MaintenanceUnsetNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        client.node_unset_maintenance(parsed_args.node)


class ListTraitsNode(command.Lister):
    """List the traits of a node."""

    log = logging.getLogger(__name__ + '.ListTraitsNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        traits = client.node_traits(parsed_args.node)
        return ('Traits',), [(trait,) for trait in traits]


class AddTraitNode(command.Command):
    """Add traits to a node."""

    log = logging.getLogger(__name__ + '.AddTraitNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        parser.add_argument(
            'traits', metavar='<trait>', nargs='+',
            help='Trait(s) to add.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        for trait in parsed_args.traits:
            client.node_add_trait(parsed_args.node, trait)


class RemoveTraitNode(command.Command):
    """Remove traits from a node."""

    log = logging.getLogger(__name__ + '.RemoveTraitNode')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'node', metavar='<node>', help='Name or UUID of the node.')
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument(
            'traits', metavar='<trait>', nargs='*', default=[],
            help='Trait(s) to remove.')
        group.add_argument(
            '--all', dest='remove_all', action='store_true',
            help='Remove all traits.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        if parsed_args.remove_all:
            client.node_remove_trait(parsed_args.node)
            return
        failures = []
        for trait in parsed_args.traits:
            try:
                client.node_remove_trait(parsed_args.node, trait)
            except exceptions.CommandError as exc:
                failures.append('Failed to remove trait %s: %s'
                                % (trait, exc))
        if failures:
            raise exceptions.CommandError('\n'.join(failures))
