"""The events of an allocation's life, built once for every writer.

An allocation is created by a request (allocations.create, backfill), by
the binding writer (pool actions, claims: binding.grant) and by booking
(booking.windows); it is deleted by a request, by expiry and by the writer
when it frees a node. Each records the same Ironic event with the same
fields: its name, state, owner and payload, from the row (a model) or from
the values it was inserted with.
"""
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import payloads


def _field(alloc, row: dict | None, name: str):
    return (row or {}).get(name, getattr(alloc, name, None))


def created(alloc=None, row: dict | None = None) -> events.Event:
    """baremetal.allocation.create.end of an allocation (a model) or of
    the values of a row inserted (row, which may add to the model's)."""
    return events.Event(
        'allocation', _field(alloc, row, 'uuid'),
        event_types.ALLOCATION_CREATE_END,
        object_name=_field(alloc, row, 'name'),
        state=_field(alloc, row, 'state'), owner=_field(alloc, row, 'owner'),
        payload=payloads.allocation(alloc, row))


def deleted(alloc) -> events.Event:
    """baremetal.allocation.delete.end of an allocation (a model, as it
    was before its deletion)."""
    return events.Event(
        'allocation', alloc.uuid, event_types.ALLOCATION_DELETE_END,
        object_name=alloc.name, prev_state=alloc.state, owner=alloc.owner,
        payload=payloads.allocation(alloc))
