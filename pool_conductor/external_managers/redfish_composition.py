"""The redfish_composition external manager: resource blocks of a DMTF
Redfish composition service, composed into systems by their users.

A node's external_ref is the Id of a resource block
(``/redfish/v1/CompositionService/ResourceBlocks/<Id>``). Its owner is
nobody when the block's ``CompositionStatus.CompositionState`` is
``Unused`` and it is not ``Reserved``; pool when a system it is composed
into is named with ``claim_prefix`` (``pool-`` by default; pool's claim
token is that system's URI); anyone else otherwise. Pool acquires a block
by composing a system of it alone (``POST /redfish/v1/Systems`` with
``Links.ResourceBlocks``, named ``<claim_prefix><key>`` so that a
repeated key finds it, the spec's fields merged in) and releases it by
deleting that system, by its URI: never another one. A round reads the
blocks and the systems with ``$expand`` where the service supports it,
else one request per member.

Parameters: ``endpoint`` (the service's root URL, e.g.
``https://bmc.example``), ``username`` and ``password`` (HTTP basic
authentication, none by default), ``verify`` (TLS verification, default
true), ``claim_prefix``, ``timeout`` (seconds per request, default 30).
"""
import requests

from pool_conductor import exception
from pool_conductor.external_managers import base

ROOT = '/redfish/v1'
BLOCKS = ROOT + '/CompositionService/ResourceBlocks'
SYSTEMS = ROOT + '/Systems'
DEFAULT_PREFIX = 'pool-'
# Composition states of a block another composition holds.
COMPOSED = ('Composing', 'Composed', 'ComposedAndAvailable')


def _fail(reason: str):
    raise exception.ExternalManagerError(manager='redfish_composition',
                                         reason=reason)


