"""Request bodies: JSON decoding, jsonschema validation and JSON Patch."""
import copy
import datetime
import json
import math
import re

import flask
import jsonpatch
import jsonpointer
import jsonschema
from webob import exc as webob_exc

from pool_api.schemas import common
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor import documents
from pool_conductor import exception
from pool_conductor import secrets

PATCH_SCHEMA = {
    'type': 'array',
    'minItems': 1,
    'items': {
        'type': 'object',
        'properties': {
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'path': {'type': 'string', 'pattern': '^/.+'},
            'value': {},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
        'if': {'properties': {'op': {'enum': ['add', 'replace']}}},
        'then': {'required': ['value']},
    },
}


# How deep a JSON document of a request may nest (objects and arrays); the
# documents pool stores are maps of a few levels, and MySQL refuses
# documents deeper than 100.
MAX_DEPTH = 32
# Numbers every backend stores, floats included.
MAX_INTEGER = db_api.MAX_NUMBER
# An integer of more digits is out of range: it is refused by its text,
# for int() of a long one is slow and refused past 4300 digits.
MAX_DIGITS = len(str(MAX_INTEGER))
_INTEGER = re.compile(r'-?[0-9]{1,%d}' % MAX_DIGITS)
# The latest point in time a request may give: a day before the last that
# Python and the databases hold, so that rounding it up to the second or
# adding an offset cannot overflow.
LATEST_TIMESTAMP = datetime.datetime(9999, 12, 31)


def _no_constant(name: str):
    raise ValueError('%s is not a JSON number' % name)


def _out_of_range(number: str, where: str) -> exception.Invalid:
    return exception.Invalid(
        '%s: the number %s is out of range: numbers may be from -%d to %d.'
        % (where, number, MAX_INTEGER, MAX_INTEGER))


def _parse_int(text: str) -> int:
    """An integer of a JSON document, refused by its length before int().
    """
    if len(text.lstrip('-')) > MAX_DIGITS:
        raise _out_of_range(text[:20] + '...', 'The request body')
    return int(text)


def integer(value: str, name: str) -> int:
    """An integer query parameter: ASCII digits, from -MAX_INTEGER to
    MAX_INTEGER, checked before int().

    :raises: InvalidParameterValue naming the parameter
    """
    if not (_INTEGER.fullmatch(value) and abs(int(value)) <= MAX_INTEGER):
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for the %s parameter: expected an '
                'integer from -%d to %d.' % (value[:40], name, MAX_INTEGER,
                                              MAX_INTEGER))
    return int(value)


def _pointer(path: tuple) -> str:
    """A JSON Pointer to a place in a document, printable as ASCII."""
    if not path:
        return '/'
    parts = (str(p).replace('~', '~0').replace('/', '~1') for p in path)
    return json.dumps('/' + '/'.join(parts))[1:-1]


# The API checks the strings of requests as the core checks what templates
# render.
check_string = documents.check_string


def check_document(document, what: str = 'The request body') -> None:
    """Refuse a JSON document that a backend cannot store or a handler
    cannot walk: deeper than MAX_DEPTH, with a string check_string()
    refuses (keys too) or a number beyond +/-MAX_INTEGER. Walks without
    recursion.

    :raises: Invalid naming the place in the document
    """
    stack = [(document, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, (dict, list)):
            if len(path) >= MAX_DEPTH:
                raise exception.Invalid(
                    '%s nests deeper than %d levels at %s.'
                    % (what, MAX_DEPTH, _pointer(path)))
            if isinstance(value, dict):
                for key, item in value.items():
                    check_string(key, '%s: a key at %s' % (what,
                                                            _pointer(path)))
                    stack.append((item, path + (key,)))
            else:
                stack.extend((item, path + (i,))
                             for i, item in enumerate(value))
        elif isinstance(value, str):
            check_string(value, '%s: the value at %s' % (what,
                                                          _pointer(path)))
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, (int, float)):
            # math.isfinite() of an int beyond a double overflows.
            if not (abs(value) <= MAX_INTEGER and (
                    isinstance(value, int) or math.isfinite(value))):
                raise _out_of_range('at %s' % _pointer(path), what)


def parse_json(data: bytes):
    """Decode a JSON document strictly and check it with check_document().

    NaN, Infinity and -Infinity are not JSON and are refused.

    :raises: Invalid
    """
    try:
        document = json.loads(data, parse_constant=_no_constant,
                              parse_int=_parse_int)
    except RecursionError:
        raise exception.Invalid('The request body nests deeper than %d '
                                'levels.' % MAX_DEPTH) from None
    except ValueError as exc:
        raise exception.Invalid('The request body is not valid JSON: %s'
                                % exc) from None
    check_document(document)
    return document


