"""Node params: /v1/nodes/<node>/params, a JSON map as Digital Rebar's,
with the pool params (pool_conductor.pool_params) among them."""
import flask

from pool_api.handlers import util
from pool_api import params
from pool_api import policy
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_conductor.baremetal import nodes as node_changes
from pool_conductor.db import pools as pools_db
from pool_conductor import pool_params


def get_node_params(node_ident):
    """The params of a node; with aggregate=true, its profiles' too, with
    their secret params masked for a caller who may not read them."""
    node = util.get_authorized(node_ident, 'baremetal:node:get')
    if params.get_bool('aggregate'):
        return flask.jsonify(pool_params.with_params(
            node, pools_db.effective_params(
                flask.g.context, node, hide_secrets=not policy.allowed(
                    'pool:profile:show_secrets'))))
    return flask.jsonify(pool_params.with_params(node, node.params))


def _save(node, new_params: dict):
    """Validate and store the new params of a node (the pool params it
    holds must be the node's: they are not stored); answer with them."""
    validation.validate(schema.NODE_PARAMS, new_params)
    node = node_changes.update(flask.g.context, node, {
        'params': pool_params.without(node, new_params)})
    return flask.jsonify(pool_params.with_params(node, node.params))


def set_node_params(node_ident):
    """Replace all params of a node."""
    node = util.get_authorized(node_ident, 'baremetal:node:update')
    return _save(node, validation.json_body())


def update_node_params(node_ident):
    """Change params of a node with a JSON Patch on the params map.

    A param name with a slash is escaped as JSON Pointer says:
    ``/inventory~1data~1CPUS``.
    """
    node = util.get_authorized(node_ident, 'baremetal:node:update')
    patch = validation.json_body()
    return _save(node, validation.patch_map(
        pool_params.with_params(node, node.params), patch))
