"""Node states: /v1/nodes/<node>/states (power and provision), the
validation of a node's interfaces, and maintenance mode.

A provision verb is checked here against the request (its version, the
node's state, the fields of its body) and recorded by
pool_conductor.baremetal.provisioning, which hands it to a conductor;
power and maintenance are saved by pool_conductor.baremetal.nodes.
"""
import flask

from pool_api.handlers import util
from pool_api import microversion
from pool_api import render
from pool_api.schemas import nodes as schema
from pool_api import validation
from pool_conductor.baremetal import deploy_checks
from pool_conductor.baremetal import deploy_templates
from pool_conductor.baremetal import nodes as node_changes
from pool_conductor.baremetal import provisioning
from pool_conductor.baremetal import steps
from pool_conductor.db import api as db_api
from pool_conductor import exception
from pool_conductor import retry
from pool_conductor import states

POWER_TARGETS = {states.POWER_ON: states.POWER_ON,
                 states.POWER_OFF: states.POWER_OFF,
                 states.REBOOT: states.POWER_ON,
                 states.SOFT_POWER_OFF: states.POWER_OFF,
                 states.SOFT_REBOOT: states.POWER_ON}
# Verbs a node in maintenance refuses, as Ironic's NodeInMaintenance.
MAINTENANCE_REFUSED = ('active', 'deploy', 'rebuild', 'deleted',
                       'undeploy', 'clean', 'rescue', 'unrescue')
DEPLOYING_VERBS = ('active', 'deploy', 'rebuild')
# The version that introduced each verb, where it is not 1.1.
VERB_VERSIONS = {'manage': microversion.MANAGEMENT_VERBS,
                 'provide': microversion.MANAGEMENT_VERBS,
                 'clean': microversion.MANUAL_CLEAN,
                 'rescue': microversion.RESCUE,
                 'unrescue': microversion.RESCUE}


def get_node_states(node_ident):
    node = util.get_authorized(node_ident, 'baremetal:node:get')
    body = {
        'console_enabled': bool(node.console_enabled),
        'last_error': node.last_error,
        'power_state': node.power_state,
        'provision_state': node.provision_state,
        'provision_updated_at': render.timestamp(node.provision_updated_at),
        'target_power_state': node.target_power_state,
        'target_provision_state': node.target_provision_state,
    }
    if microversion.at_least(microversion.RAID_CONFIG):
        body.update(raid_config=node.raid_config or {},
                    target_raid_config=node.target_raid_config or {})
    return flask.jsonify(body)


def validate_node(node_ident):
    """Each driver interface's validation, as Ironic's fake-hardware
    answers it."""
    node = util.get_authorized(node_ident, 'baremetal:node:validate')
    return flask.jsonify(deploy_checks.validate_interfaces(node))


def _check_provision_body(verb: str, body: dict) -> None:
    """The fields beside the target, checked as Ironic checks them.

    :raises: InvalidParameterValue
    """
    configdrive = body.get('configdrive')
    if configdrive:
        allowed = ['active'] + (['rebuild'] if microversion.at_least(
            microversion.REBUILD_CONFIGDRIVE) else [])
        if verb not in allowed + ['deploy']:
            raise exception.InvalidParameterValue(
                err='Adding a config drive is only supported when setting '
                    'provision state to %s' % ', '.join(allowed))
        if isinstance(configdrive, dict):
            if not microversion.at_least(microversion.CONFIGDRIVE_DICT):
                raise exception.InvalidParameterValue(
                    err='Providing a JSON object for configdrive is only '
                        'supported starting with API version 1.%d'
                        % microversion.CONFIGDRIVE_DICT)
            if ('vendor_data' in configdrive and not microversion.at_least(
                    microversion.CONFIGDRIVE_VENDOR_DATA)):
                raise exception.InvalidParameterValue(
                    err='Providing vendor_data in configdrive is only '
                        'supported starting with API version 1.%d'
                        % microversion.CONFIGDRIVE_VENDOR_DATA)
    if body.get('clean_steps') and verb != 'clean':
        raise exception.InvalidParameterValue(
            err='"clean_steps" is only valid when setting target provision '
                'state to clean')
    if verb == 'clean' and not body.get('clean_steps'):
        raise exception.InvalidParameterValue(
            err='"clean_steps" is required when setting target provision '
                'state to clean')
    if body.get('deploy_steps'):
        util.require_version(microversion.DEPLOY_STEPS,
                             'Providing deploy_steps')
        if verb not in DEPLOYING_VERBS:
            raise exception.InvalidParameterValue(
                err='"deploy_steps" is only valid when setting target '
                    'provision state to active or rebuild')
    password = body.get('rescue_password')
    if password is not None and verb != 'rescue':
        raise exception.InvalidParameterValue(
            err='"rescue_password" is only valid when setting target '
                'provision state to rescue')
    if verb == 'rescue' and not (password and password.strip()):
        raise exception.InvalidParameterValue(
            err='A non-empty "rescue_password" is required when setting '
                'target provision state to rescue')


