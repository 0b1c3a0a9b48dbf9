"""The route table of the API: rule, method, handler and its document."""
from collections.abc import Callable
from typing import NamedTuple

from pool_api.handlers import allocations
from pool_api.handlers import brokers
from pool_api.handlers import claims
from pool_api.handlers import conductors
from pool_api.handlers import events
from pool_api.handlers import external_managers
from pool_api.handlers import fleet
from pool_api.handlers import metrics
from pool_api.handlers import node_params
from pool_api.handlers import nodes
from pool_api.handlers import openapi
from pool_api.handlers import pool_actions
from pool_api.handlers import pools
from pool_api.handlers import ports
from pool_api.handlers import profiles
from pool_api.handlers import providers
from pool_api.handlers import root
from pool_api.handlers import traits
from pool_api.handlers import vifs
from pool_api.handlers import workflows
from pool_api.dashboard import views as dashboard
from pool_api.openapi import Doc
from pool_api.schemas import allocations as allocation_schemas
from pool_api.schemas import claims as claim_schemas
from pool_api.schemas import nodes as node_schemas
from pool_api.schemas import pools as pool_schemas
from pool_api.schemas import ports as port_schemas


class Route(NamedTuple):
    """A route of the API, and what the OpenAPI document says of it."""
    rule: str
    method: str
    handler: Callable
    doc: Doc


NODE = '/v1/nodes/<node_ident>'
ALLOCATION = '/v1/allocations/<allocation_ident>'
PORT = '/v1/ports/<port_uuid>'
POOL = '/v1/pools/<pool_name>'
PROFILE = '/v1/profiles/<profile_name>'
WORKFLOW = '/v1/workflows/<workflow_name>'
BROKER = '/v1/brokers/<broker_name>'
EXTERNAL_MANAGER = '/v1/external_managers/<manager_name>'
PROVIDER = '/v1/providers/<provider_name>'
CLAIM = '/v1/claims/<claim_ident>'

# Query parameters and errors that routes share.
_FIELDS = ('fields',)
_LIST = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir')
_DETAIL = {'detail': {'type': 'boolean'}}
_REASON = {'reason': node_schemas.MAINTENANCE['properties']['reason']}
_MISSING = (404,)
_PORT_LIST = {'tag': 'ports', 'response': 'PortList', 'query': _LIST,
              'sort_keys': ports.SORT_KEYS, 'errors': _MISSING}
_WRITE = (404, 409)
_POOL_ACTION = {'tag': 'pools', 'response': 'PoolActionResults',
                'body': 'PoolAction', 'body_required': False,
                'errors': _WRITE}


def _history(rule: str, what: str, list_handler: Callable,
             get_handler: Callable) -> tuple[Route, Route]:
    """The routes of the history of an object, as Ironic's of a node."""
    return (
        Route(rule + '/history', 'GET', list_handler,
              Doc('List the history of %s' % what, 'history', 'HistoryList',
                  query=('limit', 'marker', 'sort_dir'),
                  filters=events.HISTORY_QUERY, errors=_MISSING)),
        Route(rule + '/history/<event_uuid>', 'GET', get_handler,
              Doc('Show an event of the history of %s' % what, 'history',
                  'HistoryEvent', errors=_MISSING)))


_PAGE = {'tag': 'dashboard', 'versioned': False, 'media': 'text/html'}
_SEE_DASHBOARD = {'tag': 'dashboard', 'versioned': False, 'status': 303,
                  'location': True}
_DASHBOARD = [
    Route('/dashboard', 'GET', dashboard.show_dashboard,
          Doc('The dashboard: a page of the overview of the fleet, or the '
              'login form', response='Page', **_PAGE)),
    Route('/dashboard/login', 'POST', dashboard.login,
          Doc('Log in to the dashboard (a form: username and password, or '
              'token); sets the session cookie', **_SEE_DASHBOARD)),
    Route('/dashboard/logout', 'POST', dashboard.logout,
          Doc('Log out of the dashboard', **_SEE_DASHBOARD)),
    Route('/dashboard/dashboard.css', 'GET', dashboard.get_stylesheet,
          Doc('The style sheet of the dashboard', response='Page',
              **{**_PAGE, 'media': 'text/css'})),
    Route('/dashboard/dashboard.js', 'GET', dashboard.get_script,
          Doc('The script of the dashboard', response='Page',
              **{**_PAGE, 'media': 'text/javascript'})),
    Route('/dashboard/watch', 'GET', dashboard.watch_events,
          Doc('The event feed for the dashboard\'s script (its session '
              'cookie); 404 where the API has no feed', 'dashboard',
              'EventWatch', versioned=False, filters=dashboard.WATCH_QUERY,
              errors=_MISSING)),
]

