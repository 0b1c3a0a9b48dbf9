"""Policy rules of content documents: the workflows, profiles, brokers,
pools and providers exported or imported as one."""
from pool_api.policies import base
from pool_api.policies.base import rule

RULES = [
    rule('pool:content:export', base.SYSTEM_READER,
         'Export the workflows, profiles, brokers, pools and providers as '
         'one document (their secrets are left out).',
         [('GET', '/v1/content')]),
    rule('pool:content:import', base.SYSTEM_ADMIN,
         'Import a content document: create or change the workflows, '
         'profiles, brokers, pools and providers it holds.',
         [('POST', '/v1/content')]),
]


def list_rules() -> list:
    return RULES
