"""Drivers: /v1/drivers, the hardware types pool enables and the
conductors that serve them, in Ironic's shapes."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_conductor import drivers
from pool_conductor import exception

# The version from which each interface's default and enabled fields
# show; the others from microversion.DYNAMIC_DRIVERS.
INTERFACE_VERSIONS = {'storage': microversion.STORAGE_INTERFACE,
                      'rescue': microversion.RESCUE_INTERFACE,
                      'bios': microversion.BIOS_INTERFACE,
                      'firmware': microversion.FIRMWARE_INTERFACE}
TYPES = ('classic', 'dynamic')


def _interface_fields() -> list[str]:
    out = []
    for interface in drivers.INTERFACES:
        if microversion.at_least(INTERFACE_VERSIONS.get(interface,
                                                        microversion.DYNAMIC_DRIVERS)):
            out += ['default_%s_interface' % interface,
                    'enabled_%s_interfaces' % interface]
    return out


def _short_fields() -> list[str]:
    fields = ['name', 'hosts', 'links']
    if microversion.at_least(microversion.PROPERTY_LINKS):
        fields.append('properties')
    if microversion.at_least(microversion.DYNAMIC_DRIVERS):
        fields.append('type')
    return fields


def to_dict(hardware_type: drivers.HardwareType, hosts: list[str],
            fields) -> dict:
    name = hardware_type.name
    values = {
        'name': name,
        'hosts': hosts,
        'type': 'dynamic',
        'links': links.resource_links('drivers', name),
        'properties': links.resource_links('drivers', name + '/properties'),
    }
    for interface in drivers.INTERFACES:
        values['default_%s_interface' % interface] = (
            hardware_type.defaults[interface])
        values['enabled_%s_interfaces' % interface] = (
            hardware_type.enabled[interface])
    return render.select(values, fields)


def _fields(detail: bool) -> list[str]:
    """The fields to show: those asked for (from 1.77), else the short
    ones, and with detail the interfaces too.

    :raises: NotAcceptable, InvalidParameterValue
    """
    allowed = _short_fields() + (_interface_fields() if microversion.at_least(
        microversion.DYNAMIC_DRIVERS) else [])
    if flask.request.args.get('fields') is not None:
        if not microversion.at_least(microversion.DRIVER_FIELDS):
            raise exception.NotAcceptable(
                'The fields parameter of drivers needs API version 1.%d or '
                'newer.' % microversion.DRIVER_FIELDS)
        return params.get_fields(allowed)
    return allowed if detail else _short_fields()


def _hosts() -> list[str]:
    """The live conductors: each serves every enabled hardware type."""
    return util.rpcapi().alive_conductors(flask.g.context)


def list_drivers():
    """The enabled hardware types served by a live conductor."""
    policy.authorize('baremetal:driver:get')
    detail = params.get_bool('detail')
    kind = flask.request.args.get('type')
    for name, value in (('detail', detail), ('type', kind)):
        if value is not None and not microversion.at_least(
                microversion.DYNAMIC_DRIVERS):
            raise exception.NotAcceptable(
                'The %s parameter of drivers needs API version 1.%d or '
                'newer.' % (name, microversion.DYNAMIC_DRIVERS))
    if detail and flask.request.args.get('fields') is not None:
        raise exception.InvalidParameterValue(
            err='Can not specify ?detail=True and fields in the same '
                'request.')
    if kind is not None and kind not in TYPES:
        raise exception.Invalid('"type" filter must be one of "classic" or '
                                '"dynamic", if specified.')
    fields = _fields(bool(detail))
    hosts = _hosts()
    # Pool has hardware types only (Ironic's dynamic drivers), as Ironic
    # since Rocky; with no live conductor none is served.
    names = drivers.hardware_types() if hosts and kind != 'classic' else []
    return flask.jsonify(drivers=[
        to_dict(drivers.get_hardware_type(name), hosts, fields)
        for name in names])


def _served(driver_name: str) -> tuple[drivers.HardwareType, list[str]]:
    """:raises: DriverNotFound for one not enabled or with no live
    conductor"""
    hosts = _hosts()
    if not hosts:
        raise exception.DriverNotFound(driver_name=driver_name)
    return drivers.get_hardware_type(driver_name), hosts


def get_driver(driver_name):
    policy.authorize('baremetal:driver:get')
    hardware_type, hosts = _served(driver_name)
    return flask.jsonify(to_dict(hardware_type, hosts, _fields(True)))


def get_driver_properties(driver_name):
    """The driver_info properties a node of the driver may have."""
    policy.authorize('baremetal:driver:get_properties')
    _served(driver_name)
    return flask.jsonify(drivers.PROPERTIES)
