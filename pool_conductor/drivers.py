"""Drivers and the driver interfaces of nodes, as Ironic's fake-hardware.

A node names a driver (a hardware type) and one implementation of each
driver interface. Pool has no hardware behind its nodes: every driver has
the implementations the ``[DEFAULT] enabled_<interface>_interfaces``
options enable, each behaving as Ironic's fake one (calls are recorded,
nothing runs), except the network interface, whose ``noop`` keeps no VIF
as Ironic's does. What is checked is what Ironic checks: an interface a
node is given must be enabled, and one it is not given is the default.
"""
import dataclasses

from pool_conductor.conf import CONF
from pool_conductor import exception

# Ironic's driver interfaces, in the order of its API.
INTERFACES = ('bios', 'boot', 'console', 'deploy', 'firmware', 'inspect',
              'management', 'network', 'power', 'raid', 'rescue', 'storage',
              'vendor')
FIELDS = tuple('%s_interface' % name for name in INTERFACES)
# The network interface that keeps no VIF.
NOOP_NETWORK = 'noop'


def enabled(interface: str) -> list[str]:
    """The enabled implementations of an interface (bios, boot...)."""
    return list(getattr(CONF, 'enabled_%s_interfaces' % interface) or ())


def default(interface: str) -> str:
    """The implementation a node gets when it names none.

    :raises: NoValidDefaultForInterface when none is enabled, or the
        configured default is not
    """
    choices = enabled(interface)
    configured = getattr(CONF, 'default_%s_interface' % interface)
    if configured is not None:
        if configured in choices:
            return configured
    elif choices:
        return choices[0]
    raise exception.NoValidDefaultForInterface(interface=interface)


def of_node(node, interface: str) -> str | None:
    """The implementation of an interface a node has: the one recorded,
    else (a node made before pool recorded them) the default."""
    value = getattr(node, '%s_interface' % interface, None)
    if value is not None:
        return value
    try:
        return default(interface)
    except exception.NoValidDefaultForInterface:
        return None


def check_interfaces(driver: str, values: dict,
                     reset: bool = False) -> dict:
    """The interface fields of a node with driver that values (the node's
    fields being set) give it: each named one checked, each null one the
    default; with reset, every one not named the default.

    :returns: the interface fields to record.
    :raises: InterfaceNotEnabled, NoValidDefaultForInterface
    """
    out = {}
    for interface, field in zip(INTERFACES, FIELDS, strict=True):
        if field not in values and not reset:
            continue
        value = values.get(field)
        if value is None:
            out[field] = default(interface)
            continue
        choices = enabled(interface)
        if value not in choices:
            raise exception.InterfaceNotEnabled(
                interface=interface, value=value, driver=driver,
                enabled=', '.join(choices) or '(none)')
        out[field] = value
    return out


@dataclasses.dataclass(frozen=True)
class HardwareType:
    """A driver as /v1/drivers describes it."""
    name: str
    enabled: dict
    defaults: dict


def hardware_types() -> list[str]:
    return list(CONF.enabled_hardware_types or ())


def get_hardware_type(name: str) -> HardwareType:
    """:raises: DriverNotFound"""
    if name not in hardware_types():
        raise exception.DriverNotFound(driver_name=name)
    defaults = {}
    for interface in INTERFACES:
        try:
            defaults[interface] = default(interface)
        except exception.NoValidDefaultForInterface:
            defaults[interface] = None
    return HardwareType(name, {i: enabled(i) for i in INTERFACES},
                        defaults)


# The driver_info properties of fake-hardware, as Ironic documents
# them: its fake interfaces take none but those of the boot and deploy
# steps every driver reads.
PROPERTIES = {
    'deploy_kernel': 'UUID (from Glance) of the deployment kernel. Not '
                     'used by pool: its nodes are deployed by recording.',
    'deploy_ramdisk': 'UUID (from Glance) of the ramdisk with agent that '
                      'is used at deploy time. Not used by pool.',
    'force_persistent_boot_device': 'Whether the boot device set stays '
                                    'for following boots. Optional.',
}


# The indicators of the fake management interface, by component, as
# Ironic's fake-hardware reports them: its chassis LED is read-only, its
# system LED not, and every indicator reads "ON". Setting one is not
# supported by the fake interface, as in Ironic.
INDICATORS = {
    'chassis': {'led-0': {'readonly': True, 'states': ['OFF', 'ON']}},
    'system': {'led': {'readonly': False,
                       'states': ['BLINKING', 'OFF', 'ON']}},
}
INDICATOR_STATE = 'ON'


def split_indicator(ident: str) -> tuple[str, str]:
    """(name, component) of an indicator named name@component.

    :raises: InvalidParameterValue
    """
    name, at, component = ident.partition('@')
    if not at:
        raise exception.InvalidParameterValue(
            err='Malformed indicator name "%s"' % ident)
    return name, component


def indicator_state(ident: str) -> str:
    """The state of an indicator of the fake management interface.

    :raises: InvalidParameterValue for an unknown component or indicator
    """
    name, component = split_indicator(ident)
    if component not in INDICATORS:
        raise exception.InvalidParameterValue(
            err='Invalid component %s specified.' % component)
    if name not in INDICATORS[component]:
        raise exception.InvalidParameterValue(
            err='Invalid indicator %s specified.' % name)
    return INDICATOR_STATE


def set_indicator_state(driver: str, ident: str, state: str) -> None:
    """Set an indicator: the fake management interface cannot, as
    Ironic's fake one.

    :raises: InvalidParameterValue, UnsupportedDriverExtension
    """
    indicator_state(ident)
    raise exception.UnsupportedDriverExtension(
        driver=driver, extension='set_indicator_state')
