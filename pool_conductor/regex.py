"""Regular expressions from users, compiled with RE2: linear time, no hang."""
import re2

from pool_conductor import exception

# Longer patterns are refused before they are compiled.
MAX_PATTERN_LENGTH = 255
# The memory RE2 may use for one compiled pattern.
MAX_MEMORY = 1 << 20


def compile_safe(pattern: str, field: str = 'regex'):
    """Compile a user's regular expression for matching in linear time.

    RE2 has no backtracking: a pattern such as ``(a+)+b`` cannot make a
    match run for long, and backreferences and lookarounds, which need
    backtracking, are refused.

    :param field: the name of the parameter, for the error message
    :raises: Invalid for a pattern that is too long, not valid or beyond
        RE2
    """
    if not isinstance(pattern, str):
        raise exception.Invalid('The %s must be a string.' % field)
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise exception.Invalid('The %s may have at most %d characters.'
                                % (field, MAX_PATTERN_LENGTH))
    options = re2.Options()
    options.max_mem = MAX_MEMORY
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raise exception.Invalid('Invalid %s "%s": %s'
                                % (field, pattern, exc)) from None
