"""Policy rules of allocations, their previews (candidates, availability)
and history.

baremetal:allocation:create_restricted widens what a project may ask for:
without it the owner is the project of the token and only the nodes the
project owns or leases are candidates, in a preview as in a request.
"""
from pool_api.policies import base
from pool_api.policies.base import ALLOC
from pool_api.policies.base import NODE
from pool_api.policies.base import rule

RULES = [
    rule('baremetal:allocation:get', base.ALLOCATION_READER,
         'Show an allocation.',
         [('GET', ALLOC), ('GET', NODE + '/allocation')]),
    rule('baremetal:allocation:list', base.API_READER,
         'List the allocations one may see: all of them with '
         'baremetal:allocation:list_all, else those of the project.',
         [('GET', '/v1/allocations')]),
    rule('baremetal:allocation:list_all', base.SYSTEM_READER,
         'List the allocations of every project.',
         [('GET', '/v1/allocations')]),
    rule('baremetal:allocation:create', base.API_MEMBER,
         'Create an allocation.', [('POST', '/v1/allocations')]),
    rule('pool:allocation_candidates:get', base.API_MEMBER,
         'Preview an allocation request: the nodes it would match, the '
         'one it would get now and why the others are left out. Without '
         'baremetal:allocation:create_restricted only the nodes the '
         'project owns or leases are looked at.',
         [('POST', '/v1/allocation_candidates'),
          ('GET', '/v1/allocation_candidates')]),
    rule('pool:availability:get', base.API_MEMBER,
         'See when an allocation request could start a window, and the '
         'free periods of the nodes it matches. Without '
         'baremetal:allocation:create_restricted only the nodes the '
         'project owns or leases are looked at.',
         [('GET', '/v1/availability')]),
    rule('baremetal:allocation:create_restricted', base.SYSTEM_MEMBER,
         'Create an allocation for any owner, among all nodes. Without '
         'it the owner is the project of the token and the candidates '
         'are the nodes the project owns or leases.',
         [('POST', '/v1/allocations')]),
    rule('baremetal:allocation:update', base.ALLOCATION_MEMBER,
         'Change the name or extra of an allocation.',
         [('PATCH', ALLOC)]),
    rule('baremetal:allocation:delete', base.ALLOCATION_MEMBER,
         'Delete an allocation.',
         [('DELETE', ALLOC), ('DELETE', NODE + '/allocation')]),
    rule('pool:allocation:history:get', base.ALLOCATION_READER,
         'Read the history of an allocation.',
         [('GET', ALLOC + '/history'),
          ('GET', ALLOC + '/history/{event_uuid}')]),
]


def list_rules() -> list:
    return RULES
