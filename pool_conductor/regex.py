"""Regular expressions from users, compiled with RE2: linear time, no hang."""
import functools
import re

import re2


# Longer patterns are refused before they are compiled.
MAX_PATTERN_LENGTH = 255
# The memory RE2 may use for one compiled pattern.
MAX_MEMORY = 1 << 20
# The largest compiled program (RE2 instructions) of a pattern: a few
# thousand instructions match any value of a node in microseconds.
MAX_PROGRAM_SIZE = 5000
# PostgreSQL refuses repetition counts above 255 (RE2 above 1000).
MAX_REPEAT = 255
# Compiled patterns kept for SQLite's REGEXP.
CACHE_SIZE = 256

# Escapes with the same meaning in RE2, PostgreSQL and MariaDB (PCRE2);
# a backslash before other ASCII punctuation makes it a literal in all.
_ESCAPES = frozenset('dDsSwWntrf')
_CLASSES = frozenset(('alnum', 'alpha', 'blank', 'cntrl', 'digit', 'graph',
                      'lower', 'print', 'punct', 'space', 'upper',
                      'xdigit'))
_BOUND = re.compile(r'\{(\d+)(,(\d*))?\}')


class PatternError(ValueError):
    """Why a pattern is refused."""


def _options():
    options = re2.Options()
    options.max_mem = MAX_MEMORY
    options.log_errors = False
    return options


def compile_re2(pattern: str):
    """Compile a pattern with RE2 within the length and size limits.

    :raises: PatternError
    """
    if not isinstance(pattern, str):
        raise PatternError('a regular expression is a string.')
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError('a regular expression has at most %d characters.'
                           % MAX_PATTERN_LENGTH)
    try:
        compiled = re2.compile(pattern, _options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode('utf-8', 'replace')
        raise PatternError('bad regular expression: %s.' % reason) from None
    if compiled.programsize > MAX_PROGRAM_SIZE:
        raise PatternError('the regular expression is too complex (%d '
                           'instructions, at most %d).'
                           % (compiled.programsize, MAX_PROGRAM_SIZE))
    return compiled


def _escape(pattern: str, i: int) -> None:
    if i + 1 >= len(pattern):
        raise PatternError('the regular expression ends with a backslash.')
    char = pattern[i + 1]
    if char in _ESCAPES or (char.isascii() and not char.isalnum()
                            and char.isprintable()):
        return
    raise PatternError('the escape \\%s is not supported; escapes are '
                       '\\d \\D \\s \\S \\w \\W \\n \\t \\r \\f and a '
                       'backslash before punctuation.' % char)


def _bracket(pattern: str, i: int) -> int:
    """Check a bracket expression starting at i; the index after it."""
    i += 1
    if pattern[i:i + 1] == '^':
        i += 1
    if pattern[i:i + 1] == ']':
        i += 1
    while i < len(pattern):
        char = pattern[i]
        if char == ']':
            return i + 1
        if char == '\\':
            _escape(pattern, i)
            i += 2
            continue
        if char == '[' and pattern[i + 1:i + 2] in ('.', '=', ':'):
            end = pattern.find(pattern[i + 1] + ']', i + 2)
            name = pattern[i + 2:end] if end > 0 else ''
            if pattern[i + 1] != ':' or name not in _CLASSES:
                raise PatternError(
                    'in brackets, only the classes [:%s:] are supported.'
                    % ':], [:'.join(sorted(_CLASSES)))
            i = end + 2
            continue
        i += 1
    raise PatternError('a bracket expression is not closed.')


def check_portable(pattern: str) -> None:
    """Refuse what RE2, PostgreSQL and MariaDB do not read alike.

    Backreferences, lookarounds, possessive quantifiers and \\b, which
    RE2 refuses or reads differently, do not pass; nor do groups (?...)
    other than (?:...) and a leading (?i), escapes other than \\d \\D \\s
    \\S \\w \\W \\n \\t \\r \\f and escaped punctuation, collating
    elements, a { that does not start a repetition, and repetition counts
    above MAX_REPEAT.

    :raises: PatternError
    """
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == '\\':
            _escape(pattern, i)
            i += 2
        elif char == '[':
            i = _bracket(pattern, i)
        elif char == '(' and pattern[i + 1:i + 2] == '?':
            if pattern[i:i + 3] == '(?:':
                i += 3
            elif i == 0 and pattern.startswith('(?i)'):
                i += 4
            else:
                raise PatternError('groups (?...) other than (?:...) and '
                                   'a leading (?i) are not supported.')
        elif char == '{':
            bound = _BOUND.match(pattern, i)
            if not bound:
                raise PatternError('a { starts a repetition such as {2}, '
                                   '{2,} or {2,5}; a literal { is \\{.')
            counts = [int(n) for n in (bound.group(1), bound.group(3)) if n]
            if max(counts) > MAX_REPEAT:
                raise PatternError('repetition counts are at most %d.'
                                   % MAX_REPEAT)
            i = bound.end()
        else:
            i += 1


def check_filter(pattern: str) -> None:
    """Check a pattern of a filter, which every backend must run alike
    and in linear time.

    :raises: PatternError
    """
    compile_re2(pattern)
    check_portable(pattern)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _cached(pattern: str):
    return compile_re2(pattern)


def search(pattern: str, value) -> bool | None:
    """Whether an RE2 pattern matches part of value (SQL's REGEXP).

    Compiled patterns are cached (CACHE_SIZE of them).

    :raises: PatternError
    """
    if pattern is None or value is None:
        return None
    if not isinstance(value, str):
        value = str(value)
    return _cached(pattern).search(value) is not None

