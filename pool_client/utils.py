"""Helpers of the commands: key=value arguments, JSON Patch, columns."""
import argparse
import json
import sys
import time

from cliff import columns
from osc_lib import exceptions

# Column headers of list output, as python-ironicclient labels them.
LABELS = {
    'uuid': 'UUID',
    'instance_uuid': 'Instance UUID',
    'allocation_uuid': 'Allocation UUID',
    'node_uuid': 'Node UUID',
    'maintenance_window_uuid': 'Maintenance Window UUID',
    'provision_state': 'Provisioning State',
    'target_provision_state': 'Target Provision State',
    'provision_updated_at': 'Provisioning Updated At',
    'driver_info': 'Driver Info',
}


def label(field: str) -> str:
    return LABELS.get(field) or field.replace('_', ' ').title()


def split_and_deserialize(string: str) -> tuple:
    """(key, value) of "key=value"; the value JSON-decoded when it is JSON.

    :raises: CommandError without "="
    """
    key, sep, value = string.partition('=')
    if not sep or not key:
        raise exceptions.CommandError(
            'Attributes must be a list of PATH=VALUE not "%s"' % string)
    try:
        value = json.loads(value)
    except ValueError:
        pass
    return key, value


def json_object(text: str) -> dict:
    """An argparse type: a JSON object.

    :raises: ArgumentTypeError for anything else
    """
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('expected a JSON object, not %r'
                                         % text)
    return value


def key_value_pairs_to_dict(pairs) -> dict:
    return dict(split_and_deserialize(p) for p in pairs or ())


def args_array_to_patch(op: str, attributes) -> list:
    """JSON Patch operations: "path=value" for add and replace, "path" for
    remove."""
    patch = []
    for attr in attributes:
        if not attr.startswith('/'):
            attr = '/' + attr
        if op in ('add', 'replace'):
            path, value = split_and_deserialize(attr)
            patch.append({'op': op, 'path': path, 'value': value})
        elif op == 'remove':
            patch.append({'op': op, 'path': attr})
        else:
            raise exceptions.CommandError('Unknown PATCH operation: %s' % op)
    return patch


def json_pointer(*parts: str) -> str:
    """A JSON Pointer (RFC 6901) to parts; "~" and "/" in them are
    escaped, so that a param named "inventory/data/CPUS" is one key."""
    return ''.join('/' + str(p).replace('~', '~0').replace('/', '~1')
                   for p in parts)


def set_patch(parsed_args, fields=(), items=None) -> list:
    """The "add" operations of a set command.

    :param fields: attributes of parsed_args named after the top-level
        fields they set; those that are None are left out.
    :param items: {attribute: field}: repeated "key=value" options of a map
        field; a slash in the key is a path into nested maps, as
        python-ironicclient has it.
    """
    patch = [{'op': 'add', 'path': '/' + field,
              'value': getattr(parsed_args, field)}
             for field in fields if getattr(parsed_args, field) is not None]
    for attr, field in (items or {}).items():
        values = getattr(parsed_args, attr)
        if values:
            patch.extend(args_array_to_patch(
                'add', [field + '/' + v for v in values]))
    return patch


def unset_patch(parsed_args, fields=(), items=None) -> list:
    """The "remove" operations of an unset command.

    :param fields: flags of parsed_args named after the top-level fields
        they remove.
    :param items: {attribute: field}: repeated "key" options of a map
        field, as in :func:`set_patch`.
    """
    patch = [{'op': 'remove', 'path': '/' + field}
             for field in fields if getattr(parsed_args, field)]
    for attr, field in (items or {}).items():
        values = getattr(parsed_args, attr)
        if values:
            patch.extend(args_array_to_patch(
                'remove', [field + '/' + v for v in values]))
    return patch


