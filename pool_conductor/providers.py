"""Providers of machines for claims, as Poolboy's ResourceProviders: the
rules of their fields, and the resolution of a claim's resource template
(defaults rendered, merged under the template, validated).

What a provider decides when a claim is bound lives here too: which Free
machine of its pool one resource gets (match(): a machine made for the
resource first, else one its template matches), and the template the
resource then applies to it (overrides()). pool_conductor.claims calls
them under its claim's lock and its pools' share locks, and gives the
machines through the binding writer; nothing here writes.
"""
import copy
import datetime
import json

import jsonpatch
import jsonpointer
from jsonschema import exceptions as schema_exc

from pool_conductor.db import free_nodes
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import named
from pool_conductor import regex
from pool_conductor import rounds
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
    """With templates enabled, every string of defaults and override must
    be a template the sandbox accepts (it is rendered with placeholder
    values).

    :raises: InvalidParameterValue naming the provider and the place
    """
    if not (values.get('template') or {}).get('enable'):
        return
    for field in ('defaults', 'override'):
        templates.render_document(
            values.get(field) or {},
            templates.variables({}, 0, {'name': name}, datetime.datetime(
                2000, 1, 1)), 'Provider %s %s' % (name, field),
            check_only=True)


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
    if values.get('resource_requires_claim') and values.get('pool'):
        pool = pools_db.get(context, models.Pool, values['pool'])
        if not pool.broker:
            raise exception.InvalidParameterValue(
                err='Provider %s: resource_requires_claim needs a pool '
                    'with a broker to make the machines of claims; pool '
                    '%s has none.' % (name, pool.name))


def create_provider(context, values: dict) -> models.Provider:
    """:raises: ObjectNotFound, ObjectAlreadyExists, InvalidParameterValue
    """
    check_provider(context, values)
    return named.create(context, models.Provider, values)


def delete_provider(context, name: str) -> None:
    """Delete a provider no claim uses (a claim that is not expired).

    :raises: ObjectNotFound, ObjectInUse
    """
    named.delete(context, models.Provider, name)


def update_provider(context, name: str, before, changed: dict
                    ) -> models.Provider:
    """:raises: ObjectNotFound, InvalidParameterValue"""
    check_provider(context, {
        'name': name, **changed,
        **{f: changed.get(f, getattr(before, f))
           for f in ('template', 'defaults', 'override', 'pool',
                     'resource_requires_claim')}})
    return named.update(context, models.Provider, name, changed)


