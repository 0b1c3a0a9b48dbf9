"""Policy rules of the event feed: the events of the objects one may
see."""
from pool_api.policies import base
from pool_api.policies.base import rule

RULES = [
    rule('pool:event:list', base.API_READER,
         'Read and watch the events one may see: all of them with '
         'pool:event:list_all, else those of objects the project owns or '
         'leases and those its requests caused.',
         [('GET', '/v1/events')]),
    rule('pool:event:list_all', base.SYSTEM_READER,
         'Read and watch the events of every project.',
         [('GET', '/v1/events')]),
]


def list_rules() -> list:
    return RULES
