"""The route table of the API: rule, method, handler and its document.

One table holds every route, the methods of a path next to each other in
the order of the URL tree. Past a screen at some 160 routes, it is still
the one place that reads, top to bottom, what the API serves and how each
route is documented, which tables by resource would scatter along with the
query and error sets they share (``_LIST``, ``_WRITE``); ``register``
serves it and ``pool_api.openapi`` documents it.
"""
from collections.abc import Callable
import functools
from typing import NamedTuple

import flask

from pool_api.handlers import allocations
from pool_api.handlers import availability
from pool_api.handlers import brokers
from pool_api.handlers import candidates
from pool_api.handlers import chassis
from pool_api.handlers import claims
from pool_api.handlers import conductors
from pool_api.handlers import deploy_templates
from pool_api.handlers import drivers
from pool_api.handlers import content
from pool_api.handlers import events
from pool_api.handlers import external_managers
from pool_api.handlers import fleet
from pool_api.handlers import handles
from pool_api.handlers import indicators
from pool_api.handlers import maintenance_windows
from pool_api.handlers import metrics
from pool_api.handlers import node_management
from pool_api.handlers import node_params
from pool_api.handlers import node_states
from pool_api.handlers import nodes
from pool_api.handlers import openapi
from pool_api.handlers import pool_actions
from pool_api.handlers import pools
from pool_api.handlers import portgroups
from pool_api.handlers import ports
from pool_api.handlers import profiles
from pool_api.handlers import providers
from pool_api.handlers import reservations
from pool_api.handlers import root
from pool_api.handlers import traits
from pool_api.handlers import vifs
from pool_api.handlers import volumes
from pool_api.handlers import workflows
from pool_api.dashboard import views as dashboard
from pool_api.openapi import Doc
from pool_api.schemas import allocations as allocation_schemas
from pool_api.schemas import claims as claim_schemas
from pool_api.schemas import nodes as node_schemas
from pool_api.schemas import pools as pool_schemas
from pool_api.schemas import portgroups as portgroup_schemas
from pool_api.schemas import reservations as reservation_schemas
from pool_api.schemas import ports as port_schemas
from pool_api.schemas import volumes as volume_schemas


class Route(NamedTuple):
    """A route of the API, and what the OpenAPI document says of it."""
    rule: str
    method: str
    handler: Callable
    doc: Doc


NODE = '/v1/nodes/<node_ident>'
ALLOCATION = '/v1/allocations/<allocation_ident>'
PORT = '/v1/ports/<port_uuid>'
PORTGROUP = '/v1/portgroups/<portgroup_ident>'
CONNECTOR = '/v1/volume/connectors/<connector_uuid>'
TARGET = '/v1/volume/targets/<target_uuid>'
CHASSIS = '/v1/chassis/<chassis_uuid>'
POOL = '/v1/pools/<pool_name>'
PROFILE = '/v1/profiles/<profile_name>'
WORKFLOW = '/v1/workflows/<workflow_name>'
BROKER = '/v1/brokers/<broker_name>'
EXTERNAL_MANAGER = '/v1/external_managers/<manager_name>'
PROVIDER = '/v1/providers/<provider_name>'
CLAIM = '/v1/claims/<claim_ident>'
TEMPLATE = '/v1/deploy_templates/<template_ident>'
HANDLE = '/v1/handles/<handle_uuid>'
RESERVATION = '/v1/reservations/<reservation_ident>'

# Query parameters and errors that routes share.
_FIELDS = ('fields',)
_LIST = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir')
_DETAIL = {'detail': {'type': 'boolean'}}
_REASON = {'reason': node_schemas.MAINTENANCE['properties']['reason']}
_MISSING = (404,)
_PORT_LIST = {'tag': 'ports', 'response': 'PortList', 'query': _LIST,
              'sort_keys': ports.SORT_KEYS, 'errors': _MISSING}
