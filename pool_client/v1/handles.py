"""``openstack pool handle list|show``: what claims hold, read-only."""
import logging

from osc_lib.command import command

from pool_client import utils

FIELDS = ('uuid', 'claim_uuid', 'claim_name', 'resource_index', 'provider',
          'state', 'allocation_uuid', 'node_uuid', 'node_name',
          'pool_status', 'provision_state', 'last_error', 'created_at',
          'updated_at')
LIST_FIELDS = ('uuid', 'claim_name', 'resource_index', 'provider', 'state',
               'node_name')
STATES = ('building', 'ready', 'lost')


class ListHandle(command.Lister):
    """List the handles of claims: the machine each resource holds."""

    log = logging.getLogger(__name__ + '.ListHandle')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        utils.add_list_arguments(
            parser, 'handle',
            marker_help='Handle UUID (of the last handle of a previous '
                        'list): list the handles after it.')
        parser.add_argument('--claim', metavar='<claim>',
                            help='Only the handles of this claim (name or '
                                 'UUID).')
        parser.add_argument('--provider', metavar='<provider>',
                            help='Only the handles of resources of this '
                                 'provider.')
        parser.add_argument('--node', metavar='<node>',
                            help='Only the handles of this node (name or '
                                 'UUID).')
        parser.add_argument('--owner', metavar='<owner>',
                            help='Only the handles of claims of this '
                                 'project.')
        parser.add_argument('--state', metavar='<state>', choices=STATES,
                            help='Only handles in this state (%s).'
                                 % ', '.join(STATES))
        utils.add_display_arguments(parser, 'handle', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        columns, params = utils.list_query(parsed_args, FIELDS, LIST_FIELDS,
                                           ())
        params.update({k: getattr(parsed_args, k)
                       for k in ('claim', 'provider', 'node', 'owner',
                                 'state')
                       if getattr(parsed_args, k) is not None})
        return utils.list_rows(self.app.client_manager.pool.handle_list,
                               parsed_args, columns, params)


class ShowHandle(command.ShowOne):
    """Show a handle: a claim's resource, its allocation and machine."""

    log = logging.getLogger(__name__ + '.ShowHandle')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('handle', metavar='<handle>',
                            help='UUID of the handle (its allocation\'s).')
        utils.add_fields_argument(parser, 'handle', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = utils.flatten(parsed_args.fields) or None
        return utils.show(self.app.client_manager.pool.handle_get(
            parsed_args.handle, fields=fields))
