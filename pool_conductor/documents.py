"""Strings that every database stores as text, for request bodies and
what templates render alike."""
from pool_conductor import exception


def check_string(value: str, where: str) -> None:
    """Refuse a string no database stores as text: a NUL character or a
    lone surrogate (not UTF-8).

    :param where: what holds the string, for the message.
    :raises: Invalid
    """
    if '\x00' in value:
        raise exception.Invalid('%s holds a NUL character, which cannot be '
                                'stored.' % where)
    try:
        value.encode('utf-8')
    except UnicodeEncodeError:
        raise exception.Invalid('%s holds a lone surrogate (\\ud800 to '
                                '\\udfff), which is not a character.'
                                % where) from None
