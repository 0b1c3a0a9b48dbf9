"""The one secret masker: what pool shows, records or logs goes through it."""
from collections.abc import Iterable
import functools
import re

from oslo_utils import strutils

MASK = '******'
# Key names that hold secrets beyond oslo.utils' (password, secret, token,
# private_key, ...); a key holding one of them, any case, "-" read as "_",
# is secret.
KEYS = ('passwd', 'api_key', 'apikey', 'access_key', 'credential',
        'authorization')
# A known secret shorter than this is not searched for in text, where it
# would mask ordinary words.
MIN_KNOWN = 4

_KEY = '(?:%s)' % '|'.join(k.replace('_', '[_-]?') for k in KEYS)
_VALUE = r'[^\s"\',;&]+'
# Secrets in text, each in the group "secret" after the group "pre".
_SHAPES = (
    # Credentials in a URL: scheme://user:secret@host
    re.compile(r'(?P<pre>\b[a-z][a-z0-9+.-]*://[^\s:/@]*:)'
               r'(?P<secret>[^\s/@]+)(?=@)', re.I),
    # An HTTP Authorization value: Bearer secret, Basic secret
    re.compile(r'(?P<pre>\b(?:bearer|basic)\s+)(?P<secret>%s)' % _VALUE,
               re.I),
    # api_key=secret, "access_key": "secret", Authorization: secret
    re.compile(r'(?P<pre>%s\w*["\']?\s*[:=]\s*["\']?'
               r'(?:(?:bearer|basic)\s+)?)(?P<secret>%s)' % (_KEY, _VALUE),
               re.I),
    # --passwd secret
    re.compile(r'(?P<pre>--%s[\w-]*\s+)(?P<secret>[^\s"\',;&-]'
               r'[^\s"\',;&]*)' % _KEY, re.I),
)
# Each shape holds one of these: text without any skips them all.
_HINT = re.compile(r'://|bearer|basic|%s' % _KEY, re.I)
_FLAG = re.compile(r'--?([\w-]+)')


def is_secret_key(key) -> bool:
    """Whether a key's value is a secret, by its name."""
    return isinstance(key, str) and _is_secret_name(key)


@functools.lru_cache(maxsize=4096)
def _is_secret_name(key: str) -> bool:
    # Cached: answers mask node lists, whose keys repeat.
    name = key.lower().replace('-', '_')
    return (any(k in name for k in KEYS)
            or strutils.mask_dict_password({name: ''}, MASK)[name] == MASK)


def mask(value, keys: Iterable[str] = (), known: Iterable[str] = ()):
    """A copy of value (a JSON document: dicts, lists, strings, ...) with
    its secrets replaced by MASK: the whole value of a secret key (see
    is_secret_key()) or of one of keys, at any depth; an argument after
    a flag naming a secret key in a list (``["--password", "..."]``);
    and in strings, what oslo.utils' mask_password() masks (``password=
    ...``, ``--password ...``), credentials in a URL, Bearer and Basic
    values, the shapes of KEYS and the known secrets (of MIN_KNOWN
    characters or more) wherever they appear.
    """
    known = sorted({k for k in known
                    if isinstance(k, str) and len(k) >= MIN_KNOWN},
                   key=len, reverse=True)
    return _mask(value, frozenset(keys), known, None)


def secret_values(value) -> set[str]:
    """The secret strings mask() would hide in value, to hide them where
    they appear alone (such as in a program's output)."""
    found: set[str] = set()
    _mask(value, frozenset(), (), found)
    return found


def _mask(value, keys: frozenset, known: list, found: set | None):
    if isinstance(value, dict):
        return {k: _hide(v, found) if k in keys or is_secret_key(k)
                else _mask(v, keys, known, found)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hide(v, found) if i and _names_secret(value[i - 1])
                else _mask(v, keys, known, found)
                for i, v in enumerate(value)]
    if isinstance(value, str):
        return _mask_text(value, known, found)
    return value


def _names_secret(item) -> bool:
    """Whether a list item is a flag naming a secret: --password."""
    flag = _FLAG.fullmatch(item) if isinstance(item, str) else None
    return flag is not None and is_secret_key(flag.group(1))


def _hide(value, found: set | None) -> str:
    if found is not None:
        for text in _strings(value):
            found.add(text)
            _mask_text(text, (), found)  # Bearer <secret> holds one too.
    return MASK


def _strings(value) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _mask_text(text: str, known: list, found: set | None) -> str:
    """text masked; the secrets found added to found (when not None)."""
    if found is None and not known and len(text) <= _CACHED_TEXT:
        return _masked_text(text)

    def hide(match: re.Match) -> str:
        if match.group('secret') != MASK and found is not None:
            found.add(match.group('secret'))
        return match.group('pre') + MASK

    for secret in known:
        text = text.replace(secret, MASK)
    if _HINT.search(text):
        for shape in _SHAPES:
            text = shape.sub(hide, text)
    return strutils.mask_password(text, MASK)


# Strings up to this long are masked once and remembered.
_CACHED_TEXT = 256


@functools.lru_cache(maxsize=8192)
def _masked_text(text: str) -> str:
    # Cached: the strings of records and answers repeat (states, names,
    # interfaces), and oslo.utils' mask_password() tries many patterns.
    return _mask_text(text, (), set())
