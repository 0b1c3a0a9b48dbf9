"""Policy rules of providers: administered by system admins and read by
project readers too, who name them in their claims."""
from pool_api.policies import base

RULES = base.crud('provider', base.API_READER)


def list_rules() -> list:
    return RULES
