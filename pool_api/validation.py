"""Request bodies: JSON decoding, jsonschema validation and JSON Patch."""
import copy

import flask
import jsonpatch
import jsonpointer
import jsonschema

from pool_conductor import exception

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


def json_body():
    """The decoded JSON body of the request.

    :raises: Invalid when the body is missing or not JSON
    """
    data = flask.request.get_data(cache=True)
    if not data:
        raise exception.Invalid('The request has no body; a JSON document '
                                'is expected.')
    try:
        return flask.json.loads(data)
    except ValueError as exc:
        raise exception.Invalid('The request body is not valid JSON: %s'
                                % exc) from None


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == 'additionalProperties':
        return error.message
    path = '/'.join(str(p) for p in error.absolute_path)
    if not path:
        return error.message
    return 'Invalid input for field/attribute %s. Value: %s. %s' % (
        path, flask.json.dumps(error.instance), error.message)


def validate(schema: dict, data) -> None:
    """Check data against a JSON schema.

    :raises: Invalid naming the first field in error
    """
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise exception.Invalid(_describe(error))


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
    try:
        return jsonpatch.apply_patch(copy.deepcopy(document), patch)
    except (jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException) as exc:
        raise exception.Invalid('Cannot apply the patch: %s' % exc) from None


def patch_map(document: dict, patch) -> dict:
    """Apply a JSON Patch to a free-form map (every key may change).

    :raises: Invalid for a malformed patch or a path that does not exist
    """
    validate(PATCH_SCHEMA, patch)
    return _apply(document, patch)


def changes(before: dict, after: dict, fields) -> dict:
    """The fields whose value differs between two representations."""
    return {f: after[f] for f in fields if after.get(f) != before.get(f)}
