"""Queries on volume connectors and volume targets of nodes."""
import sqlalchemy as sa

from pool_conductor.db import models
from pool_conductor.db import records
from pool_conductor import exception

_CONNECTOR = models.VolumeConnector
_TARGET = models.VolumeTarget


def _connector_duplicate(columns: set, values: dict) -> Exception:
    if columns & {'type', 'connector_id'}:
        return exception.VolumeConnectorTypeAndIdAlreadyExists(
            type=values.get('type'), connector_id=values.get('connector_id'))
    return exception.VolumeConnectorAlreadyExists(uuid=values.get('uuid'))


def _target_duplicate(columns: set, values: dict) -> Exception:
    if 'boot_index' in columns:
        return exception.VolumeTargetBootIndexAlreadyExists(
            boot_index=values.get('boot_index'))
    return exception.VolumeTargetAlreadyExists(uuid=values.get('uuid'))


def _missing_connector(ident) -> Exception:
    return exception.VolumeConnectorNotFound(connector=ident)


def _missing_target(ident) -> Exception:
    return exception.VolumeTargetNotFound(target=ident)


# model -> (what a duplicate is, what a missing row is, its name)
_KINDS = {
    _CONNECTOR: (_connector_duplicate, _missing_connector,
                 'Volume connector'),
    _TARGET: (_target_duplicate, _missing_target, 'Volume target'),
}


def not_found(model, ident) -> Exception:
    """The error of a missing volume connector or target (model)."""
    return _KINDS[model][1](ident)


def get(context, model, uuid: str):
    """A volume connector or target (model) by UUID.

    :raises: VolumeConnectorNotFound, VolumeTargetNotFound
    """
    return records.get_by_uuid(context, model, uuid, _KINDS[model][1](uuid))


def create(context, model, values: dict):
    """:raises: VolumeConnectorAlreadyExists,
        VolumeConnectorTypeAndIdAlreadyExists, VolumeTargetAlreadyExists,
        VolumeTargetBootIndexAlreadyExists, NodeNotFound"""
    return records.create(context, model, {'extra': {}, **values},
                          _KINDS[model][0])


def update(context, row, values: dict):
    """A compare-and-swap on the row's generation.

    :raises: ConcurrentUpdate, the not found and already exists errors of
        create() and get()
    """
    duplicate, missing, label = _KINDS[type(row)]
    return records.update(context, row, values, duplicate, missing(row.uuid),
                          '%s %s' % (label, row.uuid))


def delete(context, row) -> None:
    """:raises: ConcurrentUpdate, VolumeConnectorNotFound,
        VolumeTargetNotFound"""
    _duplicate, missing, label = _KINDS[type(row)]
    records.delete(context, row, missing(row.uuid),
                   '%s %s' % (label, row.uuid))


def list_of(context, model, filters: dict, limit: int | None = None,
            marker: str | None = None, sort_key: str = 'id',
            sort_dir: str = 'asc') -> list:
    """List volume connectors or targets (model) by node_id, volume_id
    (targets) and project (the owner or the lessee of their node), one
    page at a time.

    :raises: the not found error of the model if the marker does not
        exist
    """
    query = sa.select(model)
    if filters.get('node_id') is not None:
        query = query.where(model.node_id == filters['node_id'])
    if filters.get('volume_id') is not None:
        query = query.where(model.volume_id == filters['volume_id'])
    query = records.of_project(model, query, filters.get('project'))
    return records.page(context, model, query, limit, marker, sort_key,
                        sort_dir, _KINDS[model][1])
