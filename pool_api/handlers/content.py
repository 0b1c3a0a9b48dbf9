"""Content: /v1/content, pools and what they use as one document."""
import flask

from pool_api import policy
from pool_api.schemas import content as schema
from pool_api import validation
from pool_conductor import content


def export_content():
    """Every workflow, profile, broker, pool and provider, secrets left
    out (Digital Rebar's content pack)."""
    policy.authorize('pool:content:export')
    return flask.jsonify(content.export(flask.g.context))


def import_content():
    """Create or change the objects of a content document, all or none;
    what was created, updated and left unchanged."""
    policy.authorize('pool:content:import')
    body = validation.json_body()
    validation.validate(schema.CONTENT, body)
    return flask.jsonify(content.import_content(flask.g.context, body))
