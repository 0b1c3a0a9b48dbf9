"""A node's console, NMI and RAID configuration: /v1/nodes/<node>/states/
console, /management/inject_nmi and /states/raid."""
import flask
from oslo_utils import strutils

from pool_api.handlers import util
from pool_api import microversion
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor.baremetal import consoles
from pool_conductor.baremetal import raid
from pool_conductor import exception
from pool_conductor import retry
from pool_conductor import states


def get_console(node_ident):
    """Whether a node's console is enabled, and how to reach it."""
    node = util.get_authorized(node_ident,
                                  'baremetal:node:get_console')
    try:
        return flask.jsonify(console_enabled=True,
                             console_info=consoles.info(node))
    except exception.NodeConsoleNotEnabled:
        return flask.jsonify(console_enabled=False, console_info=None)


def set_console_state(node_ident):
    """Enable or disable a node's console."""
    node = util.get_authorized(node_ident,
                                  'baremetal:node:set_console_state')
    body = validation.json_body()
    validation.validate(schema.CONSOLE, body)
    try:
        enabled = strutils.bool_from_string(body['enabled'], strict=True)
    except ValueError as exc:
        raise exception.InvalidParameterValue(err=str(exc)) from exc
    retry.on_node_locked(consoles.set_mode, flask.g.context, node, enabled)
    return '', 202, {'Location': util.node_url(
        node, '/states/console')}


def inject_nmi(node_ident):
    """Inject a non-maskable interrupt into a powered on node: there is
    no machine to interrupt, so it is checked and answered only."""
    microversion.require(microversion.INJECT_NMI)
    node = util.get_authorized(node_ident,
                                  'baremetal:node:inject_nmi')
    if node.reservation:
        raise exception.NodeLocked(node=node.uuid, host=node.reservation)
    if node.power_state != states.POWER_ON:
        raise exception.NodeNotPoweredOn(node=node.uuid,
                                         state=node.power_state)
    return '', 204


def set_raid_config(node_ident):
    """Record the RAID configuration a node is to have; a manual cleaning
    with the raid interface's create_configuration step applies it."""
    node = util.get_authorized(node_ident,
                                  'baremetal:node:set_raid_state')
    if not microversion.at_least(microversion.RAID_CONFIG):
        raise exception.NotAcceptable(
            'RAID configuration needs API version 1.%d or newer.'
            % microversion.RAID_CONFIG)
    body = validation.json_body()
    if body != {}:
        validation.validate(schema.RAID_CONFIG_BODY, body)
    retry.on_node_locked(raid.set_target, flask.g.context, node, body)
    return '', 204
