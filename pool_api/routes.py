"""The route table of the API: (rule, method, handler)."""
from pool_api.handlers import allocations
from pool_api.handlers import conductors
from pool_api.handlers import node_params
from pool_api.handlers import nodes
from pool_api.handlers import openapi
from pool_api.handlers import pool_actions
from pool_api.handlers import pools
from pool_api.handlers import profiles
from pool_api.handlers import root
from pool_api.handlers import traits
from pool_api.handlers import workflows

NODE = '/v1/nodes/<node_ident>'
ALLOCATION = '/v1/allocations/<allocation_ident>'
POOL = '/v1/pools/<pool_name>'
PROFILE = '/v1/profiles/<profile_name>'
WORKFLOW = '/v1/workflows/<workflow_name>'

ROUTES = [
    ('/', 'GET', root.get_root),
    ('/v1', 'GET', root.get_v1),
    ('/v1/openapi.json', 'GET', openapi.get_openapi),

    ('/v1/nodes', 'GET', nodes.list_nodes),
    ('/v1/nodes', 'POST', nodes.create_node),
    ('/v1/nodes/detail', 'GET', nodes.list_nodes_detail),
    (NODE, 'GET', nodes.get_node),
    (NODE, 'PATCH', nodes.update_node),
    (NODE, 'DELETE', nodes.delete_node),
    (NODE + '/states', 'GET', nodes.get_node_states),
    (NODE + '/states/power', 'PUT', nodes.set_power_state),
    (NODE + '/states/provision', 'PUT', nodes.set_provision_state),
    (NODE + '/maintenance', 'PUT', nodes.set_maintenance),
    (NODE + '/maintenance', 'DELETE', nodes.unset_maintenance),

    (NODE + '/traits', 'GET', traits.list_traits),
    (NODE + '/traits', 'PUT', traits.set_traits),
    (NODE + '/traits', 'DELETE', traits.remove_all_traits),
    (NODE + '/traits/<trait>', 'PUT', traits.add_trait),
    (NODE + '/traits/<trait>', 'DELETE', traits.remove_trait),

    (NODE + '/params', 'GET', node_params.get_node_params),
    (NODE + '/params', 'PUT', node_params.set_node_params),
    (NODE + '/params', 'PATCH', node_params.update_node_params),

    (NODE + '/allocation', 'GET', allocations.get_node_allocation),
    (NODE + '/allocation', 'DELETE', allocations.delete_node_allocation),
    ('/v1/allocations', 'GET', allocations.list_allocations),
    ('/v1/allocations', 'POST', allocations.create_allocation),
    (ALLOCATION, 'GET', allocations.get_allocation),
    (ALLOCATION, 'PATCH', allocations.update_allocation),
    (ALLOCATION, 'DELETE', allocations.delete_allocation),

    ('/v1/conductors', 'GET', conductors.list_conductors),
    ('/v1/conductors/<hostname>', 'GET', conductors.get_conductor),

    ('/v1/pools', 'GET', pools.list_pools),
    ('/v1/pools', 'POST', pools.create_pool),
    (POOL, 'GET', pools.get_pool),
    (POOL, 'PATCH', pools.update_pool),
    (POOL, 'DELETE', pools.delete_pool),
    (POOL + '/status', 'GET', pools.get_pool_status),
    (POOL + '/addMachines', 'POST', pool_actions.add_machines),
    (POOL + '/removeMachines', 'POST', pool_actions.remove_machines),
    (POOL + '/allocateMachines', 'POST', pool_actions.allocate_machines),
    (POOL + '/returnMachines', 'POST', pool_actions.return_machines),
    (NODE + '/returnToPool', 'POST', pool_actions.return_to_pool),
    ('/v1/profiles', 'GET', profiles.list_profiles),
    ('/v1/profiles', 'POST', profiles.create_profile),
    (PROFILE, 'GET', profiles.get_profile),
    (PROFILE, 'PATCH', profiles.update_profile),
    (PROFILE, 'DELETE', profiles.delete_profile),
    ('/v1/workflows', 'GET', workflows.list_workflows),
    ('/v1/workflows', 'POST', workflows.create_workflow),
    (WORKFLOW, 'GET', workflows.get_workflow),
    (WORKFLOW, 'PATCH', workflows.update_workflow),
    (WORKFLOW, 'DELETE', workflows.delete_workflow),
]


def register(app) -> None:
    for rule, method, handler in ROUTES:
        app.add_url_rule(
            rule, endpoint='%s %s' % (method, rule), view_func=handler,
            methods=[method])
