"""Response schemas of deploy templates."""
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP

SCHEMAS = {
    'DeployTemplate': object_of({
        'uuid': STRING,
        'name': STRING,
        'steps': {'type': 'array', 'items': object_of({
            'interface': STRING, 'step': STRING, 'args': OBJECT,
            'priority': {'type': 'integer'}},
            required=('interface', 'step', 'args', 'priority'))},
        'extra': OBJECT,
        'created_at': TIMESTAMP,
        'updated_at': NULLABLE_TIMESTAMP,
        'links': LINKS,
    }, required=('links',),
        description='A deploy template. Which fields it has depends on '
                    'the fields parameter; links are always there.'),
    'DeployTemplateList': page('deploy_templates', 'DeployTemplate'),
}