def _verb_values(verb: str, node, body: dict) -> dict:
    """What a verb records beside its states: the config drive of a
    deployment (Ironic keeps it in instance_info, an image it builds
    from a dict, where responses mask it) and the deploy steps it runs
    (pool_conductor.baremetal.deploy_templates), the clean steps of a manual
    cleaning, the rescue password (also in
    instance_info, masked) until unrescue, the power state a managed
    node is read in."""
    values = {}
    info = dict(node.instance_info or {})
    if verb in DEPLOYING_VERBS:
        info.pop('configdrive', None)
        if body.get('configdrive'):
            info['configdrive'] = body['configdrive']
        values['instance_info'] = info
        values['provision_steps'] = deploy_templates.deploy_steps(
            flask.g.context, node, body.get('deploy_steps'))
    elif verb == 'clean':
        values['provision_steps'] = steps.clean_steps(body['clean_steps'])
    elif verb == 'rescue':
        values['instance_info'] = {**info,
                                   'rescue_password': body['rescue_password']}
    elif verb == 'unrescue' and 'rescue_password' in info:
        info.pop('rescue_password')
        values['instance_info'] = info
    if verb == 'manage' and node.power_state is None:
        # Ironic reads the power state while verifying a node it manages;
        # with no hardware behind the node it is recorded as off.
        values['power_state'] = states.POWER_OFF
    return values


def _accepted(node):
    return '', 202, {'Location': util.node_url(node, '/states')}


def set_power_state(node_ident):
    """Record a power state change; a reboot ends powered on."""
    node = util.get_authorized(node_ident, 'baremetal:node:set_power_state')
    body = validation.json_body()
    validation.validate(schema.POWER, body)
    target = body['target']
    if target in (states.SOFT_POWER_OFF, states.SOFT_REBOOT):
        util.require_version(microversion.SOFT_POWER,
                             'The power state "%s"' % target)
    if body.get('timeout') is not None:
        util.require_version(microversion.SOFT_POWER, 'A power state timeout')
    if target not in POWER_TARGETS:
        raise exception.InvalidParameterValue(
            err='Invalid power state "%s"; expected one of: %s.'
                % (target, ', '.join(POWER_TARGETS)))
    context = flask.g.context
    node = retry.on_node_locked(node_changes.update, context, node, {
        'power_state': POWER_TARGETS[target], 'target_power_state': None})
    return _accepted(node)


def set_provision_state(node_ident):
    """Record a provision state transition named by a verb."""
    node = util.get_authorized(node_ident,
                               'baremetal:node:set_provision_state')
    body = validation.json_body()
    validation.validate(schema.PROVISION, body)
    verb = body['target']
    if verb not in states.VERBS:
        raise exception.InvalidParameterValue(
            err='Invalid provision state target "%s"; expected one of: %s.'
                % (verb, ', '.join(states.VERBS)))
    if verb in VERB_VERSIONS:
        util.require_version(VERB_VERSIONS[verb], 'The "%s" action' % verb)
    if verb in ('deleted', 'undeploy') and node.protected:
        raise exception.NodeProtected(node=node.uuid)
    if verb == 'provide' and node.retired:
        raise exception.NodeIsRetired(op='providing', node=node.uuid)
    context = flask.g.context
    if node.maintenance and verb in MAINTENANCE_REFUSED:
        raise exception.InvalidState(
            err='The requested action "%s" can not be performed on node '
                '"%s" while it is in maintenance mode.' % (verb, node.uuid))
    allowed_from = states.VERBS[verb][0]
    if node.provision_state not in allowed_from:
        # As in Ironic: a 409 only for a node something works on, else a
        # 400 (InvalidStateRequested), which clients do not retry.
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid,
                                       host=node.reservation)
        raise exception.InvalidState(
            err='The requested action "%s" can not be performed on node '
                '"%s" while it is in state "%s".'
                % (verb, node.uuid, node.provision_state))
    # After the state check, as in Ironic.
    _check_provision_body(verb, body)
    if verb in DEPLOYING_VERBS:
        deploy_checks.check_instance_traits(node)
    values = provisioning.begin(verb, db_api.utcnow(), node)
    values.update(_verb_values(verb, node, body))
    provisioning.request(context, node, values, util.rpcapi())
    return _accepted(node)


# Maintenance -------------------------------------------------------------


def set_maintenance(node_ident):
    node = util.get_authorized(node_ident, 'baremetal:node:set_maintenance')
    reason = flask.request.args.get('reason')
    if validation.body().strip():
        body = validation.json_body()
        validation.validate(schema.MAINTENANCE, body)
        reason = body.get('reason', reason)
    elif reason is not None:
        validation.validate(schema.MAINTENANCE, {'reason': reason})
    retry.on_node_locked(node_changes.update, flask.g.context, node, {
        'maintenance': True, 'maintenance_reason': reason})
    return '', 202


def unset_maintenance(node_ident):
    node = util.get_authorized(node_ident, 'baremetal:node:clear_maintenance')
    if node.fault in states.EXTERNAL_FAULTS:
        raise exception.ExternalHold(node=node.uuid, fault=node.fault)
    values = {'maintenance': False, 'maintenance_reason': None}
    if node.fault == states.FAULT_SCHEDULED_MAINTENANCE:
        # As Ironic clears a fault with the maintenance.
        values['fault'] = None
    retry.on_node_locked(node_changes.update, flask.g.context, node, values)
    return '', 202
