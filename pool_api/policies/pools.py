"""Policy rules of pools: administered by system admins, and their
actions (Digital Rebar's addMachines and the like)."""
from pool_api.policies import base
from pool_api.policies.base import NODE
from pool_api.policies.base import rule

POOL = '/v1/pools/{pool_name}'
_ACTIONS = [('POST', '/v1/pools/{pool_ident}/%s' % action)
            for action in ('addMachines', 'removeMachines',
                           'allocateMachines', 'returnMachines')]
_ACTIONS.append(('POST', NODE + '/returnToPool'))

RULES = [
    *base.crud('pool', base.SYSTEM_READER),
    rule('pool:pool:action', base.SYSTEM_ADMIN,
         'Run an action on a pool, or return a node to its pool.',
         _ACTIONS),
    rule('pool:pool:action_all', base.SYSTEM_MEMBER,
         'Let pool actions touch the nodes of every project. Without it '
         'an action selects only the nodes the project of the token owns '
         'or leases, and a node named in it that the project neither '
         'owns nor leases is not found.', _ACTIONS),
    rule('pool:pool:history:get', base.SYSTEM_READER,
         'Read the history of a pool.',
         [('GET', POOL + '/history'),
          ('GET', POOL + '/history/{event_uuid}')]),
]


def list_rules() -> list:
    return RULES
