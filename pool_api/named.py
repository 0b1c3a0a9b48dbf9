"""Create, show, patch and delete of the named objects of the pool API."""
import flask

from pool_api import links
from pool_api import render
from pool_api import validation
from pool_conductor.db import pools as pools_db
from pool_conductor import named as named_objects


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
            defaults: dict, check=None, shown=None):
    """Apply the request's JSON Patch to a named object and save it. The
    patch applies to the object as stored (to_dict), secrets too.

    :param check: called with the patched body before it is saved, if
        anything changed.
    :param shown: what the answer shows of a body (secrets masked); all
        of it by default.
    :raises: Invalid, ObjectNotFound
    """
    shown = shown or (lambda body: body)
    patch = validation.json_body()
    context = flask.g.context
    before = to_dict(pools_db.get(context, model, name))
    after = validation.apply_patch(before, patch, fields, defaults)
    validation.validate(schema, {'name': name, **{f: after[f]
                                                  for f in fields}})
    changed = validation.changes(before, after, fields)
    if not changed:
        return flask.jsonify(shown(before))
    if check is not None:
        check(after)
    return flask.jsonify(shown(to_dict(named_objects.update(
        context, model, name, changed))))
