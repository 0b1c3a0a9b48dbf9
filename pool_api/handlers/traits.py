"""Node traits: /v1/nodes/<node>/traits."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api.schemas import common
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor.baremetal import nodes as node_changes
from pool_conductor import exception

MAX_TRAITS = common.TRAITS['maxItems']


def _node(node_ident: str, rule: str):
    """The node of a traits request; the API does not exist below 1.37."""
    microversion.require(microversion.TRAITS)
    return util.get_authorized(node_ident, rule)


def _traits_url(node, trait=None) -> str:
    url = links.resource_links('nodes', node.uuid)[0]['href'] + '/traits'
    return url + '/' + trait if trait is not None else url


def _no_content(location=None):
    headers = {'Location': location} if location else {}
    return '', 204, headers


def list_traits(node_ident):
    node = _node(node_ident, 'baremetal:node:traits:list')
    return flask.jsonify(traits=sorted(t.trait for t in node.traits))


def set_traits(node_ident):
    """Replace all traits of a node."""
    node = _node(node_ident, 'baremetal:node:traits:set')
    body = validation.json_body()
    validation.validate(schema.TRAITS, body)
    common.check_traits(body['traits'])
    node = node_changes.set_traits(flask.g.context, node, body['traits'])
    return _no_content(_traits_url(node))


def add_trait(node_ident, trait):
    node = _node(node_ident, 'baremetal:node:traits:set')
    if validation.body().strip():
        if validation.json_body():
            raise exception.Invalid(
                'A single node trait may be added via PUT '
                '/v1/nodes/<node identifier>/traits/<trait> with no body, '
                'or all node traits may be replaced via PUT '
                '/v1/nodes/<node identifier>/traits with the list of '
                'traits specified in the request body.')
    common.check_traits([trait])
    current = {t.trait for t in node.traits}
    if trait not in current and len(current) >= MAX_TRAITS:
        raise exception.Invalid(
            'Could not add trait %s to node %s: a node can have at most %d '
            'traits.' % (trait, node.uuid, MAX_TRAITS))
    node = node_changes.add_trait(flask.g.context, node, trait)
    return _no_content(_traits_url(node, trait))


def remove_all_traits(node_ident):
    node = _node(node_ident, 'baremetal:node:traits:delete')
    node_changes.set_traits(flask.g.context, node, [])
    return _no_content()


def remove_trait(node_ident, trait):
    node = _node(node_ident, 'baremetal:node:traits:delete')
    node_changes.remove_trait(flask.g.context, node, trait)
    return _no_content()