_PORTGROUP_LIST = {'tag': 'portgroups', 'response': 'PortgroupList',
                   'query': _LIST, 'sort_keys': portgroups.SORT_KEYS,
                   'errors': _MISSING}
_VOLUME_FILTERS = {**volume_schemas.FILTERS, **volume_schemas.DETAIL}
_CONNECTOR_LIST = {'tag': 'volume', 'response': 'VolumeConnectorList',
                   'query': _LIST,
                   'sort_keys': volumes.CONNECTORS.sort_keys,
                   'errors': _MISSING}
_TARGET_LIST = {'tag': 'volume', 'response': 'VolumeTargetList',
                'query': _LIST, 'sort_keys': volumes.TARGETS.sort_keys,
                'errors': _MISSING}
_CHASSIS_LIST = {'tag': 'chassis', 'response': 'ChassisList',
                 'query': _LIST, 'sort_keys': chassis.SORT_KEYS,
                 'errors': _MISSING}
# The chassis is in the path.
_CHASSIS_NODE_FILTERS = {k: v for k, v in node_schemas.FILTERS.items()
                         if k != 'chassis_uuid'}
_WRITE = (404, 409)
_WINDOWS = 'maintenance windows'
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
              body='JSONPatch', errors=_WRITE,
              filters={'reset_interfaces': {'type': 'boolean'}})),
    Route(NODE, 'DELETE', nodes.delete_node,
          Doc('Delete a node', 'nodes', status=204, errors=_WRITE)),
    Route(NODE + '/states', 'GET', node_states.get_node_states,
          Doc('Show the states of a node', 'node states', 'NodeStates',
              errors=_MISSING)),
    Route(NODE + '/validate', 'GET', node_states.validate_node,
          Doc('Validate the driver interfaces of a node', 'node states',
              'NodeValidation', errors=_MISSING)),
    Route(NODE + '/states/power', 'PUT', node_states.set_power_state,
          Doc('Change the power state of a node', 'node states',
              status=202, body='NodePowerState', errors=_WRITE,
              location=True)),
    Route(NODE + '/states/provision', 'PUT', node_states.set_provision_state,
          Doc('Change the provision state of a node', 'node states',
              status=202, body='NodeProvisionState', errors=_WRITE,
              location=True)),
    Route(NODE + '/states/raid', 'PUT', node_management.set_raid_config,
          Doc('Set the target RAID configuration of a node', 'node states',
              status=204, body='NodeRAIDConfig', errors=_WRITE)),
    Route(NODE + '/states/console', 'GET', node_management.get_console,
          Doc('Show the console of a node', 'node states', 'NodeConsole',
              errors=_MISSING)),
    Route(NODE + '/states/console', 'PUT',
          node_management.set_console_state,
          Doc('Enable or disable the console of a node', 'node states',
              status=202, body='NodeConsoleState', errors=_WRITE,
              location=True)),
    Route(NODE + '/management/inject_nmi', 'PUT',
          node_management.inject_nmi,
          Doc('Inject a non-maskable interrupt into a node', 'node states',
              status=204, errors=_WRITE)),
    Route(NODE + '/management/indicators', 'GET',
          indicators.list_indicators,
          Doc('List the indicators of a node (every version, as Ironic)',
              'node states', 'IndicatorList', errors=_MISSING)),
    Route(NODE + '/management/indicators/<indicator>', 'GET',
          indicators.get_indicator,
          Doc('Show the state of an indicator (name@component)',
              'node states', 'IndicatorState', errors=_MISSING)),
    Route(NODE + '/management/indicators/<indicator>', 'PUT',
          indicators.set_indicator,
          Doc('Set an indicator: the fake management interface cannot '
              '(400), as Ironic\'s', 'node states', status=204,
              body='NodeIndicatorState', errors=_WRITE)),
    Route(NODE + '/maintenance', 'PUT', node_states.set_maintenance,
          Doc('Put a node in maintenance', 'node states', status=202,
              body='NodeMaintenance', body_required=False, errors=_WRITE,
              filters=_REASON)),
    Route(NODE + '/maintenance', 'DELETE', node_states.unset_maintenance,
          Doc('Take a node out of maintenance', 'node states', status=202,
              errors=_WRITE)),
    Route(NODE + '/maintenance_windows', 'GET',
          maintenance_windows.list_maintenance_windows,
          Doc('List the maintenance windows of a node', _WINDOWS,
              'MaintenanceWindowList', errors=_MISSING)),
    Route(NODE + '/maintenance_windows', 'POST',
          maintenance_windows.create_maintenance_window,
          Doc('Book a maintenance window of a node: from start_at the node '
              'enters maintenance once nothing holds it, until end_at',
              _WINDOWS, 'MaintenanceWindow', status=201,
              body='MaintenanceWindowCreate', errors=_WRITE,
              location=True)),
    Route(NODE + '/maintenance_windows/<window_uuid>', 'GET',
          maintenance_windows.get_maintenance_window,
          Doc('Show a maintenance window of a node', _WINDOWS,
              'MaintenanceWindow', errors=_MISSING)),
    Route(NODE + '/maintenance_windows/<window_uuid>', 'DELETE',
          maintenance_windows.delete_maintenance_window,
          Doc('Delete a maintenance window of a node (an active one takes '
              'the node out of its maintenance)', _WINDOWS, status=204,
              errors=_WRITE)),
    Route(NODE + '/slots', 'GET', maintenance_windows.list_node_slots,
          Doc('List the times a node is held: windowed allocations and '
              'maintenance windows', _WINDOWS, 'NodeSlotList',
              errors=_MISSING)),

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
    Route('/v1/allocation_candidates', 'POST', candidates.preview_allocation,
          Doc('Preview an allocation request: the nodes it matches, the '
              'one the allocator would give it now, and how many nodes '
              'each filter left out; nothing is reserved', 'allocations',
              'AllocationCandidates', body='AllocationPreview',
              versioned=False, errors=_MISSING)),
    Route('/v1/allocation_candidates', 'GET',
          candidates.preview_allocation_query,
          Doc('Preview an allocation request given as query parameters '
              '(lists separated by commas)', 'allocations',
              'AllocationCandidates', versioned=False,
              filters=allocation_schemas.PREVIEW_QUERY, errors=_MISSING)),
    Route('/v1/availability', 'GET', availability.get_availability,
          Doc('When count nodes matching a request could start a window '
              'of a duration at the earliest, and the free periods of each '
              'matching node', 'allocations', 'Availability',
              versioned=False, filters=availability.QUERY,
              errors=_MISSING)),
    Route(ALLOCATION, 'GET', allocations.get_allocation,
          Doc('Show an allocation', 'allocations', 'Allocation',
              query=_FIELDS, errors=_MISSING)),
    Route(ALLOCATION, 'PATCH', allocations.update_allocation,
          Doc('Update an allocation (JSON Patch)', 'allocations',
              'Allocation', body='JSONPatch', errors=(404, 405, 409))),
    Route(ALLOCATION, 'DELETE', allocations.delete_allocation,
          Doc('Delete an allocation', 'allocations', status=204,
              errors=_WRITE)),
    Route('/v1/reservations', 'GET', reservations.list_reservations,
          Doc('List reservations', 'reservations', 'ReservationList',
              query=_LIST, sort_keys=reservations.SORT_KEYS,
              filters=reservation_schemas.FILTERS)),
    Route('/v1/reservations', 'POST', reservations.create_reservation,
          Doc('Book windowed allocations of from count.min to count.max '
              'nodes for one window, all or nothing', 'reservations',
              'Reservation', status=201, body='ReservationCreate',
              errors=_WRITE, location=True,
              creates='reservation_ident')),
    Route(RESERVATION, 'GET', reservations.get_reservation,
          Doc('Show a reservation', 'reservations', 'Reservation',
              query=_FIELDS, errors=_MISSING)),
    Route(RESERVATION, 'DELETE', reservations.delete_reservation,
          Doc('Delete a reservation and all its allocations',
              'reservations', status=204, errors=_WRITE)),

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
    Route('/v1/portgroups', 'GET', portgroups.list_portgroups,
          Doc('List port groups', filters={**portgroup_schemas.FILTERS,
                                           **_DETAIL},
              **_PORTGROUP_LIST)),
    Route('/v1/portgroups', 'POST', portgroups.create_portgroup,
          Doc('Create a port group of a node', 'portgroups', 'Portgroup',
              status=201, body='PortgroupCreate', errors=(404, 409),
              location=True, creates='portgroup_ident')),
    Route('/v1/portgroups/detail', 'GET', portgroups.list_portgroups_detail,
          Doc('List port groups with all their fields',
              filters=portgroup_schemas.FILTERS, **_PORTGROUP_LIST)),
    Route(PORTGROUP, 'GET', portgroups.get_portgroup,
          Doc('Show a port group', 'portgroups', 'Portgroup', query=_FIELDS,
              errors=_MISSING)),
    Route(PORTGROUP, 'PATCH', portgroups.update_portgroup,
          Doc('Update a port group (JSON Patch)', 'portgroups', 'Portgroup',
              body='JSONPatch', errors=_WRITE)),
    Route(PORTGROUP, 'DELETE', portgroups.delete_portgroup,
          Doc('Delete a port group', 'portgroups', status=204,
              errors=_WRITE)),
    Route(PORTGROUP + '/ports', 'GET', ports.list_portgroup_ports,
          Doc('List the ports of a port group', filters=_DETAIL,
              **_PORT_LIST)),
    Route(PORTGROUP + '/ports/detail', 'GET',
          ports.list_portgroup_ports_detail,
          Doc('List the ports of a port group with all their fields',
              **_PORT_LIST)),
    Route(NODE + '/portgroups', 'GET', portgroups.list_node_portgroups,
          Doc('List the port groups of a node', filters=_DETAIL,
              **_PORTGROUP_LIST)),
    Route(NODE + '/portgroups/detail', 'GET',
          portgroups.list_node_portgroups_detail,
          Doc('List the port groups of a node with all their fields',
              **_PORTGROUP_LIST)),
    Route(NODE + '/vifs', 'GET', vifs.list_vifs,
          Doc('List the VIFs attached to a node', 'ports', 'VIFList',
              errors=_MISSING)),
    Route(NODE + '/vifs', 'POST', vifs.attach_vif,
          Doc('Attach a VIF to a free port group or port of a node',
              'ports',
              status=204, body='VIF', errors=_WRITE)),
    Route(NODE + '/vifs/<vif_id>', 'DELETE', vifs.detach_vif,
          Doc('Detach a VIF from a node', 'ports', status=204,
              errors=_WRITE)),

    Route('/v1/deploy_templates', 'GET', deploy_templates.list_templates,
          Doc('List deploy templates', 'deploy templates',
              'DeployTemplateList', query=_LIST,
              sort_keys=deploy_templates.SORT_KEYS,
              filters=_DETAIL, errors=_MISSING)),
    Route('/v1/deploy_templates', 'POST', deploy_templates.create_template,
          Doc('Create a deploy template', 'deploy templates',
              'DeployTemplate', status=201, body='DeployTemplateCreate',
              errors=(405, 409), location=True,
              creates='template_ident')),
    Route(TEMPLATE, 'GET', deploy_templates.get_template,
          Doc('Show a deploy template', 'deploy templates',
              'DeployTemplate', query=_FIELDS, errors=_MISSING)),
    Route(TEMPLATE, 'PATCH', deploy_templates.update_template,
          Doc('Update a deploy template (JSON Patch)', 'deploy templates',
              'DeployTemplate', body='JSONPatch', errors=(404, 405, 409))),
    Route(TEMPLATE, 'DELETE', deploy_templates.delete_template,
          Doc('Delete a deploy template', 'deploy templates', status=204,
              errors=(404, 405, 409))),

    Route('/v1/volume', 'GET', volumes.get_volume,
          Doc('The links to volume connectors and targets', 'volume',
              'Volume', errors=_MISSING)),
    Route(NODE + '/volume', 'GET', volumes.get_node_volume,
          Doc('The links to the volume connectors and targets of a node',
              'volume', 'Volume', errors=_MISSING)),
    Route('/v1/volume/connectors', 'GET', volumes.list_connectors,
          Doc('List volume connectors', filters=_VOLUME_FILTERS,
              **_CONNECTOR_LIST)),
    Route('/v1/volume/connectors', 'POST', volumes.create_connector,
          Doc('Create a volume connector of a node', 'volume',
              'VolumeConnector', status=201, body='VolumeConnectorCreate',
              errors=(404, 409), location=True, creates='connector_uuid')),
    Route(CONNECTOR, 'GET', volumes.get_connector,
          Doc('Show a volume connector', 'volume', 'VolumeConnector',
              query=_FIELDS, errors=_MISSING)),
    Route(CONNECTOR, 'PATCH', volumes.update_connector,
          Doc('Update a volume connector (JSON Patch)', 'volume',
              'VolumeConnector', body='JSONPatch', errors=_WRITE)),
    Route(CONNECTOR, 'DELETE', volumes.delete_connector,
          Doc('Delete a volume connector', 'volume', status=204,
              errors=_WRITE)),
    Route(NODE + '/volume/connectors', 'GET', volumes.list_node_connectors,
          Doc('List the volume connectors of a node',
              filters=volume_schemas.DETAIL, **_CONNECTOR_LIST)),
    Route('/v1/volume/targets', 'GET', volumes.list_targets,
          Doc('List volume targets', filters=_VOLUME_FILTERS,
              **_TARGET_LIST)),
    Route('/v1/volume/targets', 'POST', volumes.create_target,
          Doc('Create a volume target of a node', 'volume', 'VolumeTarget',
              status=201, body='VolumeTargetCreate', errors=(404, 409),
              location=True, creates='target_uuid')),
    Route(TARGET, 'GET', volumes.get_target,
          Doc('Show a volume target', 'volume', 'VolumeTarget',
              query=_FIELDS, errors=_MISSING)),
    Route(TARGET, 'PATCH', volumes.update_target,
          Doc('Update a volume target (JSON Patch)', 'volume',
              'VolumeTarget', body='JSONPatch', errors=_WRITE)),
    Route(TARGET, 'DELETE', volumes.delete_target,
          Doc('Delete a volume target', 'volume', status=204,
              errors=_WRITE)),
    Route(NODE + '/volume/targets', 'GET', volumes.list_node_targets,
          Doc('List the volume targets of a node',
              filters=volume_schemas.DETAIL, **_TARGET_LIST)),

    Route('/v1/chassis', 'GET', chassis.list_chassis,
          Doc('List chassis', filters=_DETAIL, **_CHASSIS_LIST)),
    Route('/v1/chassis', 'POST', chassis.create_chassis,
          Doc('Create a chassis', 'chassis', 'Chassis', status=201,
              body='ChassisCreate', errors=(409,), location=True,
              creates='chassis_uuid')),
    Route('/v1/chassis/detail', 'GET', chassis.list_chassis_detail,
          Doc('List chassis with all their fields', **_CHASSIS_LIST)),
    Route(CHASSIS, 'GET', chassis.get_chassis,
          Doc('Show a chassis', 'chassis', 'Chassis', query=_FIELDS,
              errors=_MISSING)),
    Route(CHASSIS, 'PATCH', chassis.update_chassis,
          Doc('Update a chassis (JSON Patch)', 'chassis', 'Chassis',
              body='JSONPatch', errors=_WRITE)),
    Route(CHASSIS, 'DELETE', chassis.delete_chassis,
          Doc('Delete a chassis that has no nodes', 'chassis', status=204,
              errors=_WRITE)),
    Route(CHASSIS + '/nodes', 'GET', chassis.list_chassis_nodes,
          Doc('List the nodes of a chassis', 'chassis', 'NodeList',
              query=_LIST, sort_keys=nodes.SORT_KEYS,
              filters={**_CHASSIS_NODE_FILTERS, **_DETAIL},
              match_filters=True, errors=_MISSING)),
    Route(CHASSIS + '/nodes/detail', 'GET', chassis.list_chassis_nodes_detail,
          Doc('List the nodes of a chassis with all their fields',
              'chassis', 'NodeList', query=_LIST, sort_keys=nodes.SORT_KEYS,
              filters=_CHASSIS_NODE_FILTERS, match_filters=True,
              errors=_MISSING)),

    Route('/v1/conductors', 'GET', conductors.list_conductors,
          Doc('List conductors', 'conductors', 'ConductorList',
              query=_FIELDS, filters=_DETAIL, errors=_MISSING)),
    Route('/v1/conductors/<hostname>', 'GET', conductors.get_conductor,
          Doc('Show a conductor', 'conductors', 'Conductor', query=_FIELDS,
              errors=_MISSING)),

    Route('/v1/drivers', 'GET', drivers.list_drivers,
          Doc('List the drivers (hardware types) and the conductors that '
              'serve them', 'drivers', 'DriverList', query=_FIELDS,
              filters={**_DETAIL, 'type': {'type': 'string',
                                           'enum': list(drivers.TYPES)}})),
    Route('/v1/drivers/<driver_name>', 'GET', drivers.get_driver,
          Doc('Show a driver with its interfaces', 'drivers', 'Driver',
              query=_FIELDS, errors=_MISSING)),
    Route('/v1/drivers/<driver_name>/properties', 'GET',
          drivers.get_driver_properties,
          Doc('The driver_info properties of a driver', 'drivers',
              'DriverProperties', errors=_MISSING)),

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
          Doc('Return one node to its pool (returnToPool)',
              **{**_POOL_ACTION, 'response': 'Success'})),

    Route('/v1/content', 'GET', content.export_content,
          Doc('Export pools, profiles, workflows, providers and brokers '
              '(secrets left out)', 'content', 'Content')),
    Route('/v1/content', 'POST', content.import_content,
          Doc('Import a content document, all or nothing', 'content',
              'ContentImported', body='ContentImport', errors=_WRITE)),

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

    Route('/v1/handles', 'GET', handles.list_handles,
          Doc('List the handles of claims: the machine each resource '
              'holds', 'handles', 'HandleList', query=('fields', 'limit',
                                                       'marker'),
              filters=claim_schemas.HANDLE_FILTERS, errors=_MISSING)),
    Route(HANDLE, 'GET', handles.get_handle,
          Doc('Show a handle', 'handles', 'Handle', query=_FIELDS,
              errors=_MISSING)),

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
    routed = _routed()
    app.url_map = routed.url_map
    app.view_functions.update(routed.view_functions)


@functools.cache
def _routed() -> flask.Flask:
    """An application with every route, made once per process: its URL
    map, whose rules take some 50 ms to compile, serves every application
    made after it (the tests make one per test). No rule is added to it
    after."""
    app = flask.Flask('pool_api', static_folder=None)
    app.url_map.strict_slashes = False
    for route in ROUTES:
        app.add_url_rule(route.rule, endpoint=endpoint(route),
                         view_func=route.handler, methods=[route.method])
    return app
