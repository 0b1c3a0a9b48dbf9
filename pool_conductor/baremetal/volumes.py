"""Volume connectors and targets of nodes: recorded and checked as Ironic
checks them; no storage is attached (pool has no storage interface)."""
import dataclasses
from collections.abc import Callable

from pool_conductor.baremetal import nodes
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import volumes as volumes_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import payloads
from pool_conductor import states

# The kinds of connectors Ironic's API documents.
CONNECTOR_TYPES = ('iqn', 'ip', 'mac', 'wwnn', 'wwpn', 'port', 'portgroup')


@dataclasses.dataclass(frozen=True)
class Kind:
    """Volume connectors or volume targets."""

    model: type
    # Ironic's name of the object in event types (baremetal.<name>.*).
    name: str
    # As a message names it.
    label: str
    payload: Callable[[object], dict]


CONNECTOR = Kind(models.VolumeConnector, 'volumeconnector',
                 'volume connector', payloads.volume_connector)
TARGET = Kind(models.VolumeTarget, 'volumetarget', 'volume target',
              payloads.volume_target)


def kind_of(row) -> Kind:
    return CONNECTOR if isinstance(row, models.VolumeConnector) else TARGET


def event(row, action: str, node: models.Node,
          message: str | None = None) -> events.Event:
    """baremetal.<kind>.<action>.end, readable by the node's owner and
    lessee."""
    kind = kind_of(row)
    return events.Event(
        kind.name, row.uuid, event_types.resource_change(kind.name, action),
        message=message, payload=kind.payload(row), owner=node.owner,
        lessee=node.lessee)


def _check_values(kind: Kind, values: dict) -> None:
    """:raises: InvalidParameterValue for a connector type Ironic does
    not know"""
    if kind is CONNECTOR and 'type' in values and (
            values['type'] not in CONNECTOR_TYPES):
        raise exception.InvalidParameterValue(
            err='Invalid volume connector type "%s"; it must be one of %s.'
                % (values['type'], ', '.join(CONNECTOR_TYPES)))


def _check_powered_off(kind: Kind, node: models.Node, action: str) -> None:
    """As Ironic, a connector or target of a node changes only while the
    node is powered off.

    :raises: InvalidStateRequested
    """
    if node.power_state != states.POWER_OFF:
        raise exception.InvalidStateRequested(
            action='%s %s' % (kind.label, action), node=node.uuid,
            state=node.power_state)


def create(context, kind: Kind, node: models.Node, values: dict):
    """Record a volume connector or target of a node, even one a
    conductor holds locked (as Ironic's API records it).

    :raises: InvalidParameterValue, and the already exists
        errors of the kind
    """
    _check_values(kind, values)
    with db_api.writer(context) as session:
        row = volumes_db.create(context, kind.model,
                                {**values, 'node_id': node.id})
        events.record(session, [event(row, 'create', node)])
    return row


def update(context, row, node: models.Node, values: dict,
           new_node: models.Node | None = None):
    """Change fields of a volume connector or target; new_node when it
    moves to another node. Both nodes must be powered off.

    :raises: NodeLocked, InvalidStateRequested, InvalidParameterValue,
        ConcurrentUpdate, and the already exists errors of the kind
    """
    kind = kind_of(row)
    node = nodes.unlocked(context, node)
    _check_values(kind, values)
    values = dict(values)
    if new_node is not None and new_node.id != row.node_id:
        new_node = nodes.unlocked(context, new_node)
        _check_powered_off(kind, new_node, 'update')
        values['node_id'] = new_node.id
    if not values:
        return row
    _check_powered_off(kind, node, 'update')
    with db_api.writer(context) as session:
        updated = volumes_db.update(context, row, values)
        events.record(session, [event(
            updated, 'update', new_node or node,
            'Changed: %s' % ', '.join(sorted(values)))])
    return updated


def destroy(context, row, node: models.Node) -> None:
    """Delete a volume connector or target of a powered off node.

    :raises: NodeLocked, InvalidStateRequested, ConcurrentUpdate
    """
    node = nodes.unlocked(context, node)
    _check_powered_off(kind_of(row), node, 'deletion')
    with db_api.writer(context) as session:
        volumes_db.delete(context, row)
        events.record(session, [event(row, 'delete', node)])
