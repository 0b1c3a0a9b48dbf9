"""Providers: /v1/providers, the sources of the machines of claims."""
import flask

from pool_api import named
from pool_api import policy
from pool_api.schemas import claims as schema
from pool_api import validation
from pool_conductor.db import providers as providers_db
from pool_conductor import providers

FIELDS = ('name', 'description', 'pool', 'defaults', 'template',
          'validation', 'match_ignore', 'update_filters', 'lifespan',
          'match', 'override', 'resource_requires_claim', 'on_lost',
          'keep_params')
PATCHABLE = FIELDS[1:]
PATCH_DEFAULTS = {'description': None, 'defaults': {}, 'template': {},
                  'validation': {}, 'match_ignore': [],
                  'update_filters': [], 'lifespan': {}, 'match': {},
                  'override': {}, 'resource_requires_claim': False,
                  'on_lost': 'replace', 'keep_params': False}


def to_dict(provider) -> dict:
    body = named.representation('providers', provider, FIELDS)
    for field, default in PATCH_DEFAULTS.items():
        if body[field] is None:
            body[field] = default
    return body


def list_providers():
    policy.authorize('pool:provider:list')
    return flask.jsonify(providers=[
        to_dict(p) for p in providers_db.list_all(flask.g.context)])


def create_provider():
    policy.authorize('pool:provider:create')
    body = validation.json_body()
    validation.validate(schema.PROVIDER_CREATE, body)
    return named.created(to_dict(providers.create_provider(
        flask.g.context, body)))


def get_provider(provider_name):
    policy.authorize('pool:provider:get')
    return flask.jsonify(to_dict(providers_db.get(flask.g.context,
                                                  provider_name)))


def update_provider(provider_name):
    """Change fields of a provider (JSON Patch); the name is fixed."""
    policy.authorize('pool:provider:update')
    context = flask.g.context
    current = providers_db.get(context, provider_name)
    before = to_dict(current)
    after = validation.apply_patch(before, validation.json_body(),
                                   PATCHABLE, PATCH_DEFAULTS)
    validation.validate(schema.PROVIDER_UPDATE, {
        'name': provider_name, **{f: after[f] for f in PATCHABLE}})
    changed = validation.changes(before, after, PATCHABLE)
    if not changed:
        return flask.jsonify(before)
    return flask.jsonify(to_dict(providers.update_provider(
        context, provider_name, current, changed)))


def delete_provider(provider_name):
    """Delete a provider that no claim (other than expired ones) uses."""
    policy.authorize('pool:provider:delete')
    providers.delete_provider(flask.g.context, provider_name)
    return '', 204
