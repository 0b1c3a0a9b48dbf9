"""The OpenAPI 3.1 document of the API, built from the route table.

Request bodies are described by the very schema objects the handlers
validate them with (``pool_api.schemas`` and ``validation.PATCH_SCHEMA``),
so the document cannot drift from what the API accepts. Response schemas
follow the handlers' representations of nodes and allocations: which
fields a response has depends on the microversion and on the ``fields``
parameter, so only ``links`` is required of a node or an allocation, and
no other field may appear.
"""
import re

from pool_api import auth
from pool_api.handlers import allocations as allocation_handlers
from pool_api.handlers import nodes as node_handlers
from pool_api import microversion
from pool_api.schemas import allocations as allocation_schemas
from pool_api.schemas import common
from pool_api.schemas import nodes as node_schemas
from pool_api.schemas import pools as pool_schemas
from pool_api import validation
from pool_conductor import states

OPENAPI_VERSION = '3.1.0'
PATH = '/v1/openapi.json'
JSON = 'application/json'

_RULE_PARAM = re.compile(r'<(?:[^:<>]+:)?([^<>]+)>')


def _ref(kind: str, name: str) -> dict:
    return {'$ref': '#/components/%s/%s' % (kind, name)}


def _schema_ref(name: str) -> dict:
    return _ref('schemas', name)


# Response schemas --------------------------------------------------------

_STRING = {'type': 'string'}
_NULLABLE_STRING = {'type': ['string', 'null']}
_TIMESTAMP = {'type': 'string', 'format': 'date-time'}
_NULLABLE_TIMESTAMP = {'type': ['string', 'null'], 'format': 'date-time'}
_OBJECT = {'type': 'object'}
_STRINGS = {'type': 'array', 'items': _STRING}
_BOOLEAN = {'type': 'boolean'}
_LINKS = {'type': 'array', 'items': _schema_ref('Link')}

NODE_FIELDS = {
    'uuid': _STRING,
    'name': _NULLABLE_STRING,
    'description': _NULLABLE_STRING,
    'driver': _STRING,
    'resource_class': _NULLABLE_STRING,
    'traits': _STRINGS,
    'properties': _OBJECT,
    'extra': _OBJECT,
    'instance_info': _OBJECT,
    'driver_info': _OBJECT,
    'instance_uuid': _NULLABLE_STRING,
    'allocation_uuid': _NULLABLE_STRING,
    'provision_state': _NULLABLE_STRING,
    'target_provision_state': _NULLABLE_STRING,
    'provision_updated_at': _NULLABLE_TIMESTAMP,
    'power_state': _NULLABLE_STRING,
    'target_power_state': _NULLABLE_STRING,
    'maintenance': _BOOLEAN,
    'maintenance_reason': _NULLABLE_STRING,
    'owner': _NULLABLE_STRING,
    'lessee': _NULLABLE_STRING,
    'reservation': _NULLABLE_STRING,
    'last_error': _NULLABLE_STRING,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'pool': _STRING,
    'pool_status': {'type': 'string', 'enum': list(states.POOL_STATUSES)},
    'pool_allocated': _BOOLEAN,
    'params': _OBJECT,
    'profiles': _STRINGS,
    'workflow': _NULLABLE_STRING,
    'stage': _NULLABLE_STRING,
    'runnable': _BOOLEAN,
    'links': _LINKS,
}

ALLOCATION_FIELDS = {
    'uuid': _STRING,
    'name': _NULLABLE_STRING,
    'node_uuid': _NULLABLE_STRING,
    'state': {'type': 'string', 'enum': list(states.ALLOCATION_STATES)},
    'last_error': _NULLABLE_STRING,
    'resource_class': _NULLABLE_STRING,
    'traits': _STRINGS,
    'candidate_nodes': _STRINGS,
    'extra': _OBJECT,
    'owner': _NULLABLE_STRING,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}

CONDUCTOR_FIELDS = {
    'hostname': _STRING,
    'conductor_group': _STRING,
    'alive': _BOOLEAN,
    'drivers': _STRINGS,
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}


