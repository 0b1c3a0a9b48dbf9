"""Policy rules of drivers and conductors: read by system readers."""
from pool_api.policies import base
from pool_api.policies.base import rule

RULES = [
    rule('baremetal:driver:get', base.SYSTEM_READER,
         'List and show drivers.',
         [('GET', '/v1/drivers'), ('GET', '/v1/drivers/{driver_name}')]),
    rule('baremetal:driver:get_properties', base.SYSTEM_READER,
         'Show the driver_info properties of a driver.',
         [('GET', '/v1/drivers/{driver_name}/properties')]),
    rule('baremetal:conductor:get', base.SYSTEM_READER,
         'List and show conductors.',
         [('GET', '/v1/conductors'), ('GET', '/v1/conductors/{hostname}')]),
]


def list_rules() -> list:
    return RULES
