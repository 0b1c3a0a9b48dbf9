"""Request schemas of the ports and VIFs API."""
from pool_api.schemas import common

# Ironic takes booleans of ports as JSON booleans or as strings.
_BOOL = {'type': ['boolean', 'string', 'null'], 'maxLength': 10}
# Ironic's keys; a non-empty connection names the switch and its port.
LOCAL_LINK_CONNECTION = {
    'type': ['object', 'null'],
    'properties': {
        'switch_id': {'type': 'string', 'maxLength': 255},
        'port_id': {'type': 'string', 'maxLength': 255},
        'switch_info': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
    'anyOf': [{'maxProperties': 0}, {'required': ['switch_id', 'port_id']},
              {'type': 'null'}],
}
_FIELDS = {
    'address': {'type': 'string', 'maxLength': 255},
    'node_uuid': common.IDENT,
    'portgroup_uuid': {**common.IDENT, 'type': ['string', 'null']},
    'pxe_enabled': _BOOL,
    'local_link_connection': LOCAL_LINK_CONNECTION,
    'physical_network': {'type': ['string', 'null'], 'maxLength': 64},
    'extra': {**common.EXTRA, 'type': ['object', 'null']},
    'is_smartnic': _BOOL,
}

CREATE = {
    'type': 'object',
    'properties': {'uuid': {**common.UUID, 'type': ['string', 'null']},
                   **_FIELDS},
    'required': ['address', 'node_uuid'],
    'additionalProperties': False,
}

# The fields a PATCH may change, checked after the patch is applied.
UPDATE = {
    'type': 'object',
    'properties': _FIELDS,
    'required': ['address', 'node_uuid'],
}

# Query parameters of GET /v1/ports that filter the list.
FILTERS = {
    'node': common.IDENT,
    'node_uuid': common.UUID,
    'address': {'type': 'string', 'maxLength': 255},
    'portgroup': common.IDENT,
}

VIF = {
    'type': 'object',
    'properties': {'id': {'type': 'string', 'minLength': 1,
                          'maxLength': 255}},
    'required': ['id'],
}
