"""The JSON schemas of providers: patterns matched by RE2, references
followed only inside the schema, nothing fetched."""
import jsonschema
from jsonschema import exceptions as schema_exc
import referencing
from referencing import exceptions as referencing_exc

from pool_conductor import regex

# The keywords whose value is a reference to another schema.
_REFERENCES = ('$ref', '$dynamicRef')


def _re2_pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, 'string') and not regex.search(
            pattern, instance):
        yield schema_exc.ValidationError('%r does not match %r'
                                         % (instance, pattern))


def _re2_pattern_properties(validator, properties, instance, schema):
    if not validator.is_type(instance, 'object'):
        return
    for pattern, subschema in properties.items():
        for key, value in instance.items():
            if regex.search(pattern, key):
                yield from validator.descend(value, subschema, path=key,
                                             schema_path=pattern)


# JSON schema with its patterns matched by RE2 (linear time): a schema
# from a provider cannot make validation hang.
Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {'pattern': _re2_pattern, 'patternProperties': _re2_pattern_properties})


def _refuse(uri: str):
    raise referencing_exc.NoSuchResource(ref=uri)


# Without a registry, jsonschema fetches what a reference names with
# urllib (http://, file://): this one holds nothing and fetches nothing.
NO_RETRIEVAL = referencing.Registry(retrieve=_refuse)


def outside_references(schema):
    """The references of a schema ($ref, $dynamicRef) that are not a
    pointer or an anchor inside it (#...), at any depth."""
    stack = [schema]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if (key in _REFERENCES and isinstance(item, str)
                        and not item.startswith('#')):
                    yield item
                stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)


def first_error(schema: dict, instance) -> dict | None:
    """The error that best describes why instance does not satisfy
    schema; run in a sandbox process (see sandbox.call()).

    :returns: None when it does; {"message", "path"} of the error; or
        {"unusable": why} for a schema that cannot be applied (a reference
        outside it, or one that resolves nowhere)
    """
    for reference in outside_references(schema):
        return {'unusable': 'it refers to %r, outside itself' % reference}
    try:
        error = schema_exc.best_match(Validator(
            schema, registry=NO_RETRIEVAL).iter_errors(instance))
    except MemoryError:
        raise
    except Exception as exc:
        return {'unusable': str(exc)}
    if error is None:
        return None
    return {'message': error.message, 'path': list(error.absolute_path)}
