"""Request schemas of the volume connectors and targets API."""
from pool_api.schemas import common

_EXTRA = {**common.EXTRA, 'type': ['object', 'null']}
CONNECTOR_FIELDS = {
    'node_uuid': common.IDENT,
    'type': {'type': 'string', 'minLength': 1, 'maxLength': 32},
    'connector_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'extra': _EXTRA,
}
TARGET_FIELDS = {
    'node_uuid': common.IDENT,
    'volume_type': {'type': 'string', 'minLength': 1, 'maxLength': 64},
    'volume_id': {'type': 'string', 'minLength': 1, 'maxLength': 36},
    'boot_index': {'type': 'integer', 'minimum': 0,
                   'maximum': 2 ** 31 - 1},
    'properties': {**common.MAP, 'type': ['object', 'null']},
    'extra': _EXTRA,
}
_UUID = {**common.UUID, 'type': ['string', 'null']}

CONNECTOR_CREATE = {
    'type': 'object',
    'properties': {'uuid': _UUID, **CONNECTOR_FIELDS},
    'required': ['node_uuid', 'type', 'connector_id'],
    'additionalProperties': False,
}
CONNECTOR_UPDATE = {
    'type': 'object',
    'properties': CONNECTOR_FIELDS,
    'required': ['node_uuid', 'type', 'connector_id'],
}
TARGET_CREATE = {
    'type': 'object',
    'properties': {'uuid': _UUID, **TARGET_FIELDS},
    'required': ['node_uuid', 'volume_type', 'volume_id', 'boot_index'],
    'additionalProperties': False,
}
TARGET_UPDATE = {
    'type': 'object',
    'properties': TARGET_FIELDS,
    'required': ['node_uuid', 'volume_type', 'volume_id', 'boot_index'],
}

# Query parameters of the lists.
FILTERS = {'node': common.IDENT}
DETAIL = {'detail': {'type': 'boolean'}}
