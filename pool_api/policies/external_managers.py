"""Policy rules of external managers: administered by system admins; the
secrets among their parameters read ****** unless a rule shows them."""
from pool_api.policies import base
from pool_api.policies.base import rule

RULES = [
    *base.crud('external_manager', base.SYSTEM_READER),
    rule('pool:external_manager:show_secrets', '!',
         'Show the secrets among the parameters of external managers '
         '(values of keys such as password or token); without it they '
         'read ******.',
         [('GET', '/v1/external_managers'),
          ('GET', '/v1/external_managers/{manager_name}')]),
]


def list_rules() -> list:
    return RULES
