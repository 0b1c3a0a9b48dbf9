"""Policy rules of workflows: administered by system admins."""
from pool_api.policies import base

RULES = base.crud('workflow', base.SYSTEM_READER)


def list_rules() -> list:
    return RULES
