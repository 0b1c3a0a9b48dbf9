"""The personas, shared check strings and paths of the policy rules.

Every module of ``pool_api.policies`` builds its rules from these: the
personas are Ironic's, and a check on an object (a node, an allocation, a
claim, a reservation) lets the project that owns it in beside the system
scope. The two rules here are Ironic's names for masking secrets in
responses; the first exists for legacy reasons there.
"""
from collections.abc import Iterable

from oslo_policy import policy

# Ironic's personas.
SYSTEM_ADMIN = 'role:admin and system_scope:all'
SYSTEM_MEMBER = 'role:member and system_scope:all'
SYSTEM_READER = 'role:reader and system_scope:all'
API_READER = 'role:reader'
API_MEMBER = 'role:member'

NODE_READER = ('(%s) or (role:reader and project_id:%%(node.owner)s) or '
               '(role:reader and project_id:%%(node.lessee)s)'
               % SYSTEM_READER)
NODE_OWNER_READER = ('(%s) or (role:reader and project_id:%%(node.owner)s)'
                     % SYSTEM_READER)
NODE_OWNER_MEMBER_LESSEE_ADMIN = (
    '(%s) or (role:member and project_id:%%(node.owner)s) or '
    '(role:admin and project_id:%%(node.lessee)s)' % SYSTEM_MEMBER)
NODE_OWNER_ADMIN = ('(%s) or (role:admin and project_id:%%(node.owner)s)'
                    % SYSTEM_ADMIN)
NODE_SYSTEM_MEMBER_OWNER_ADMIN = (
    '(%s) or (role:admin and project_id:%%(node.owner)s)' % SYSTEM_MEMBER)
NODE_SYSTEM_MEMBER_OWNER_LESSEE_ADMIN = (
    '(%s) or (role:admin and project_id:%%(node.owner)s) or '
    '(role:admin and project_id:%%(node.lessee)s)' % SYSTEM_MEMBER)
ALLOCATION_READER = ('(%s) or (role:reader and '
                     'project_id:%%(allocation.owner)s)' % SYSTEM_READER)
ALLOCATION_MEMBER = ('(%s) or (role:member and '
                     'project_id:%%(allocation.owner)s)' % SYSTEM_MEMBER)
CLAIM_READER = ('(%s) or (role:reader and project_id:%%(claim.owner)s)'
                % SYSTEM_READER)
CLAIM_MEMBER = ('(%s) or (role:member and project_id:%%(claim.owner)s)'
                % SYSTEM_MEMBER)
RESERVATION_READER = ('(%s) or (role:reader and '
                      'project_id:%%(reservation.owner)s)' % SYSTEM_READER)
RESERVATION_MEMBER = ('(%s) or (role:member and '
                      'project_id:%%(reservation.owner)s)' % SYSTEM_MEMBER)

# The paths of single objects, as the rules document them.
NODE = '/v1/nodes/{node_ident}'
ALLOC = '/v1/allocations/{allocation_ident}'
CLAIM = '/v1/claims/{claim_ident}'


def rule(name: str, check: str, description: str,
         operations: Iterable[tuple[str, str]]
         ) -> policy.DocumentedRuleDefault:
    """A documented rule; operations are (method, path) pairs."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations])


def crud(noun: str, read_check: str) -> list[policy.DocumentedRuleDefault]:
    """The rules of a named object administered by system admins (as
    Ironic's deploy templates): get, list, create, update and delete on
    ``/v1/<noun>s``, read with read_check."""
    return [rule('pool:%s:%s' % (noun, verb), check,
                 '%s %ss.' % (verb.capitalize(), noun),
                 [(method, '/v1/%ss' % noun)])
            for verb, method, check in (
                ('get', 'GET', read_check), ('list', 'GET', read_check),
                ('create', 'POST', SYSTEM_ADMIN),
                ('update', 'PATCH', SYSTEM_ADMIN),
                ('delete', 'DELETE', SYSTEM_ADMIN))]


RULES = [
    policy.RuleDefault(
        'show_password', '!',
        description='Show or mask secrets within node driver '
                    'information in API responses.'),
    policy.RuleDefault(
        'show_instance_secrets', '!',
        description='Show or mask secrets within instance information '
                    'in API responses.'),
]


def list_rules() -> list[policy.RuleDefault]:
    return RULES
