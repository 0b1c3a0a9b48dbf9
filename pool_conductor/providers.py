"""Providers of machines for claims, as Poolboy's ResourceProviders: the
rules of their fields, and the resolution of a claim's resource template
(defaults rendered, merged under the template, validated)."""
import copy
import datetime
import json

import jsonpointer
from jsonschema import exceptions as schema_exc

from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import regex
from pool_conductor import sandbox
from pool_conductor import schemas
from pool_conductor import templates

# The largest validation schema, as JSON text.
MAX_VALIDATION = 65536
OPS = ('add', 'replace', 'remove')


def _patterns(schema):
    """Every regular expression of a schema (pattern, patternProperties)."""
    stack = [schema]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get('pattern'), str):
                yield value['pattern']
            if isinstance(value.get('patternProperties'), dict):
                yield from value['patternProperties']
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def check_validation(name: str, schema: dict) -> None:
    """:raises: InvalidParameterValue for a schema that is not a valid
    JSON schema, is too large, or has a pattern RE2 refuses"""
    if len(json.dumps(schema)) > MAX_VALIDATION:
        raise exception.InvalidParameterValue(
            err='Provider %s: validation is larger than %d characters of '
                'JSON.' % (name, MAX_VALIDATION))
    for reference in schemas.outside_references(schema):
        raise exception.InvalidParameterValue(
            err='Provider %s: validation refers to %r: only references '
                'inside the schema (#...) are followed; nothing is '
                'fetched.' % (name, reference))
    try:
        schemas.Validator.check_schema(schema)
    except schema_exc.SchemaError as exc:
        raise exception.InvalidParameterValue(
            err='Provider %s: validation is not a valid JSON schema: %s'
                % (name, exc.message)) from None
    # References that resolve nowhere show on a first use.
    unusable = (_first_error(schema, {}, 'Provider %s: applying validation'
                             % name) or {}).get('unusable')
    if unusable:
        raise exception.InvalidParameterValue(
            err='Provider %s: validation cannot be applied: %s'
                % (name, unusable))
    for pattern in _patterns(schema):
        try:
            regex.compile_re2(pattern)
        except regex.PatternError as exc:
            raise exception.InvalidParameterValue(
                err='Provider %s: validation has the pattern %r: %s'
                    % (name, pattern, exc)) from None


def _pointer(text: str, where: str) -> jsonpointer.JsonPointer:
    try:
        return jsonpointer.JsonPointer(text)
    except jsonpointer.JsonPointerException as exc:
        raise exception.InvalidParameterValue(
            err='%s: %r is not a JSON pointer: %s' % (where, text, exc)
        ) from None


def _anchored(pattern: str) -> str:
    return '^(?:%s)$' % pattern


def check_update_filters(name: str, filters: list) -> None:
    """:raises: InvalidParameterValue for a pattern RE2 refuses"""
    for i, item in enumerate(filters):
        try:
            regex.compile_re2(item['path_match'])
            regex.compile_re2(_anchored(item['path_match']))
        except regex.PatternError as exc:
            raise exception.InvalidParameterValue(
                err='Provider %s: update_filters/%d/path_match: %s'
                    % (name, i, exc)) from None


def check_defaults(name: str, values: dict) -> None:
    """With templates enabled, every string of defaults must be a
    template the sandbox accepts (it is rendered with placeholder
    values).

    :raises: InvalidParameterValue naming the provider and the place
    """
    if not (values.get('template') or {}).get('enable'):
        return
    templates.render_document(
        values.get('defaults') or {},
        templates.variables({}, 0, {'name': name}, datetime.datetime(
            2000, 1, 1)), 'Provider %s defaults' % name, check_only=True)


def check_provider(context, values: dict) -> None:
    """Check the fields of a provider (all of them, or those a change
    sets).

    :raises: ObjectNotFound for its pool, InvalidParameterValue
    """
    name = values['name']
    if values.get('pool') is not None:
        pools_db.get(context, models.Pool, values['pool'])
    if values.get('validation') is not None:
        check_validation(name, values['validation'])
    for i, text in enumerate(values.get('match_ignore') or ()):
        _pointer(text, 'Provider %s: match_ignore/%d' % (name, i))
    check_update_filters(name, values.get('update_filters') or ())
    lifespans.check_policy(values.get('lifespan'))
    check_defaults(name, values)


def create_provider(context, values: dict) -> models.Provider:
    """:raises: ObjectNotFound, ObjectAlreadyExists, InvalidParameterValue
    """
    check_provider(context, values)
    return providers_db.create(context, values)


def update_provider(context, name: str, before, changed: dict
                    ) -> models.Provider:
    """:raises: ObjectNotFound, InvalidParameterValue"""
    check_provider(context, {'name': name, **changed,
                             'template': changed.get('template',
                                                     before.template),
                             'defaults': changed.get('defaults',
                                                     before.defaults)})
    return providers_db.update(context, name, changed)


def as_dict(provider) -> dict:
    """What templates see of a provider (resource_provider)."""
    return {'name': provider.name, 'pool': provider.pool,
            'description': provider.description,
            'defaults': provider.defaults or {},
            'lifespan': provider.lifespan or {}}


def merge(defaults, template):
    """template over defaults: maps merged key by key, anything else
    replaced by the template's."""
    if isinstance(defaults, dict) and isinstance(template, dict):
        result = copy.deepcopy(defaults)
        for key, value in template.items():
            result[key] = merge(defaults.get(key), value)
        return result
    return copy.deepcopy(template)


def _first_error(schema: dict, document, what: str,
                 budget: sandbox.Budget | None = None) -> dict | None:
    return sandbox.call(schemas.first_error, (schema, document), what,
                        budget)


def validate(provider, template: dict, index: int,
             budget: sandbox.Budget | None = None) -> None:
    """:raises: InvalidParameterValue naming the resource, its provider
    and the place in its template"""
    schema = provider.validation or {}
    if not schema:
        return
    error = _first_error(schema, template, 'resources/%d/template: '
                         'validating it against provider %s'
                         % (index, provider.name), budget)
    if error is None:
        return
    if 'unusable' in error:
        # A reference that resolves nowhere, or one outside the schema
        # written before such references were refused.
        raise exception.InvalidParameterValue(
            err='resources/%d: the validation of provider %s cannot be '
                'applied: %s' % (index, provider.name, error['unusable']))
    path = '/'.join(str(p) for p in error['path'])
    raise exception.InvalidParameterValue(
        err='resources/%d/template/%s: %s (validation of provider %s).'
            % (index, path, error['message'], provider.name))


def resolve(provider, template: dict, index: int, claim: dict,
            now: datetime.datetime, budget: sandbox.Budget | None = None
            ) -> dict:
    """A claim's resource template with its provider's defaults (rendered
    when its templates are enabled) merged under it.

    :raises: InvalidParameterValue
    """
    defaults = provider.defaults or {}
    if (provider.template or {}).get('enable'):
        defaults = templates.render_document(
            defaults, templates.variables(claim, index, as_dict(provider),
                                          now),
            'Provider %s defaults (resources/%d)' % (provider.name, index),
            budget)
    return merge(defaults, template)


def ignored(provider) -> list[tuple]:
    """The match_ignore pointers of a provider, as tuples of parts."""
    return [tuple(jsonpointer.JsonPointer(p).parts)
            for p in provider.match_ignore or ()]


def allowed_op(provider, op: str, path: str) -> bool:
    """Whether the update_filters of a provider let op change path."""
    for item in provider.update_filters or ():
        if op in item.get('allowed_ops', OPS) and regex.search(
                _anchored(item['path_match']), path):
            return True
    return False
