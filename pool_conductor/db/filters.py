"""Digital Rebar's filter functions on node fields and params, as SQL."""
import dataclasses
import math
import re

import sqlalchemy as sa

from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import pool_params
from pool_conductor import regex
from pool_conductor import states

FUNCTIONS = ('Eq', 'Ne', 'Lt', 'Lte', 'Gt', 'Gte', 'In', 'Nin', 'Re',
             'Between', 'Except')
# Functions taking a list of values; Between and Except take two.
_LISTS = {'In', 'Nin'}
_RANGES = {'Between', 'Except'}
MAX_PATTERN = regex.MAX_PATTERN_LENGTH
MAX_KEY = 255
# Filterable node fields; every other key names a param.
TEXT_FIELDS = ('uuid', 'name', 'driver', 'resource_class',
               'provision_state', 'power_state', 'owner', 'lessee',
               'instance_uuid', 'pool', 'pool_status', 'workflow', 'stage',
               'fault', 'external_manager', 'external_ref',
               'external_state')
BOOLEAN_FIELDS = ('maintenance', 'runnable', 'pool_allocated')
FIELDS = TEXT_FIELDS + BOOLEAN_FIELDS
# Digital Rebar's pool params, derived from fields (pool_conductor.
# pool_params): filtered on the fields they are made of.
PARAM_FIELDS = {pool_params.NAME: 'pool',
                pool_params.ALLOCATED: 'pool_allocated'}
BOOLEAN_KEYS = BOOLEAN_FIELDS + (pool_params.ALLOCATED,)
KEYS = FIELDS + pool_params.KEYS

_CALL = re.compile(r'^([A-Za-z]+)\((.*)\)$', re.DOTALL)
_NUMBER = re.compile(r'^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$')
# An integer of more digits is out of range: it is refused by its text,
# for int() of a long one is slow and refused past 4300 digits.
_MAX_DIGITS = len(str(db_api.MAX_NUMBER))


@dataclasses.dataclass(frozen=True)
class Filter:
    """One parsed filter: key Function(args)."""

    key: str
    function: str
    args: tuple


def _value(text: str, invalid):
    """An argument: a number, true or false, else a string; quotes make
    anything a string.

    :param invalid: makes the exception for a number out of range.
    """
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    if _NUMBER.match(text):
        return _number(text, invalid)
    if text in ('true', 'false'):
        return text == 'true'
    return text


def _number(text: str, invalid) -> int | float:
    """A number within +/-MAX_NUMBER, an integer checked by its length
    before int()."""
    number = None
    if any(c in text for c in '.eE'):
        number = float(text)
    elif len(text.lstrip('-')) <= _MAX_DIGITS:
        number = int(text)
    if number is None or not (math.isfinite(number)
                              and abs(number) <= db_api.MAX_NUMBER):
        raise invalid('the number %s is out of range: numbers may be from '
                      '-%d to %d.' % (text if len(text) <= 40
                                      else text[:20] + '...',
                                      db_api.MAX_NUMBER, db_api.MAX_NUMBER))
    return number


def is_call(value: str) -> bool:
    """Whether a string has the syntax of a filter function call."""
    return bool(_CALL.match(value))


def is_filter(key: str, value: str) -> bool:
    """Whether a query parameter is a filter: a function call on any
    field or param (cpus=Gte(4)), or a plain value on a field (pool=web).
    """
    return is_call(value) or key in KEYS


def parse(key: str, value) -> Filter:
    """Parse one filter such as ``Eq(3)`` on key.

    :raises: InvalidParameterValue naming the key
    """
    def invalid(why):
        return exception.InvalidParameterValue(
            err='Invalid filter on "%s": %s' % (key, why))

    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
        raise invalid('a key is a field or param name of 1 to %d '
                      'characters.' % MAX_KEY)
    if not isinstance(value, str):
        raise invalid('the value must be a string such as "Eq(3)".')
    match = _CALL.match(value.strip())
    if not match or match.group(1) not in FUNCTIONS:
        raise invalid('"%s" is not one of %s with its arguments in '
                      'parentheses.' % (value, ', '.join(FUNCTIONS)))
    function, raw = match.groups()
    if function == 'Re':
        if len(raw) > MAX_PATTERN:
            raise invalid('the pattern is longer than %d characters.'
                          % MAX_PATTERN)
        try:
            regex.check_filter(raw)
        except regex.PatternError as exc:
            raise invalid(str(exc)) from None
        args = (raw,)
    elif function in _LISTS or function in _RANGES:
        args = tuple(_value(a, invalid) for a in raw.split(','))
        if function in _RANGES and len(args) != 2:
            raise invalid('%s takes two values, low and high.' % function)
    else:
        args = (_value(raw, invalid),)
    if key in BOOLEAN_KEYS and (
            function not in ('Eq', 'Ne', 'In', 'Nin')
            or not all(isinstance(a, bool) for a in args)):
        raise invalid('%s is true or false; use Eq, Ne, In or Nin.' % key)
    return Filter(key, function, args)


def parse_map(filters) -> list[Filter]:
    """Parse a map of key to filter function.

    :raises: InvalidParameterValue
    """
    if not isinstance(filters, dict):
        raise exception.InvalidParameterValue(
            err='A filter is a map of field or param names to functions '
                'such as {"inventory/data/CPUS": "Eq(3)"}.')
    return [parse(k, v) for k, v in filters.items()]


