"""Reservations: /v1/reservations, windowed allocations of several nodes
booked together, all or nothing."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import reservations as schema
from pool_api import validation
from pool_conductor import allocations as allocations_core
from pool_conductor.conf import CONF
from pool_conductor.db import models
from pool_conductor.db import reservations as reservations_db
from pool_conductor import exception
from pool_conductor import reservations

FIELDS = ('uuid', 'name', 'owner', 'state', 'count', 'pool',
          'resource_class', 'traits', 'candidate_nodes', 'extra',
          'start_at', 'end_at', 'allocations', 'created_at', 'updated_at',
          'links')
SORT_KEYS = ('id', 'uuid', 'name', 'owner', 'pool', 'start_at', 'end_at',
             'created_at', 'updated_at')


def to_dict(found, members: list, fields=None) -> dict:
    """The API representation of a reservation."""
    values = {
        'uuid': found.uuid,
        'name': found.name,
        'owner': found.owner,
        'state': reservations.state_of(members),
        'count': {'min': found.count_min, 'max': found.count_max},
        'pool': found.pool or models.DEFAULT_POOL,
        'resource_class': found.resource_class,
        'traits': list(found.traits or []),
        'candidate_nodes': list(found.candidate_nodes or []),
        'extra': found.extra or {},
        'start_at': render.timestamp(found.start_at),
        'end_at': render.timestamp(found.end_at),
        'allocations': [{'uuid': m.uuid, 'node_uuid': m.node_uuid,
                         'state': m.state} for m in members],
        'created_at': render.timestamp(found.created_at),
        'updated_at': render.timestamp(found.updated_at),
        'links': links.resource_links('reservations', found.uuid),
    }
    return render.select(values, fields or FIELDS)


def _body(found, fields=None) -> dict:
    members = reservations_db.members(flask.g.context, [found.id])
    return to_dict(found, members.get(found.id, []), fields)


def get_authorized(ident: str, rule: str):
    """The reservation of a request, if the caller may do rule on it.

    :raises: ReservationNotFound (also for one the caller may not see),
        Forbidden
    """
    found = reservations_db.get(flask.g.context, ident)
    policy.authorize_reservation(rule, found, ident)
    return found


def _count(count) -> tuple[int, int]:
    """(min, max) of a request's count, max within [windows]
    max_count.

    :raises: InvalidParameterValue
    """
    low, high = ((count, count) if isinstance(count, int)
                 else (count['min'], count['max']))
    if low > high:
        raise exception.InvalidParameterValue(
            err='count.min %d must not be more than count.max %d.'
                % (low, high))
    if high > CONF.windows.max_count:
        raise exception.InvalidParameterValue(
            err='A reservation asks for at most %d nodes ([windows] '
                'max_count), not %d.' % (CONF.windows.max_count, high))
    return low, high


def create_reservation():
    """Book from count.min to count.max windowed allocations for one
    window, all or nothing."""
    policy.authorize('pool:reservation:create')
    body = validation.json_body()
    validation.validate(schema.CREATE, body)
    project = util.restrict_owner(body)
    common.check_name(body.get('name'), 'reservation')
    common.check_uuid(body.get('uuid'), 'uuid')
    common.check_traits(body.get('traits'))
    count_min, count_max = _count(body['count'])
    start, end = util.window_of(body)
    values = {k: body[k] for k in ('uuid', 'name', 'resource_class', 'extra',
                                   'owner') if body.get(k) is not None}
    values['traits'] = sorted(set(body.get('traits') or ()))
    if project is not None:
        values['owner'] = project
    # A pool the caller may not read is not found, as a missing one.
    policy.check_readable('Pool', [body.get('pool')])
    if body.get('candidate_nodes'):
        values['candidate_nodes'] = allocations_core.candidate_uuids(
            flask.g.context, body['candidate_nodes'], body.get('pool'),
            project)
    found = reservations.create(flask.g.context, values, count_min,
                                count_max, body.get('pool'), start, end)
    return util.created(_body(found), 'reservations', found.uuid)


def list_reservations():
    policy.authorize('pool:reservation:list')
    project = policy.project_scope('pool:reservation:list_all')
    fields = params.get_fields(FIELDS)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(SORT_KEYS)
    filters = {name: params.get_string(name, schema.FILTERS[name])
               for name in schema.FILTERS}
    if project is not None:
        if filters['owner'] not in (None, project):
            raise exception.Forbidden()
        filters['owner'] = project
    found = reservations_db.list_reservations(
        flask.g.context, filters, limit=limit, marker=params.get_marker(),
        sort_key=sort_key, sort_dir=sort_dir)
    members = reservations_db.members(flask.g.context,
                                      [r.id for r in found])
    return params.page('reservations', found, limit,
                       [to_dict(r, members.get(r.id, []), fields)
                        for r in found])


def get_reservation(reservation_ident):
    found = get_authorized(reservation_ident, 'pool:reservation:get')
    return flask.jsonify(_body(found, params.get_fields(FIELDS)))


def delete_reservation(reservation_ident):
    """Delete a reservation and all its allocations."""
    found = get_authorized(reservation_ident, 'pool:reservation:delete')
    reservations.destroy(flask.g.context, found.uuid)
    return '', 204
