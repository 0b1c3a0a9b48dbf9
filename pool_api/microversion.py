"""API microversions: the version a request asks for, and version checks."""
import re

import flask

from pool_conductor import exception

MIN_VERSION = (1, 1)
# The highest version whose every feature pool honours; the table of
# versions in doc/source/api.rst says which features pool has above it.
MAX_VERSION = (1, 63)
# With no version header a request gets the oldest version, as in Ironic.
DEFAULT_VERSION = MIN_VERSION

HEADER = 'X-OpenStack-Ironic-API-Version'
MIN_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version'
OPENSTACK_HEADER = 'OpenStack-API-Version'
SERVICE_TYPE = 'baremetal'

# The minor versions that introduced what pool implements of Ironic's API.
FIELDS = 8
ENROLL = 11
RESOURCE_CLASS = 21
TRAITS = 37
FAULT = 42
CONDUCTORS = 49
OWNER = 50
DESCRIPTION = 51
ALLOCATIONS = 52
ALLOCATION_UPDATE = 57
ALLOCATION_BACKFILL = 58
ALLOCATION_OWNER = 60
RETIRED = 61
# Ironic added lessee in 1.65; pool has shown it from 1.60, its highest
# version then, and keeps it there so that clients pinned to 1.60 keep
# it (a field Ironic's clients do not know is ignored by them).
LESSEE = 60

# Nodes: their fields, filters and patches.
DRIVER_INTERNAL_INFO = 3
NODE_NAMES = 5
CLEAN_STEP = 7
PROVISION_STATE_FILTER = 9
RAID_CONFIG = 12
DRIVER_FILTER = 16
NETWORK_INTERFACE = 20
UNSET_CHASSIS = 25
DYNAMIC_INTERFACES = 31
STORAGE_INTERFACE = 33
RESCUE_INTERFACE = 38
BIOS_INTERFACE = 40
DEPLOY_STEP = 44
RESET_INTERFACES = 45
CONDUCTOR_GROUP = 46
AUTOMATED_CLEAN = 47
PROTECTED = 48
FIRMWARE_INTERFACE = 86
# Node states and management: verbs, their bodies, power and the NMI.
MANAGEMENT_VERBS = 4
MANUAL_CLEAN = 15
SOFT_POWER = 27
INJECT_NMI = 29
REBUILD_CONFIGDRIVE = 35
RESCUE = 38
CONFIGDRIVE_DICT = 56
CONFIGDRIVE_VENDOR_DATA = 59
DEPLOY_STEPS = 69
# Ports, port groups, VIFs and volumes.
PORT_INTERNAL_INFO = 18
LOCAL_LINK = 19
PORTGROUPS = 23
# /v1/nodes/<node>/portgroups, /v1/portgroups/<portgroup>/ports and the
# portgroup_uuid of a port.
PORTGROUP_SUBRESOURCES = 24
PORTGROUP_MODE = 26
VIFS = 28
VOLUME = 32
PHYSICAL_NETWORK = 34
SMARTNIC = 53
# Drivers and deploy templates.
PROPERTY_LINKS = 14
DYNAMIC_DRIVERS = 30
DEPLOY_TEMPLATES = 55
DRIVER_FIELDS = 77

# ASCII digits, few enough for int().
_VERSION_RE = re.compile(r'^([1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$')


def to_string(version: tuple[int, int]) -> str:
    return '%d.%d' % version


def _header_value(headers) -> str | None:
    value = headers.get(OPENSTACK_HEADER)
    if value:
        for item in value.split(','):
            parts = item.strip().split(None, 1)
            if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
                return parts[1].strip()
    return headers.get(HEADER)


def parse(headers) -> tuple[int, int]:
    """The version a request asks for.

    :raises: Invalid for a malformed version, NotAcceptable for one out of
        the supported range.
    """
    value = _header_value(headers)
    if value is None:
        return DEFAULT_VERSION
    value = value.strip()
    if value.lower() == 'latest':
        return MAX_VERSION
    match = _VERSION_RE.match(value)
    if not match:
        raise exception.Invalid(
            'Invalid value for %s header: "%s". It must be "latest" or a '
            'version of the form X.Y.' % (HEADER, value))
    version = (int(match.group(1)), int(match.group(2)))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise exception.NotAcceptable(
            'Version %s was requested but the minor version is not '
            'supported by this service. The supported version range is: '
            '[%s, %s].' % (value, to_string(MIN_VERSION),
                           to_string(MAX_VERSION)))
    return version


def requested() -> tuple[int, int]:
    """The version of the current request."""
    return flask.g.get('version', DEFAULT_VERSION)


def at_least(minor: int) -> bool:
    """Whether the current request asks for version 1.minor or newer."""
    return requested() >= (1, minor)


def require(minor: int) -> None:
    """Answer as Ironic does, 404, for a resource below the version that
    introduced it, with a hint naming that version.

    :raises: NotFound
    """
    if not at_least(minor):
        raise exception.NotFound(
            'The resource could not be found. It requires API version '
            '1.%d or later, and this request asked for %s; send the %s '
            'header (for example "%s: 1.%d").'
            % (minor, to_string(requested()), HEADER, HEADER, minor))


def response_headers(version: tuple[int, int] | None) -> dict:
    headers = {MIN_HEADER: to_string(MIN_VERSION),
               MAX_HEADER: to_string(MAX_VERSION),
               'Vary': '%s, %s' % (HEADER, OPENSTACK_HEADER)}
    if version is not None:
        headers[HEADER] = to_string(version)
        headers[OPENSTACK_HEADER] = '%s %s' % (SERVICE_TYPE,
                                              to_string(version))
    return headers
