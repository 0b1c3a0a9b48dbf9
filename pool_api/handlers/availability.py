"""Availability: /v1/availability, when a request could start and the
free periods of each matching node."""
import datetime

import flask

from pool_api.handlers import util
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api import validation
from pool_conductor.booking import availability
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor import exception
from pool_conductor import lifespans

# Query parameters, their bounds.
QUERY = {
    'resource_class': {'type': 'string', 'maxLength': 80},
    'traits': {'type': 'string', 'maxLength': 10000},
    'pool': {'type': 'string', 'maxLength': 255},
    'owner': {'type': 'string', 'maxLength': 255},
    'duration': {'type': 'string', 'maxLength': 64},
    'count': {'type': 'integer', 'minimum': 1, 'maximum': 10000},
    'after': {'type': 'string', 'maxLength': 64},
    'before': {'type': 'string', 'maxLength': 64},
}
# How far ahead the free periods go without before, and at most.
DEFAULT_HORIZON = datetime.timedelta(days=7)
LONGEST_HORIZON = datetime.timedelta(days=366)


def get_availability():
    """The earliest start of count nodes for a duration, and the free
    periods of each matching node, from after (now) to before."""
    policy.authorize('pool:availability:get')
    args = {name: params.get_string(name, QUERY[name]) for name in QUERY
            if name != 'count'}
    for name in flask.request.args:
        if name not in QUERY:
            raise exception.UnknownArgument(name=name)
    if not args['duration']:
        raise exception.InvalidParameterValue(
            err='The duration parameter is required, such as "4h".')
    length = lifespans.duration(args['duration'], 'duration')
    count = flask.request.args.get('count')
    count = 1 if count is None else validation.integer(count, 'count')
    if not 1 <= count <= QUERY['count']['maximum']:
        raise exception.InvalidParameterValue(
            err='count must be from 1 to %d.' % QUERY['count']['maximum'])
    traits = sorted({t.strip() for t in (args['traits'] or '').split(',')
                     if t.strip()})
    common.check_traits(traits)
    project = util.restrict_owner({'owner': args['owner']})
    now = db_api.utcnow()
    after = max(now, util.instant(args, 'after') or now)
    before = util.instant(args, 'before') or after + DEFAULT_HORIZON
    if before <= after or before - after > LONGEST_HORIZON:
        raise exception.InvalidParameterValue(
            err='before must be later than after, and at most %d days '
                'later.' % LONGEST_HORIZON.days)
    policy.check_readable('Pool', [args['pool']])
    answer = availability.availability(
        flask.g.context, args['pool'] or models.DEFAULT_POOL,
        args['resource_class'], traits, project or args['owner'], length,
        count, after, before, CONF.api.max_allocation_candidates)
    return flask.jsonify({
        'earliest_start': render.timestamp(answer.earliest_start),
        'after': render.timestamp(answer.after),
        'before': render.timestamp(answer.before),
        'duration': args['duration'],
        'count': count,
        'nodes': [{'uuid': node.uuid, 'name': node.name,
                   'free': [{'from': render.timestamp(f),
                             'until': render.timestamp(u)}
                            for f, u in free]}
                  for node, free in answer.nodes],
    })
