"""Chassis: groups of nodes, as Ironic has them; a chassis with nodes
stays."""
from pool_conductor.db import api as db_api
from pool_conductor.db import chassis as chassis_db
from pool_conductor.db import models
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import payloads


def event(chassis: models.Chassis, action: str,
          message: str | None = None) -> events.Event:
    """baremetal.chassis.<action>.end, readable by the system only."""
    return events.Event(
        'chassis', chassis.uuid,
        event_types.resource_change('chassis', action),
        message=message, payload=payloads.chassis(chassis))


def create(context, values: dict) -> models.Chassis:
    """:raises: ChassisAlreadyExists"""
    with db_api.writer(context) as session:
        chassis = chassis_db.create_chassis(context, values)
        events.record(session, [event(chassis, 'create')])
    return chassis


def update(context, chassis: models.Chassis, values: dict
           ) -> models.Chassis:
    """:raises: ConcurrentUpdate, ChassisNotFound"""
    if not values:
        return chassis
    with db_api.writer(context) as session:
        updated = chassis_db.update_chassis(context, chassis, values)
        events.record(session, [event(
            updated, 'update', 'Changed: %s' % ', '.join(sorted(values)))])
    return updated


def destroy(context, chassis: models.Chassis) -> None:
    """Delete a chassis that has no nodes.

    :raises: ChassisNotEmpty, ConcurrentUpdate, ChassisNotFound
    """
    with db_api.writer(context) as session:
        chassis_db.delete_chassis(context, chassis)
        events.record(session, [event(chassis, 'delete')])
