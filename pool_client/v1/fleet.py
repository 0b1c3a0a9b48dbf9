"""``openstack pool fleet show``, and the counts of ``pool list --long``:
the overview of GET /v1/fleet."""
import logging

from cliff import columns
from osc_lib.command import command

from pool_client import utils

# The columns of ``pool list --long`` beyond the pool's own fields: the
# members by status (the Hold* statuses summed) and the AutoFill target.
HOLD_STATUSES = ('HoldJoin', 'HoldBuild', 'HoldDestroy', 'HoldLeave')
COUNT_COLUMNS = ('Total', 'Creating', 'Joining', 'Free', 'Building',
                 'InUse', 'Destroying', 'Leaving', 'Hold', 'AutoFill')


def _counts(rows: list) -> str:
    return ', '.join('%s %d' % (r['value'], r['count']) for r in rows)


class _Text(columns.FormattableColumn):
    """Lines of text in tables; the value of the document in -f json and
    yaml."""

    def __init__(self, value, text: str):
        super().__init__(value)
        self.text = text

    def human_readable(self) -> str:
        return self.text

    def machine_readable(self):
        return self._value


def autofill_text(pool: dict) -> str:
    fill = pool.get('autofill')
    if not fill:
        return ''
    high = fill.get('max_free')
    return '%s-%s Free' % (fill.get('min_free'),
                           '' if high is None else high)


def pool_counts(pool: dict) -> dict:
    """The COUNT_COLUMNS of a pool of the fleet document."""
    statuses = {k: v['count'] for k, v in pool['statuses'].items()}
    counts = {name: statuses.get(name, 0) for name in COUNT_COLUMNS}
    counts['Total'] = pool['total']['count']
    counts['Hold'] = sum(statuses.get(s, 0) for s in HOLD_STATUSES)
    counts['AutoFill'] = autofill_text(pool)
    return counts


def _pools(document: dict) -> str:
    lines = []
    for pool in document['pools']:
        statuses = ', '.join('%s %d' % (status, count['count'])
                             for status, count in pool['statuses'].items()
                             if count['count'])
        line = '%s: %d (%s)' % (pool['name'], pool['total']['count'],
                                statuses or 'empty')
        if pool.get('autofill'):
            line += '; AutoFill %s' % autofill_text(pool)
        lines.append(line)
    return '\n'.join(lines)


def _conductors(document: dict) -> str:
    return '\n'.join(
        '%s: %s; allocating %d, claims %d, node locks %d%s' % (
            c['hostname'], 'alive' if c['alive'] else 'DEAD',
            c['allocations'], c['claims'], c['node_locks'],
            '; fills %s' % ', '.join(p['name'] for p in c['autofill_pools'])
            if c['autofill_pools'] else '')
        for c in document['conductors'])


def _ending(document: dict) -> str:
    lines = []
    for kind in ('allocations', 'claims'):
        ending = document['ending_soon'][kind]
        for item in ending['items']:
            lines.append('%s %s %s (%s)' % (
                item['lifespan_end'], kind[:-1], item['name'] or item['uuid'],
                item['state']))
        more = ending['total'] - len(ending['items'])
        if more > 0:
            lines.append('and %d more %s' % (more, kind))
    return '\n'.join(lines)


def _alerts(document: dict) -> str:
    return '\n'.join('%s %s %s %s %s: %s' % (
        a['created_at'], a['level'].upper(), a['event_type'],
        a['object_type'], a['object_name'] or a['object_uuid'],
        a['message'] or '') for a in document['alerts'])


def show_fleet(document: dict) -> tuple:
    """(columns, data) of the fleet document: readable lines in tables,
    each part of the document as it is in -f json and yaml."""
    nodes = document['nodes']
    parts = {
        'as_of': document['as_of'],
        'pools': _Text(document['pools'], _pools(document)),
        'nodes': _Text(nodes, '%d; %s\npower: %s\nmaintenance: %s' % (
            nodes['total']['count'], _counts(nodes['provision_states']),
            _counts(nodes['power_states']), _counts(nodes['maintenance']))),
        'allocations': _Text(document['allocations'], '%d; %s' % (
            document['allocations']['total']['count'],
            _counts(document['allocations']['states']))),
        'claims': _Text(document['claims'], '%d; %s' % (
            document['claims']['total']['count'],
            _counts(document['claims']['states']))),
        'conductors': _Text(document['conductors'], _conductors(document)),
        'stranded': _Text(document['stranded'], ', '.join(
            '%s %d' % item for item in document['stranded'].items())),
        'ending_soon': _Text(document['ending_soon'], _ending(document)),
        'alerts': _Text(document['alerts'], _alerts(document)),
    }
    return tuple(parts), tuple(parts.values())


class ShowFleet(command.ShowOne):
    """Show the overview of the fleet: counts by state, conductors and
    what they hold, lifespans ending soon, the latest warnings and errors
    (what the dashboard shows)."""

    log = logging.getLogger(__name__ + '.ShowFleet')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--ending-within', dest='ending_within', metavar='<seconds>',
            type=int,
            help='List the lifespans that end within this many seconds '
                 '(default: the server\'s [dashboard] ending_within).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return show_fleet(self.app.client_manager.pool.fleet_get(
            ending_within=parsed_args.ending_within))


def long_rows(pools: list, fleet: dict, fields) -> tuple:
    """(labels, rows) of ``pool list --long``: the pools' fields and
    their counts."""
    counts = {p['name']: pool_counts(p) for p in fleet['pools']}
    labels, rows = utils.rows(pools, fields)
    empty = dict.fromkeys(COUNT_COLUMNS, 0)
    empty['AutoFill'] = ''
    return (labels + COUNT_COLUMNS,
            [row + tuple(counts.get(pool['name'], empty)[c]
                         for c in COUNT_COLUMNS)
             for pool, row in zip(pools, rows, strict=True)])
