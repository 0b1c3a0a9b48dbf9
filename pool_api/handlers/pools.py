"""Pools: /v1/pools, their members' statuses, and their transitions."""
import flask

from pool_api import named
from pool_api import policy
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import exception
from pool_conductor import states

FIELDS = ('name', 'description', 'documentation', 'parent_pool',
          *schema.ACTION_SETS)
PATCHABLE = FIELDS[1:]
PATCH_DEFAULTS = {kind: {} for kind in schema.ACTION_SETS}


def to_dict(pool: models.Pool) -> dict:
    body = named.representation('pools', pool, FIELDS)
    for kind in schema.ACTION_SETS:
        body[kind] = body[kind] or {}
    return body


def check_references(context, values: dict, pool_name: str | None = None
                     ) -> None:
    """Check the pools, profiles and workflows a pool refers to exist.

    :raises: Invalid for a pool that would be its own ancestor,
        ObjectNotFound
    """
    parent = values.get('parent_pool')
    seen = {pool_name}
    while parent is not None:
        if parent in seen:
            raise exception.Invalid('Pool %s cannot have parent pool %s: '
                                    'pools would form a cycle.'
                                    % (pool_name, values['parent_pool']))
        seen.add(parent)
        parent = pools_db.get(context, models.Pool, parent).parent_pool
    for kind in schema.ACTION_SETS:
        actions = values.get(kind) or {}
        if actions.get('workflow'):
            pools_db.get(context, models.Workflow, actions['workflow'])
        pools_db.get_many(context, models.Profile,
                          actions.get('add_profiles', ()))


def list_pools():
    policy.authorize('pool:pool:list')
    pools = pools_db.list_all(flask.g.context, models.Pool)
    return flask.jsonify(pools=[to_dict(p) for p in pools])


def create_pool():
    policy.authorize('pool:pool:create')
    body = validation.json_body()
    validation.validate(schema.POOL_CREATE, body)
    check_references(flask.g.context, body, body['name'])
    pool = pools_db.create(flask.g.context, models.Pool, body)
    return named.created(to_dict(pool))


def get_pool(pool_name):
    policy.authorize('pool:pool:get')
    return flask.jsonify(to_dict(pools_db.get(flask.g.context, models.Pool,
                                              pool_name)))


def update_pool(pool_name):
    """Change fields of a pool (JSON Patch); the name is fixed."""
    policy.authorize('pool:pool:update')
    return named.patched(
        models.Pool, to_dict, pool_name, schema.POOL_UPDATE, PATCHABLE,
        PATCH_DEFAULTS,
        check=lambda changed: check_references(flask.g.context, changed,
                                               pool_name))


def delete_pool(pool_name):
    """Delete a pool without members; the default pool stays."""
    policy.authorize('pool:pool:delete')
    pools_db.delete(flask.g.context, models.Pool, pool_name)
    return '', 204


def get_pool_status(pool_name):
    """The number of members of a pool in each status, zeros included."""
    policy.authorize('pool:pool:get')
    counts = pools_db.status_counts(flask.g.context, pool_name)
    statuses = {s: counts.get(s, 0) for s in states.POOL_STATUSES}
    return flask.jsonify(name=pool_name, total=sum(statuses.values()),
                         statuses=statuses)
