"""Request schemas of the port groups API."""
from pool_api.schemas import common

_BOOL = {'type': ['boolean', 'string', 'null'], 'maxLength': 10}
_FIELDS = {
    'address': {'type': ['string', 'null'], 'maxLength': 255},
    'name': {'type': ['string', 'null'], 'maxLength': 255},
    'node_uuid': common.IDENT,
    'standalone_ports_supported': _BOOL,
    'extra': {**common.EXTRA, 'type': ['object', 'null']},
    'mode': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255},
    'properties': {**common.MAP, 'type': ['object', 'null']},
}

CREATE = {
    'type': 'object',
    'properties': {'uuid': {**common.UUID, 'type': ['string', 'null']},
                   **_FIELDS},
    'required': ['node_uuid'],
    'additionalProperties': False,
}

# The fields a PATCH may change, checked after the patch is applied.
UPDATE = {
    'type': 'object',
    'properties': _FIELDS,
    'required': ['node_uuid'],
}

# Query parameters of GET /v1/portgroups that filter the list.
FILTERS = {
    'node': common.IDENT,
    'address': {'type': 'string', 'maxLength': 255},
}
