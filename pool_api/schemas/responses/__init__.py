"""Response schemas of the API, by their name in the OpenAPI document.

They follow the handlers' representations: which fields a node or an
allocation has depends on the microversion and on the ``fields``
parameter, so only ``links`` is required of them, and no other field may
appear. Each module holds the schemas of one resource family, as
``pool_api.schemas`` holds the request schemas, and ``base`` the blocks
they are built of; ``SCHEMAS`` gathers them for ``pool_api.openapi``.
"""
from pool_api.schemas.responses import allocations
from pool_api.schemas.responses import base
from pool_api.schemas.responses.base import STRING  # noqa: F401
from pool_api.schemas.responses import brokers
from pool_api.schemas.responses import chassis
from pool_api.schemas.responses import claims
from pool_api.schemas.responses import content
from pool_api.schemas.responses import deploy_templates
from pool_api.schemas.responses import drivers
from pool_api.schemas.responses import events
from pool_api.schemas.responses import external_managers
from pool_api.schemas.responses import fleet
from pool_api.schemas.responses import nodes
from pool_api.schemas.responses import portgroups
from pool_api.schemas.responses import ports
from pool_api.schemas.responses import pools
from pool_api.schemas.responses import reservations
from pool_api.schemas.responses import root
from pool_api.schemas.responses import volumes

SCHEMAS = {
    **base.SCHEMAS, **root.SCHEMAS, **nodes.SCHEMAS, **ports.SCHEMAS,
    **portgroups.SCHEMAS, **volumes.SCHEMAS, **chassis.SCHEMAS,
    **deploy_templates.SCHEMAS, **drivers.SCHEMAS, **allocations.SCHEMAS,
    **reservations.SCHEMAS, **claims.SCHEMAS, **pools.SCHEMAS,
    **brokers.SCHEMAS, **external_managers.SCHEMAS, **content.SCHEMAS,
    **events.SCHEMAS, **fleet.SCHEMAS,
}
