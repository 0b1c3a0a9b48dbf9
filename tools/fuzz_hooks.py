"""schemathesis hooks of the negative run of tools/fuzz.py.

The negative run lets schemathesis generate the version header, so that a
version that is not valid is one of the things it tries; every other
request is made in the newest version, so that what it negated in a body,
a path or a query is refused by the API's validation and not by an older
version not having the operation.
"""
import schemathesis

from pool_api import microversion

VALID = {microversion.to_string((1, minor)) for minor in range(
    microversion.MIN_VERSION[1], microversion.MAX_VERSION[1] + 1)}
VALID.add('latest')
NEWEST = microversion.to_string(microversion.MAX_VERSION)


@schemathesis.hook
def before_call(context, case) -> None:
    headers = case.headers if case.headers is not None else {}
    if headers.get(microversion.HEADER, 'latest') in VALID:
        headers[microversion.HEADER] = NEWEST
    case.headers = headers


@schemathesis.hook
def filter_query(context, query) -> bool:
    """Only the documented query parameters are made invalid: in node
    lists any other name may be a Digital Rebar filter, so an unknown
    parameter is not always invalid input (elsewhere it is a 400, which
    the unit tests check)."""
    if not query:
        return True
    known = {parameter.name for parameter in context.operation.query}
    return set(query) <= known


@schemathesis.hook
def filter_headers(context, headers) -> bool:
    """Only the documented headers are made invalid: a header the API
    does not know is not invalid input."""
    if not headers:
        return True
    known = {parameter.name.lower() for parameter in context.operation.headers}
    return {name.lower() for name in headers} <= known
