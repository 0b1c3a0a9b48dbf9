"""Policy rules of claims, their handles and history: owned by the project
that made them."""
from pool_api.policies import base
from pool_api.policies.base import CLAIM
from pool_api.policies.base import rule

RULES = [
    rule('pool:claim:get', base.CLAIM_READER,
         'Show a claim, or a handle of it.',
         [('GET', CLAIM), ('GET', '/v1/handles/{handle_uuid}')]),
    rule('pool:claim:list', base.API_READER,
         'List the claims one may see: all of them with '
         'pool:claim:list_all, else those of the project (and their '
         'handles).',
         [('GET', '/v1/claims'), ('GET', '/v1/handles')]),
    rule('pool:claim:list_all', base.SYSTEM_READER,
         'List the claims (and handles) of every project.',
         [('GET', '/v1/claims'), ('GET', '/v1/handles')]),
    rule('pool:claim:create', base.API_MEMBER,
         'Create a claim; its owner is the project of the token.',
         [('POST', '/v1/claims')]),
    rule('pool:claim:create_unrestricted', base.SYSTEM_MEMBER,
         'Create a claim that may bind any node of its providers\' '
         'pools; without it a claim binds only nodes its project owns '
         'or leases (a machine a broker makes for it is leased to the '
         'project).', [('POST', '/v1/claims')]),
    rule('pool:claim:update', base.CLAIM_MEMBER,
         'Change the lifespan_end or the resource templates of a claim.',
         [('PATCH', CLAIM)]),
    rule('pool:claim:delete', base.CLAIM_MEMBER,
         'Delete a claim, releasing its machines.', [('DELETE', CLAIM)]),
    rule('pool:claim:history:get', base.CLAIM_READER,
         'Read the history of a claim.',
         [('GET', CLAIM + '/history'),
          ('GET', CLAIM + '/history/{event_uuid}')]),
]


def list_rules() -> list:
    return RULES
