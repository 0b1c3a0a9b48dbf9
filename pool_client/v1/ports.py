"""``openstack pool port ...`` commands."""
import logging

from osc_lib.command import command
from osc_lib import exceptions
from oslo_utils import strutils
from oslo_utils import uuidutils

from pool_client import utils

FIELDS = ('uuid', 'address', 'node_uuid', 'pxe_enabled',
          'local_link_connection', 'physical_network', 'extra',
          'internal_info', 'is_smartnic', 'created_at', 'updated_at')
LIST_FIELDS = ('uuid', 'address')
SORT_KEYS = ('uuid', 'address', 'created_at', 'updated_at', 'pxe_enabled',
             'physical_network', 'is_smartnic')


def _add_port_arguments(parser):
    """The options create and set share."""
    parser.add_argument(
        '--local-link-connection', metavar='<key=value>', action='append',
        help='Key/value of the switch the port is connected to '
             '(switch_id, port_id, switch_info). Can be specified multiple '
             'times.')
    parser.add_argument(
        '--physical-network', metavar='<physical network>',
        help='Name of the physical network the port is connected to.')
    parser.add_argument(
        '--extra', metavar='<key=value>', action='append',
        help='Record arbitrary key/value metadata. Can be specified '
             'multiple times.')
    pxe = parser.add_mutually_exclusive_group()
    pxe.add_argument('--pxe-enabled', dest='pxe_enabled', default=None,
                     action='store_true',
                     help='The node boots from this port (the default).')
    pxe.add_argument('--pxe-disabled', dest='pxe_enabled',
                     action='store_false',
                     help='The node does not boot from this port.')
    parser.add_argument(
        '--is-smartnic', metavar='<boolean>', dest='is_smartnic',
        help='Whether the port is a Smart NIC port (true or false).')


def _smartnic(value):
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exceptions.CommandError(
            'Expected a boolean for --is-smartnic, got %s' % value) from None


def _node_uuid(client, node: str) -> str:
    """The UUID of a node named by name or UUID (the port API takes
    UUIDs only, as Ironic's)."""
    if uuidutils.is_uuid_like(node):
        return node
    return client.node_get(node, fields=['uuid'])['uuid']


class CreatePort(command.ShowOne):
    """Create a port of a node."""

    log = logging.getLogger(__name__ + '.CreatePort')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('address', metavar='<address>',
                            help='MAC address of the port.')
        parser.add_argument('--node', dest='node_uuid', metavar='<node>',
                            required=True,
                            help='Name or UUID of the node.')
        parser.add_argument('--uuid', metavar='<uuid>',
                            help='UUID of the port.')
        _add_port_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        parsed_args.node_uuid = _node_uuid(client, parsed_args.node_uuid)
        fields = {k: getattr(parsed_args, k)
                  for k in ('address', 'node_uuid', 'uuid',
                            'physical_network', 'pxe_enabled')
                  if getattr(parsed_args, k) is not None}
        smartnic = _smartnic(parsed_args.is_smartnic)
        if smartnic is not None:
            fields['is_smartnic'] = smartnic
        for name in ('extra', 'local_link_connection'):
            if getattr(parsed_args, name):
                fields[name] = utils.key_value_pairs_to_dict(
                    getattr(parsed_args, name))
        return utils.show(client.port_create(**fields))


class ListPort(command.Lister):
    """List ports."""

    log = logging.getLogger(__name__ + '.ListPort')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--node', metavar='<node>',
            help='Only list the ports of this node (name or UUID).')
        parser.add_argument(
            '--address', metavar='<mac-address>',
            help='Only list the port with this MAC address.')
        utils.add_list_arguments(parser, 'port')
        utils.add_display_arguments(parser, 'port', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        columns, params = utils.list_query(parsed_args, FIELDS, LIST_FIELDS,
                                           SORT_KEYS, detail=True)
        params.update({k: getattr(parsed_args, k) for k in ('node', 'address')
                       if getattr(parsed_args, k) is not None})
        return utils.list_rows(client.port_list, parsed_args, columns,
                               params)


class ShowPort(command.ShowOne):
    """Show the details of a port."""

    log = logging.getLogger(__name__ + '.ShowPort')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('port', metavar='<port>',
                            help='UUID of the port.')
        utils.add_fields_argument(parser, 'port', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        fields = utils.flatten(parsed_args.fields) or None
        return utils.show(client.port_get(parsed_args.port, fields=fields))


class SetPort(command.Command):
    """Set properties of a port."""

    log = logging.getLogger(__name__ + '.SetPort')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('port', metavar='<port>',
                            help='UUID of the port.')
        parser.add_argument('--address', metavar='<address>',
                            help='Set the MAC address of the port.')
        parser.add_argument('--node', dest='node_uuid', metavar='<node>',
                            help='Move the port to this node (name or '
                                 'UUID).')
        _add_port_arguments(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        parsed_args.is_smartnic = _smartnic(parsed_args.is_smartnic)
        if parsed_args.node_uuid:
            parsed_args.node_uuid = _node_uuid(client, parsed_args.node_uuid)
        patch = utils.set_patch(
            parsed_args, ('address', 'node_uuid', 'physical_network',
                          'pxe_enabled', 'is_smartnic'),
            {'extra': 'extra',
             'local_link_connection': 'local_link_connection'})
        utils.send_patch(self.log, client.port_update, parsed_args.port,
                         patch)


class UnsetPort(command.Command):
    """Unset properties of a port."""

    log = logging.getLogger(__name__ + '.UnsetPort')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('port', metavar='<port>',
                            help='UUID of the port.')
        parser.add_argument(
            '--extra', metavar='<key>', action='append',
            help='Extra to unset on the port (repeat option to unset '
                 'multiple extras).')
        parser.add_argument(
            '--physical-network', action='store_true', default=False,
            dest='physical_network',
            help='Unset the physical network of the port.')
        parser.add_argument(
            '--local-link-connection', action='store_true', default=False,
            dest='local_link_connection',
            help='Unset the local link connection of the port.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.unset_patch(
            parsed_args, ('physical_network', 'local_link_connection'),
            {'extra': 'extra'})
        utils.send_patch(self.log, client.port_update, parsed_args.port,
                         patch, 'unset')


class DeletePort(command.Command):
    """Delete port(s)."""

    log = logging.getLogger(__name__ + '.DeletePort')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('ports', metavar='<port>', nargs='+',
                            help='UUID(s) of the port(s) to delete.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'port', parsed_args.ports,
                          self.app.client_manager.pool.port_delete)
