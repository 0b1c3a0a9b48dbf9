"""Jinja2 templates of providers, rendered in a sandbox that cannot reach
the server, in a process bounded in CPU time and memory."""
import datetime
import threading

import jinja2
from jinja2 import compiler as jinja_compiler
from jinja2 import nodes as jinja_nodes
from jinja2 import sandbox as jinja_sandbox

from pool_conductor import documents
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import sandbox

# The longest template string rendered.
MAX_TEMPLATE = 4096
# The largest string or list a template may build, and the longest output.
MAX_SIZE = 65536
# The largest range() a template may loop over.
MAX_RANGE = 1000
# The largest integer a template may compute, in bits.
MAX_BITS = 4096
# The most characters the templates of one document render in all: more
# than a request body holds ([oslo_middleware] max_request_body_size).
MAX_OUTPUT = 131072

# Filters that build large strings from small arguments, or format with
# Python's format mini-language.
_REMOVED_FILTERS = ('center', 'indent', 'wordwrap', 'format', 'replace',
                    'batch', 'slice', 'urlize', 'truncate', 'xmlattr',
                    'pprint', 'filesizeformat', 'forceescape', 'attr')
# Statements a template of a provider does not need: no recursion (a
# macro calling itself could double a string at each level), no other
# templates.
_REFUSED_NODES = (jinja_nodes.Macro, jinja_nodes.CallBlock,
                  jinja_nodes.Include, jinja_nodes.Import,
                  jinja_nodes.FromImport, jinja_nodes.Extends,
                  jinja_nodes.Block)


def _iso(value: datetime.datetime) -> str:
    return value.strftime('%Y-%m-%dT%H:%M:%SZ')


class TimeDelta:
    """timedelta("10m"): a duration, as the lifespans write them."""

    ATTRIBUTES = frozenset(('timedelta', 'total_seconds'))

    def __init__(self, text):
        self.timedelta = lifespans.duration(text, 'timedelta')
        self.total_seconds = int(self.timedelta.total_seconds())

    def __str__(self) -> str:
        return str(self.timedelta)


class Timestamp:
    """A point in time (UTC), shown as 2021-05-01T12:30:00Z."""

    ATTRIBUTES = frozenset(('add', 'datetime'))

    def __init__(self, value: datetime.datetime):
        self.datetime = value

    def add(self, text) -> 'Timestamp':
        try:
            return Timestamp(self.datetime + lifespans.duration(text,
                                                                'add'))
        except OverflowError:
            raise exception.InvalidParameterValue(
                err='timestamp.add: the result is out of range.') from None

    def __str__(self) -> str:
        return _iso(self.datetime)


class TimestampFactory:
    """timestamp("2021-05-01T12:30:00Z") and timestamp.utcnow."""

    ATTRIBUTES = frozenset(('utcnow',))

    def __init__(self, now: datetime.datetime):
        self.utcnow = Timestamp(now)

    def __call__(self, text) -> Timestamp:
        try:
            value = datetime.datetime.fromisoformat(str(text))
        except ValueError:
            raise exception.InvalidParameterValue(
                err='timestamp(%r) is not a date and time in ISO 8601 '
                    'format.' % (text,)) from None
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(
                tzinfo=None)
        return Timestamp(value)


_HELPERS = (TimeDelta, Timestamp, TimestampFactory)


def _size(value) -> int:
    if isinstance(value, (str, list, tuple)):
        return len(value)
    return 1


def _check_size(value):
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_SIZE:
        raise _TooLarge()
    if (isinstance(value, int) and not isinstance(value, bool)
            and value.bit_length() > MAX_BITS):
        raise _TooLarge()
    return value


class _TooLarge(Exception):
    pass


def _range(*args):
    result = range(*args)
    if len(result) > MAX_RANGE:
        raise _TooLarge()
    return result


def _join(environment, value, d='', attribute=None):
    return _check_size(jinja2.filters.sync_do_join(
        environment, value, d, attribute))


class _CodeGenerator(jinja_compiler.CodeGenerator):
    """Concatenations (~) go through the environment's size check."""

    def visit_Concat(self, node, frame) -> None:
        self.write('environment.concat((')
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(', ')
        self.write('))')


