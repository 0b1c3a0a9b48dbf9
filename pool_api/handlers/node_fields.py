"""The fields of a node as the API shows them: which ones a version
shows, their values, and the secrets among them hidden.

The handlers of nodes and their states call to_dict() or present() (the
same with the secrets of driver_info and instance_info masked); the
version that introduced each field is in NEW_FIELDS, from
pool_api.microversion.
"""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import policy
from pool_api import render
from pool_conductor import conductors
from pool_conductor import drivers
from pool_conductor import secrets

# The version that introduced each interface field of a node.
INTERFACE_VERSIONS = {
    'bios_interface': microversion.BIOS_INTERFACE,
    'boot_interface': microversion.DYNAMIC_INTERFACES,
    'console_interface': microversion.DYNAMIC_INTERFACES,
    'deploy_interface': microversion.DYNAMIC_INTERFACES,
    'firmware_interface': microversion.FIRMWARE_INTERFACE,
    'inspect_interface': microversion.DYNAMIC_INTERFACES,
    'management_interface': microversion.DYNAMIC_INTERFACES,
    'network_interface': microversion.NETWORK_INTERFACE,
    'power_interface': microversion.DYNAMIC_INTERFACES,
    'raid_interface': microversion.DYNAMIC_INTERFACES,
    'rescue_interface': microversion.RESCUE_INTERFACE,
    'storage_interface': microversion.STORAGE_INTERFACE,
    'vendor_interface': microversion.DYNAMIC_INTERFACES,
}

FIELDS = ('uuid', 'name', 'description', 'driver', 'resource_class',
          'traits', 'properties', 'extra', 'instance_info', 'driver_info',
          'driver_internal_info', *drivers.FIELDS, 'conductor_group',
          'conductor', 'automated_clean', 'protected', 'protected_reason',
          'retired', 'retired_reason', 'chassis_uuid', 'instance_uuid',
          'allocation_uuid', 'provision_state',
          'target_provision_state', 'provision_updated_at', 'power_state',
          'target_power_state', 'maintenance', 'maintenance_reason',
          'owner', 'lessee', 'reservation', 'last_error', 'created_at',
          'updated_at', 'pool', 'pool_status', 'pool_allocated', 'params',
          'profiles', 'workflow', 'stage', 'runnable', 'broker',
          'broker_ref', 'broker_token', 'console_enabled', 'raid_config',
          'target_raid_config', 'clean_step', 'deploy_step', 'fault',
          'external_manager', 'external_ref', 'external_claim',
          'external_state', 'links')
SHORT_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
                'provision_state', 'maintenance', 'links')
# Fields shown from the version 1.<minor> on.
NEW_FIELDS = {
    'description': microversion.DESCRIPTION,
    'resource_class': microversion.RESOURCE_CLASS,
    'traits': microversion.TRAITS,
    'allocation_uuid': microversion.ALLOCATIONS,
    'owner': microversion.OWNER,
    'lessee': microversion.LESSEE,
    'raid_config': microversion.RAID_CONFIG,
    'target_raid_config': microversion.RAID_CONFIG,
    'clean_step': microversion.CLEAN_STEP,
    'deploy_step': microversion.DEPLOY_STEP,
    'driver_internal_info': microversion.DRIVER_INTERNAL_INFO,
    **INTERFACE_VERSIONS,
    'conductor_group': microversion.CONDUCTOR_GROUP,
    'conductor': microversion.CONDUCTORS,
    'automated_clean': microversion.AUTOMATED_CLEAN,
    'protected': microversion.PROTECTED,
    'protected_reason': microversion.PROTECTED,
    'retired': microversion.RETIRED,
    'retired_reason': microversion.RETIRED,
    'fault': microversion.FAULT,
}


def visible(field: str) -> bool:
    """Whether the version of the request shows field."""
    minor = NEW_FIELDS.get(field)
    return minor is None or microversion.at_least(minor)


def visible_fields() -> tuple:
    """The fields the version of the request shows, in their order."""
    return tuple(f for f in FIELDS if visible(f))


def alive_conductors() -> list[tuple[str, str]]:
    """The live conductors and their groups, for conductor_of()."""
    return util.rpcapi().alive_with_groups(flask.g.context)


def conductor_of(node, alive: list[tuple[str, str]]) -> str | None:
    """The conductor of a node as Ironic's conductor field shows it: the
    one holding it locked, else the one driving its workflow, else the
    live one of its conductor group that serves it."""
    return (node.reservation or node.pool_conductor_affinity
            or conductors.serving(alive, node.uuid,
                                  node.conductor_group or ''))


