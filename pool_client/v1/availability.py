"""``openstack pool availability show``."""
import logging

from osc_lib.command import command

from pool_client import utils


class ShowAvailability(command.ShowOne):
    """When count nodes matching a request could start a window of a
    duration at the earliest, and when each matching node is free."""

    log = logging.getLogger(__name__ + '.ShowAvailability')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--duration', metavar='<duration>', required=True,
            help='How long the window lasts, such as "4h" or "1d12h".')
        parser.add_argument(
            '--count', type=int, metavar='<count>',
            help='How many nodes the window needs (default 1).')
        parser.add_argument(
            '--resource-class', metavar='<resource_class>',
            help='Resource class to request.')
        parser.add_argument(
            '--trait', metavar='<trait>', action='append', dest='traits',
            help='A trait to request. Can be specified multiple times.')
        parser.add_argument(
            '--pool', metavar='<pool>',
            help='Nodes of this pool (default: the default pool).')
        parser.add_argument(
            '--owner', metavar='<owner>',
            help='Nodes this project owns or leases.')
        parser.add_argument(
            '--after', metavar='<time>',
            help='The earliest start wanted (RFC 3339 with an offset; '
                 'default: now).')
        parser.add_argument(
            '--before', metavar='<time>',
            help='The end of the search (RFC 3339 with an offset; default: '
                 'a week after --after).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        query = {k: getattr(parsed_args, k)
                 for k in ('duration', 'count', 'resource_class', 'traits',
                           'pool', 'owner', 'after', 'before')
                 if getattr(parsed_args, k) is not None}
        answer = client.availability(**query)
        answer['nodes'] = [
            '%s: %s' % (node['name'] or node['uuid'], ', '.join(
                '%s to %s' % (p['from'], p['until'])
                for p in node['free']) or 'busy')
            for node in answer['nodes']]
        return utils.show(answer)
