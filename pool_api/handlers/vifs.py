"""VIFs of nodes: /v1/nodes/<node>/vifs, recorded on the node's port
groups and ports."""
import flask

from pool_api.handlers import util
from pool_api import microversion
from pool_api.schemas import ports as schema
from pool_api import validation
from pool_conductor.baremetal import vifs
from pool_conductor import exception


def _node(node_ident: str, rule: str):
    if not microversion.at_least(microversion.VIFS):
        raise exception.NotFound()
    return util.get_authorized(node_ident, rule)


def list_vifs(node_ident):
    node = _node(node_ident, 'baremetal:node:vif:list')
    return flask.jsonify(vifs=[{'id': vif} for vif in vifs.list_vifs(
        flask.g.context, node)])


def attach_vif(node_ident):
    """Record a VIF on a free port group or port of the node."""
    node = _node(node_ident, 'baremetal:node:vif:attach')
    body = validation.json_body()
    validation.validate(schema.VIF, body)
    vifs.attach_vif(flask.g.context, node, body['id'])
    return '', 204


def detach_vif(node_ident, vif_id):
    node = _node(node_ident, 'baremetal:node:vif:detach')
    vifs.detach_vif(flask.g.context, node, vif_id)
    return '', 204