_ACTIONS = pool_schemas.TRANSITION_ACTIONS
POOL_FIELDS = {
    'name': _STRING,
    'description': _NULLABLE_STRING,
    'documentation': _NULLABLE_STRING,
    'parent_pool': _NULLABLE_STRING,
    **dict.fromkeys(pool_schemas.ACTION_SETS, _ACTIONS),
    'created_at': _TIMESTAMP,
    'updated_at': _NULLABLE_TIMESTAMP,
    'links': _LINKS,
}
_NAMED_COMMON = {'name': _STRING, 'description': _NULLABLE_STRING}
_NAMED_TAIL = {'created_at': _TIMESTAMP, 'updated_at': _NULLABLE_TIMESTAMP,
               'links': _LINKS}
PROFILE_FIELDS = {**_NAMED_COMMON, 'params': _OBJECT, **_NAMED_TAIL}
WORKFLOW_FIELDS = {**_NAMED_COMMON, 'stages': _STRINGS, **_NAMED_TAIL}


def _named(fields: dict, collection: str, item: str) -> dict:
    return {item: _object(fields, required=tuple(fields)),
            item + 'List': _object({
                collection: {'type': 'array', 'items': _schema_ref(item)},
            }, required=(collection,))}


def _object(properties: dict, required=(), description=None) -> dict:
    schema = {'type': 'object', 'properties': properties,
              'required': list(required), 'additionalProperties': False}
    if description:
        schema['description'] = description
    return schema


def _response_schemas() -> dict:
    version = _object({
        'id': _STRING,
        'links': _LINKS,
        'status': _STRING,
        'min_version': _STRING,
        'version': _STRING,
    }, required=('id', 'links', 'status', 'min_version', 'version'))
    media_type = _object({'base': _STRING, 'type': _STRING},
                         required=('base', 'type'))
    fault = _object({'faultcode': {'type': 'string',
                                   'enum': ['Client', 'Server']},
                     'faultstring': _STRING,
                     'debuginfo': _NULLABLE_STRING},
                    required=('faultcode', 'faultstring', 'debuginfo'))
    return {
        'Link': _object({'href': _STRING, 'rel': _STRING, 'type': _STRING},
                        required=('href', 'rel')),
        'Version': version,
        'Root': _object({
            'name': _STRING,
            'description': _STRING,
            'default_version': _schema_ref('Version'),
            'versions': {'type': 'array', 'items': _schema_ref('Version')},
        }, required=('name', 'description', 'default_version',
                     'versions')),
        'V1': _object({
            'id': _STRING,
            'links': _LINKS,
            'media_types': {'type': 'array', 'items': media_type},
            'nodes': _LINKS,
            'allocations': _LINKS,
            'version': _schema_ref('Version'),
        }, required=('id', 'links', 'media_types', 'nodes', 'version'),
            description='allocations appears from version 1.%d on.'
                        % microversion.ALLOCATIONS),
        'Node': _object(
            NODE_FIELDS, required=('links',),
            description='A node. Which fields it has depends on the '
                        'requested version and the fields parameter; '
                        'links are always there.'),
        'NodeList': _object({
            'nodes': {'type': 'array', 'items': _schema_ref('Node')},
            'next': {'type': 'string', 'format': 'uri',
                     'description': 'The next page, when this one is '
                                    'full.'},
        }, required=('nodes',)),
        'NodeStates': _object({
            'console_enabled': _BOOLEAN,
            'last_error': _NULLABLE_STRING,
            'power_state': _NULLABLE_STRING,
            'provision_state': _NULLABLE_STRING,
            'provision_updated_at': _NULLABLE_TIMESTAMP,
            'target_power_state': _NULLABLE_STRING,
            'target_provision_state': _NULLABLE_STRING,
            'raid_config': _OBJECT,
            'target_raid_config': _OBJECT,
        }, required=('console_enabled', 'last_error', 'power_state',
                     'provision_state', 'provision_updated_at',
                     'target_power_state', 'target_provision_state'),
            description='raid_config and target_raid_config appear from '
                        'version 1.%d on.' % node_handlers.RAID_CONFIG),
        'Traits': _object({'traits': _STRINGS}, required=('traits',)),
        'Allocation': _object(
            ALLOCATION_FIELDS, required=('links',),
            description='An allocation. Which fields it has depends on '
                        'the requested version and the fields parameter; '
                        'links are always there.'),
        'AllocationList': _object({
            'allocations': {'type': 'array',
                            'items': _schema_ref('Allocation')},
            'next': {'type': 'string', 'format': 'uri',
                     'description': 'The next page, when this one is '
                                    'full.'},
        }, required=('allocations',)),
        'Conductor': _object(
            CONDUCTOR_FIELDS, required=('links',),
            description='A conductor; alive when it is online and its '
                        'last heartbeat is recent.'),
        'ConductorList': _object({
            'conductors': {'type': 'array',
                           'items': _schema_ref('Conductor')},
        }, required=('conductors',)),
        'Error': _object({
            'error_message': {
                'type': 'string',
                'description': 'A JSON document (a fault) in a string, '
                               'as Ironic sends it.',
                'contentMediaType': JSON,
                'contentSchema': fault,
            },
        }, required=('error_message',)),
        **_named(POOL_FIELDS, 'pools', 'Pool'),
        **_named(PROFILE_FIELDS, 'profiles', 'Profile'),
        **_named(WORKFLOW_FIELDS, 'workflows', 'Workflow'),
        'PoolStatus': _object({
            'name': _STRING,
            'total': {'type': 'integer'},
            'statuses': _object(
                dict.fromkeys(states.POOL_STATUSES, {'type': 'integer'}),
                required=states.POOL_STATUSES),
        }, required=('name', 'total', 'statuses')),
        'Params': _OBJECT,
        'PoolActionResults': {'type': 'array', 'items': _object({
            'status': _STRING, 'allocated': _BOOLEAN,
            'name': _NULLABLE_STRING, 'uuid': _STRING},
            required=('status', 'allocated', 'name', 'uuid'))},
        'OpenAPI': {'type': 'object',
                    'required': ['openapi', 'info', 'paths']},
    }


