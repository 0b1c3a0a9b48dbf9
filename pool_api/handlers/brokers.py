"""Brokers: /v1/brokers, the drivers that create and destroy machines."""
import flask
from oslo_utils import strutils

from pool_api import named
from pool_api import policy
from pool_api.schemas import brokers as schema
from pool_api import validation
from pool_conductor import brokers
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db

FIELDS = ('name', 'description', 'driver', 'parameters')
PATCHABLE = FIELDS[1:]
SECRET_MASK = '******'


def to_dict(broker: models.Broker, show_secrets: bool = True) -> dict:
    body = named.representation('brokers', broker, FIELDS)
    body['parameters'] = body['parameters'] or {}
    if not show_secrets:
        body['parameters'] = strutils.mask_dict_password(
            body['parameters'], SECRET_MASK)
    return body


def _shown(broker: models.Broker) -> dict:
    """The body of a broker, its secrets masked unless the caller may
    read them."""
    return to_dict(broker, policy.allowed('pool:broker:show_secrets'))


def list_brokers():
    policy.authorize('pool:broker:list')
    found = pools_db.list_all(flask.g.context, models.Broker)
    return flask.jsonify(brokers=[_shown(b) for b in found])


def create_broker():
    policy.authorize('pool:broker:create')
    body = validation.json_body()
    validation.validate(schema.BROKER_CREATE, body)
    brokers.check_broker(body)
    return named.created(_shown(pools_db.create(flask.g.context,
                                                models.Broker, body)))


def get_broker(broker_name):
    policy.authorize('pool:broker:get')
    return flask.jsonify(_shown(pools_db.get(flask.g.context, models.Broker,
                                             broker_name)))


def update_broker(broker_name):
    """Change a broker (JSON Patch); its name is fixed. The patch applies
    to the parameters as stored, masked ones too."""
    policy.authorize('pool:broker:update')
    context = flask.g.context
    patch = validation.json_body()
    before = to_dict(pools_db.get(context, models.Broker, broker_name))
    after = validation.apply_patch(before, patch, PATCHABLE,
                                   {'parameters': {}})
    validation.validate(schema.BROKER_UPDATE, {
        'name': broker_name, **{f: after[f] for f in PATCHABLE}})
    changed = validation.changes(before, after, PATCHABLE)
    if not changed:
        return flask.jsonify(_shown(pools_db.get(context, models.Broker,
                                                 broker_name)))
    brokers.check_broker({**before, **changed})
    return flask.jsonify(_shown(pools_db.update(context, models.Broker,
                                                broker_name, changed)))


def delete_broker(broker_name):
    """Delete a broker no pool and no node uses."""
    policy.authorize('pool:broker:delete')
    pools_db.delete(flask.g.context, models.Broker, broker_name)
    return '', 204
