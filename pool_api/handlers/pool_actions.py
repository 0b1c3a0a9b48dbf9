"""Pool actions: add, remove, allocate and return machines, as DRP's."""
import time

import flask

from pool_api import policy
from pool_api.handlers import nodes
from pool_api.handlers import pools as pool_handlers
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_conductor.conf import CONF
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from pool_conductor import filters as node_filters
from pool_conductor import pool_actions
from pool_conductor import states

# How often a blocking action looks at its nodes.
POLL_INTERVAL = 0.2
WAIT_HEADER = 'X-Pool-Wait-Timeout'
WAITING = states.POOL_MOVING


def _request(selects_machines: bool) -> tuple[pool_actions.Request, dict]:
    """The action's parameters from the body (which may be empty), and
    the project it is run for.

    :raises: Forbidden, Invalid, ObjectNotFound for profiles or workflows
    """
    project = policy.project_scope('pool:pool:action_all')
    body = (validation.json_body()
            if validation.body().strip() else {})
    validation.validate(schema.ACTION, body)
    if selects_machines and not (body.get('machine_list')
                                 or body.get('all_machines')):
        raise exception.Invalid('Name the nodes in machine_list or set '
                                'all_machines to true.')
    count = body.get('count', 1)
    if count > CONF.pool.max_count:
        raise exception.Invalid('count must be at most %d.'
                                % CONF.pool.max_count)
    actions = {
        'workflow': body.get('new_workflow'),
        **{k: body[k] for k in ('add_profiles', 'remove_profiles',
                                'add_parameters', 'remove_parameters')
           if k in body}}
    pool_handlers.check_references(flask.g.context,
                                   {'allocate_actions': actions})
    request = pool_actions.Request(
        machine_list=body.get('machine_list', []),
        all_machines=body.get('all_machines', False), count=count,
        partial_success=body.get('partial_success', False),
        filters=node_filters.parse_map(body.get('filter', {})),
        actions=actions, wait_for_stage=body.get('wait_for_stage'),
        force=body.get('force', False), project=project,
        lifespan_end=validation.timestamp(body.get('lifespan_end'),
                                          'lifespan_end'))
    return request, body


def _wait(results: list[dict], body: dict) -> tuple[list[dict], int | None]:
    """With blocking, wait for the set of nodes to stop moving towards a
    stage (Building, Destroying, Joining, Leaving); wait_timeout is for
    the whole set, capped by the server.

    :returns: the results, nodes still waiting as "timeout", and the
        timeout applied (None when not blocking).
    """
    if not (body.get('blocking') and body.get('wait_for_stage')):
        return results, None
    timeout = min(body.get('wait_timeout', CONF.pool.default_wait_timeout),
                  CONF.pool.max_blocking_wait)
    deadline = time.monotonic() + timeout
    while True:
        nodes = [nodes_db.get_node(flask.g.context, r['uuid'])
                 for r in results]
        results = [pool_actions.result(n) for n in nodes]
        if all(r['status'] not in WAITING for r in results):
            break
        if time.monotonic() >= deadline:
            for r in results:
                if r['status'] in WAITING:
                    r['status'] = 'timeout'
            break
        time.sleep(POLL_INTERVAL)
    return results, timeout


def _respond(results: list[dict], body: dict):
    results, timeout = _wait(results, body)
    response = flask.jsonify(results)
    if timeout is not None:
        response.headers[WAIT_HEADER] = str(timeout)
    return response


def _authorize(pool_name: str) -> None:
    """The caller may run actions on pools, and see this one.

    :raises: Forbidden, ObjectNotFound
    """
    policy.authorize('pool:pool:action')
    policy.check_readable('Pool', [pool_name])


def add_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=True)
    return _respond(pool_actions.add_machines(flask.g.context, pool_name,
                                              request), body)


def remove_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=True)
    return _respond(pool_actions.remove_machines(flask.g.context,
                                                 pool_name, request), body)


def allocate_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=False)
    return _respond(pool_actions.allocate_machines(flask.g.context,
                                                   pool_name, request), body)


def return_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=True)
    return _respond(pool_actions.return_machines(flask.g.context,
                                                 pool_name, request), body)


def return_to_pool(node_ident):
    """Return one node to its pool, as returnMachines would: a node the
    caller may not see is not found, and nothing is done to it."""
    node = nodes.get_authorized(node_ident, 'pool:pool:action')
    request, body = _request(selects_machines=False)
    request.machine_list = [node.uuid]
    request.all_machines = False
    return _respond(pool_actions.return_machines(flask.g.context, node.pool,
                                                 request), body)