def _request_schemas() -> dict:
    """The schemas request bodies are validated with, as they are."""
    return {
        'NodeCreate': node_schemas.CREATE,
        'NodeUpdate': node_schemas.UPDATE,
        'NodePowerState': node_schemas.POWER,
        'NodeProvisionState': node_schemas.PROVISION,
        'NodeMaintenance': node_schemas.MAINTENANCE,
        'NodeTraits': node_schemas.TRAITS,
        'AllocationCreate': allocation_schemas.CREATE,
        'AllocationUpdate': allocation_schemas.UPDATE,
        'JSONPatch': validation.PATCH_SCHEMA,
        'PoolCreate': pool_schemas.POOL_CREATE,
        'ProfileCreate': pool_schemas.PROFILE_CREATE,
        'WorkflowCreate': pool_schemas.WORKFLOW_CREATE,
        'NodeParams': pool_schemas.NODE_PARAMS,
        'PoolAction': pool_schemas.ACTION,
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
                'schema': _STRING}
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
    schema = {'type': 'string', 'minLength': 1, 'pattern': '^[^/]+$'}
    if name == 'trait':
        schema = common.TRAIT
    return {'name': name, 'in': 'path', 'required': True, 'schema': schema}


# Operations --------------------------------------------------------------

_ERRORS = {
    400: 'The request, its version header, a parameter or the body is '
         'not valid.',
    401: 'No credentials, or credentials that are not valid: see the '
         'WWW-Authenticate header.',
    403: 'The policy does not allow the caller this operation.',
    404: 'The resource does not exist (or not in the requested version).',
    405: 'The operation does not exist in the requested version.',
    406: 'The requested version is not supported, or the operation or a '
         'parameter needs a newer one.',
    409: 'The change conflicts with the state of a resource.',
    413: 'The body is larger than [oslo_middleware] '
         'max_request_body_size.',
    503: 'The database or the conductors cannot be reached.',
}

_LIST = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir')


class _Op:
    """What the document says about a handler."""

    def __init__(self, summary, tag, status=200, response=None, body=None,
                 body_required=True, query=(), errors=(), location=False,
                 versioned=True, sort_keys=(), filters=None):
        self.summary = summary
        self.tag = tag
        self.status = status
        self.response = response
        self.body = body
        self.body_required = body_required
        self.query = query
        self.errors = errors
        self.location = location
        self.versioned = versioned
        self.sort_keys = sort_keys
        self.filters = filters or {}