class RedfishCompositionManager(base.ExternalManagerDriver):

    def validate(self, parameters: dict) -> None:
        endpoint = parameters.get('endpoint')
        if not isinstance(endpoint, str) or not endpoint.startswith(
                ('http://', 'https://')):
            raise exception.InvalidParameterValue(
                err='The redfish_composition external manager needs the '
                    'parameter endpoint, the URL of the Redfish service.')
        for key in ('username', 'password', 'claim_prefix'):
            if key in parameters and not isinstance(parameters[key], str):
                raise exception.InvalidParameterValue(
                    err='The redfish_composition external manager\'s '
                        'parameter %s must be a string.' % key)
        if not isinstance(parameters.get('verify', True), bool):
            raise exception.InvalidParameterValue(
                err='The redfish_composition external manager\'s '
                    'parameter verify must be true or false.')
        timeout = parameters.get('timeout', 30)
        if isinstance(timeout, bool) or not isinstance(
                timeout, (int, float)) or not 0 < timeout <= 600:
            raise exception.InvalidParameterValue(
                err='The redfish_composition external manager\'s '
                    'parameter timeout must be 1 to 600 seconds.')

    # HTTP ---------------------------------------------------------------

    def _request(self, parameters: dict, method: str, path: str,
                 body=None, missing_ok: bool = False):
        try:
            self.validate(parameters)
        except exception.InvalidParameterValue as exc:
            _fail(str(exc))
        auth = None
        if parameters.get('username'):
            auth = (parameters['username'], parameters.get('password', ''))
        url = parameters['endpoint'].rstrip('/') + path
        try:
            resp = requests.request(
                method, url, json=body, auth=auth,
                verify=parameters.get('verify', True),
                timeout=parameters.get('timeout', 30),
                headers={'OData-Version': '4.0'})
        except requests.RequestException as exc:
            _fail('%s %s: %s' % (method, path, exc))
        if resp.status_code == 404 and missing_ok:
            return None
        if resp.status_code == 409:
            raise exception.ExternalTaken(manager='redfish_composition',
                                          ref=path)
        if resp.status_code >= 400:
            _fail('%s %s: %d %s' % (method, path, resp.status_code,
                                    resp.text[:300]))
        return resp

    def _json(self, parameters, path, missing_ok=False):
        resp = self._request(parameters, 'GET', path, missing_ok=missing_ok)
        if resp is None:
            return None
        try:
            return resp.json()
        except ValueError:
            _fail('GET %s: not JSON' % path)

    def _expands(self, parameters: dict) -> bool:
        """Whether the service answers $expand (its root says)."""
        root = self._json(parameters, ROOT)
        expand = ((root.get('ProtocolFeaturesSupported') or {})
                  .get('ExpandQuery') or {})
        return bool(expand.get('Levels') or expand.get('NoLinks'))

    def _members(self, parameters: dict, path: str, expands: bool
                 ) -> list[dict]:
        """The members of a collection, expanded in one request where the
        service can."""
        if expands:
            found = self._json(parameters, path + '?$expand=.($levels=1)')
            members = found.get('Members') or []
            if all('Id' in m for m in members):
                return members
        found = self._json(parameters, path)
        return [self._json(parameters, m['@odata.id'])
                for m in found.get('Members') or ()]

    # The interface ------------------------------------------------------

    @staticmethod
    def _prefix(parameters: dict) -> str:
        return parameters.get('claim_prefix', DEFAULT_PREFIX)

    def _systems(self, parameters: dict, expands: bool) -> dict[str, dict]:
        return {s.get('@odata.id') or '%s/%s' % (SYSTEMS, s['Id']): s
                for s in self._members(parameters, SYSTEMS, expands)}

    def _observe_block(self, block: dict, systems: dict,
                       prefix: str) -> base.Observation:
        status = block.get('CompositionStatus') or {}
        composed = [link.get('@odata.id') for link in
                    (block.get('Links') or {}).get('ComputerSystems') or ()]
        for uri in composed:
            system = systems.get(uri) or {}
            if (system.get('Name') or '').startswith(prefix):
                return base.Observation(base.POOL, uri)
        if composed or status.get('CompositionState') in COMPOSED:
            return base.Observation(base.OTHER, detail=', '.join(
                filter(None, composed)) or status.get('CompositionState'))
        if status.get('Reserved') or status.get('CompositionState') in (
                'Failed', 'Unavailable'):
            return base.Observation(base.OTHER,
                                    detail=status.get('CompositionState'))
        return base.Observation(base.NONE)

    def observe(self, parameters, refs):
        prefix = self._prefix(parameters)
        expands = self._expands(parameters)
        blocks = {b['Id']: b for b in self._members(parameters, BLOCKS,
                                                    expands)}
        systems = self._systems(parameters, expands)
        return {ref: (self._observe_block(blocks[ref], systems, prefix)
                      if ref in blocks else base.Observation(base.ABSENT))
                for ref in refs}

    def acquire(self, parameters, ref, key, spec):
        prefix = self._prefix(parameters)
        name = prefix + key
        block_uri = '%s/%s' % (BLOCKS, ref)
        block = self._json(parameters, block_uri, missing_ok=True)
        if block is None:
            _fail('resource block %s does not exist there' % ref)
        systems = self._systems(parameters, self._expands(parameters))
        for uri, system in systems.items():
            if system.get('Name') == name:
                return uri
        seen = self._observe_block(block, systems, prefix)
        if seen.owner != base.NONE:
            raise exception.ExternalTaken(manager='redfish_composition',
                                          ref=ref)
        body = {k: v for k, v in (spec or {}).items()
                if k not in ('Name', 'Links')}
        body.update(Name=name, Links={'ResourceBlocks': [
            {'@odata.id': block_uri}]})
        resp = self._request(parameters, 'POST', SYSTEMS, body)
        location = resp.headers.get('Location')
        if not location:
            _fail('composing a system of %s gave no Location' % ref)
        # A Location may be absolute: the claim is its path.
        return '/redfish/' + location.split('/redfish/', 1)[-1]

    def release(self, parameters, ref, token):
        system = self._json(parameters, token, missing_ok=True)
        if system is None:
            return
        if not (system.get('Name') or '').startswith(
                self._prefix(parameters)):
            # Not a composition of pool's: left as it is.
            return
        self._request(parameters, 'DELETE', token, missing_ok=True)

    def discover(self, parameters):
        return [base.Resource(b['Id'], b.get('Name'))
                for b in self._members(parameters, BLOCKS,
                                       self._expands(parameters))]