def to_dict(node, fields=None, alive=None) -> dict:
    """The API representation of a node.

    :param fields: the fields to show; ``links`` always comes along, as
        in Ironic. All fields the request version knows when None.
    :param alive: the live conductors, for the conductor field (read
        when not given and the field is shown).
    """
    fields = fields or visible_fields()
    if 'conductor' in fields and alive is None:
        alive = alive_conductors()
    values = {
        'uuid': node.uuid,
        'name': node.name,
        'description': node.description,
        'driver': node.driver,
        'resource_class': node.resource_class,
        'traits': sorted(t.trait for t in node.traits),
        'properties': node.properties or {},
        'extra': node.extra or {},
        'instance_info': node.instance_info or {},
        'driver_info': node.driver_info or {},
        'driver_internal_info': node.driver_internal_info or {},
        **{'%s_interface' % interface: drivers.of_node(node, interface)
           for interface in drivers.INTERFACES
           if '%s_interface' % interface in fields},
        'conductor_group': node.conductor_group or '',
        'automated_clean': node.automated_clean,
        'protected': bool(node.protected),
        'protected_reason': node.protected_reason,
        'retired': bool(node.retired),
        'retired_reason': node.retired_reason,
        'conductor': (conductor_of(node, alive) if 'conductor' in fields
                      else None),
        'chassis_uuid': node.chassis_uuid,
        'instance_uuid': node.instance_uuid,
        'allocation_uuid': node.allocation_uuid,
        'provision_state': node.provision_state,
        'target_provision_state': node.target_provision_state,
        'provision_updated_at': render.timestamp(node.provision_updated_at),
        'power_state': node.power_state,
        'target_power_state': node.target_power_state,
        'maintenance': bool(node.maintenance),
        'maintenance_reason': node.maintenance_reason,
        'owner': node.owner,
        'lessee': node.lessee,
        'reservation': node.reservation,
        'last_error': node.last_error,
        'created_at': render.timestamp(node.created_at),
        'updated_at': render.timestamp(node.updated_at),
        'pool': node.pool,
        'pool_status': node.pool_status,
        'pool_allocated': bool(node.pool_allocated),
        'params': node.params or {},
        'profiles': node.profiles or [],
        'workflow': node.workflow,
        'stage': node.stage,
        'runnable': node.runnable is not False,
        'broker': node.broker,
        'broker_ref': node.broker_ref,
        'broker_token': node.broker_token,
        'console_enabled': bool(node.console_enabled),
        'raid_config': node.raid_config or {},
        'target_raid_config': node.target_raid_config or {},
        'clean_step': node.clean_step or {},
        'deploy_step': node.deploy_step or {},
        'fault': node.fault,
        'external_manager': node.external_manager,
        'external_ref': node.external_ref,
        'external_claim': node.external_claim,
        'external_state': node.external_state,
        'links': links.resource_links('nodes', node.uuid),
    }
    return render.select(values, fields)


def hide_secrets(node, body: dict) -> dict:
    """Mask the secrets of a node's representation as Ironic does: the
    secrets of driver_info and instance_info (pool_conductor.secrets:
    keys such as password, at any depth, and a config drive whole, also
    one given as an object) and instance_info's image_url, unless the
    caller passes show_password or show_instance_secrets."""
    target = {'node.owner': node.owner or '',
              'node.lessee': node.lessee or ''}
    if body.get('driver_info') and not policy.allowed('show_password',
                                                      target):
        body['driver_info'] = secrets.mask(body['driver_info'])
    if body.get('driver_internal_info') and not policy.allowed(
            'show_password', target):
        body['driver_internal_info'] = secrets.mask(
            body['driver_internal_info'])
    if body.get('instance_info') and not policy.allowed(
            'show_instance_secrets', target):
        info = secrets.mask(body['instance_info'])
        if info.get('image_url'):
            # It may be a temporary URL that grants access to the image.
            info['image_url'] = secrets.MASK
        body['instance_info'] = info
    return body


def present(node, fields=None, alive=None) -> dict:
    """A node as the caller may see it: to_dict() with secrets hidden."""
    return hide_secrets(node, to_dict(node, fields, alive))


def reject_newer_fields(names, what: str) -> None:
    """:raises: NotAcceptable for a field newer than the request's
        version"""
    for name in names:
        if name in NEW_FIELDS and not visible(name):
            util.require_version(NEW_FIELDS[name], '%s %s' % (what, name))
