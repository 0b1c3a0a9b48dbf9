"""Pool actions: add, remove, allocate and return machines, as DRP's."""
import flask

from pool_api.handlers import pools as pool_handlers
from pool_api.handlers import util
from pool_api import policy
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_api import watch
from pool_conductor import binding
from pool_conductor.conf import CONF
from pool_conductor.db import filters as node_filters
from pool_conductor import exception
from pool_conductor import pool_actions
from pool_conductor import states

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
        wait_timeout=body.get('wait_timeout'),
        force=body.get('force', False), project=project,
        lifespan_end=validation.timestamp(body.get('lifespan_end'),
                                          'lifespan_end'))
    return request, body


def _waiting(results: list[dict]) -> bool:
    return any(r['status'] in WAITING for r in results)


def _wait(results: list[dict], request: pool_actions.Request
          ) -> tuple[list[dict], int | None]:
    """Wait for the nodes to stop moving towards a stage (Building,
    Destroying, Joining, Leaving), as the events of their changes tell
    (pool_api.watch): wait_timeout is for the whole set, capped by
    [pool] max_blocking_wait. Nodes past their wait_timeout are recorded
    as timed out at once.

    :returns: the results, nodes still waiting as "timeout", and the
        timeout applied (None when nothing was waited for).
    """
    if not _waiting(results):
        return results, None
    wanted = binding.wait_timeout(request.wait_timeout)
    timeout = min(wanted, CONF.pool.max_blocking_wait)
    uuids = [r['uuid'] for r in results]
    results, done = watch.wait_until(
        flask.g.context, lambda: pool_actions.current(flask.g.context,
                                                      uuids),
        lambda found: not _waiting(found), timeout)
    if not done:
        if timeout == wanted:
            binding.time_out(flask.g.context, len(uuids), uuids)
        for r in results:
            if r['status'] in WAITING:
                r['status'] = 'timeout'
    return results, timeout


def _act(action, context, name: str, request: pool_actions.Request,
         body: dict) -> tuple[list[dict], int | None]:
    """Run an action; with blocking (ignored with force, which waits for
    nothing), wait for its nodes (_wait()) in a place among the API
    process's waiters, taken before the action runs so that a request
    refused for want of one changes nothing.

    :returns: the results, and the timeout applied (None: no wait).
    :raises: TooManyBlockingActions
    """
    if not body.get('blocking') or request.force:
        return action(context, name, request), None
    watch.WAITERS.enter(exception.TooManyBlockingActions)
    try:
        return _wait(action(context, name, request), request)
    finally:
        watch.WAITERS.leave()


def _answer(body, timeout: int | None):
    response = flask.jsonify(body)
    if timeout is not None:
        response.headers[WAIT_HEADER] = str(timeout)
    return response


def _run(action, context, name: str, request: pool_actions.Request,
         body: dict):
    """Run an action (_act()); answer its results."""
    return _answer(*_act(action, context, name, request, body))


def _authorize(pool_name: str) -> None:
    """The caller may run actions on pools, and see this one.

    :raises: Forbidden, ObjectNotFound
    """
    policy.authorize('pool:pool:action')
    policy.check_readable('Pool', [pool_name])


def add_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=True)
    return _run(pool_actions.add_machines, flask.g.context, pool_name,
                request, body)


def remove_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=True)
    return _run(pool_actions.remove_machines, flask.g.context, pool_name,
                request, body)


def allocate_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=False)
    return _run(pool_actions.allocate_machines, flask.g.context,
                pool_name, request, body)


def return_machines(pool_name):
    _authorize(pool_name)
    request, body = _request(selects_machines=True)
    return _run(pool_actions.return_machines, flask.g.context, pool_name,
                request, body)


def return_to_pool(node_ident):
    """Return one node to its pool, as returnMachines would, and answer
    "Success" as Digital Rebar's, or an error: a node the caller may not
    see is not found, and nothing is done to it; a blocking return whose
    node did not reach its stage in time is a 409 (the node is returned,
    and timed out).

    :raises: Invalid for machine_list or all_machines, and what
        returnMachines raises; WaitTimedOut
    """
    node = util.get_authorized(node_ident, 'pool:pool:action')
    request, body = _request(selects_machines=False)
    if 'machine_list' in body or 'all_machines' in body:
        raise exception.Invalid(
            'returnToPool returns the node it is run on; machine_list and '
            'all_machines are returnMachines\' parameters.')
    request.machine_list = [node.uuid]
    results, timeout = _act(pool_actions.return_machines, flask.g.context,
                            node.pool, request, body)
    if any(r['status'] == 'timeout' for r in results):
        raise exception.WaitTimedOut(node=node.uuid, pool=node.pool,
                                     stage=request.wait_for_stage,
                                     timeout=timeout)
    return _answer('Success', timeout)
