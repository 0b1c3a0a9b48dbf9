"""Counts every API request in the metrics: method, route, status, time."""
import time

import flask

from pool_conductor import metrics


def _start() -> None:
    flask.g.started = time.monotonic()


def _count(response: flask.Response) -> flask.Response:
    rule = flask.request.url_rule
    # The route's rule, not the path: one series per route.
    route = rule.rule if rule is not None else 'unmatched'
    method = flask.request.method
    metrics.API_REQUESTS.labels(method, route,
                                str(response.status_code)).inc()
    started = flask.g.get('started')
    if started is not None:
        metrics.API_SECONDS.labels(method, route).observe(
            time.monotonic() - started)
    return response


def install(app: flask.Flask) -> None:
    # First of the before_request functions: their time is counted too.
    app.before_request_funcs.setdefault(None, []).insert(0, _start)
    app.after_request(_count)
