"""External managers: /v1/external_managers, the systems that own
hardware pool shares."""
import flask

from pool_api import named
from pool_api import policy
from pool_api import render
from pool_api.schemas import external_managers as schema
from pool_api import validation
from pool_conductor import external
from pool_conductor import external_managers
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import named as named_objects
from pool_conductor import secrets

FIELDS = ('name', 'description', 'driver', 'parameters', 'enabled',
          'sync_interval')
PATCHABLE = FIELDS[1:]
SHOWN = FIELDS + ('conductor_affinity', 'last_error', 'error_streak')


def to_dict(manager: models.ExternalManager) -> dict:
    body = named.representation('external_managers', manager, SHOWN)
    body['parameters'] = body['parameters'] or {}
    body['enabled'] = body['enabled'] is not False
    body['last_sync_at'] = render.timestamp(manager.last_sync_at)
    return body


def _shown(body: dict) -> dict:
    """The body of a manager, its secrets masked unless the caller may
    read them."""
    if not policy.allowed('pool:external_manager:show_secrets'):
        body['parameters'] = secrets.mask(body['parameters'])
    return body


def list_external_managers():
    policy.authorize('pool:external_manager:list')
    found = pools_db.list_all(flask.g.context, models.ExternalManager)
    return flask.jsonify(external_managers=[_shown(to_dict(m))
                                            for m in found])


def create_external_manager():
    policy.authorize('pool:external_manager:create')
    body = validation.json_body()
    validation.validate(schema.EXTERNAL_MANAGER_CREATE, body)
    external_managers.check_manager(body)
    return named.created(_shown(to_dict(named_objects.create(
        flask.g.context, models.ExternalManager, body))))


def get_external_manager(manager_name):
    policy.authorize('pool:external_manager:get')
    return flask.jsonify(_shown(to_dict(pools_db.get(
        flask.g.context, models.ExternalManager, manager_name))))


def update_external_manager(manager_name):
    """Change a manager (JSON Patch); its name is fixed."""
    policy.authorize('pool:external_manager:update')
    return named.patched(
        models.ExternalManager, to_dict, manager_name,
        schema.EXTERNAL_MANAGER_UPDATE, PATCHABLE,
        {'parameters': {}, 'enabled': True, 'sync_interval': None},
        check=external_managers.check_manager, shown=_shown)


def delete_external_manager(manager_name):
    """Delete a manager no node is shared with."""
    policy.authorize('pool:external_manager:delete')
    named_objects.delete(flask.g.context, models.ExternalManager,
                         manager_name)
    return '', 204


def get_external_manager_status(manager_name):
    """A manager's nodes by external state and its last round."""
    policy.authorize('pool:external_manager:get')
    body = external.status(flask.g.context, manager_name)
    body['last_sync_at'] = render.timestamp(body['last_sync_at'])
    return flask.jsonify(body)
