"""Response schemas of the event feed and of the history of an object."""
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_INTEGER
from pool_api.schemas.responses.base import NULLABLE_STRING
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP
from pool_conductor import events

EVENT_FIELDS = {
    'cursor': {'type': 'integer',
               'description': 'The place of the event in the feed.'},
    'uuid': STRING,
    'created_at': TIMESTAMP,
    'object_type': STRING,
    'object_uuid': STRING,
    'object_name': NULLABLE_STRING,
    'event_type': STRING,
    'level': {'type': 'string', 'enum': list(events.LEVELS)},
    'prev_state': NULLABLE_STRING,
    'state': NULLABLE_STRING,
    'message': NULLABLE_STRING,
    'request_id': NULLABLE_STRING,
    'user': NULLABLE_STRING,
    'project': NULLABLE_STRING,
    'conductor': NULLABLE_STRING,
    'payload': {'type': 'object',
                'description': 'The object after the change, versioned '
                               '(detail=true only).'},
}
HISTORY_FIELDS = {
    'uuid': STRING,
    'created_at': TIMESTAMP,
    'severity': {'type': 'string',
                 'enum': [level.upper() for level in events.LEVELS]},
    'event_type': STRING,
    'event': STRING,
    'conductor': NULLABLE_STRING,
    'user': NULLABLE_STRING,
    'project': NULLABLE_STRING,
    'prev_state': NULLABLE_STRING,
    'state': NULLABLE_STRING,
    'request_id': NULLABLE_STRING,
    'cursor': NULLABLE_INTEGER,
    'links': LINKS,
}

SCHEMAS = {
    'EventPage': object_of({
        'events': {'type': 'array', 'items': object_of(
            EVENT_FIELDS, required=tuple(f for f in EVENT_FIELDS
                                         if f != 'payload'))},
        'cursor': {'type': 'integer',
                   'description': 'The since of the next request: the '
                                  'last event of the page, or the last '
                                  'cursor given when none (a bookmark).'},
        'more': {'type': 'boolean',
                 'description': 'Whether more events follow at once.'},
        'oldest': {'type': 'integer',
                   'description': 'The lowest since accepted: the events '
                                  'after it are retained.'},
    }, required=('events', 'cursor', 'more', 'oldest')),
    'HistoryEvent': object_of(
        HISTORY_FIELDS, required=('uuid', 'created_at', 'severity', 'event',
                                  'links'),
        description='An event of the history of an object, in the shape '
                    'of Ironic\'s node history (API 1.78): uuid, '
                    'created_at, severity and event in a list, every field '
                    'with detail=true and for one event.'),
    'HistoryList': page('history', 'HistoryEvent'),
}