class Sandbox(jinja_sandbox.ImmutableSandboxedEnvironment):
    """A Jinja2 environment whose templates read their variables and call
    their helpers, and nothing else."""

    code_generator_class = _CodeGenerator
    intercepted_binops = frozenset(('+', '*', '**', '%', '//', '/'))

    def __init__(self):
        super().__init__(undefined=jinja2.StrictUndefined,
                         autoescape=False)
        for name in _REMOVED_FILTERS:
            self.filters.pop(name, None)
        self.filters['join'] = jinja2.pass_environment(_join)
        for name in ('lipsum', 'cycler', 'joiner', 'namespace'):
            self.globals.pop(name, None)
        self.globals['range'] = _range

    def is_safe_attribute(self, obj, attr, value) -> bool:
        return isinstance(obj, _HELPERS) and attr in obj.ATTRIBUTES

    def is_safe_callable(self, obj) -> bool:
        return super().is_safe_callable(obj)

    def concat(self, values) -> str:
        values = [str(v) for v in values]
        if sum(len(v) for v in values) > MAX_SIZE:
            raise _TooLarge()
        return ''.join(values)

    def call_binop(self, context, operator, left, right):
        if operator == '*':
            if isinstance(left, (str, list, tuple)) or isinstance(
                    right, (str, list, tuple)):
                count = right if isinstance(right, int) else left
                if not isinstance(count, int) or (
                        count * (_size(left) if count is right
                                 else _size(right)) > MAX_SIZE):
                    raise _TooLarge()
            elif isinstance(left, int) and isinstance(right, int) and (
                    left.bit_length() + right.bit_length() > MAX_BITS):
                raise _TooLarge()
        elif operator == '**':
            if (isinstance(left, int) and isinstance(right, int)
                    and abs(left) > 1
                    and right * max(left.bit_length(), 1) > MAX_BITS):
                raise _TooLarge()
        elif operator == '%' and isinstance(left, str):
            raise exception.InvalidParameterValue(
                err='string formatting with % is not available in '
                    'templates; join strings with ~.')
        elif operator == '+' and isinstance(left, (str, list, tuple)) and (
                _size(left) + _size(right) > MAX_SIZE):
            raise _TooLarge()
        try:
            return _check_size(super().call_binop(context, operator, left,
                                                  right))
        except OverflowError:
            raise _TooLarge() from None


_ENVIRONMENT: Sandbox | None = None
_ENVIRONMENT_LOCK = threading.Lock()


def environment() -> Sandbox:
    global _ENVIRONMENT
    with _ENVIRONMENT_LOCK:
        if _ENVIRONMENT is None:
            _ENVIRONMENT = Sandbox()
        return _ENVIRONMENT


def _compile(source: str):
    env = environment()
    tree = env.parse(source)
    for node in tree.find_all(_REFUSED_NODES):
        raise exception.InvalidParameterValue(
            err='the %s statement is not available in templates.'
                % type(node).__name__.lower())
    return env.from_string(tree)


def _render(source: str, variables: dict | None) -> str:
    """The output of a template; with variables None, only compile it."""
    if len(source) > MAX_TEMPLATE:
        raise exception.InvalidParameterValue(
            err='a template has at most %d characters.' % MAX_TEMPLATE)
    template = _compile(source)
    if variables is None:
        return source
    parts, size = [], 0
    for chunk in template.generate(**variables):
        size += len(chunk)
        if size > MAX_SIZE:
            raise _TooLarge()
        parts.append(chunk)
    return ''.join(parts)


def variables(claim: dict, index: int, provider: dict,
              now: datetime.datetime) -> dict:
    """What the defaults of a provider may refer to, as Poolboy's."""
    return {'resource_claim': claim, 'resource_index': index,
            'resource_provider': provider,
            'timestamp': TimestampFactory(now), 'timedelta': TimeDelta}


def _walk(document, values: dict | None, where: str):
    """The document with every string rendered (values None: compiled),
    each output a string a database stores, MAX_OUTPUT characters in all.
    """
    total = [0]

    def walk(value, path):
        if isinstance(value, dict):
            return {k: walk(v, path + '/' + _escape(k))
                    for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, '%s/%d' % (path, i))
                    for i, v in enumerate(value)]
        if not isinstance(value, str):
            return value
        place = path or '/'
        output = _render_one(value, values, where, place)
        total[0] += len(output)
        if total[0] > MAX_OUTPUT:
            raise exception.InvalidParameterValue(
                err='%s: the templates render more than %d characters in '
                    'all (at %s).' % (where, MAX_OUTPUT, place))
        documents.check_string(output, '%s: the output of the template at '
                                       '%s' % (where, place))
        return output

    return walk(document, '')


def _render_one(source: str, values: dict | None, where: str,
                place: str) -> str:
    try:
        return _render(source, values)
    except _TooLarge:
        raise exception.InvalidParameterValue(
            err='%s: the template at %s builds a value larger than '
                'allowed (strings and lists of %d items, ranges of '
                '%d, integers of %d bits).'
                % (where, place, MAX_SIZE, MAX_RANGE, MAX_BITS)) from None
    except exception.InvalidParameterValue as exc:
        raise exception.InvalidParameterValue(
            err='%s: the template at %s: %s'
                % (where, place, exc.message)) from None
    except (jinja2.TemplateError, ArithmeticError, TypeError,
            ValueError, LookupError, RecursionError) as exc:
        raise exception.InvalidParameterValue(
            err='%s: the template at %s failed: %s'
                % (where, place, exc)) from None


def render_document(document, values: dict, where: str,
                    budget: sandbox.Budget | None = None,
                    check_only: bool = False):
    """A copy of a JSON document with every string rendered as a
    template with values, in a sandbox process (see sandbox.call()).

    :param where: what holds the document, for the messages.
    :param budget: the CPU time left to the request.
    :param check_only: compile the templates, do not render them.
    :raises: InvalidParameterValue naming where and the place of the
        template, for a template that fails or is refused, renders what
        a database cannot store, or goes beyond a limit of the sandbox
    """
    return sandbox.call(_walk, (document, None if check_only else values,
                                where),
                        '%s: rendering the templates' % where, budget)


def _escape(key: str) -> str:
    return key.replace('~', '~0').replace('/', '~1')