def _crud(item: str, collection: str, schema: str) -> dict:
    """The operations of a named object of the pool API."""
    return {
        'list_' + collection: _Op('List %s' % collection, collection,
                                  response=schema + 'List'),
        'create_' + item: _Op('Create a %s' % item, collection, status=201,
                              response=schema, body=schema + 'Create',
                              errors=(404, 409), location=True),
        'get_' + item: _Op('Show a %s' % item, collection, response=schema,
                           errors=(404,)),
        'update_' + item: _Op('Update a %s (JSON Patch)' % item,
                              collection, response=schema,
                              body='JSONPatch', errors=(404,)),
        'delete_' + item: _Op('Delete a %s' % item, collection,
                              status=204, errors=_WRITE),
    }


_NODE_SORT = node_handlers.SORT_KEYS
_NODE_FILTERS = dict(node_schemas.FILTERS)
_ALLOCATION_SORT = allocation_handlers.SORT_KEYS
_WRITE = (404, 409)

OPERATIONS = {
    'get_root': _Op('Version discovery', 'versions', response='Root',
                    versioned=False),
    'get_v1': _Op('The v1 API', 'versions', response='V1'),
    'get_openapi': _Op('This document', 'versions', response='OpenAPI',
                       versioned=False),
    'list_nodes': _Op(
        'List nodes', 'nodes', response='NodeList', query=_LIST,
        sort_keys=_NODE_SORT,
        filters={**_NODE_FILTERS, 'detail': {'type': 'boolean'}}),
    'create_node': _Op('Create a node', 'nodes', status=201,
                       response='Node', body='NodeCreate', errors=(409,),
                       location=True),
    'list_nodes_detail': _Op('List nodes with all their fields', 'nodes',
                             response='NodeList', query=_LIST,
                             sort_keys=_NODE_SORT, filters=_NODE_FILTERS),
    'get_node': _Op('Show a node', 'nodes', response='Node',
                    query=('fields',), errors=(404,)),
    'update_node': _Op('Update a node (JSON Patch)', 'nodes',
                       response='Node', body='JSONPatch', errors=_WRITE),
    'delete_node': _Op('Delete a node', 'nodes', status=204,
                       errors=_WRITE),
    'get_node_states': _Op('Show the states of a node', 'node states',
                           response='NodeStates', errors=(404,)),
    'set_power_state': _Op('Change the power state of a node',
                           'node states', status=202,
                           body='NodePowerState', errors=_WRITE,
                           location=True),
    'set_provision_state': _Op('Change the provision state of a node',
                               'node states', status=202,
                               body='NodeProvisionState', errors=_WRITE,
                               location=True),
    'set_maintenance': _Op(
        'Put a node in maintenance', 'node states', status=202,
        body='NodeMaintenance', body_required=False, errors=_WRITE,
        filters={'reason': node_schemas.MAINTENANCE['properties']
                 ['reason']}),
    'unset_maintenance': _Op('Take a node out of maintenance',
                             'node states', status=202, errors=_WRITE),
    'list_traits': _Op('List the traits of a node', 'traits',
                       response='Traits', errors=(404,)),
    'set_traits': _Op('Replace the traits of a node', 'traits',
                      status=204, body='NodeTraits', errors=_WRITE,
                      location=True),
    'remove_all_traits': _Op('Remove all traits of a node', 'traits',
                             status=204, errors=_WRITE),
    'add_trait': _Op('Add a trait to a node', 'traits', status=204,
                     errors=_WRITE, location=True),
    'remove_trait': _Op('Remove a trait from a node', 'traits',
                        status=204, errors=_WRITE),
    'get_node_allocation': _Op('Show the allocation of a node',
                               'allocations', response='Allocation',
                               query=('fields',), errors=(404,)),
    'delete_node_allocation': _Op('Delete the allocation of a node',
                                  'allocations', status=204,
                                  errors=_WRITE),
    'list_allocations': _Op('List allocations', 'allocations',
                            response='AllocationList', query=_LIST,
                            sort_keys=_ALLOCATION_SORT,
                            filters=allocation_schemas.FILTERS,
                            errors=(404,)),
    'create_allocation': _Op('Create an allocation, or backfill one',
                             'allocations', status=201,
                             response='Allocation',
                             body='AllocationCreate', errors=_WRITE,
                             location=True),
    'get_allocation': _Op('Show an allocation', 'allocations',
                          response='Allocation', query=('fields',),
                          errors=(404,)),
    'update_allocation': _Op('Update an allocation (JSON Patch)',
                             'allocations', response='Allocation',
                             body='JSONPatch', errors=(404, 405, 409)),
    'delete_allocation': _Op('Delete an allocation', 'allocations',
                             status=204, errors=_WRITE),
    'list_conductors': _Op('List conductors', 'conductors',
                           response='ConductorList', query=('fields',),
                           filters={'detail': _BOOLEAN}, errors=(404,)),
    'get_conductor': _Op('Show a conductor', 'conductors',
                         response='Conductor', query=('fields',),
                         errors=(404,)),
    'get_node_params': _Op('Show the params of a node', 'params',
                           response='Params',
                           filters=pool_schemas.PARAMS_QUERY,
                           errors=(404,)),
    'set_node_params': _Op('Replace the params of a node', 'params',
                           response='Params', body='NodeParams',
                           errors=_WRITE),
    'update_node_params': _Op('Change the params of a node (JSON Patch)',
                              'params', response='Params',
                              body='JSONPatch', errors=_WRITE),
    **_crud('pool', 'pools', 'Pool'),
    'get_pool_status': _Op('Count the members of a pool per status',
                           'pools', response='PoolStatus', errors=(404,)),
    **{name: _Op(summary, 'pools', response='PoolActionResults',
                 body='PoolAction', body_required=False,
                 errors=(404, 409))
       for name, summary in (
           ('add_machines', 'Move Free nodes of the parent pool into a '
                            'pool (addMachines)'),
           ('remove_machines', 'Move Free nodes of a pool to its parent '
                               'pool (removeMachines)'),
           ('allocate_machines', 'Allocate nodes of a pool in one '
                                 'transaction (allocateMachines)'),
           ('return_machines', 'Return allocated nodes to their pool '
                               '(returnMachines)'),
           ('return_to_pool', 'Return one node to its pool '
                              '(returnToPool)'))},
    **_crud('profile', 'profiles', 'Profile'),
    **_crud('workflow', 'workflows', 'Workflow'),
}

