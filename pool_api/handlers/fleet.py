"""The overview of the fleet: /v1/fleet."""
import flask

from pool_api import fleet
from pool_api import policy

QUERY = {'ending_within': {'type': 'integer', 'minimum': 0,
                           'maximum': fleet.MAX_ENDING_WITHIN}}


def get_fleet():
    """Counts of the fleet by state, each with the list it counts; the
    lifespans ending soon, the conductors and what each holds, and the
    newest warnings and errors."""
    policy.authorize('pool:fleet:get')
    return flask.jsonify(fleet.flask_overview())
