"""``openstack pool event ...`` and the ``history`` commands of nodes,
allocations, pools and claims."""
import json
import logging

from osc_lib.command import command
from osc_lib import exceptions

from pool_client import client as pool_client
from pool_client import utils

LEVELS = ('debug', 'info', 'warning', 'error', 'critical')
EVENT_FIELDS = ('cursor', 'created_at', 'object_type', 'object_uuid',
                'object_name', 'event_type', 'level', 'prev_state', 'state',
                'message', 'request_id', 'user', 'project', 'conductor')
EVENT_LIST_FIELDS = ('cursor', 'created_at', 'object_type', 'object_uuid',
                     'event_type', 'prev_state', 'state', 'message')
HISTORY_FIELDS = ('uuid', 'created_at', 'severity', 'event')
HISTORY_LONG_FIELDS = ('uuid', 'created_at', 'severity', 'event_type',
                       'event', 'prev_state', 'state', 'conductor', 'user',
                       'project', 'request_id')


def _add_filter_arguments(parser) -> None:
    parser.add_argument(
        '--object-type', metavar='<type>',
        help='Only events of objects of this type (node, allocation, '
             'port, pool, claim, conductor, ...).')
    parser.add_argument(
        '--object', metavar='<uuid>', dest='object_uuid',
        help='Only events of the object of this UUID.')
    parser.add_argument(
        '--event-type', metavar='<type>',
        help='Only events of this type, such as '
             'pool.allocation.state_set.success.')
    parser.add_argument(
        '--event-type-prefix', metavar='<prefix>',
        help='Only events whose type starts with this, such as '
             'baremetal.node.')
    parser.add_argument(
        '--level', choices=LEVELS,
        help='Only events of this level or a higher one.')
    parser.add_argument(
        '--request-id', metavar='<request id>',
        help='Only events that this API request caused (the '
             'X-Openstack-Request-Id of its response).')
    parser.add_argument(
        '--since', metavar='<cursor>', type=int,
        help='Only events after this cursor.')


def _filters(parsed_args) -> dict:
    return {k: getattr(parsed_args, k)
            for k in ('object_type', 'object_uuid', 'event_type',
                      'event_type_prefix', 'level', 'request_id')
            if getattr(parsed_args, k) is not None}


def _check_since(parsed_args) -> None:
    if parsed_args.since is not None and parsed_args.since < 0:
        raise exceptions.CommandError(
            'Expected a non-negative --since cursor, got %s'
            % parsed_args.since)


class ListEvent(command.Lister):
    """List events, oldest first: from the oldest retained, or after
    --since."""

    log = logging.getLogger(__name__ + '.ListEvent')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_filter_arguments(parser)
        parser.add_argument(
            '--limit', metavar='<limit>', type=int,
            help='The most events to list (default: all).')
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show every field of the events.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        _check_since(parsed_args)
        utils.check_limit(parsed_args.limit)
        found = self.app.client_manager.pool.event_list(
            since=parsed_args.since, limit=parsed_args.limit or None,
            **_filters(parsed_args))
        fields = EVENT_FIELDS if parsed_args.long else EVENT_LIST_FIELDS
        return utils.rows(found, fields)


def event_line(event: dict) -> str:
    """An event on one line, as the watch prints it."""
    change = ''
    if event.get('prev_state') is not None or event.get('state') is not None:
        change = ' %s -> %s' % (event.get('prev_state'), event.get('state'))
    name = event.get('object_name')
    what = event['object_uuid'] + (' (%s)' % name if name
                                   and name != event['object_uuid'] else '')
    message = event.get('message')
    return '%s %s %s %s %s%s%s' % (
        event['cursor'], event['created_at'], event['level'].upper(),
        event['object_type'], what,
        ' ' + event['event_type'], change) + (': ' + message if message
                                              else '')