def param_patch(op: str, field: str | None, args) -> list:
    """Operations on params: "name=value" (the value JSON-decoded when it
    parses) to add, "name" to remove; a name is one key of the map of
    field (of the document itself when field is None), slashes and all.

    :raises: CommandError for "add" without "=" or an unknown op
    """
    prefix = (field,) if field else ()
    patch = []
    for arg in args or ():
        if op == 'add':
            name, value = split_and_deserialize(arg)
            patch.append({'op': op, 'path': json_pointer(*prefix, name),
                          'value': value})
        elif op == 'remove':
            patch.append({'op': op, 'path': json_pointer(*prefix, arg)})
        else:
            raise exceptions.CommandError('Unknown PATCH operation: %s' % op)
    return patch


def send_patch(log, update, ident: str, patch: list,
               verb: str = 'set') -> None:
    """Send the patch of a set or unset command, or warn that there is
    nothing to send."""
    if patch:
        update(ident, patch)
    else:
        log.warning('Please specify what to %s.', verb)


def flatten(values) -> list:
    """The values of an option with nargs='+' and action='append'."""
    return [v for group in values or () for v in group]


class JSONColumn(columns.FormattableColumn):
    """A map or a list of maps: JSON in tables, the value itself (numbers
    and all) in -f json and yaml."""

    def human_readable(self) -> str:
        return json.dumps(self._value, ensure_ascii=False)

    def machine_readable(self):
        return self._value


class OrderedListColumn(columns.FormattableColumn):
    """A list whose order means something (the stages of a workflow):
    its items in that order, separated by commas, in tables."""

    def human_readable(self) -> str:
        return ', '.join(str(v) for v in self._value)

    def machine_readable(self):
        return self._value


def format_value(value):
    """A column for a field: maps and lists of maps as JSON, lists in
    their order."""
    if isinstance(value, dict):
        return JSONColumn(value)
    if isinstance(value, list):
        if any(isinstance(v, dict | list) for v in value):
            return JSONColumn(value)
        return OrderedListColumn(value)
    return value


def show(resource: dict, exclude=('links',)) -> tuple:
    """(columns, data) of a ShowOne: the fields sorted by name."""
    data = {k: format_value(v) for k, v in resource.items()
            if k not in exclude}
    columns = tuple(sorted(data))
    return columns, tuple(data[c] for c in columns)


def rows(items, fields) -> tuple:
    """(labels, rows) of a Lister."""
    return (tuple(label(f) for f in fields),
            [tuple(format_value(item.get(f)) for f in fields)
             for item in items])


def parse_sort(sort: str | None) -> list:
    """[(key, reverse), ...] of "key1[:asc|desc],key2..."."""
    keys = []
    for part in (sort or '').split(','):
        part = part.strip()
        if not part:
            continue
        key, _, direction = part.partition(':')
        direction = direction or 'asc'
        if not key or direction not in ('asc', 'desc'):
            raise exceptions.CommandError(
                'Invalid sort "%s": expected <key>[:asc|desc]' % part)
        keys.append((key, direction == 'desc'))
    return keys


def sort_items(items: list, sort: str | None) -> list:
    """Items sorted by the keys of --sort; None sorts first."""
    items = list(items)
    for key, reverse in reversed(parse_sort(sort)):
        def sort_key(item, key=key):
            value = item.get(key)
            if value is None:
                return (0, '')
            if isinstance(value, bool | int | float):
                return (1, value)
            return (2, str(value))
        items.sort(key=sort_key, reverse=reverse)
    return items


def server_sort(sort: str | None, allowed) -> dict:
    """sort_key and sort_dir of the first --sort key the API can sort by."""
    keys = parse_sort(sort)
    if keys and keys[0][0] in allowed:
        key, reverse = keys[0]
        return {'sort_key': key, 'sort_dir': 'desc' if reverse else 'asc'}
    return {}


def check_limit(limit) -> None:
    if limit is not None and limit < 0:
        raise exceptions.CommandError(
            'Expected non-negative --limit, got %s' % limit)


