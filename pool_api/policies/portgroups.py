"""Policy rules of port groups: those of the nodes one may see."""
from pool_api.policies import base
from pool_api.policies.base import NODE
from pool_api.policies.base import rule

PORTGROUP = '/v1/portgroups/{portgroup_ident}'

RULES = [
    rule('baremetal:portgroup:get', base.NODE_READER,
         'Show a port group: one of a node the project owns or leases.',
         [('GET', PORTGROUP), ('GET', NODE + '/portgroups'),
          ('GET', NODE + '/portgroups/detail'),
          ('GET', PORTGROUP + '/ports'),
          ('GET', PORTGROUP + '/ports/detail')]),
    rule('baremetal:portgroup:list', base.API_READER,
         'List the port groups one may see: all of them with '
         'baremetal:portgroup:list_all, else those of the nodes the '
         'project owns or leases.',
         [('GET', '/v1/portgroups'), ('GET', '/v1/portgroups/detail')]),
    rule('baremetal:portgroup:list_all', base.SYSTEM_READER,
         'List the port groups of every node.',
         [('GET', '/v1/portgroups'), ('GET', '/v1/portgroups/detail')]),
    rule('baremetal:portgroup:create', base.NODE_OWNER_ADMIN,
         'Create a port group.', [('POST', '/v1/portgroups')]),
    rule('baremetal:portgroup:update', base.NODE_SYSTEM_MEMBER_OWNER_ADMIN,
         'Update a port group.', [('PATCH', PORTGROUP)]),
    rule('baremetal:portgroup:delete', base.NODE_OWNER_ADMIN,
         'Delete a port group.', [('DELETE', PORTGROUP)]),
]


def list_rules() -> list:
    return RULES
