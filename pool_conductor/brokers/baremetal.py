"""The baremetal broker: machines from another Ironic-compatible service.

It acquires a machine by creating an allocation there (named
``pool-<token>``, so a repeated token finds the allocation it made) and
releases it by deleting that allocation, through openstacksdk.
Parameters: how to reach the service (``endpoint``: its URL, without
authentication, such as another pool deployment with ``noauth``; or
``cloud``: a clouds.yaml entry; or ``auth``: keystone credentials with
``region_name`` and ``interface``), what to ask for (``resource_class``,
``traits``), ``wait_timeout`` (seconds an allocation may take, default
600) and ``name_prefix`` (put before the upstream node's name here).
"""
import openstack
from openstack import exceptions as sdk_exc

from pool_conductor.brokers import base
from pool_conductor import exception

DEFAULT_WAIT = 600
_WHERE = ('endpoint', 'cloud', 'auth')


def _fail(reason: str, parameters: dict):
    raise exception.BrokerError(broker='baremetal', reason=reason,
                                parameters=parameters)


class BaremetalBroker(base.BrokerDriver):

    def validate(self, parameters: dict) -> None:
        given = [k for k in _WHERE if parameters.get(k)]
        if len(given) != 1:
            raise exception.InvalidParameterValue(
                err='The baremetal broker needs exactly one of the '
                    'parameters endpoint, cloud or auth, not %s.'
                    % (', '.join(given) or 'none'))
        for key in ('endpoint', 'cloud', 'resource_class', 'name_prefix'):
            if key in parameters and not isinstance(parameters[key], str):
                raise exception.InvalidParameterValue(
                    err='The baremetal broker\'s parameter %s must be a '
                        'string.' % key)
        if not parameters.get('resource_class'):
            raise exception.InvalidParameterValue(
                err='The baremetal broker needs the parameter '
                    'resource_class.')
        if 'auth' in parameters and not isinstance(parameters['auth'],
                                                   dict):
            raise exception.InvalidParameterValue(
                err='The baremetal broker\'s parameter auth must be an '
                    'object (auth_url, username, password, ...).')
        traits = parameters.get('traits', [])
        if not isinstance(traits, list) or not all(
                isinstance(t, str) for t in traits):
            raise exception.InvalidParameterValue(
                err='The baremetal broker\'s parameter traits must be a '
                    'list of strings.')
        wait = parameters.get('wait_timeout', DEFAULT_WAIT)
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) \
                or wait <= 0:
            raise exception.InvalidParameterValue(
                err='The baremetal broker\'s parameter wait_timeout must '
                    'be a positive number of seconds.')

    def _connect(self, parameters: dict):
        try:
            self.validate(parameters)
        except exception.InvalidParameterValue as exc:
            _fail(str(exc), parameters)
        try:
            if parameters.get('endpoint'):
                return openstack.connect(
                    auth_type='none', region_name='',
                    baremetal_endpoint_override=parameters['endpoint'])
            if parameters.get('cloud'):
                return openstack.connect(cloud=parameters['cloud'])
            return openstack.connect(
                auth=parameters['auth'],
                region_name=parameters.get('region_name'),
                interface=parameters.get('interface', 'public'))
        except sdk_exc.SDKException as exc:
            _fail('cannot connect: %s' % exc, parameters)

    def create(self, token: str, parameters: dict) -> dict:
        conn = self._connect(parameters)
        name = 'pool-' + token
        baremetal = conn.baremetal
        try:
            try:
                alloc = baremetal.get_allocation(name)
            except sdk_exc.NotFoundException:
                alloc = baremetal.create_allocation(
                    name=name, resource_class=parameters['resource_class'],
                    traits=list(parameters.get('traits') or []),
                    extra={'pool_broker_token': token})
            alloc = baremetal.wait_for_allocation(
                alloc, timeout=parameters.get('wait_timeout', DEFAULT_WAIT),
                ignore_error=True)
            if alloc.state == 'error':
                # Asked for again, the request must not find this one.
                baremetal.delete_allocation(alloc, ignore_missing=True)
                _fail('allocation %s failed: %s' % (name, alloc.last_error),
                      parameters)
            node = baremetal.get_node(alloc.node_id)
        except sdk_exc.SDKException as exc:
            _fail(str(exc), parameters)
        return {
            'ref': alloc.id,
            'name': ((parameters.get('name_prefix') or '') + node.name
                     if node.name else None),
            'resource_class': node.resource_class,
            'properties': dict(node.properties or {}),
            'traits': list(node.traits or []),
            'driver_info': {'upstream_node': node.id,
                            'upstream_allocation': alloc.id},
        }

    def destroy(self, ref: str, parameters: dict) -> None:
        conn = self._connect(parameters)
        try:
            conn.baremetal.delete_allocation(ref, ignore_missing=True)
        except sdk_exc.SDKException as exc:
            _fail(str(exc), parameters)