ROUTES = [
    Route('/', 'GET', root.get_root,
          Doc('Version discovery', 'versions', 'Root', versioned=False)),
    Route('/v1', 'GET', root.get_v1, Doc('The v1 API', 'versions', 'V1')),
    Route('/v1/openapi.json', 'GET', openapi.get_openapi,
          Doc('This document', 'versions', 'OpenAPI', versioned=False)),
    Route('/metrics', 'GET', metrics.get_metrics,
          Doc('Prometheus metrics', 'metrics', 'Metrics', versioned=False,
              media='text/plain')),
    Route('/v1/fleet', 'GET', fleet.get_fleet,
          Doc('The overview of the fleet: counts by state with links to '
              'the lists they count, conductors, lifespans ending soon, '
              'warnings and errors', 'fleet', 'Fleet',
              filters=fleet.QUERY)),
    *_DASHBOARD,

    Route('/v1/nodes', 'GET', nodes.list_nodes,
          Doc('List nodes', 'nodes', 'NodeList', query=_LIST,
              sort_keys=nodes.SORT_KEYS,
              filters={**node_schemas.FILTERS, **_DETAIL},
              match_filters=True)),
    Route('/v1/nodes', 'POST', nodes.create_node,
          Doc('Create a node', 'nodes', 'Node', status=201, body='NodeCreate',
              errors=(409,), location=True, creates='node_ident')),
    Route('/v1/nodes/detail', 'GET', nodes.list_nodes_detail,
          Doc('List nodes with all their fields', 'nodes', 'NodeList',
              query=_LIST, sort_keys=nodes.SORT_KEYS,
              filters=node_schemas.FILTERS, match_filters=True)),
    Route(NODE, 'GET', nodes.get_node,
          Doc('Show a node', 'nodes', 'Node', query=_FIELDS, errors=_MISSING)),
    Route(NODE, 'PATCH', nodes.update_node,
          Doc('Update a node (JSON Patch)', 'nodes', 'Node',
              body='JSONPatch', errors=_WRITE)),
    Route(NODE, 'DELETE', nodes.delete_node,
          Doc('Delete a node', 'nodes', status=204, errors=_WRITE)),
    Route(NODE + '/states', 'GET', nodes.get_node_states,
          Doc('Show the states of a node', 'node states', 'NodeStates',
              errors=_MISSING)),
    Route(NODE + '/validate', 'GET', nodes.validate_node,
          Doc('Validate the driver interfaces of a node', 'node states',
              'NodeValidation', errors=_MISSING)),
    Route(NODE + '/states/power', 'PUT', nodes.set_power_state,
          Doc('Change the power state of a node', 'node states',
              status=202, body='NodePowerState', errors=_WRITE,
              location=True)),
    Route(NODE + '/states/provision', 'PUT', nodes.set_provision_state,
          Doc('Change the provision state of a node', 'node states',
              status=202, body='NodeProvisionState', errors=_WRITE,
              location=True)),
    Route(NODE + '/maintenance', 'PUT', nodes.set_maintenance,
          Doc('Put a node in maintenance', 'node states', status=202,
              body='NodeMaintenance', body_required=False, errors=_WRITE,
              filters=_REASON)),
    Route(NODE + '/maintenance', 'DELETE', nodes.unset_maintenance,
          Doc('Take a node out of maintenance', 'node states', status=202,
              errors=_WRITE)),

    Route(NODE + '/traits', 'GET', traits.list_traits,
          Doc('List the traits of a node', 'traits', 'Traits',
              errors=_MISSING)),
    Route(NODE + '/traits', 'PUT', traits.set_traits,
          Doc('Replace the traits of a node', 'traits', status=204,
              body='NodeTraits', errors=_WRITE, location=True)),
    Route(NODE + '/traits', 'DELETE', traits.remove_all_traits,
          Doc('Remove all traits of a node', 'traits', status=204,
              errors=_WRITE)),
    Route(NODE + '/traits/<trait>', 'PUT', traits.add_trait,
          Doc('Add a trait to a node', 'traits', status=204, errors=_WRITE,
              location=True)),
    Route(NODE + '/traits/<trait>', 'DELETE', traits.remove_trait,
          Doc('Remove a trait from a node', 'traits', status=204,
              errors=_WRITE)),

    Route(NODE + '/params', 'GET', node_params.get_node_params,
          Doc('Show the params of a node', 'params', 'Params',
              filters=pool_schemas.PARAMS_QUERY, errors=_MISSING)),
    Route(NODE + '/params', 'PUT', node_params.set_node_params,
          Doc('Replace the params of a node', 'params', 'Params',
              body='NodeParams', errors=_WRITE)),
    Route(NODE + '/params', 'PATCH', node_params.update_node_params,
          Doc('Change the params of a node (JSON Patch)', 'params',
              'Params', body='JSONPatch', errors=_WRITE)),

    Route(NODE + '/allocation', 'GET', allocations.get_node_allocation,
          Doc('Show the allocation of a node', 'allocations', 'Allocation',
              query=_FIELDS, errors=_MISSING)),
    Route(NODE + '/allocation', 'DELETE', allocations.delete_node_allocation,
          Doc('Delete the allocation of a node', 'allocations', status=204,
              errors=_WRITE)),
    Route('/v1/allocations', 'GET', allocations.list_allocations,
          Doc('List allocations', 'allocations', 'AllocationList',
              query=_LIST, sort_keys=allocations.SORT_KEYS,
              filters=allocation_schemas.FILTERS, errors=_MISSING)),
    Route('/v1/allocations', 'POST', allocations.create_allocation,
          Doc('Create an allocation, or backfill one', 'allocations',
              'Allocation', status=201, body='AllocationCreate', errors=_WRITE,
              location=True, creates='allocation_ident')),
    Route(ALLOCATION, 'GET', allocations.get_allocation,
          Doc('Show an allocation', 'allocations', 'Allocation',
              query=_FIELDS, errors=_MISSING)),
    Route(ALLOCATION, 'PATCH', allocations.update_allocation,
          Doc('Update an allocation (JSON Patch)', 'allocations',
              'Allocation', body='JSONPatch', errors=(404, 405, 409))),
    Route(ALLOCATION, 'DELETE', allocations.delete_allocation,
          Doc('Delete an allocation', 'allocations', status=204,
              errors=_WRITE)),

    Route('/v1/ports', 'GET', ports.list_ports,
          Doc('List ports', filters={**port_schemas.FILTERS, **_DETAIL},
              **_PORT_LIST)),
    Route('/v1/ports', 'POST', ports.create_port,
          Doc('Create a port of a node', 'ports', 'Port', status=201,
              body='PortCreate', errors=(409,), location=True,
              creates='port_uuid')),
    Route('/v1/ports/detail', 'GET', ports.list_ports_detail,
          Doc('List ports with all their fields',
              filters=port_schemas.FILTERS, **_PORT_LIST)),
    Route(PORT, 'GET', ports.get_port,
          Doc('Show a port', 'ports', 'Port', query=_FIELDS,
              errors=_MISSING)),
    Route(PORT, 'PATCH', ports.update_port,
          Doc('Update a port (JSON Patch)', 'ports', 'Port',
              body='JSONPatch', errors=_WRITE)),
    Route(PORT, 'DELETE', ports.delete_port,
          Doc('Delete a port', 'ports', status=204, errors=_WRITE)),
    Route(NODE + '/ports', 'GET', ports.list_node_ports,
          Doc('List the ports of a node', filters=_DETAIL, **_PORT_LIST)),
    Route(NODE + '/ports/detail', 'GET', ports.list_node_ports_detail,
          Doc('List the ports of a node with all their fields',
              **_PORT_LIST)),
    Route(NODE + '/vifs', 'GET', vifs.list_vifs,
          Doc('List the VIFs attached to a node', 'ports', 'VIFList',
              errors=_MISSING)),
    Route(NODE + '/vifs', 'POST', vifs.attach_vif,
          Doc('Attach a VIF to a free port of a node', 'ports',
              status=204, body='VIF', errors=_WRITE)),
    Route(NODE + '/vifs/<vif_id>', 'DELETE', vifs.detach_vif,
          Doc('Detach a VIF from a node', 'ports', status=204,
              errors=_WRITE)),

    Route('/v1/conductors', 'GET', conductors.list_conductors,
          Doc('List conductors', 'conductors', 'ConductorList',
              query=_FIELDS, filters=_DETAIL, errors=_MISSING)),
    Route('/v1/conductors/<hostname>', 'GET', conductors.get_conductor,
          Doc('Show a conductor', 'conductors', 'Conductor', query=_FIELDS,
              errors=_MISSING)),

    Route('/v1/pools', 'GET', pools.list_pools,
          Doc('List pools', 'pools', 'PoolList')),
    Route('/v1/pools', 'POST', pools.create_pool,
          Doc('Create a pool', 'pools', 'Pool', status=201, body='PoolCreate',
              errors=_WRITE, location=True)),
    Route(POOL, 'GET', pools.get_pool,
          Doc('Show a pool', 'pools', 'Pool', errors=_MISSING)),
    Route(POOL, 'PATCH', pools.update_pool,
          Doc('Update a pool (JSON Patch)', 'pools', 'Pool',
              body='JSONPatch', errors=_MISSING)),
    Route(POOL, 'DELETE', pools.delete_pool,
          Doc('Delete a pool', 'pools', status=204, errors=_WRITE)),
    Route(POOL + '/status', 'GET', pools.get_pool_status,
          Doc('Count the members of a pool per status', 'pools',
              'PoolStatus', errors=_MISSING)),
    Route(POOL + '/addMachines', 'POST', pool_actions.add_machines,
          Doc('Move Free nodes of the parent pool into a pool '
              '(addMachines)', **_POOL_ACTION)),
    Route(POOL + '/removeMachines', 'POST', pool_actions.remove_machines,
          Doc('Move Free nodes of a pool to its parent pool '
              '(removeMachines)', **_POOL_ACTION)),
    Route(POOL + '/allocateMachines', 'POST', pool_actions.allocate_machines,
          Doc('Allocate nodes of a pool in one transaction '
              '(allocateMachines)', **_POOL_ACTION)),
    Route(POOL + '/returnMachines', 'POST', pool_actions.return_machines,
          Doc('Return allocated nodes to their pool (returnMachines)',
              **_POOL_ACTION)),
    Route(NODE + '/returnToPool', 'POST', pool_actions.return_to_pool,
          Doc('Return one node to its pool (returnToPool)', **_POOL_ACTION)),

    Route('/v1/profiles', 'GET', profiles.list_profiles,
          Doc('List profiles', 'profiles', 'ProfileList')),
    Route('/v1/profiles', 'POST', profiles.create_profile,
          Doc('Create a profile', 'profiles', 'Profile', status=201,
              body='ProfileCreate', errors=_WRITE, location=True)),
    Route(PROFILE, 'GET', profiles.get_profile,
          Doc('Show a profile', 'profiles', 'Profile', errors=_MISSING)),
    Route(PROFILE, 'PATCH', profiles.update_profile,
          Doc('Update a profile (JSON Patch)', 'profiles', 'Profile',
              body='JSONPatch', errors=_MISSING)),
    Route(PROFILE, 'DELETE', profiles.delete_profile,
          Doc('Delete a profile', 'profiles', status=204, errors=_WRITE)),

    Route('/v1/workflows', 'GET', workflows.list_workflows,
          Doc('List workflows', 'workflows', 'WorkflowList')),
    Route('/v1/workflows', 'POST', workflows.create_workflow,
          Doc('Create a workflow', 'workflows', 'Workflow', status=201,
              body='WorkflowCreate', errors=_WRITE, location=True)),
    Route(WORKFLOW, 'GET', workflows.get_workflow,
          Doc('Show a workflow', 'workflows', 'Workflow', errors=_MISSING)),
    Route(WORKFLOW, 'PATCH', workflows.update_workflow,
          Doc('Update a workflow (JSON Patch)', 'workflows', 'Workflow',
              body='JSONPatch', errors=_MISSING)),
    Route(WORKFLOW, 'DELETE', workflows.delete_workflow,
          Doc('Delete a workflow', 'workflows', status=204, errors=_WRITE)),

    Route('/v1/brokers', 'GET', brokers.list_brokers,
          Doc('List brokers', 'brokers', 'BrokerList')),
    Route('/v1/brokers', 'POST', brokers.create_broker,
          Doc('Create a broker', 'brokers', 'Broker', status=201,
              body='BrokerCreate', errors=_WRITE, location=True)),
    Route(BROKER, 'GET', brokers.get_broker,
          Doc('Show a broker', 'brokers', 'Broker', errors=_MISSING)),
    Route(BROKER, 'PATCH', brokers.update_broker,
          Doc('Update a broker (JSON Patch)', 'brokers', 'Broker',
              body='JSONPatch', errors=_MISSING)),
    Route(BROKER, 'DELETE', brokers.delete_broker,
          Doc('Delete a broker', 'brokers', status=204, errors=_WRITE)),
    Route('/v1/external_managers', 'GET',
          external_managers.list_external_managers,
          Doc('List external managers', 'external_managers',
              'ExternalManagerList')),
    Route('/v1/external_managers', 'POST',
          external_managers.create_external_manager,
          Doc('Create an external manager', 'external_managers',
              'ExternalManager', status=201, body='ExternalManagerCreate',
              errors=_WRITE, location=True)),
    Route(EXTERNAL_MANAGER, 'GET', external_managers.get_external_manager,
          Doc('Show an external manager', 'external_managers',
              'ExternalManager', errors=_MISSING)),
    Route(EXTERNAL_MANAGER, 'PATCH',
          external_managers.update_external_manager,
          Doc('Update an external manager (JSON Patch)',
              'external_managers', 'ExternalManager', body='JSONPatch',
              errors=_MISSING)),
    Route(EXTERNAL_MANAGER, 'DELETE',
          external_managers.delete_external_manager,
          Doc('Delete an external manager no node is shared with',
              'external_managers', status=204, errors=_WRITE)),
    Route(EXTERNAL_MANAGER + '/status', 'GET',
          external_managers.get_external_manager_status,
          Doc('The nodes of an external manager by external state, and '
              'its last round', 'external_managers',
              'ExternalManagerStatus', errors=_MISSING)),

    Route('/v1/providers', 'GET', providers.list_providers,
          Doc('List providers', 'providers', 'ProviderList')),
    Route('/v1/providers', 'POST', providers.create_provider,
          Doc('Create a provider', 'providers', 'Provider', status=201,
              body='ProviderCreate', errors=_WRITE, location=True)),
    Route(PROVIDER, 'GET', providers.get_provider,
          Doc('Show a provider', 'providers', 'Provider', errors=_MISSING)),
    Route(PROVIDER, 'PATCH', providers.update_provider,
          Doc('Update a provider (JSON Patch)', 'providers', 'Provider',
              body='JSONPatch', errors=_MISSING)),
    Route(PROVIDER, 'DELETE', providers.delete_provider,
          Doc('Delete a provider', 'providers', status=204, errors=_WRITE)),

    Route('/v1/claims', 'GET', claims.list_claims,
          Doc('List claims', 'claims', 'ClaimList', query=_LIST,
              sort_keys=claims.SORT_KEYS, filters=claim_schemas.FILTERS)),
    Route('/v1/claims', 'POST', claims.create_claim,
          Doc('Create a claim of machines from providers', 'claims',
              'Claim', status=201, body='ClaimCreate', errors=_WRITE,
              location=True, creates='claim_ident')),
    Route(CLAIM, 'GET', claims.get_claim,
          Doc('Show a claim', 'claims', 'Claim', query=_FIELDS,
              errors=_MISSING)),
    Route(CLAIM, 'PATCH', claims.update_claim,
          Doc('Update a claim (JSON Patch): its lifespan_end, its '
              'resource templates', 'claims', 'Claim', body='JSONPatch',
              errors=_WRITE)),
    Route(CLAIM, 'DELETE', claims.delete_claim,
          Doc('Delete a claim, releasing its machines', 'claims',
              status=204, errors=_WRITE)),

    Route('/v1/events', 'GET', events.list_events,
          Doc('Read the events after a cursor, waiting for new ones with '
              'wait', 'events', 'EventPage', query=('limit',),
              filters=events.FEED_QUERY, errors=(410, 429))),
    *_history(NODE, 'a node', events.list_node_history,
              events.get_node_history),
    *_history(ALLOCATION, 'an allocation', events.list_allocation_history,
              events.get_allocation_history),
    *_history(POOL, 'a pool', events.list_pool_history,
              events.get_pool_history),
    *_history(CLAIM, 'a claim', events.list_claim_history,
              events.get_claim_history),
]


def endpoint(route: Route) -> str:
    """The Flask endpoint of a route."""
    return '%s %s' % (route.method, route.rule)


def register(app) -> None:
    """Serve every route, and keep the table for the OpenAPI document and
    the documents by endpoint for the query checks (``params.route_doc``).
    """
    app.config['ROUTES'] = ROUTES
    app.config['DOCS'] = {endpoint(route): route.doc for route in ROUTES}
    for route in ROUTES:
        app.add_url_rule(route.rule, endpoint=endpoint(route),
                         view_func=route.handler, methods=[route.method])
