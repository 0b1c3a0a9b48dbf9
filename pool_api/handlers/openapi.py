"""The OpenAPI document of the API: GET /v1/openapi.json."""
import flask

from pool_api import links
from pool_api import openapi


def get_openapi():
    routes = flask.current_app.config['ROUTES']
    return flask.jsonify(openapi.build(routes, links.base_url()))
