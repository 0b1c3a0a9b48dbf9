"""Query parameters: booleans, fields, limit, marker, sort and next links."""
import urllib.parse

import flask
from oslo_utils import strutils

from pool_api import links
from pool_api import microversion
from pool_api import validation
from pool_conductor.conf import CONF
from pool_conductor import exception


def route_doc():
    """The ``Doc`` of the route of the request: the query parameters the
    API takes are those it lists."""
    return flask.current_app.config['DOCS'][flask.request.endpoint]


def get_bool(name: str) -> bool | None:
    """A boolean query parameter, None when absent.

    :raises: InvalidParameterValue
    """
    value = flask.request.args.get(name)
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.InvalidParameterValue(
            err='Invalid value "%s" for the %s parameter: expected a '
                'boolean.' % (value, name)) from None


def get_string(name: str, schema: dict) -> str | None:
    """A string query parameter no longer than the schema's maxLength.

    :raises: InvalidParameterValue
    """
    value = flask.request.args.get(name)
    if value is not None and len(value) > schema['maxLength']:
        raise exception.InvalidParameterValue(
            err='Invalid value for the %s parameter: it must be at most %d '
                'characters long.' % (name, schema['maxLength']))
    return value


def get_fields(allowed) -> list[str] | None:
    """The fields query parameter, checked against allowed.

    :raises: NotAcceptable below 1.8, InvalidParameterValue for unknown
        fields
    """
    value = flask.request.args.get('fields')
    if value is None:
        return None
    if not microversion.at_least(microversion.FIELDS):
        raise exception.NotAcceptable(
            'The fields parameter needs API version 1.%d or newer.'
            % microversion.FIELDS)
    fields = [f.strip() for f in value.split(',') if f.strip()]
    invalid = [f for f in fields if f not in allowed]
    if invalid or not fields:
        raise exception.InvalidParameterValue(
            err='Field(s) "%s" are not valid' % ', '.join(invalid or [value]))
    return fields


def get_limit() -> int:
    """The page size: the limit parameter capped by [api] max_limit.

    :raises: InvalidParameterValue
    """
    value = flask.request.args.get('limit')
    max_limit = CONF.api.max_limit
    if value is None:
        return max_limit
    limit = validation.integer(value, 'limit')
    if limit < 0:
        raise exception.InvalidParameterValue(err='Limit must be positive')
    return min(limit, max_limit) if limit else max_limit


def get_sort(allowed) -> tuple[str, str]:
    """(sort_key, sort_dir) of the request; the default sorts by id.

    :raises: InvalidParameterValue
    """
    key = flask.request.args.get('sort_key', 'id')
    direction = flask.request.args.get('sort_dir', 'asc')
    if key not in allowed:
        raise exception.InvalidParameterValue(
            err='The sort_key value "%s" is an invalid field for sorting'
                % key)
    if direction not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err='Invalid sort direction: %s. Acceptable values are '
                "'asc' or 'desc'" % direction)
    return key, direction


def get_marker() -> str | None:
    return flask.request.args.get('marker') or None


def next_link(collection_path: str, items: list, limit: int) -> str | None:
    """The URL of the next page, when this one is full.

    It repeats the request's other parameters, with the marker set to the
    UUID of the page's last item.
    """
    if not items or len(items) < limit:
        return None
    args = [(k, v) for k, v in flask.request.args.items(multi=True)
            if k not in ('limit', 'marker')]
    args += [('limit', str(limit)), ('marker', items[-1].uuid)]
    return '%s%s?%s' % (links.base_url(), collection_path,
                        urllib.parse.urlencode(args))


# The version from which a list takes ?detail=true, as Ironic's nodes and
# ports do.
DETAIL_PARAM = 43


def get_list_fields(visible, short, detail: bool) -> list[str]:
    """The fields of a list's items: those ?fields names, else every
    visible one for a detailed list (the /detail collection, or ?detail
    from 1.43), else the short ones.

    :raises: NotAcceptable for ?detail below 1.43, InvalidParameterValue
        for ?detail with ?fields or an unknown field
    """
    fields = get_fields(visible)
    if not detail and flask.request.args.get('detail') is not None:
        if not microversion.at_least(DETAIL_PARAM):
            raise exception.NotAcceptable(
                'The detail parameter needs API version 1.%d or newer.'
                % DETAIL_PARAM)
        detail = bool(get_bool('detail'))
    if detail and fields is not None:
        raise exception.InvalidParameterValue(
            err='Can not specify ?detail=True and fields in the same '
                'request.')
    if fields is None:
        return list(visible if detail else short)
    return fields


def page(collection: str, items: list, limit: int, shown: list):
    """The answer to a list request: {collection: shown}, with the link
    to the next page when this one is full."""
    body = {collection: shown}
    next_url = next_link(flask.request.path.rstrip('/'), items, limit)
    if next_url:
        body['next'] = next_url
    return flask.jsonify(body)