def body() -> bytes:
    """The body of the request, read once.

    :raises: Invalid when the body cannot be read: the client stopped
        sending it ([api] client_socket_timeout) or its chunked encoding
        is malformed
    """
    try:
        return flask.request.get_data(cache=True)
    except webob_exc.HTTPException:
        # oslo.middleware's body size limit: its own answer, 413.
        raise
    except (TimeoutError, BlockingIOError):
        # Python's timeout of the socket, or the kernel's (pool-api).
        raise exception.Invalid(
            'The request body could not be read: none of it came for %s '
            'seconds.' % CONF.api.client_socket_timeout) from None
    except Exception as exc:
        # Each WSGI server raises its own errors for a body that does not
        # arrive as announced (gunicorn's are not OSError or ValueError).
        raise exception.Invalid('The request body could not be read: %s'
                                % (exc or type(exc).__name__)) from None


def json_body():
    """The decoded JSON body of the request, checked by parse_json().

    :raises: Invalid when the body is missing, cannot be read (see
        body()), is not JSON or holds what check_document() refuses
    """
    data = body()
    if not data:
        raise exception.Invalid('The request has no body; a JSON document '
                                'is expected.')
    return parse_json(data)


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == 'additionalProperties':
        return error.message
    path = '/'.join(str(p) for p in error.absolute_path)
    # The value refused may be a secret, or hold some: shown masked.
    shown = (secrets.MASK if any(secrets.is_secret_key(p)
                                 for p in error.absolute_path)
             else secrets.mask(error.instance))
    message = error.message
    if message.startswith(repr(error.instance)):
        message = repr(shown) + message[len(repr(error.instance)):]
    message = secrets.mask(message)
    if not path:
        return message
    if (error.validator in ('pattern', 'minLength', 'maxLength')
            and error.schema.get('pattern') == common.NAME_PATTERN):
        message = common.NAME_RULE
    return 'Invalid input for field/attribute %s. Value: %s. %s' % (
        path, flask.json.dumps(shown), message)


# The validator of each schema, built once: the schemas are constants of
# pool_api.schemas. Keyed by identity, with the schema kept beside its
# validator so that the key cannot be reused; bounded all the same.
_VALIDATORS: dict[int, tuple[dict, jsonschema.Draft202012Validator]] = {}
_MAX_VALIDATORS = 512


def _validator(schema: dict) -> jsonschema.Draft202012Validator:
    found = _VALIDATORS.get(id(schema))
    if found is None or found[0] is not schema:
        found = (schema, jsonschema.Draft202012Validator(schema))
        if len(_VALIDATORS) < _MAX_VALIDATORS:
            _VALIDATORS[id(schema)] = found
    return found[1]


def validate(schema: dict, data) -> None:
    """Check data against a JSON schema.

    :raises: Invalid naming the first field in error
    """
    validator = _validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise exception.Invalid(_describe(error))


def timestamp(value: str | None, key: str) -> datetime.datetime | None:
    """A point in time of a request (ISO 8601; UTC unless it names an
    offset), as the database stores it: naive UTC.

    :raises: InvalidParameterValue naming key
    """
    if value is None:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err='%s must be a date and time in ISO 8601 format, such as '
                '2026-12-01T12:00:00+00:00, not %r.' % (key, value)
        ) from None
    if parsed.tzinfo is not None:
        try:
            parsed = parsed.astimezone(datetime.timezone.utc)
        except OverflowError:
            parsed = None
    if parsed is None or parsed.replace(tzinfo=None) >= LATEST_TIMESTAMP:
        raise exception.InvalidParameterValue(
            err='%s is out of range: %r; it must be before %s+00:00.'
                % (key, value, LATEST_TIMESTAMP.isoformat()))
    return parsed.replace(tzinfo=None)


def apply_patch(document: dict, patch, patchable, defaults: dict) -> dict:
    """Apply a JSON Patch to a resource's API representation.

    :param patchable: the top-level fields the patch may touch.
    :param defaults: the value of a top-level field the patch removed.
    :returns: the patched copy; fields removed by the patch carry their
        default.
    :raises: Invalid for a malformed patch, a read-only field or a path
        that does not exist
    """
    validate(PATCH_SCHEMA, patch)
    for op in patch:
        root = op['path'].split('/')[1]
        if root not in patchable:
            if root in document:
                raise exception.Invalid(
                    "'/%s' is an internal attribute and can not be updated"
                    % root)
            raise exception.Invalid("Cannot patch %s: there is no field "
                                    "'%s'" % (op['path'], root))
    result = _apply(document, patch)
    for key in patchable:
        if key not in result:
            result[key] = copy.deepcopy(defaults.get(key))
    return result


def _apply(document: dict, patch) -> dict:
    """Apply a JSON Patch; the result is checked by check_document()."""
    try:
        result = jsonpatch.apply_patch(copy.deepcopy(document), patch)
    except (jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException) as exc:
        raise exception.Invalid('Cannot apply the patch: %s' % exc) from None
    # A patch path adds depth to its value's.
    check_document(result, 'The patched document')
    return result


def patch_map(document: dict, patch) -> dict:
    """Apply a JSON Patch to a free-form map (every key may change).

    :raises: Invalid for a malformed patch or a path that does not exist
    """
    validate(PATCH_SCHEMA, patch)
    return _apply(document, patch)


def changes(before: dict, after: dict, fields) -> dict:
    """The fields whose value differs between two representations."""
    return {f: after[f] for f in fields if after.get(f) != before.get(f)}
