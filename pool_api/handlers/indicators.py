"""Indicators of nodes: /v1/nodes/<node>/management/indicators, as
Ironic's fake-hardware answers them (API 1.63, which Ironic does not
gate)."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor import drivers


def _links(node, ident: str) -> list[dict]:
    return links.resource_links(
        'nodes', '%s/management/indicators/%s' % (node.uuid, ident))


def list_indicators(node_ident):
    node = util.get_authorized(node_ident,
                               'baremetal:node:get_indicator_state')
    found = []
    for component, named in drivers.INDICATORS.items():
        for name, fields in named.items():
            ident = '%s@%s' % (name, component)
            found.append({'name': ident, 'component': component,
                          'readonly': fields['readonly'],
                          'states': fields['states'],
                          'links': _links(node, ident)})
    return flask.jsonify(indicators=found)


def get_indicator(node_ident, indicator):
    util.get_authorized(node_ident, 'baremetal:node:get_indicator_state')
    return flask.jsonify(state=drivers.indicator_state(indicator))


def set_indicator(node_ident, indicator):
    node = util.get_authorized(node_ident,
                               'baremetal:node:set_indicator_state')
    body = validation.json_body()
    validation.validate(schema.INDICATOR_STATE, body)
    drivers.set_indicator_state(node.driver, indicator, body['state'])
    return '', 204
