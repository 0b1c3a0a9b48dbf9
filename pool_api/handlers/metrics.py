"""Prometheus metrics: /metrics."""
import flask

from pool_api import policy
from pool_conductor.conf import CONF
from pool_conductor import metrics


def get_metrics():
    if not CONF.api.public_metrics:
        policy.authorize('pool:metrics:get')
    return flask.Response(metrics.exposition(), 200,
                          content_type=metrics.CONTENT_TYPE)