_DESCRIPTIONS = {200: 'OK', 201: 'Created', 202: 'Accepted',
                 204: 'No content'}


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
                    409: 'Conflict', 413: 'RequestEntityTooLarge',
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


def _responses(op: _Op, public: bool) -> dict:
    success = {'description': _DESCRIPTIONS[op.status],
               'headers': _response_headers(op.versioned, op.location)}
    if op.response:
        success['content'] = {JSON: {'schema': _schema_ref(op.response)}}
    responses = {str(op.status): success}
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


def _operation(handler_name: str, path_params: list, public: bool) -> dict:
    op = OPERATIONS[handler_name]
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
    operation = {'operationId': handler_name, 'summary': op.summary,
                 'tags': [op.tag]}
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


# Operations creating a resource: the path parameter naming it.
_CREATED = {'create_node': 'node_ident',
            'create_allocation': 'allocation_ident'}


def openapi_path(rule: str) -> tuple[str, list]:
    """A Flask rule as an OpenAPI path, and the names of its parameters."""
    return (_RULE_PARAM.sub(r'{\1}', rule), _RULE_PARAM.findall(rule))


def build(server_url: str = '/') -> dict:
    """The OpenAPI document of every route of the API.

    :param server_url: the root URL of the API.
    :raises: KeyError for a route whose handler the document does not
        describe.
    """
    # routes imports the handlers, one of which serves this document.
    from pool_api import routes

    paths: dict = {}
    by_params: dict = {}
    for rule, method, handler in routes.ROUTES:
        path, params = openapi_path(rule)
        operation = _operation(handler.__name__, params,
                               rule in auth.PUBLIC_PATHS)
        paths.setdefault(path, {})[method.lower()] = operation
        by_params.setdefault(tuple(params), []).append(operation)
    # What a client (or a fuzzer) can do with the resource it created.
    for creator, param in _CREATED.items():
        for item in paths.values():
            for operation in item.values():
                if operation['operationId'] == creator:
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
            'versions', 'nodes', 'node states', 'traits', 'params',
            'allocations', 'conductors', 'pools', 'profiles',
            'workflows')],
        'paths': paths,
        'security': SECURITY,
        'components': {
            'securitySchemes': SECURITY_SCHEMES,
            'schemas': {**_response_schemas(), **_request_schemas()},
            'parameters': _parameters(),
            'headers': _headers(),
            'responses': _error_responses(),
        },
    }
