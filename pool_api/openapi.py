"""The OpenAPI 3.1 document of the API, built from the route table.

Each route of the table carries a ``Doc``: what the document says of it.
Request bodies are described by the very schema objects the handlers
validate them with (``pool_api.schemas`` and ``validation.PATCH_SCHEMA``),
so the document cannot drift from what the API accepts; response schemas
are those of ``pool_api.schemas.responses``.
"""
from collections.abc import Iterable
from collections.abc import Mapping
import dataclasses
import functools
import re

from pool_api import auth
from pool_api import microversion
from pool_api.schemas import allocations as allocation_schemas
from pool_api.schemas import brokers as broker_schemas
from pool_api.schemas import chassis as chassis_schemas
from pool_api.schemas import claims as claim_schemas
from pool_api.schemas import common
from pool_api.schemas import content as content_schemas
from pool_api.schemas import deploy_templates as template_schemas
from pool_api.schemas import external_managers as \
    external_manager_schemas
from pool_api.schemas import nodes as node_schemas
from pool_api.schemas import pools as pool_schemas
from pool_api.schemas import portgroups as portgroup_schemas
from pool_api.schemas import ports as port_schemas
from pool_api.schemas import reservations as reservation_schemas
from pool_api.schemas import responses as response_schemas
from pool_api.schemas import volumes as volume_schemas
from pool_api import validation
from pool_conductor.db import filters

OPENAPI_VERSION = '3.1.0'
PATH = '/v1/openapi.json'
JSON = 'application/json'

_RULE_PARAM = re.compile(r'<(?:[^:<>]+:)?([^<>]+)>')


def _ref(kind: str, name: str) -> dict:
    return {'$ref': '#/components/%s/%s' % (kind, name)}


def _schema_ref(name: str) -> dict:
    return _ref('schemas', name)


def _request_schemas() -> dict:
    """The schemas request bodies are validated with, as they are."""
    return {
        'NodeCreate': node_schemas.CREATE,
        'NodeUpdate': node_schemas.UPDATE,
        'NodePowerState': node_schemas.POWER,
        'NodeProvisionState': node_schemas.PROVISION,
        'NodeMaintenance': node_schemas.MAINTENANCE,
        'MaintenanceWindowCreate': node_schemas.MAINTENANCE_WINDOW,
        'NodeConsoleState': node_schemas.CONSOLE,
        'NodeRAIDConfig': node_schemas.RAID_CONFIG_BODY,
        'DeployTemplateCreate': template_schemas.CREATE,
        'NodeTraits': node_schemas.TRAITS,
        'NodeIndicatorState': node_schemas.INDICATOR_STATE,
        'AllocationCreate': allocation_schemas.CREATE,
        'AllocationUpdate': allocation_schemas.UPDATE,
        'AllocationPreview': allocation_schemas.PREVIEW,
        'PortCreate': port_schemas.CREATE,
        'PortUpdate': port_schemas.UPDATE,
        'VIF': port_schemas.VIF,
        'PortgroupCreate': portgroup_schemas.CREATE,
        'PortgroupUpdate': portgroup_schemas.UPDATE,
        'ChassisCreate': chassis_schemas.CREATE,
        'ChassisUpdate': chassis_schemas.UPDATE,
        'VolumeConnectorCreate': volume_schemas.CONNECTOR_CREATE,
        'VolumeConnectorUpdate': volume_schemas.CONNECTOR_UPDATE,
        'VolumeTargetCreate': volume_schemas.TARGET_CREATE,
        'VolumeTargetUpdate': volume_schemas.TARGET_UPDATE,
        'JSONPatch': validation.PATCH_SCHEMA,
        'PoolCreate': pool_schemas.POOL_CREATE,
        'ProfileCreate': pool_schemas.PROFILE_CREATE,
        'WorkflowCreate': pool_schemas.WORKFLOW_CREATE,
        'NodeParams': pool_schemas.NODE_PARAMS,
        'PoolAction': pool_schemas.ACTION,
        'ContentImport': content_schemas.CONTENT,
        'BrokerCreate': broker_schemas.BROKER_CREATE,
        'ExternalManagerCreate':
            external_manager_schemas.EXTERNAL_MANAGER_CREATE,
        'ProviderCreate': claim_schemas.PROVIDER_CREATE,
        'ClaimCreate': claim_schemas.CLAIM_CREATE,
        'ClaimUpdate': claim_schemas.CLAIM_UPDATE,
        'ReservationCreate': reservation_schemas.CREATE,
    }


