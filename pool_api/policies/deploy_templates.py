"""Policy rules of deploy templates: read by system readers, administered
by system admins."""
from pool_api.policies import base
from pool_api.policies.base import rule

TEMPLATE = '/v1/deploy_templates/{template_ident}'

RULES = [
    rule('baremetal:deploy_template:get', base.SYSTEM_READER,
         'Show or list deploy templates.',
         [('GET', '/v1/deploy_templates'), ('GET', TEMPLATE)]),
    rule('baremetal:deploy_template:create', base.SYSTEM_ADMIN,
         'Create a deploy template.', [('POST', '/v1/deploy_templates')]),
    rule('baremetal:deploy_template:update', base.SYSTEM_ADMIN,
         'Update a deploy template.', [('PATCH', TEMPLATE)]),
    rule('baremetal:deploy_template:delete', base.SYSTEM_ADMIN,
         'Delete a deploy template.', [('DELETE', TEMPLATE)]),
]


def list_rules() -> list:
    return RULES
