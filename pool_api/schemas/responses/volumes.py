"""Response schemas of volume connectors and targets."""
from pool_api.schemas.responses.base import LINKS
from pool_api.schemas.responses.base import NULLABLE_TIMESTAMP
from pool_api.schemas.responses.base import OBJECT
from pool_api.schemas.responses.base import object_of
from pool_api.schemas.responses.base import page
from pool_api.schemas.responses.base import STRING
from pool_api.schemas.responses.base import TIMESTAMP

VOLUME_CONNECTOR_FIELDS = {
    'uuid': STRING,
    'node_uuid': STRING,
    'type': STRING,
    'connector_id': STRING,
    'extra': OBJECT,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}
VOLUME_TARGET_FIELDS = {
    'uuid': STRING,
    'node_uuid': STRING,
    'volume_type': STRING,
    'properties': OBJECT,
    'boot_index': {'type': 'integer'},
    'volume_id': STRING,
    'extra': OBJECT,
    'created_at': TIMESTAMP,
    'updated_at': NULLABLE_TIMESTAMP,
    'links': LINKS,
}

SCHEMAS = {
    'Volume': object_of({'links': LINKS, 'connectors': LINKS,
                         'targets': LINKS},
                        required=('links', 'connectors', 'targets')),
    'VolumeConnector': object_of(
        VOLUME_CONNECTOR_FIELDS, required=('links',),
        description='A volume connector. Which fields it has depends on '
                    'the fields parameter; links are always there.'),
    'VolumeConnectorList': page('connectors', 'VolumeConnector'),
    'VolumeTarget': object_of(
        VOLUME_TARGET_FIELDS, required=('links',),
        description='A volume target. Which fields it has depends on the '
                    'fields parameter; links are always there. Its '
                    'properties are redacted for callers without '
                    'baremetal:volume:view_target_properties, and their '
                    'secrets masked for all.'),
    'VolumeTargetList': page('targets', 'VolumeTarget'),
}
