"""The pool plugin of OpenStackClient: ``openstack pool ...``.

The endpoint of the pool API is, in this order:

* ``--os-pool-endpoint`` (``OS_POOL_ENDPOINT``);
* the ``baremetal`` endpoint osc-lib finds: ``baremetal_endpoint_override``
  of ``clouds.yaml``, the Keystone catalog, or with ``--os-auth-type none``
  the endpoint of the auth plugin (``--os-endpoint``, ``OS_ENDPOINT``);
* the ``endpoint`` of the configuration.
"""
import importlib
import logging
import re

from keystoneauth1 import exceptions as ksa_exc
from osc_lib import exceptions
from osc_lib import utils

from pool_client import client

LOG = logging.getLogger(__name__)

API_NAME = 'pool'
API_VERSION_OPTION = 'os_pool_api_version'
API_VERSIONS = {'1': 'pool_client.client.Client'}
DEFAULT_API_VERSION = client.LATEST_VERSION
# The service type of the catalog: pool serves Ironic's API.
SERVICE_TYPE = 'baremetal'

_VERSION_RE = re.compile(r'^1(\.(0|[1-9]\d*))?$')


def check_api_version(version: str) -> bool:
    """Accept "1" and any "1.N"; the server tells which it supports.

    :returns: True, so that OpenStackClient does not check the version
        against API_VERSIONS (which lists major versions only).
    :raises: CommandError for anything else
    """
    if version == 'latest' or _VERSION_RE.match(str(version)):
        return True
    raise exceptions.CommandError(
        'Invalid pool API version "%s": expected 1, 1.N or latest.'
        % version)


def _configuration(instance) -> dict:
    try:
        return instance.get_configuration() or {}
    except AttributeError:
        options = getattr(instance, '_cli_options', None)
        return dict(getattr(options, 'config', None) or {})


def get_endpoint(instance) -> str:
    """The root URL of the pool API for an osc-lib ClientManager.

    :raises: CommandError when there is none
    """
    config = _configuration(instance)
    endpoint = config.get('pool_endpoint')
    if endpoint:
        return endpoint
    try:
        endpoint = instance.get_endpoint_for_service_type(
            SERVICE_TYPE,
            region_name=getattr(instance, 'region_name', None),
            interface=getattr(instance, 'interface', None) or 'public')
    except ksa_exc.EndpointNotFound:
        endpoint = None
    if endpoint:
        return endpoint
    endpoint = (config.get('endpoint')
                or (config.get('auth') or {}).get('endpoint'))
    if endpoint:
        return endpoint
    raise exceptions.CommandError(
        'No endpoint of the pool API: give --os-pool-endpoint '
        '(OS_POOL_ENDPOINT), a baremetal endpoint in the catalog, or '
        '--os-auth-type none with --os-endpoint (OS_ENDPOINT).')


def _client_class(version: str):
    major = str(version).split('.', 1)[0]
    path = API_VERSIONS.get(major)
    if path is None:
        raise exceptions.UnsupportedVersion(
            'Invalid pool API version "%s": must be one of %s'
            % (version, ', '.join(sorted(API_VERSIONS))))
    module, name = path.rsplit('.', 1)
    return getattr(importlib.import_module(module), name)


def make_client(instance):
    """The pool client of an osc-lib ClientManager."""
    version = instance._api_version.get(API_NAME) or DEFAULT_API_VERSION
    if version in ('1', 'latest'):
        version = client.LATEST_VERSION
    client_class = _client_class(version)
    endpoint = get_endpoint(instance)
    LOG.debug('Instantiating pool client %s for %s, API version %s',
              client_class, endpoint, version)
    return client_class(session=instance.session, endpoint=endpoint,
                        api_version=version)


def build_option_parser(parser):
    """The global options of the plugin."""
    parser.add_argument(
        '--os-pool-api-version',
        metavar='<pool-api-version>',
        default=utils.env('OS_POOL_API_VERSION',
                          default=DEFAULT_API_VERSION),
        help='pool API version, default=%s (Env: OS_POOL_API_VERSION)'
             % DEFAULT_API_VERSION)
    parser.add_argument(
        '--os-pool-endpoint',
        metavar='<pool-endpoint>',
        default=utils.env('OS_POOL_ENDPOINT'),
        help='Root URL of the pool API, instead of the baremetal endpoint '
             'of the catalog or --os-endpoint (Env: OS_POOL_ENDPOINT)')
    return parser
