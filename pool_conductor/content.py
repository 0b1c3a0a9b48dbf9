"""Content: workflows, profiles, brokers, pools and providers as one
document, exported and imported back (Digital Rebar's content packs).

The document is {"meta": {...}, "sections": {kind: {name: fields}}}. It
leaves secrets out: the values of secret keys (those the API masks) in
the maps of every object, and a profile's secret params. An import
creates the objects it does not find and changes those it finds to what
the document says, keeping the secrets the document left out, all in one
transaction: it is whole or nothing, each change with its event.
"""
from pool_conductor import autofill
from pool_conductor import brokers
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import exception
from pool_conductor import named
from pool_conductor import pools
from pool_conductor import providers
from pool_conductor import secrets

# The kinds, in the order an import makes them: what a kind refers to
# comes before it.
KINDS = ('workflows', 'profiles', 'brokers', 'pools', 'providers')
MODELS = {'workflows': models.Workflow, 'profiles': models.Profile,
          'brokers': models.Broker, 'pools': models.Pool,
          'providers': models.Provider}
# The fields of each kind a document holds (all but the name, which
# keys them, and what the service keeps: timestamps, last_error), with
# the value of each one that is unset.
FIELDS = {
    'workflows': {'description': None, 'stages': []},
    'profiles': {'description': None, 'params': {}, 'secret_params': []},
    'brokers': {'description': None, 'driver': None, 'parameters': {}},
    'pools': {'description': None, 'documentation': None, 'meta': {},
              'parent_pool': None, **dict.fromkeys(pools.ACTION_SETS, {}),
              'lifespan': {}, 'broker': None, 'autofill': {},
              'keep_params': False, 'reservation_pre_margin': None,
              'reservation_post_margin': None},
    'providers': {'description': None, 'pool': None, 'defaults': {},
                  'template': {}, 'validation': {}, 'match_ignore': [],
                  'update_filters': [], 'lifespan': {}, 'match': {},
                  'override': {}, 'resource_requires_claim': False,
                  'on_lost': 'replace', 'keep_params': False},
}
# What an import did to an object.
OUTCOMES = ('created', 'updated', 'unchanged')
# What a document is, by default.
META = {'name': 'pool-content', 'version': 'v0.0.0', 'description': None}


def _public(value, keys=()):
    """value without the entries of secret keys (and of keys), at any
    depth of its maps."""
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items()
                if k not in keys and not secrets.is_secret_key(k)}
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def _secret_entries(values: dict | None, keys=()) -> dict:
    """The entries of a map that _public() leaves out at its top."""
    return {k: v for k, v in (values or {}).items()
            if k in keys or secrets.is_secret_key(k)}


def _fields(kind: str, obj) -> dict:
    out = {}
    for field, unset in FIELDS[kind].items():
        value = getattr(obj, field)
        out[field] = unset if value is None else value
    if kind == 'pools':
        out['autofill'] = autofill.normalized(out['autofill'])
    keys = out.get('secret_params', ()) if kind == 'profiles' else ()
    return {f: _public(v, keys) if isinstance(v, dict) else v
            for f, v in out.items()}


def _objects(context, kind: str) -> list:
    if kind == 'providers':
        return providers_db.list_all(context)
    return pools_db.list_all(context, MODELS[kind])


def export(context, meta: dict | None = None) -> dict:
    """Every workflow, profile, broker, pool and provider, secrets left
    out, as a content document."""
    return {'meta': {**META, **(meta or {})},
            'sections': {kind: {obj.name: _fields(kind, obj)
                                for obj in _objects(context, kind)}
                         for kind in KINDS}}


def _current(context, kind: str, name: str):
    try:
        if kind == 'providers':
            return providers_db.get(context, name)
        return pools_db.get(context, MODELS[kind], name)
    except exception.ObjectNotFound:
        return None


def _with_secrets(kind: str, current, values: dict) -> dict:
    """values with the current object's secrets the document left out."""
    if current is None:
        return values
    if kind == 'profiles' and 'params' in values:
        kept = _secret_entries(current.params,
                               values.get('secret_params') or ())
        return {**values, 'params': {**kept, **values['params']}}
    if kind == 'brokers' and 'parameters' in values:
        kept = _secret_entries(current.parameters)
        return {**values, 'parameters': {**kept, **values['parameters']}}
    return values


