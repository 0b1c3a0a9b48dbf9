"""Response schemas of brokers."""
from pool_api.schemas.responses.base import named
from pool_api.schemas.responses.base import NAMED_COMMON
from pool_api.schemas.responses.base import NAMED_TAIL
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import STRING

BROKER_FIELDS = {**NAMED_COMMON, 'driver': STRING, 'parameters': OBJECT,
                 **NAMED_TAIL}

SCHEMAS = {
    **named(BROKER_FIELDS, 'brokers', 'Broker'),
}
