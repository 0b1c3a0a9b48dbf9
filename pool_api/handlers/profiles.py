"""Profiles: /v1/profiles, named sets of params nodes take on."""
import flask

from pool_api import named
from pool_api import policy
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import named as named_objects
from pool_conductor import secrets

FIELDS = ('name', 'description', 'params', 'secret_params')
PATCHABLE = FIELDS[1:]


def to_dict(profile: models.Profile) -> dict:
    body = named.representation('profiles', profile, FIELDS)
    body['params'] = body['params'] or {}
    body['secret_params'] = body['secret_params'] or []
    return body


def _shown(body: dict) -> dict:
    """The body of a profile, its secret params (those it names and those
    pool_conductor.secrets knows) masked unless the caller may read
    them."""
    if not policy.allowed('pool:profile:show_secrets'):
        body['params'] = secrets.mask(body['params'],
                                      keys=body['secret_params'])
    return body


def list_profiles():
    policy.authorize('pool:profile:list')
    profiles = pools_db.list_all(flask.g.context, models.Profile)
    return flask.jsonify(profiles=[_shown(to_dict(p)) for p in profiles])


def create_profile():
    policy.authorize('pool:profile:create')
    body = validation.json_body()
    validation.validate(schema.PROFILE_CREATE, body)
    return named.created(_shown(to_dict(named_objects.create(
        flask.g.context, models.Profile, body))))


def get_profile(profile_name):
    policy.authorize('pool:profile:get')
    return flask.jsonify(_shown(to_dict(pools_db.get(
        flask.g.context, models.Profile, profile_name))))


def update_profile(profile_name):
    """Change a profile (JSON Patch); its name is fixed."""
    policy.authorize('pool:profile:update')
    return named.patched(models.Profile, to_dict, profile_name,
                         schema.PROFILE_UPDATE, PATCHABLE,
                         {'params': {}, 'secret_params': []},
                         shown=_shown)


def delete_profile(profile_name):
    """Delete a profile no node has."""
    policy.authorize('pool:profile:delete')
    named_objects.delete(flask.g.context, models.Profile, profile_name)
    return '', 204