# Parameters and headers --------------------------------------------------

_VERSIONS = [microversion.to_string((1, minor)) for minor in range(
    microversion.MIN_VERSION[1], microversion.MAX_VERSION[1] + 1)]


def _query(name: str, schema: dict, description: str) -> dict:
    return {'name': name, 'in': 'query', 'required': False,
            'schema': schema, 'description': description}


def _parameters() -> dict:
    return {
        'Microversion': {
            'name': microversion.HEADER, 'in': 'header', 'required': False,
            'schema': {'type': 'string', 'enum': _VERSIONS + ['latest']},
            'description': 'The API version of the request; %s when not '
                           'given. The %s header (e.g. "baremetal 1.60") '
                           'is understood too, and wins.'
                           % (microversion.to_string(
                               microversion.DEFAULT_VERSION),
                              microversion.OPENSTACK_HEADER)},
        'fields': _query('fields', {'type': 'string', 'minLength': 1},
                         'Comma-separated fields to show (version 1.%d '
                         'on); links always come along.'
                         % microversion.FIELDS),
        'limit': _query('limit', {'type': 'integer', 'minimum': 0},
                        'The page size, capped by the [api] max_limit '
                        'option; 0 means that maximum.'),
        'marker': _query('marker', {'type': 'string'},
                         'The UUID of the last item of the previous '
                         'page.'),
        'sort_dir': _query('sort_dir', {'type': 'string',
                                        'enum': ['asc', 'desc']},
                           'The sort direction.'),
    }


def _headers() -> dict:
    def header(description, required=True):
        return {'description': description, 'required': required,
                'schema': response_schemas.STRING}
    return {
        'MinimumVersion': header('The oldest API version supported.'),
        'MaximumVersion': header('The newest API version supported.'),
        'Version': header('The API version of the response.',
                          required=False),
        'OpenStackVersion': header('The API version of the response, as '
                                   '"baremetal X.Y".', required=False),
        'RequestId': header('The ID of the request.'),
        'Location': header('The URL of the resource.'),
    }


def _path_parameter(name: str) -> dict:
    # Nodes, allocations, pools, profiles and workflows are named by a
    # UUID or an Ironic logical name, within the bounds the API checks
    # every path parameter against; a conductor's host is free text.
    schema = {**common.IDENT, 'pattern': common.NAME['pattern']}
    if name == 'trait':
        schema = common.TRAIT
    elif name == 'hostname':
        schema = common.IDENT
    return {'name': name, 'in': 'path', 'required': True, 'schema': schema}


# Operations --------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Doc:
    """What the document says about a route.

    response and body name component schemas. query names shared query
    parameters (``fields``, ``limit``, ``marker``, ``sort_key`` among
    sort_keys, ``sort_dir``); filters maps the other query parameters of
    the route to their schemas. The API refuses any other query parameter
    (``pool_api.app``), but with match_filters, which takes Digital Rebar
    filters as well (``pool_conductor.db.filters.is_filter``). errors are the
    route's own error statuses: those of versions, authentication and
    bodies come along. location: the success has a Location header;
    versioned: the route reads the version header. creates names the path
    parameter of the resource the route creates; its success links to the
    operations taking that parameter.
    """
    summary: str
    tag: str
    response: str | None = None
    status: int = 200
    body: str | None = None
    body_required: bool = True
    query: tuple[str, ...] = ()
    sort_keys: tuple[str, ...] = ()
    filters: Mapping[str, dict] = dataclasses.field(default_factory=dict)
    match_filters: bool = False
    errors: tuple[int, ...] = ()
    location: bool = False
    versioned: bool = True
    creates: str | None = None
    # The media type of the response's body.
    media: str = 'application/json'

    @functools.cached_property
    def query_names(self) -> frozenset[str]:
        """The names of the query parameters the route documents."""
        return frozenset(self.query) | frozenset(self.filters)