class _Param:
    """Typed access to one top-level param of nodes, per backend."""

    def __init__(self, dialect: str, key: str):
        self.dialect = dialect
        col = models.Node.params
        if dialect == 'postgresql':
            name = sa.bindparam(None, key, type_=sa.Text)
            self.type = sa.func.jsonb_typeof(
                sa.func.jsonb_extract_path(col, name))
            self.text = sa.func.jsonb_extract_path_text(col, name)
            self.kinds = {'number': ('number',), 'string': ('string',),
                          'boolean': ('boolean',)}
        else:
            # SQLite and MySQL/MariaDB: a JSON path; a key is quoted.
            path = '$."%s"' % key.replace('\\', '\\\\').replace('"', '\\"')
            path = sa.bindparam(None, path, type_=sa.String)
            if dialect == 'sqlite':
                self.type = sa.func.json_type(col, path)
                self.text = sa.func.json_extract(col, path)
                self.kinds = {'number': ('integer', 'real'),
                              'string': ('text',),
                              'boolean': ('true', 'false')}
            else:
                extracted = sa.func.json_extract(col, path)
                self.type = sa.func.json_type(extracted)
                self.text = sa.func.json_unquote(extracted)
                self.kinds = {'number': ('INTEGER', 'DOUBLE', 'DECIMAL',
                                         'UNSIGNED INTEGER'),
                              'string': ('STRING',),
                              'boolean': ('BOOLEAN',)}

    def of_kind(self, kind: str):
        return self.type.in_(self.kinds[kind])

    def value(self, arg):
        """The param as SQL of the type of arg, NULL if of another."""
        if isinstance(arg, bool):
            kind = 'boolean'
            if self.dialect == 'sqlite':
                return sa.case((self.type == 'true', 'true'),
                               (self.type == 'false', 'false'))
            return sa.case((self.of_kind(kind), sa.func.lower(self.text)))
        if isinstance(arg, (int, float)):
            return sa.case((self.of_kind('number'),
                            sa.cast(self.text, sa.Numeric(65, 10))))
        return sa.case((self.of_kind('string'), self.text))


def _bound(arg):
    if isinstance(arg, bool):
        return 'true' if arg else 'false'
    return arg


def _compare(target, function: str, args: tuple):
    """SQL for the function on target; NULL (an absent param, or one of
    another type) matches only the negative functions."""
    value = target if not isinstance(target, _Param) else None

    def sql(arg):
        return value if value is not None else target.value(arg)

    def bind(arg):
        return sa.literal(_bound(arg)) if value is None else arg

    def eq(arg):
        return sql(arg) == bind(arg)

    if function == 'Eq':
        return eq(args[0])
    if function == 'Ne':
        return sa.not_(sa.func.coalesce(eq(args[0]), False))
    if function == 'In':
        return sa.or_(*(eq(a) for a in args))
    if function == 'Nin':
        return sa.not_(sa.func.coalesce(sa.or_(*(eq(a) for a in args)),
                                        False))
    if function == 'Re':
        text = value if value is not None else target.value('')
        return text.regexp_match(args[0])
    arg = args[0]
    if function == 'Lt':
        return sql(arg) < bind(arg)
    if function == 'Lte':
        return sql(arg) <= bind(arg)
    if function == 'Gt':
        return sql(arg) > bind(arg)
    if function == 'Gte':
        return sql(arg) >= bind(arg)
    low, high = args
    inside = sa.and_(sql(low) >= bind(low), sql(high) <= bind(high))
    if function == 'Between':
        return inside
    # Except: a value outside the range.
    return sa.and_(sql(low).is_not(None), sa.not_(inside))


def _pool_status():
    """pool/status of nodes as SQL (pool_params.status())."""
    node = models.Node
    return sa.case(
        (sa.func.coalesce(node.pool_allocated, False).is_(False),
         pool_params.UNALLOCATED),
        (sa.func.coalesce(node.pool_wait_timed_out, False).is_(True),
         pool_params.TIMEOUT),
        (node.pool_status.in_(pool_params.HELD), pool_params.ERROR),
        (node.pool_status == states.POOL_IN_USE, pool_params.COMPLETE),
        else_=pool_params.ALLOCATED_STATUS)


def time_limit() -> float:
    """The seconds the database may spend on a query with filters
    ([api] filter_statement_timeout; 0 for none)."""
    return CONF.api.filter_statement_timeout


def to_sql(dialect: str, filters: list[Filter]):
    """The conditions (ANDed) of filters on nodes, for a backend.

    All values are bound parameters.
    """
    conditions = []
    for f in filters:
        if f.key == pool_params.STATUS:
            target = _pool_status()
            args = tuple(str(a) if not isinstance(a, str) else a
                         for a in f.args)
        elif f.key in FIELDS or f.key in PARAM_FIELDS:
            column = getattr(models.Node, PARAM_FIELDS.get(f.key, f.key))
            if f.key in BOOLEAN_KEYS:
                column = sa.func.coalesce(column, f.key == 'runnable')
            target = column
            args = f.args if f.key in BOOLEAN_KEYS else tuple(
                str(a) if not isinstance(a, str) else a for a in f.args)
        else:
            target = _Param(dialect, f.key)
            args = f.args
        if f.function == 'Re' and dialect == 'mysql':
            # MariaDB's REGEXP follows the collation, which ignores case;
            # RE2 and PostgreSQL do not.
            args = ('(?-i)' + args[0],)
        conditions.append(_compare(target, f.function, args))
    return sa.and_(sa.true(), *conditions)
