"""Policy rules of the views of the whole fleet: its overview (and the
dashboard that shows it) and the Prometheus metrics."""
from pool_api.policies import base
from pool_api.policies.base import rule

RULES = [
    rule('pool:metrics:get', base.SYSTEM_READER,
         'Read the Prometheus metrics (unless [api] public_metrics lets '
         'anyone read them).', [('GET', '/metrics')]),
    rule('pool:fleet:get', base.SYSTEM_READER,
         'Read the overview of the fleet: counts by state of every node, '
         'pool member, allocation and claim, the conductors and what they '
         'hold, lifespans ending soon and the newest warnings and errors; '
         'the dashboard shows it.',
         [('GET', '/v1/fleet'), ('GET', '/dashboard')]),
]


def list_rules() -> list:
    return RULES
