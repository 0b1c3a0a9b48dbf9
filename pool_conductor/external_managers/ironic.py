"""The ironic external manager: hardware another Ironic-compatible service
(Ironic, or another pool deployment) owns, through openstacksdk.

A node's external_ref is the node's UUID or name there. Its owner there
is nobody when the node has neither an allocation nor an instance, pool
when its allocation's name starts with ``claim_prefix`` (``pool-`` by
default; pool's claim token is that allocation's UUID), anyone else
otherwise. Pool acquires a node by creating an allocation for it alone
(named ``<claim_prefix><key>``, so that a repeated key finds it, with
the spec in its extra) and releases it by deleting that allocation, by
its UUID: never another one.

Parameters: ``endpoint``, the service's URL (no authentication, as a
pool deployment with ``noauth``), and optionally ``auth_type`` and
``auth`` (keystoneauth options, e.g. ``password`` with ``auth_url``,
``username``, ...), ``region_name``, ``interface``, ``claim_prefix``,
``wait_timeout`` (seconds an allocation there may take, default 60).
"""
from keystoneauth1 import exceptions as ksa_exc
import openstack
from openstack import exceptions as sdk_exc

from pool_conductor import exception
from pool_conductor.external_managers import base

DEFAULT_WAIT = 60
DEFAULT_PREFIX = 'pool-'
# What a call to the other service raises when it fails.
_FAILED = (sdk_exc.SDKException, ksa_exc.ClientException)


def _fail(reason: str):
    raise exception.ExternalManagerError(manager='ironic', reason=reason)


class IronicExternalManager(base.ExternalManagerDriver):

    def validate(self, parameters: dict) -> None:
        if not isinstance(parameters.get('endpoint'), str) or not (
                parameters['endpoint'].startswith(('http://', 'https://'))):
            raise exception.InvalidParameterValue(
                err='The ironic external manager needs the parameter '
                    'endpoint, the URL of the other service.')
        for key in ('auth_type', 'region_name', 'interface',
                    'claim_prefix'):
            if key in parameters and not isinstance(parameters[key], str):
                raise exception.InvalidParameterValue(
                    err='The ironic external manager\'s parameter %s must '
                        'be a string.' % key)
        if 'auth' in parameters and not isinstance(parameters['auth'],
                                                   dict):
            raise exception.InvalidParameterValue(
                err='The ironic external manager\'s parameter auth must '
                    'be an object of keystoneauth options.')
        wait = parameters.get('wait_timeout', DEFAULT_WAIT)
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) \
                or not 0 < wait <= 3600:
            raise exception.InvalidParameterValue(
                err='The ironic external manager\'s parameter wait_timeout '
                    'must be a number of seconds from 1 to 3600.')

    def _connect(self, parameters: dict):
        try:
            self.validate(parameters)
        except exception.InvalidParameterValue as exc:
            _fail(str(exc))
        options = {'auth_type': parameters.get('auth_type', 'none'),
                   'region_name': parameters.get('region_name', ''),
                   'baremetal_endpoint_override': parameters['endpoint']}
        if parameters.get('auth'):
            options['auth'] = dict(parameters['auth'])
        if parameters.get('interface'):
            options['interface'] = parameters['interface']
        try:
            return openstack.connect(**options)
        except _FAILED as exc:
            _fail('cannot connect: %s' % exc)

    @staticmethod
    def _prefix(parameters: dict) -> str:
        return parameters.get('claim_prefix', DEFAULT_PREFIX)

    def observe(self, parameters, refs):
        conn = self._connect(parameters)
        prefix = self._prefix(parameters)
        try:
            nodes = list(conn.baremetal.nodes(
                fields=['uuid', 'name', 'allocation_uuid',
                        'instance_uuid']))
            allocations = {a.id: a for a in conn.baremetal.allocations(
                fields=['uuid', 'name', 'node_uuid'])}
        except _FAILED as exc:
            _fail(str(exc))
        by_ref = {}
        for node in nodes:
            by_ref[node.id] = node
            if node.name:
                by_ref[node.name] = node
        out = {}
        for ref in refs:
            node = by_ref.get(ref)
            if node is None:
                out[ref] = base.Observation(base.ABSENT)
                continue
            alloc = allocations.get(node.allocation_id)
            if alloc is not None and (alloc.name or '').startswith(prefix):
                out[ref] = base.Observation(base.POOL, alloc.id)
            elif node.allocation_id or node.instance_id:
                out[ref] = base.Observation(
                    base.OTHER, detail=node.allocation_id
                    or node.instance_id)
            else:
                out[ref] = base.Observation(base.NONE)
        return out

    def acquire(self, parameters, ref, key, spec):
        conn = self._connect(parameters)
        baremetal = conn.baremetal
        name = self._prefix(parameters) + key
        try:
            node = baremetal.get_node(ref)
            try:
                alloc = baremetal.get_allocation(name)
            except sdk_exc.NotFoundException:
                if node.allocation_id or node.instance_id:
                    raise exception.ExternalTaken(manager='ironic',
                                                  ref=ref) from None
                alloc = baremetal.create_allocation(
                    name=name, resource_class=node.resource_class,
                    candidate_nodes=[node.id],
                    extra={'pool_spec': spec or {}})
            alloc = baremetal.wait_for_allocation(
                alloc, timeout=parameters.get('wait_timeout', DEFAULT_WAIT),
                ignore_error=True)
            if alloc.state == 'error' or alloc.node_id != node.id:
                # Asked for again, the key must not find this one.
                baremetal.delete_allocation(alloc, ignore_missing=True)
                node = baremetal.get_node(ref)
                if node.allocation_id or node.instance_id:
                    raise exception.ExternalTaken(manager='ironic', ref=ref)
                _fail('allocation %s for %s failed: %s'
                      % (name, ref, alloc.last_error))
        except sdk_exc.NotFoundException:
            _fail('node %s does not exist there' % ref)
        except _FAILED as exc:
            _fail(str(exc))
        return alloc.id

    def release(self, parameters, ref, token):
        conn = self._connect(parameters)
        prefix = self._prefix(parameters)
        try:
            alloc = conn.baremetal.get_allocation(token)
        except sdk_exc.NotFoundException:
            return
        except _FAILED as exc:
            _fail(str(exc))
        if not (alloc.name or '').startswith(prefix):
            # Not a claim of pool's: left as it is.
            return
        try:
            conn.baremetal.delete_allocation(alloc.id, ignore_missing=True)
        except _FAILED as exc:
            _fail(str(exc))

    def discover(self, parameters):
        conn = self._connect(parameters)
        try:
            return [base.Resource(n.id, n.name, n.resource_class,
                                  dict(n.properties or {}))
                    for n in conn.baremetal.nodes(details=True)]
        except _FAILED as exc:
            _fail(str(exc))
