"""Brokers: /v1/brokers, the drivers that create and destroy machines."""
import flask

from pool_api import named
from pool_api import policy
from pool_api.schemas import brokers as schema
from pool_api import validation
from pool_conductor import brokers
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import named as named_objects
from pool_conductor import secrets

FIELDS = ('name', 'description', 'driver', 'parameters')
PATCHABLE = FIELDS[1:]


def to_dict(broker: models.Broker) -> dict:
    body = named.representation('brokers', broker, FIELDS)
    body['parameters'] = body['parameters'] or {}
    return body


def _shown(body: dict) -> dict:
    """The body of a broker, its secrets masked unless the caller may
    read them."""
    if not policy.allowed('pool:broker:show_secrets'):
        body['parameters'] = secrets.mask(body['parameters'])
    return body


def list_brokers():
    policy.authorize('pool:broker:list')
    found = pools_db.list_all(flask.g.context, models.Broker)
    return flask.jsonify(brokers=[_shown(to_dict(b)) for b in found])


def create_broker():
    policy.authorize('pool:broker:create')
    body = validation.json_body()
    validation.validate(schema.BROKER_CREATE, body)
    brokers.check_broker(body)
    return named.created(_shown(to_dict(named_objects.create(
        flask.g.context, models.Broker, body))))


def get_broker(broker_name):
    policy.authorize('pool:broker:get')
    return flask.jsonify(_shown(to_dict(pools_db.get(
        flask.g.context, models.Broker, broker_name))))


def update_broker(broker_name):
    """Change a broker (JSON Patch); its name is fixed."""
    policy.authorize('pool:broker:update')
    return named.patched(models.Broker, to_dict, broker_name,
                         schema.BROKER_UPDATE, PATCHABLE, {'parameters': {}},
                         check=brokers.check_broker, shown=_shown)


def delete_broker(broker_name):
    """Delete a broker no pool and no node uses."""
    policy.authorize('pool:broker:delete')
    named_objects.delete(flask.g.context, models.Broker, broker_name)
    return '', 204
