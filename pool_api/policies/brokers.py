"""Policy rules of brokers: administered by system admins; the secrets
among their parameters read ****** unless a rule shows them."""
from pool_api.policies import base
from pool_api.policies.base import rule

RULES = [
    *base.crud('broker', base.SYSTEM_READER),
    rule('pool:broker:show_secrets', '!',
         'Show the secrets among the parameters of brokers (values of '
         'keys such as password or token); without it they read '
         '******.',
         [('GET', '/v1/brokers'), ('GET', '/v1/brokers/{broker_name}')]),
]


def list_rules() -> list:
    return RULES
