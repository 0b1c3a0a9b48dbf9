"""Queries on chassis, the groups of nodes."""
from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor.db import records
from pool_conductor import exception

_CHASSIS = models.Chassis


def _duplicate(columns: set, values: dict) -> Exception:
    return exception.ChassisAlreadyExists(uuid=values.get('uuid'))


def _missing(ident) -> Exception:
    return exception.ChassisNotFound(chassis=ident)


def get_chassis(context, uuid: str) -> models.Chassis:
    """:raises: ChassisNotFound"""
    return records.get_by_uuid(context, _CHASSIS, uuid, _missing(uuid))


def create_chassis(context, values: dict) -> models.Chassis:
    """:raises: ChassisAlreadyExists"""
    return records.create(context, _CHASSIS, {'extra': {}, **values},
                          _duplicate)


def update_chassis(context, chassis: models.Chassis,
                   values: dict) -> models.Chassis:
    """A compare-and-swap on the chassis' generation.

    :raises: ConcurrentUpdate, ChassisNotFound
    """
    return records.update(context, chassis, values, _duplicate,
                          _missing(chassis.uuid),
                          'Chassis %s' % chassis.uuid)


def delete_chassis(context, chassis: models.Chassis) -> None:
    """Delete a chassis as it was read, if it has no nodes.

    :raises: ChassisNotEmpty, ConcurrentUpdate, ChassisNotFound
    """
    try:
        with api.writer(context) as session:
            if session.scalar(
                    sa.select(models.Node.id)
                    .where(models.Node.chassis_id == chassis.id)
                    .limit(1)) is not None:
                raise exception.ChassisNotEmpty(chassis=chassis.uuid)
            records.delete(context, chassis, _missing(chassis.uuid),
                           'Chassis %s' % chassis.uuid)
    except db_exc.DBReferenceError:
        # A node joined it meanwhile.
        raise exception.ChassisNotEmpty(chassis=chassis.uuid) from None


def list_chassis(context, limit: int | None = None,
                 marker: str | None = None, sort_key: str = 'id',
                 sort_dir: str = 'asc') -> list[models.Chassis]:
    """One page of chassis.

    :raises: ChassisNotFound if the marker does not exist
    """
    return records.page(context, _CHASSIS, sa.select(_CHASSIS), limit,
                        marker, sort_key, sort_dir, _missing)
