"""Pools: /v1/pools, their members' statuses, and their transitions."""
import flask

from pool_api import named
from pool_api import policy
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_conductor import autofill
from pool_conductor.db import machines as machines_db
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import pools
from pool_conductor import states

FIELDS = ('name', 'description', 'documentation', 'meta', 'parent_pool',
          *schema.ACTION_SETS, 'lifespan', 'broker', 'autofill',
          'keep_params', 'reservation_pre_margin', 'reservation_post_margin',
          'last_error')
PATCHABLE = FIELDS[1:-1]
PATCH_DEFAULTS = {kind: {} for kind in (*schema.ACTION_SETS, 'lifespan',
                                        'meta')}
PATCH_DEFAULTS['autofill'] = autofill.DEFAULTS
PATCH_DEFAULTS['keep_params'] = False


def to_dict(pool: models.Pool) -> dict:
    body = named.representation('pools', pool, FIELDS)
    for kind in (*schema.ACTION_SETS, 'lifespan', 'meta'):
        body[kind] = body[kind] or {}
    body['autofill'] = autofill.normalized(body['autofill'])
    body['keep_params'] = bool(body['keep_params'])
    return body


def check_readable(values: dict) -> None:
    """Check the caller may read the parent pool, and the workflows and
    profiles of action sets, that values name.

    :raises: ObjectNotFound, as for a missing one
    """
    policy.check_readable('Pool', [values.get('parent_pool')])
    policy.check_readable('Broker', [values.get('broker')])
    fill = values.get('autofill') or {}
    policy.check_readable('Pool', [fill.get('acquire_pool'),
                                   fill.get('return_pool')])
    for kind in schema.ACTION_SETS:
        actions = values.get(kind) or {}
        policy.check_readable('Workflow', [actions.get('workflow')])
        policy.check_readable('Profile', actions.get('add_profiles', ()))


def check_references(context, values: dict) -> None:
    """Check the workflows and profiles of action sets exist and the
    caller may read them.

    :raises: ObjectNotFound
    """
    check_readable(values)
    pools.check_actions(context, values)


def list_pools():
    policy.authorize('pool:pool:list')
    found = pools_db.list_all(flask.g.context, models.Pool)
    return flask.jsonify(pools=[to_dict(p) for p in found])


def create_pool():
    policy.authorize('pool:pool:create')
    body = validation.json_body()
    validation.validate(schema.POOL_CREATE, body)
    check_readable(body)
    if 'autofill' in body:
        body['autofill'] = autofill.normalized(body['autofill'])
    autofill.check_pool(flask.g.context, body['name'], body.get('broker'),
                   body.get('autofill'))
    return named.created(to_dict(pools.create_pool(flask.g.context, body)))


def get_pool(pool_name):
    policy.authorize('pool:pool:get')
    return flask.jsonify(to_dict(pools_db.get(flask.g.context, models.Pool,
                                              pool_name)))


def update_pool(pool_name):
    """Change fields of a pool (JSON Patch); the name is fixed."""
    policy.authorize('pool:pool:update')
    context = flask.g.context
    patch = validation.json_body()
    before = to_dict(pools_db.get(context, models.Pool, pool_name))
    after = validation.apply_patch(before, patch, PATCHABLE, PATCH_DEFAULTS)
    validation.validate(schema.POOL_UPDATE, {
        'name': pool_name, **{f: after[f] for f in PATCHABLE}})
    changed = validation.changes(before, after, PATCHABLE)
    if not changed:
        return flask.jsonify(before)
    check_readable(changed)
    if 'broker' in changed or 'autofill' in changed:
        after['autofill'] = changed['autofill'] = autofill.normalized(
            after['autofill'])
        autofill.check_pool(context, pool_name, after['broker'],
                       after['autofill'])
    return flask.jsonify(to_dict(pools.update_pool(context, pool_name,
                                                   changed)))


def delete_pool(pool_name):
    """Delete a pool without members; the default pool stays."""
    policy.authorize('pool:pool:delete')
    pools.delete_pool(flask.g.context, pool_name)
    return '', 204


def get_pool_status(pool_name):
    """The number of members of a pool in each status, zeros included."""
    policy.authorize('pool:pool:get')
    counts = pools_db.status_counts(flask.g.context, pool_name)
    statuses = {s: counts.get(s, 0) for s in states.POOL_STATUSES}
    return flask.jsonify(
        name=pool_name, total=sum(statuses.values()), statuses=statuses,
        creating=statuses[states.POOL_CREATING],
        unhealthy=machines_db.unhealthy_count(flask.g.context, pool_name))
