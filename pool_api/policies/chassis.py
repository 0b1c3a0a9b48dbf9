"""Policy rules of chassis: read by system readers, administered by the
system."""
from pool_api.policies import base
from pool_api.policies.base import rule

CHASSIS = '/v1/chassis/{chassis_uuid}'

RULES = [
    rule('baremetal:chassis:get', base.SYSTEM_READER, 'Show chassis.',
         [('GET', '/v1/chassis'), ('GET', '/v1/chassis/detail'),
          ('GET', CHASSIS), ('GET', CHASSIS + '/nodes')]),
    rule('baremetal:chassis:create', base.SYSTEM_ADMIN, 'Create a chassis.',
         [('POST', '/v1/chassis')]),
    rule('baremetal:chassis:update', base.SYSTEM_MEMBER, 'Update a chassis.',
         [('PATCH', CHASSIS)]),
    rule('baremetal:chassis:delete', base.SYSTEM_ADMIN, 'Delete a chassis.',
         [('DELETE', CHASSIS)]),
]


def list_rules() -> list:
    return RULES
