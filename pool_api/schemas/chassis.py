"""Request schemas of the chassis API."""
from pool_api.schemas import common

_FIELDS = {
    'description': {'type': ['string', 'null'], 'maxLength': 255},
    'extra': {**common.EXTRA, 'type': ['object', 'null']},
}

CREATE = {
    'type': 'object',
    'properties': {'uuid': {**common.UUID, 'type': ['string', 'null']},
                   **_FIELDS},
    'additionalProperties': False,
}

# The fields a PATCH may change, checked after the patch is applied.
UPDATE = {'type': 'object', 'properties': _FIELDS}
