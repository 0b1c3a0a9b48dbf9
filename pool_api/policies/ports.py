"""Policy rules of ports: those of the nodes one may see."""
from pool_api.policies import base
from pool_api.policies.base import NODE
from pool_api.policies.base import rule

PORT = '/v1/ports/{port_uuid}'

RULES = [
    rule('baremetal:port:get', base.NODE_READER,
         'Show a port: one of a node the project owns or leases.',
         [('GET', PORT), ('GET', NODE + '/ports'),
          ('GET', NODE + '/ports/detail')]),
    rule('baremetal:port:list', base.API_READER,
         'List the ports one may see: all of them with '
         'baremetal:port:list_all, else those of the nodes the project '
         'owns or leases.',
         [('GET', '/v1/ports'), ('GET', '/v1/ports/detail')]),
    rule('baremetal:port:list_all', base.SYSTEM_READER,
         'List the ports of every node.',
         [('GET', '/v1/ports'), ('GET', '/v1/ports/detail')]),
    rule('baremetal:port:create', base.NODE_OWNER_ADMIN,
         'Create a port.', [('POST', '/v1/ports')]),
    rule('baremetal:port:update', base.NODE_OWNER_ADMIN,
         'Update a port.', [('PATCH', PORT)]),
    rule('baremetal:port:delete', base.NODE_OWNER_ADMIN,
         'Delete a port.', [('DELETE', PORT)]),
]


def list_rules() -> list:
    return RULES