def _changes(kind: str, current, values: dict) -> dict:
    """The fields of values whose public part (secrets left out, as a
    document has them) differs from the current object's."""
    before = _fields(kind, current)
    keys = values.get('secret_params', before.get('secret_params', ()))
    return {f: v for f, v in values.items()
            if before.get(f) != (_public(v, keys if kind == 'profiles'
                                         else ())
                                 if isinstance(v, dict) else v)}


def _create(context, kind: str, name: str, values: dict):
    values = {'name': name, **values}
    if kind == 'pools':
        return pools.create_pool(context, values)
    if kind == 'providers':
        return providers.create_provider(context, values)
    if kind == 'brokers':
        brokers.check_broker(values)
    return named.create(context, MODELS[kind], values)


def _update(context, kind: str, current, changed: dict):
    if kind == 'pools':
        return pools.update_pool(context, current.name, changed)
    if kind == 'providers':
        return providers.update_provider(context, current.name, current,
                                         changed)
    if kind == 'brokers':
        brokers.check_broker({'driver': current.driver,
                              'parameters': current.parameters, **changed})
    return named.update(context, MODELS[kind], current.name, changed)


def _put(context, kind: str, name: str, values: dict) -> str:
    """Create or change one object; what was done (created, updated,
    unchanged)."""
    current = _current(context, kind, name)
    values = _with_secrets(kind, current, values)
    if current is None:
        _create(context, kind, name, values)
        return 'created'
    changed = _changes(kind, current, values)
    if not changed:
        return 'unchanged'
    _update(context, kind, current, changed)
    return 'updated'


def _parents_first(section: dict) -> list[str]:
    """The pools of a section, each after its parent when the section
    has it.

    :raises: Invalid for pools that are each other's parents
    """
    left, ordered = dict(section), []
    while left:
        ready = sorted(n for n, v in left.items()
                       if v.get('parent_pool') not in left)
        if not ready:
            raise exception.Invalid(
                'Pools %s would form a cycle of parent pools.'
                % ', '.join(sorted(left)))
        ordered += ready
        for name in ready:
            del left[name]
    return ordered


def _check_names(sections: dict) -> None:
    for kind, section in sections.items():
        for name in section:
            if not isinstance(name, str) or not name:
                raise exception.Invalid('A name of %s is empty.' % kind)


def import_content(context, document: dict) -> dict:
    """Create or change the objects of a content document, whole or not
    at all: workflows, profiles and brokers, then pools (parents first,
    then the autofill of each, which may name pools made after it), then
    providers.

    :returns: {kind: {"created"|"updated"|"unchanged": [names]}}
    :raises: Invalid, InvalidParameterValue, ObjectNotFound, and what
        creating or changing each kind raises
    """
    sections = document.get('sections') or {}
    _check_names(sections)
    found: dict = {kind: {} for kind in KINDS}

    def note(kind: str, name: str, what: str) -> None:
        # A pool is put twice (its autofill after all pools): created
        # wins over updated, updated over unchanged.
        before = found[kind].get(name, 'unchanged')
        found[kind][name] = min(before, what, key=OUTCOMES.index)

    with db_api.writer(context):
        for kind in ('workflows', 'profiles', 'brokers'):
            for name, values in sorted((sections.get(kind) or {}).items()):
                note(kind, name, _put(context, kind, name, values))
        section = sections.get('pools') or {}
        for name in _parents_first(section):
            values = {k: v for k, v in section[name].items()
                      if k != 'autofill'}
            note('pools', name, _put(context, 'pools', name, values))
        for name in sorted(section):
            if 'autofill' not in section[name]:
                continue
            fill = autofill.normalized(section[name]['autofill'])
            pool = pools_db.get(context, models.Pool, name)
            autofill.check_pool(context, name, pool.broker, fill)
            note('pools', name, _put(context, 'pools', name,
                                     {'autofill': fill}))
        for name, values in sorted((sections.get('providers')
                                    or {}).items()):
            note('providers', name, _put(context, 'providers', name,
                                         values))
    return {kind: {what: sorted(n for n, w in found[kind].items()
                                if w == what) for what in OUTCOMES}
            for kind in KINDS}