class WatchEvent(command.Command):
    """Print events as they come, one a line, until interrupted (Ctrl-C).
    """

    log = logging.getLogger(__name__ + '.WatchEvent')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        _add_filter_arguments(parser)
        parser.add_argument(
            '--json', action='store_true', default=False,
            help='Print each event as a JSON object on its line.')
        parser.add_argument(
            '--request-wait', metavar='<seconds>', type=float, default=30,
            help='The longest the server holds each request of the watch '
                 '(default 30; the server caps it by its [api] '
                 'max_watch_wait).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        _check_since(parsed_args)
        if not parsed_args.request_wait > 0:
            raise exceptions.CommandError(
                'Expected a positive --request-wait, got %s'
                % parsed_args.request_wait)
        client = self.app.client_manager.pool
        out = self.app.stdout
        since = parsed_args.since
        try:
            while True:
                try:
                    for event in client.event_watch(
                            since=since, wait=parsed_args.request_wait,
                            **_filters(parsed_args)):
                        since = event['cursor']
                        out.write((json.dumps(event, sort_keys=True)
                                   if parsed_args.json
                                   else event_line(event)) + '\n')
                        out.flush()
                except pool_client.PoolClientError as exc:
                    if exc.status_code != 410:
                        raise
                    # Deleted before they were read: go on from what is
                    # left, and say so.
                    since = client.event_page()['oldest']
                    self.app.stderr.write(
                        'Events were deleted before they were read: '
                        'watching again from cursor %d.\n' % since)
        except KeyboardInterrupt:
            return 0


# History -------------------------------------------------------------------

class _HistoryCommand:
    """What the history commands of a kind of object share."""

    # The collection of the API, and the noun of the command line.
    kind = ''
    noun = ''

    def add_object_argument(self, parser) -> None:
        parser.add_argument(
            self.noun, metavar='<%s>' % self.noun,
            help='Name or UUID of the %s.' % self.noun
            if self.noun != 'pool' else 'Name of the pool.')


class _ListHistory(_HistoryCommand, command.Lister):

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_object_argument(parser)
        parser.add_argument(
            '--long', action='store_true', default=False,
            help='Show every field of the events, and their whole text.')
        parser.add_argument(
            '--limit', metavar='<limit>', type=int,
            help='The most events to list (default: all).')
        parser.add_argument(
            '--marker', metavar='<event>',
            help='The UUID of the event after which to list.')
        parser.add_argument(
            '--sort-dir', choices=('asc', 'desc'),
            help='Oldest first (asc, the default) or newest first.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.check_limit(parsed_args.limit)
        found = self.app.client_manager.pool.history_list(
            self.kind, getattr(parsed_args, self.noun),
            detail=parsed_args.long, limit=parsed_args.limit or None,
            marker=parsed_args.marker, sort_dir=parsed_args.sort_dir)
        fields = HISTORY_LONG_FIELDS if parsed_args.long else HISTORY_FIELDS
        return utils.rows(found, fields)


class _ShowHistory(_HistoryCommand, command.ShowOne):

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_object_argument(parser)
        parser.add_argument('event', metavar='<event>',
                            help='UUID of the event.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        event = self.app.client_manager.pool.history_get(
            self.kind, getattr(parsed_args, self.noun), parsed_args.event)
        return utils.show(event)


class ListNodeHistory(_ListHistory):
    """List the history of a node: every change, oldest first."""
    kind, noun = 'nodes', 'node'
    log = logging.getLogger(__name__ + '.ListNodeHistory')


class ShowNodeHistory(_ShowHistory):
    """Show an event of the history of a node."""
    kind, noun = 'nodes', 'node'
    log = logging.getLogger(__name__ + '.ShowNodeHistory')


class ListAllocationHistory(_ListHistory):
    """List the history of an allocation: every change, oldest first."""
    kind, noun = 'allocations', 'allocation'
    log = logging.getLogger(__name__ + '.ListAllocationHistory')


class ShowAllocationHistory(_ShowHistory):
    """Show an event of the history of an allocation."""
    kind, noun = 'allocations', 'allocation'
    log = logging.getLogger(__name__ + '.ShowAllocationHistory')


class ListPoolHistory(_ListHistory):
    """List the history of a pool: every change, oldest first."""
    kind, noun = 'pools', 'pool'
    log = logging.getLogger(__name__ + '.ListPoolHistory')


class ShowPoolHistory(_ShowHistory):
    """Show an event of the history of a pool."""
    kind, noun = 'pools', 'pool'
    log = logging.getLogger(__name__ + '.ShowPoolHistory')


class ListClaimHistory(_ListHistory):
    """List the history of a claim: every change, oldest first."""
    kind, noun = 'claims', 'claim'
    log = logging.getLogger(__name__ + '.ListClaimHistory')


class ShowClaimHistory(_ShowHistory):
    """Show an event of the history of a claim."""
    kind, noun = 'claims', 'claim'
    log = logging.getLogger(__name__ + '.ShowClaimHistory')