_ERRORS = {
    400: 'The request, its version header, a parameter or the body is '
         'not valid.',
    401: 'No credentials, or credentials that are not valid: see the '
         'WWW-Authenticate header.',
    403: 'The policy does not allow the caller this operation, or it '
         'would take a project past a cap of its windows.',
    404: 'The resource does not exist (or not in the requested version).',
    405: 'The operation does not exist in the requested version.',
    406: 'The requested version is not supported, or the operation or a '
         'parameter needs a newer one.',
    409: 'The change conflicts with the state of a resource.',
    410: 'The cursor is not one of the retained events (older than the '
         'oldest, or newer than the last given): read the state again and '
         'watch from the cursor a request without since answers.',
    413: 'The body is larger than [oslo_middleware] '
         'max_request_body_size.',
    429: 'The API process already holds [api] max_waiters waiting '
         'requests: retry after the seconds of the Retry-After header.',
    503: 'The database or the conductors cannot be reached.',
}

_DESCRIPTIONS = {200: 'OK', 201: 'Created', 202: 'Accepted',
                 204: 'No content', 303: 'See other'}


def _response_headers(versioned: bool, location: bool = False) -> dict:
    headers = {
        microversion.MIN_HEADER: _ref('headers', 'MinimumVersion'),
        microversion.MAX_HEADER: _ref('headers', 'MaximumVersion'),
        'X-Openstack-Request-Id': _ref('headers', 'RequestId'),
    }
    if versioned:
        headers[microversion.HEADER] = _ref('headers', 'Version')
        headers[microversion.OPENSTACK_HEADER] = _ref('headers',
                                                      'OpenStackVersion')
    if location:
        headers['Location'] = _ref('headers', 'Location')
    return headers


_ERROR_RESPONSES = {400: 'BadRequest', 401: 'Unauthorized',
                    403: 'Forbidden', 404: 'NotFound',
                    405: 'MethodNotAllowed', 406: 'NotAcceptable',
                    409: 'Conflict', 410: 'Gone',
                    413: 'RequestEntityTooLarge', 429: 'TooManyRequests',
                    503: 'ServiceUnavailable'}
# Either strategy; with auth_strategy = noauth, none.
SECURITY = [{'keystoneToken': []}, {'httpBasic': []}, {}]
SECURITY_SCHEMES = {
    'keystoneToken': {'type': 'apiKey', 'in': 'header',
                      'name': 'X-Auth-Token',
                      'description': 'A Keystone token '
                                     '(auth_strategy = keystone).'},
    'httpBasic': {'type': 'http', 'scheme': 'basic',
                  'description': 'A user of the htpasswd file '
                                 '(auth_strategy = http_basic).'},
}


def _error_responses() -> dict:
    """Error responses: any version header came with the request."""
    def error(description):
        return {'description': description,
                'headers': _response_headers(versioned=True),
                'content': {JSON: {'schema': _schema_ref('Error')}}}
    responses = {_ERROR_RESPONSES[code]: error(description)
                 for code, description in _ERRORS.items()}
    # keystonemiddleware answers with a body of its own.
    responses['Unauthorized']['content'][JSON]['schema'] = {'type': 'object'}
    responses['Unauthorized']['headers'] = {'WWW-Authenticate': {
        'description': 'The authentication scheme to use.', 'required': True,
        'schema': {'type': 'string'}}}
    responses['UnexpectedError'] = error('An unexpected error.')
    return responses


def _responses(op: Doc, public: bool) -> dict:
    success = {'description': _DESCRIPTIONS[op.status],
               'headers': _response_headers(op.versioned, op.location)}
    if op.response:
        success['content'] = {op.media: {'schema': _schema_ref(
            op.response)}}
    responses = {str(op.status): success}
    if op.status == 303:
        # What a client that follows the redirect gets: the dashboard.
        responses['200'] = {
            'description': 'The page the redirect leads to.',
            'content': {'text/html': {'schema': _schema_ref('Page')}}}
    codes = set(op.errors)
    if op.versioned:
        codes |= {400, 406, 503}
    if not public:
        codes |= {401, 403}
    if op.body:
        codes.add(413)
    for code in sorted(codes):
        responses[str(code)] = _ref('responses', _ERROR_RESPONSES[code])
    responses['default'] = _ref('responses', 'UnexpectedError')
    return responses


