"""Policy rules of volume connectors and targets: those of the nodes one
may see; a target's properties may hold credentials."""
from pool_api.policies import base
from pool_api.policies.base import NODE
from pool_api.policies.base import rule

CONNECTOR = '/v1/volume/connectors/{volume_connector_uuid}'
TARGET = '/v1/volume/targets/{volume_target_uuid}'
_LISTS = [('GET', '/v1/volume/connectors'), ('GET', '/v1/volume/targets'),
          ('GET', NODE + '/volume/connectors'),
          ('GET', NODE + '/volume/targets')]

RULES = [
    rule('baremetal:volume:get', base.NODE_READER,
         'Show volume connectors and targets: those of a node the '
         'project owns or leases.',
         [('GET', '/v1/volume'), ('GET', CONNECTOR), ('GET', TARGET),
          ('GET', NODE + '/volume'), ('GET', NODE + '/volume/connectors'),
          ('GET', NODE + '/volume/targets')]),
    rule('baremetal:volume:list', base.API_READER,
         'List the volume connectors and targets one may see: all of '
         'them with baremetal:volume:list_all, else those of the nodes '
         'the project owns or leases.', _LISTS),
    rule('baremetal:volume:list_all', base.SYSTEM_READER,
         'List the volume connectors and targets of every node.', _LISTS),
    rule('baremetal:volume:create',
         base.NODE_SYSTEM_MEMBER_OWNER_LESSEE_ADMIN,
         'Create a volume connector or target.',
         [('POST', '/v1/volume/connectors'),
          ('POST', '/v1/volume/targets')]),
    rule('baremetal:volume:update', base.NODE_OWNER_MEMBER_LESSEE_ADMIN,
         'Update a volume connector or target.',
         [('PATCH', CONNECTOR), ('PATCH', TARGET)]),
    rule('baremetal:volume:delete',
         base.NODE_SYSTEM_MEMBER_OWNER_LESSEE_ADMIN,
         'Delete a volume connector or target.',
         [('DELETE', CONNECTOR), ('DELETE', TARGET)]),
    rule('baremetal:volume:view_target_properties',
         '(%s) or (role:admin)' % base.SYSTEM_READER,
         'See the properties of volume targets (they may hold '
         'credentials); others see them masked.',
         [('GET', TARGET), ('GET', '/v1/volume/targets')]),
]


def list_rules() -> list:
    return RULES
