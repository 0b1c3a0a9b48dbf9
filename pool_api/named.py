"""Create, show, patch and delete of the named objects of the pool API."""
import flask

from pool_api import links
from pool_api import render
from pool_api import validation
from pool_conductor.db import pools as pools_db


def representation(collection: str, obj, fields) -> dict:
    """The API body of a pool, profile or workflow."""
    values = {f: getattr(obj, f) for f in fields}
    values.update(created_at=render.timestamp(obj.created_at),
                  updated_at=render.timestamp(obj.updated_at),
                  links=links.resource_links(collection, obj.name))
    return values


def created(body: dict):
    response = flask.jsonify(body)
    response.status_code = 201
    response.headers['Location'] = body['links'][0]['href']
    return response


def patched(model, to_dict, name: str, schema: dict, fields,
            defaults: dict, check=None):
    """Apply the request's JSON Patch to a named object and save it.

    :param check: called with the changed fields before they are saved.
    :raises: Invalid, ObjectNotFound
    """
    patch = validation.json_body()
    context = flask.g.context
    before = to_dict(pools_db.get(context, model, name))
    after = validation.apply_patch(before, patch, fields, defaults)
    validation.validate(schema, {'name': name, **{f: after[f]
                                                  for f in fields}})
    changed = validation.changes(before, after, fields)
    if not changed:
        return flask.jsonify(before)
    if check is not None:
        check(changed)
    return flask.jsonify(to_dict(pools_db.update(context, model, name,
                                                 changed)))
