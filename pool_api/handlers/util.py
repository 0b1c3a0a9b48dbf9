"""What the handlers share: the RPC client, the node of a request, the
answer to a create, and the owner and window of a new allocation.

Handler modules import this one and pool_conductor, not one another
for helpers: a helper that two resources need lives here, written once
(as placement's handlers/util.py).
"""
import re

import flask

from pool_api import links
from pool_api import microversion
from pool_api import policy
from pool_api.schemas import common
from pool_api import validation
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from pool_conductor import lifespans
from pool_conductor import rpcapi as conductor_rpcapi

# A time with its offset (RFC 3339): a window is not read in a local time.
_OFFSET = re.compile(r'(Z|z|[+-][0-9]{2}:?[0-9]{2})$')


def rpcapi() -> conductor_rpcapi.ConductorAPI:
    """The client of the conductors' RPC API that the app was made with."""
    return flask.current_app.config['RPCAPI']


def get_authorized(node_ident: str, rule: str):
    """The node of a request, if the caller may do rule on it.

    :raises: NodeNotFound (also for a node the caller may not see),
        Forbidden
    """
    node = nodes_db.get_node(flask.g.context, node_ident)
    policy.authorize_node(rule, node, node_ident)
    return node


def node_target(node) -> dict:
    """The policy target of what hangs on a node (ports, port groups,
    volumes): its owner and lessee."""
    return {'node.owner': node.owner or '', 'node.lessee': node.lessee or ''}


def body_node(ident: str, rule: str):
    """The node a request body names by UUID: a 400 when the caller may
    not do rule (a read) on it, or it does not exist, as Ironic answers.

    :raises: InvalidParameterValue
    """
    common.check_uuid(ident, 'node_uuid')
    try:
        node = nodes_db.get_node(flask.g.context, ident)
        if not policy.allowed(rule, node_target(node)):
            raise exception.NodeNotFound(node=ident)
    except exception.NodeNotFound as exc:
        raise exception.InvalidParameterValue(err=exc.message) from None
    return node


def node_url(node, suffix: str = '') -> str:
    """The URL of a node, or of suffix under it."""
    return links.resource_links('nodes', node.uuid)[0]['href'] + suffix


def require_version(minor: int, what: str) -> None:
    """:raises: NotAcceptable, naming what, below version 1.minor"""
    if not microversion.at_least(minor):
        raise exception.NotAcceptable('%s needs API version 1.%d or newer.'
                                      % (what, minor))


def created(body: dict, collection: str, ident: str):
    """The answer to a create: 201, body and the Location of the new
    resource."""
    response = flask.jsonify(body)
    response.status_code = 201
    response.headers['Location'] = links.resource_links(
        collection, ident)[0]['href']
    return response


def restrict_owner(body: dict) -> str | None:
    """The project that must own a new allocation, None for any.

    Without baremetal:allocation:create_restricted the owner is the
    project of the token, and the candidates are its nodes.

    :raises: Forbidden for another owner in the body, or no project
    """
    if policy.allowed('baremetal:allocation:create_restricted'):
        return None
    project = flask.g.context.project_id
    if not project or body.get('owner') not in (None, project):
        raise exception.Forbidden()
    return project


def instant(body: dict, key: str):
    """A point in time of a request, which must name its offset.

    :raises: InvalidParameterValue naming key
    """
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not _OFFSET.search(value):
        raise exception.InvalidParameterValue(
            err='%s must be a date and time with its offset (RFC 3339), '
                'such as 2026-12-01T12:00:00Z, not %r.' % (key, value))
    return validation.timestamp(value, key)


def window_of(body: dict) -> tuple:
    """(start, end) of a windowed allocation request, (None, None)
    without start_at.

    :raises: InvalidParameterValue for a window that is not one
    """
    start = instant(body, 'start_at')
    end = instant(body, 'end_at')
    length = body.get('duration')
    if start is None:
        if end is not None or length is not None:
            raise exception.InvalidParameterValue(
                err='end_at and duration need start_at; an allocation '
                    'that starts now ends at its lifespan_end.')
        return None, None
    if (end is None) == (length is None):
        raise exception.InvalidParameterValue(
            err='A window needs either end_at or duration with its '
                'start_at.')
    if body.get('lifespan_end') is not None:
        raise exception.InvalidParameterValue(
            err='A window ends at its end_at (or after its duration): '
                'lifespan_end cannot be given with start_at.')
    if body.get('node') is not None:
        raise exception.InvalidParameterValue(
            err='A backfilled allocation (node) cannot have a window.')
    if end is None:
        end = start + lifespans.duration(length, 'duration')
        if end >= validation.LATEST_TIMESTAMP:
            raise exception.InvalidParameterValue(
                err='The window ends out of range.')
    return start, end