def add_fields_argument(parser, noun: str, choices, note: str = '') -> None:
    """--fields: the fields of a noun that the server sends, of choices.

    :param note: a sentence appended to the help, such as what the option
        cannot go with.
    """
    parser.add_argument(
        '--fields', nargs='+', dest='fields', metavar='<field>',
        action='append', choices=choices, default=[],
        help='One or more %s fields. Only these fields are fetched from the '
             'server.%s' % (noun, note))


def add_list_arguments(parser, noun: str,
                       marker_help: str | None = None) -> None:
    """--limit, --marker and --sort of a paged list of nouns (the plural
    is the noun and an "s").

    :param marker_help: the help of --marker where it is worded otherwise
        than the usual one.
    """
    nouns = noun + 's'
    parser.add_argument(
        '--limit', metavar='<limit>', type=int,
        help='Maximum number of %s to return, 0 for no limit. '
             'Default: all of them.' % nouns)
    parser.add_argument(
        '--marker', metavar='<%s>' % noun,
        help=marker_help or (
            '%s UUID (for example, of the last %s of a previous list): '
            'list the %s after it.' % (noun.capitalize(), noun, nouns)))
    parser.add_argument(
        '--sort', metavar='<key>[:<direction>]',
        help='Sort output by the given %s fields and directions (asc or '
             'desc, default asc), separated by commas.' % noun)


def add_display_arguments(parser, noun: str, fields) -> None:
    """--long or --fields, one of the two: which columns a list of nouns
    shows; added last, after the filters of the list."""
    display = parser.add_mutually_exclusive_group()
    display.add_argument(
        '--long', action='store_true', default=False,
        help='Show all the fields of the %ss.' % noun)
    add_fields_argument(display, noun, fields,
                        ' Cannot be used with --long.')


def list_query(parsed_args, fields, list_fields, sort_keys,
               detail: bool = False) -> tuple:
    """(columns, params) of a paged list: the columns of --fields, --long
    or the default ones, and the query parameters that fetch them sorted
    by the first --sort key the server can sort by.

    :param detail: whether --long asks for the detailed collection.
    :raises: CommandError for a negative --limit or a malformed --sort
    """
    check_limit(parsed_args.limit)
    params = server_sort(parsed_args.sort, sort_keys)
    chosen = flatten(parsed_args.fields)
    if chosen:
        columns = tuple(dict.fromkeys(chosen))
        params['fields'] = list(columns)
    elif parsed_args.long:
        columns = fields
        if detail:
            params['detail'] = True
    else:
        columns = list_fields
    return columns, params


def list_rows(list_items, parsed_args, columns, params) -> tuple:
    """(labels, rows) of a paged list: the items list_items returns for
    --limit, --marker and params, in the order of --sort."""
    items = list_items(limit=parsed_args.limit, marker=parsed_args.marker,
                       **params)
    return rows(sort_items(items, parsed_args.sort), columns)


def delete_each(app, kind: str, idents, delete) -> None:
    """Delete every ident, going on past failures.

    :raises: CommandError listing the ones that could not be deleted
    """
    failures = []
    for ident in idents:
        try:
            delete(ident)
            print('Deleted %s %s' % (kind, ident), file=app.stdout)
        except exceptions.CommandError as exc:
            failures.append('Failed to delete %s %s: %s' % (kind, ident,
                                                            exc))
    if failures:
        raise exceptions.CommandError('\n'.join(failures))


class Progress:
    """Shows a wait's progress on a terminal: each new state, with the
    time waited so far, on stderr; nothing when stderr is not a terminal
    (a script's output stays what it was)."""

    def __init__(self, what: str, stream=None):
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, 'isatty', None)
                            and self.stream.isatty())
        self.started = time.monotonic()
        self.last = None

    def __call__(self, state: str) -> None:
        if not self.enabled or state == self.last:
            return
        self.last = state
        self.stream.write('%s: %s (%.1f s)\n' % (
            self.what, state, time.monotonic() - self.started))
        self.stream.flush()