_MATCH_FILTERS = ('Any other query parameter is a Digital Rebar filter, '
                  'which may be repeated: a function call on a field or '
                  'param (cpus=Gte(4)), or a plain value on one of the '
                  'fields %s (pool=web). Any other parameter is refused.'
                  % ', '.join(filters.FIELDS))


def _operation(route, path_params: list, public: bool) -> dict:
    """The operation of a route.

    :raises: ValueError for a route the table does not document.
    """
    op = route.doc
    if not isinstance(op, Doc):
        raise ValueError('%s %s has no documentation'
                         % (route.method, route.rule))
    parameters = [_path_parameter(name) for name in path_params]
    if op.versioned:
        parameters.append(_ref('parameters', 'Microversion'))
    for name in op.query:
        if name == 'sort_key':
            parameters.append(_query(
                'sort_key', {'type': 'string', 'enum': list(op.sort_keys)},
                'The field to sort by; id when not given.'))
        else:
            parameters.append(_ref('parameters', name))
    for name, schema in op.filters.items():
        parameters.append(_query(name, schema, 'Filter or option: %s.'
                                 % name))
    operation = {'operationId': route.handler.__name__,
                 'summary': op.summary,
                 'tags': [op.tag]}
    if op.match_filters:
        operation['description'] = _MATCH_FILTERS
    if parameters:
        operation['parameters'] = parameters
    if op.body:
        operation['requestBody'] = {
            'required': op.body_required,
            'content': {JSON: {'schema': _schema_ref(op.body)}}}
    operation['responses'] = _responses(op, public)
    if public:
        operation['security'] = []
    return operation


def openapi_path(rule: str) -> tuple[str, list]:
    """A Flask rule as an OpenAPI path, and the names of its parameters."""
    return (_RULE_PARAM.sub(r'{\1}', rule), _RULE_PARAM.findall(rule))


def build(routes: Iterable, server_url: str = '/') -> dict:
    """The OpenAPI document of every route of the API.

    :param routes: the route table, ``pool_api.routes.ROUTES``.
    :param server_url: the root URL of the API.
    :raises: ValueError for a route the table does not document.
    """
    paths: dict = {}
    by_params: dict = {}
    created = []
    for route in routes:
        path, params = openapi_path(route.rule)
        operation = _operation(route, params,
                               route.rule in auth.PUBLIC_PATHS)
        paths.setdefault(path, {})[route.method.lower()] = operation
        by_params.setdefault(tuple(params), []).append(operation)
        if route.doc.creates:
            created.append((operation, route.doc.creates))
    # What a client (or a fuzzer) can do with the resource it created.
    for operation, param in created:
        success = next(iter(operation['responses'].values()))
        success['links'] = {
            op['operationId']: {
                'operationId': op['operationId'],
                'parameters': {param: '$response.body#/uuid'}}
            for op in by_params.get((param,), ())}
    return {
        'openapi': OPENAPI_VERSION,
        'info': {
            'title': 'pool',
            'version': microversion.to_string(microversion.MAX_VERSION),
            'summary': 'A fleet allocation service with an Ironic-'
                       'compatible API.',
            'description': 'The /v1 API of pool, wire-compatible with the '
                           'nodes and allocations API of OpenStack Ironic '
                           'in versions %s to %s. Request the version '
                           'with the %s header.'
                           % (microversion.to_string(
                               microversion.MIN_VERSION),
                              microversion.to_string(
                                  microversion.MAX_VERSION),
                              microversion.HEADER),
            'license': {'name': 'Apache 2.0',
                        'identifier': 'Apache-2.0'},
        },
        'servers': [{'url': server_url}],
        'tags': [{'name': name} for name in (
            'versions', 'nodes', 'node states', 'maintenance windows',
            'traits', 'params',
            'deploy templates',
            'allocations', 'reservations', 'ports', 'portgroups', 'volume',
            'chassis',
            'drivers', 'conductors', 'pools', 'profiles', 'workflows',
            'brokers', 'external_managers', 'providers', 'content',
            'claims', 'handles', 'events', 'history', 'metrics', 'fleet',
            'dashboard')],
        'paths': paths,
        'security': SECURITY,
        'components': {
            'securitySchemes': SECURITY_SCHEMES,
            'schemas': {**response_schemas.SCHEMAS, **_request_schemas()},
            'parameters': _parameters(),
            'headers': _headers(),
            'responses': _error_responses(),
        },
    }