def as_dict(provider) -> dict:
    """What templates see of a provider (resource_provider)."""
    return {'name': provider.name, 'pool': provider.pool,
            'description': provider.description,
            'defaults': provider.defaults or {},
            'override': provider.override or {},
            'match': provider.match or {},
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


def fits(pattern, value) -> bool:
    """Whether value has all of pattern: maps key by key, anything else
    equal (Poolboy's match of a template to a provider)."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(
            key in value and fits(v, value[key])
            for key, v in pattern.items())
    return pattern == value


def choose(candidates, template: dict, index: int) -> str:
    """The provider of a claim's resource that names none: the one whose
    match its template fits.

    :param candidates: every provider (their name and match).
    :raises: InvalidParameterValue when none fits, or several do (naming
        them)
    """
    found = [p.name for p in candidates
             if p.match and fits(p.match, template)]
    if len(found) == 1:
        return found[0]
    if found:
        raise exception.InvalidParameterValue(
            err='resources/%d: the template fits the match of several '
                'providers: %s; name one of them.'
                % (index, ', '.join(found)))
    raise exception.InvalidParameterValue(
        err='resources/%d names no provider and its template fits the '
            'match of none; name a provider.' % index)


def override(provider, template: dict, index: int, claim: dict,
             handle: dict, requester: dict | None,
             now: datetime.datetime) -> dict:
    """A bound resource's template with its provider's override (rendered
    when its templates are enabled, with Poolboy's variables of
    overrides) merged over it.

    :param handle: what templates see of the handle (resource_handle).
    :param requester: the identity of who made the claim.
    :raises: InvalidParameterValue
    """
    values = provider.override or {}
    if not values:
        return template
    if (provider.template or {}).get('enable'):
        requester = requester or {}
        values = templates.render_document(
            values, {**templates.variables(claim, index, as_dict(provider),
                                           now),
                     'resource_handle': handle,
                     'resource_template': template,
                     'requester_identity': requester,
                     'requester_user': requester.get('user_name')
                     or requester.get('user_id')},
            'Provider %s override (resources/%d)' % (provider.name, index))
    return merge(template, values)


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


# What a resource template matches, and how it may change -----------------

# Candidates read at once when a template has params SQL cannot compare
# (maps, lists, or params partly ignored).
_PAGE = 50


def _ignored_under(ignored: list[tuple], prefix: tuple) -> list[tuple]:
    return [p[len(prefix):] for p in ignored if p[:len(prefix)] == prefix]


def _strip(value, ignored: list[tuple]):
    """A copy of value without the places ignored points to."""
    value = copy.deepcopy(value)
    for path in sorted(ignored, key=len, reverse=True):
        parent = value
        for part in path[:-1]:
            if isinstance(parent, dict):
                parent = parent.get(part)
            elif isinstance(parent, list) and part.isdigit() and int(
                    part) < len(parent):
                parent = parent[int(part)]
            else:
                parent = None
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif isinstance(parent, list) and path[-1].isdigit() and int(
                path[-1]) < len(parent):
            parent.pop(int(path[-1]))
    return value


class Match:
    """What a Free machine must be to satisfy a resource template,
    outside its provider's match_ignore: of its resource class, with its
    traits, with its params (the node's own) equal."""

    def __init__(self, template: dict, ignored: list[tuple]):
        whole = () in ignored
        self.resource_class = None if whole or ('resource_class',) in \
            ignored else template.get('resource_class')
        self.traits = () if whole or ('traits',) in ignored else tuple(
            sorted(set(template.get('traits') or ())))
        params = {} if whole or ('params',) in ignored else (
            template.get('params') or {})
        self.sql_params, self.other = {}, {}
        for key, value in params.items():
            under = _ignored_under(ignored, ('params', key))
            if () in under:
                continue
            if (not under and isinstance(value, (str, int, float, bool))
                    and value is not None):
                self.sql_params[key] = value
            else:
                self.other[key] = (value, under)

    def checks(self, node) -> bool:
        """Whether a node's params SQL did not compare match."""
        params = node.params or {}
        return all(
            key in params and _strip(params[key], under) == _strip(value,
                                                                   under)
            for key, (value, under) in self.other.items())

    def find(self, conn, pool: str, exclude, lock: bool = True,
             project: str | None = None):
        """A free node of pool that matches, locked (with lock); only one
        the project owns or leases, with project."""
        after = 0
        while True:
            rows = free_nodes.matching(
                conn, pool, self.resource_class, self.traits,
                self.sql_params, exclude, after,
                _PAGE if self.other else 1, lock, project)
            for row in rows:
                if self.checks(row):
                    return row
            if len(rows) < (_PAGE if self.other else 1):
                return None
            after = rows[-1].id

    def describe(self) -> str:
        parts = []
        if self.resource_class:
            parts.append('resource class %s' % self.resource_class)
        if self.traits:
            parts.append('traits %s' % ', '.join(self.traits))
        params = {**self.sql_params,
                  **{k: v for k, (v, _) in self.other.items()}}
        if params:
            parts.append('params %s' % json.dumps(params, sort_keys=True))
        return ' and '.join(parts) or 'any machine'


def request_actions(template: dict) -> dict:
    """What giving a machine to a resource does to it besides its pool's
    allocate actions: the template's params, profiles and workflow."""
    return {'add_parameters': template.get('params') or {},
            'add_profiles': template.get('profiles') or [],
            'workflow': template.get('workflow')}


def release_actions(template: dict) -> dict:
    """What taking a machine back from a resource undoes of
    request_actions(): the params and profiles its template set."""
    return {'remove_parameters': sorted(template.get('params') or {}),
            'remove_profiles': list(template.get('profiles') or [])}


def _paths(op: dict) -> list[tuple[str, str]]:
    """The (op, path) pairs an operation of a generated patch amounts to:
    a move removes its source and adds its target, a copy adds."""
    if op['op'] == 'move':
        return [('remove', op['from']), ('add', op['path'])]
    if op['op'] == 'copy':
        return [('add', op['path'])]
    return [(op['op'], op['path'])]


def template_changes(provider, index: int, old: dict, new: dict
                     ) -> list[dict]:
    """The JSON Patch from a bound resource's template to its new one,
    every operation allowed by the provider's update_filters.

    :raises: InvalidParameterValue naming the path an operation changes
        that no filter allows, or a change of what selected the machine
    """
    patch = jsonpatch.make_patch(old, new).patch
    for op in patch:
        for kind, path in _paths(op):
            root = path.split('/')[1] if path.count('/') else ''
            if root in ('resource_class', 'traits'):
                raise exception.InvalidParameterValue(
                    err='resources/%d/template%s: the %s of a bound '
                        'resource cannot change; it chose the machine.'
                        % (index, path, root))
            if not allowed_op(provider, kind, path):
                raise exception.InvalidParameterValue(
                    err='resources/%d/template%s: the update_filters of '
                        'provider %s do not allow the operation %s on this '
                        'path.' % (index, path, provider.name, kind))
    return patch


def node_actions(old: dict, new: dict) -> dict:
    """The transition actions that take a machine from the params,
    profiles and workflow of one template to those of another."""
    old_params, new_params = old.get('params') or {}, new.get(
        'params') or {}
    old_profiles, new_profiles = (old.get('profiles') or [],
                                  new.get('profiles') or [])
    actions = {
        'add_parameters': {k: v for k, v in new_params.items()
                           if old_params.get(k, v) != v
                           or k not in old_params},
        'remove_parameters': [k for k in old_params if k not in new_params],
        'add_profiles': [p for p in new_profiles if p not in old_profiles],
        'remove_profiles': [p for p in old_profiles
                            if p not in new_profiles],
    }
    if new.get('workflow') != old.get('workflow'):
        actions['workflow'] = new.get('workflow')
    return actions


# A claim's resources given machines ---------------------------------------

def _of_project(claim) -> str:
    if claim.node_project is None:
        return ''
    return ' owned or leased by project %s' % claim.node_project


def match(conn, claim, index: int, provider, broker: bool,
          made_prefix: str | None, exclude: list[int]):
    """The Free node of provider's pool that resource index of a locked
    claim gets, locked: a machine made for the resource first (made to
    its template, which its params may not show), else, unless the
    provider has a machine made for each claim (resource_requires_claim),
    one its template matches (Match); only one the claim's node_project
    (if any) owns or leases, and none in exclude.

    :param broker: whether the pool has a broker to make a machine.
    :param made_prefix: how the broker tokens of the machines made for
        the resource start, or None when none were made for the claim.
    :returns: the node, or None when the pool's broker is to make one.
    :raises: rounds.Rollback: FAILED when no machine can be had, BUSY
        when the machines that match are locked by other transactions
    """
    wanted = Match(claim.resources[index]['template'], ignored(provider))
    project = claim.node_project
    node = free_nodes.made_with(conn, provider.pool, made_prefix, exclude,
                                project) if made_prefix else None
    if node is not None or (broker and provider.resource_requires_claim):
        return node
    if provider.resource_requires_claim:
        raise rounds.Rollback(
            rounds.FAILED, 'Provider %s makes a machine for each claim '
            '(resource_requires_claim), and its pool %s has no broker.'
            % (provider.name, provider.pool))
    node = wanted.find(conn, provider.pool, exclude, project=project)
    if node is None and wanted.find(conn, provider.pool, exclude,
                                    lock=False, project=project):
        raise rounds.Rollback(rounds.BUSY, None)
    if node is None and not broker:
        raise rounds.Rollback(
            rounds.FAILED, 'No Free machine of pool %s (provider %s)%s '
            'matches resource %d: %s.' % (
                provider.pool, provider.name, _of_project(claim), index,
                wanted.describe()))
    return node


def _claim_document(claim) -> dict:
    """What templates see of a claim (resource_claim)."""
    return {'uuid': claim.uuid, 'name': claim.name, 'owner': claim.owner,
            'resources': claim.resources,
            'lifespan_end': templates.Timestamp(claim.lifespan_end)
            if claim.lifespan_end else None}


def overrides(claim, found: dict, nodes: dict[int, object],
              instance_uuids: dict[int, str], now: datetime.datetime
              ) -> dict[int, dict]:
    """The templates the resources of a claim being bound apply to their
    machines: each provider's override over the claimed template
    (override()).

    :param found: the claim's providers by name.
    :param nodes: resource index -> the node it gets.
    :param instance_uuids: resource index -> the UUID of its allocation.
    :returns: resource index -> the template applied.
    :raises: rounds.Rollback(FAILED) for an override that fails
    """
    document = _claim_document(claim)
    applied = {}
    for i, node in nodes.items():
        resource = claim.resources[i]
        provider = found[resource['provider']]
        handle = {'uuid': instance_uuids[i],
                  'allocation_uuid': instance_uuids[i],
                  'resource_index': i, 'provider': provider.name,
                  'node': {'uuid': node.uuid, 'name': node.name,
                           'pool': node.pool}}
        try:
            applied[i] = override(provider, resource['template'], i,
                                  document, handle, claim.requester, now)
        except exception.InvalidParameterValue as exc:
            raise rounds.Rollback(rounds.FAILED, exc.message) from None
    return applied
