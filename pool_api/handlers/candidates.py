"""The allocation preview: /v1/allocation_candidates."""
import flask

from pool_api.handlers import util
from pool_api import policy
from pool_api import render
from pool_api.schemas import allocations as schema
from pool_api.schemas import common
from pool_api import validation
from pool_conductor import allocations as allocations_core
from pool_conductor import candidates
from pool_conductor.db import models

_LISTS = ('traits', 'candidate_nodes')
_INTEGERS = ('seed', 'limit')


def _query() -> dict:
    """The request of GET /v1/allocation_candidates, as a body."""
    request = {}
    for name, value in flask.request.args.items():
        if name in _LISTS:
            request[name] = [v.strip() for v in value.split(',') if v.strip()]
        elif name in _INTEGERS:
            request[name] = validation.integer(value, name)
        else:
            request[name] = value
    return request


def _preview(body: dict):
    validation.validate(schema.PREVIEW, body)
    project = util.restrict_owner(body)
    common.check_traits(body.get('traits'))
    policy.check_readable('Pool', [body.get('pool')])
    context = flask.g.context
    pool = body.get('pool') or models.DEFAULT_POOL
    wanted = body.get('candidate_nodes') or ()
    start, end = util.window_of(body)
    request = candidates.Request(
        resource_class=body.get('resource_class'),
        traits=tuple(sorted(set(body.get('traits') or ()))),
        candidate_nodes=tuple(allocations_core.candidate_uuids(
            context, wanted, pool, project) if wanted else ()),
        owner=project or body.get('owner'), pool=pool,
        name=body.get('name'),
        lifespan_end=validation.timestamp(body.get('lifespan_end'),
                                          'lifespan_end'),
        start_at=start, end_at=end)
    answer = candidates.preview(context, request, project=project,
                                limit=body.get('limit'),
                                seed=body.get('seed'))
    return flask.jsonify({
        'as_of': render.timestamp(answer.as_of),
        'candidates': [{'uuid': row.uuid, 'name': row.name,
                        'pool': row.pool,
                        'resource_class': row.resource_class,
                        'traits': traits}
                       for row, traits in answer.candidates],
        'total_matching': answer.total_matching,
        'would_pick': answer.would_pick,
        'rejected': answer.rejected,
        'fleet': answer.fleet,
        'window': None if answer.window is None else {
            'start_at': render.timestamp(answer.window.start),
            'end_at': render.timestamp(answer.window.end),
            'busy_from': render.timestamp(answer.window.busy_from),
            'busy_until': render.timestamp(answer.window.busy_until)},
    })


def preview_allocation():
    """The nodes an allocation request matches, the one the allocator
    would give it now, and how many nodes each of its filters left out;
    nothing is reserved."""
    policy.authorize('pool:allocation_candidates:get')
    return _preview(validation.json_body())


def preview_allocation_query():
    """The preview of an allocation request given as query parameters."""
    policy.authorize('pool:allocation_candidates:get')
    return _preview(_query())
