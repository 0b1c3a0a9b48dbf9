"""The building blocks of the response schemas, and the schemas every
resource refers to: a link and an error.

A response schema is closed (``object_of``: no other property may appear);
a named object is shown whole (``named``), while nodes, allocations and
the like list only ``links`` as required, for their fields depend on the
microversion and the ``fields`` parameter.
"""


def ref(name: str) -> dict:
    """A reference to the component schema of that name."""
    return {'$ref': '#/components/schemas/%s' % name}


def object_of(properties: dict, required=(), description=None) -> dict:
    """An object of these properties and no other."""
    schema = {'type': 'object', 'properties': properties,
              'required': list(required), 'additionalProperties': False}
    if description:
        schema['description'] = description
    return schema


STRING = {'type': 'string'}
NULLABLE_STRING = {'type': ['string', 'null']}
TIMESTAMP = {'type': 'string', 'format': 'date-time'}
NULLABLE_TIMESTAMP = {'type': ['string', 'null'], 'format': 'date-time'}
OBJECT = {'type': 'object'}
STRINGS = {'type': 'array', 'items': STRING}
BOOLEAN = {'type': 'boolean'}
INTEGER = {'type': 'integer'}
NULLABLE_INTEGER = {'type': ['integer', 'null']}
NULLABLE_URI = {'type': ['string', 'null'], 'format': 'uri'}
LINKS = {'type': 'array', 'items': ref('Link')}
# The fields every named object (pool, profile, broker, ...) has.
NAMED_COMMON = {'name': STRING, 'description': NULLABLE_STRING}
NAMED_TAIL = {'created_at': TIMESTAMP, 'updated_at': NULLABLE_TIMESTAMP,
              'links': LINKS}


def named(fields: dict, collection: str, item: str) -> dict:
    """The schemas of a named object shown whole, and of its list."""
    return {item: object_of(fields, required=tuple(fields)),
            item + 'List': object_of({
                collection: {'type': 'array', 'items': ref(item)},
            }, required=(collection,))}


def page(collection: str, item: str) -> dict:
    """The schema of a page of a list, and the link to the next one."""
    return object_of({
        collection: {'type': 'array', 'items': ref(item)},
        'next': {'type': 'string', 'format': 'uri',
                 'description': 'The next page, when this one is full.'},
    }, required=(collection,))


_FAULT = object_of({'faultcode': {'type': 'string',
                                  'enum': ['Client', 'Server']},
                    'faultstring': STRING,
                    'debuginfo': NULLABLE_STRING},
                   required=('faultcode', 'faultstring', 'debuginfo'))

SCHEMAS = {
    'Link': object_of({'href': STRING, 'rel': STRING, 'type': STRING},
                      required=('href', 'rel')),
    'Error': object_of({
        'error_message': {
            'type': 'string',
            'description': 'A JSON document (a fault) in a string, as '
                           'Ironic sends it.',
            'contentMediaType': 'application/json',
            'contentSchema': _FAULT,
        },
    }, required=('error_message',)),
}
