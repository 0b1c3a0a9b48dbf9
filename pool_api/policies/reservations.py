"""Policy rules of reservations: windowed allocations of several nodes,
owned by a project as allocations are."""
from pool_api.policies import base
from pool_api.policies.base import rule

RESERVATION = '/v1/reservations/{reservation_ident}'

RULES = [
    rule('pool:reservation:get', base.RESERVATION_READER,
         'Show a reservation.', [('GET', RESERVATION)]),
    rule('pool:reservation:list', base.API_READER,
         'List the reservations one may see: all of them with '
         'pool:reservation:list_all, else those of the project.',
         [('GET', '/v1/reservations')]),
    rule('pool:reservation:list_all', base.SYSTEM_READER,
         'List the reservations of every project.',
         [('GET', '/v1/reservations')]),
    rule('pool:reservation:create', base.API_MEMBER,
         'Create a reservation (windowed allocations of several nodes). '
         'Without baremetal:allocation:create_restricted its owner is the '
         'project of the token and it takes only the project\'s nodes.',
         [('POST', '/v1/reservations')]),
    rule('pool:reservation:delete', base.RESERVATION_MEMBER,
         'Delete a reservation and all its allocations.',
         [('DELETE', RESERVATION)]),
]


def list_rules() -> list:
    return RULES
