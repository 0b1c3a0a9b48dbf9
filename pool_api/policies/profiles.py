"""Policy rules of profiles: administered by system admins; their secret
params read ****** unless a rule shows them."""
from pool_api.policies import base
from pool_api.policies.base import NODE
from pool_api.policies.base import rule

RULES = [
    *base.crud('profile', base.SYSTEM_READER),
    rule('pool:profile:show_secrets', '!',
         'Show the secret params of profiles (those a profile names in '
         'secret_params, and values of keys such as password or token), '
         'also in a node\'s aggregated params; without it they read '
         '******.',
         [('GET', '/v1/profiles'), ('GET', '/v1/profiles/{profile_name}'),
          ('GET', NODE + '/params')]),
]


def list_rules() -> list:
    return RULES
