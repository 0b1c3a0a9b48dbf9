"""Reservations: windowed allocations of several nodes booked together.

A reservation asks for count (from min to max) nodes for one window. It
is booked in one transaction, all or nothing: as many members as there
are free matching nodes, up to max, each an ordinary windowed allocation
(windows.hold(), the path of a single window) holding a slot of its
node; with fewer than min free nodes nothing is written and the answer
names what holds the others. Its members start, end and are deleted as
any windowed allocation; deleting the reservation deletes them all
(allocations.delete(), one transaction). Its state is shown from its
members'.
"""
import datetime

from pool_conductor import allocations
from pool_conductor.booking import windows
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import reservations as reservations_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import external
from pool_conductor import payloads
from pool_conductor import retry
from pool_conductor import states

# The fields of a reservation's request each member allocation has.
MEMBER_FIELDS = ('resource_class', 'traits', 'candidate_nodes', 'owner')


def state_of(members: list) -> str:
    """A reservation's state, from its members' (reservations_db.members
    rows)."""
    found = {m.state for m in members}
    if not found:
        return states.RESERVATION_ENDED
    if states.ALLOCATION_ERROR in found:
        return states.RESERVATION_ERROR
    if found == {states.ALLOCATION_SCHEDULED}:
        return states.RESERVATION_SCHEDULED
    if found == {states.ALLOCATION_ACTIVE}:
        return states.RESERVATION_ACTIVE
    return states.RESERVATION_STARTING


def create(context, values: dict, count_min: int, count_max: int,
           pool: str | None, start: datetime.datetime,
           end: datetime.datetime) -> models.Reservation:
    """Book a reservation: from count_min to count_max windowed
    allocations (as many as there are free matching nodes), the
    reservation and their events, in one transaction.

    :param values: the reservation's fields (name, uuid, resource_class,
        traits, candidate_nodes, owner, extra).
    :raises: ObjectNotFound for a pool, InvalidParameterValue for a
        window its pool's lifespan does not allow, WindowConflict when
        fewer than count_min nodes are free for it,
        ReservationDuplicateName, ReservationAlreadyExists
    """
    values = windows.defaults(values)
    row = {**values, 'pool': pool, 'count_min': count_min,
           'count_max': count_max, 'start_at': start, 'end_at': end}
    request = {k: values[k] for k in MEMBER_FIELDS if k in values}

    def attempt() -> int:
        with db_api.writer_connection(context) as conn:
            row['created_at'] = db_api.utcnow()
            reservation_id = reservations_db.insert(conn, row)
            members = [windows.defaults({**request,
                                         'reservation_id': reservation_id})
                       for _ in range(count_max)]
            held = windows.hold(conn, members, count_min, pool, start, end)
            uuids = [m['uuid'] for m in members[:len(held)]]
            events.record(conn, [events.Event(
                'reservation', row['uuid'], event_types.RESERVATION_CREATE_END,
                object_name=row.get('name'),
                state=states.RESERVATION_SCHEDULED, owner=row.get('owner'),
                message='%d of %d to %d nodes are held for the window from '
                        '%s to %s: %s.' % (
                            len(held), count_min, count_max,
                            windows.iso(start), windows.iso(end),
                            ', '.join(node.uuid for _, node in held)),
                payload=payloads.reservation(row, uuids))])
            return reservation_id
    windows.booking(attempt, lambda exc: reservations_db.raise_duplicate(
        exc, values))
    return reservations_db.get(context, values['uuid'])


def destroy(context, ident: str) -> None:
    """Delete a reservation (by UUID or name) and all its allocations,
    each as a single allocation is deleted (its node released, or its
    slot dropped, with its events), in one transaction.

    :raises: ReservationNotFound, NodeInWrongState when a member's node
        is active and not in maintenance, NodeLocked
    """
    for node_id in retry.on_deadlock(_destroy, context, ident):
        # A node never deployed is idle at once: pool's claim at its
        # external manager ends now (else after its cleaning).
        external.release_idle(context, node_id)


def _destroy(context, ident: str) -> list[int]:
    with db_api.writer_connection(context) as conn:
        found = reservations_db.find(conn, ident)
        if found is None:
            raise exception.ReservationNotFound(reservation=ident)
        shared, gone = [], []
        # In node order: two deletions lock their nodes in the same order.
        for member in reservations_db.member_nodes(conn, found.id):
            current = allocations_db.find(conn, member.uuid)
            if current is None:
                continue
            node_id = allocations.delete(conn, current)
            if node_id is not None:
                shared.append(node_id)
            gone.append(member.uuid)
        if not reservations_db.lock(conn, found.id):
            raise exception.ReservationNotFound(reservation=ident)
        reservations_db.delete(conn, found.id)
        events.record(conn, [events.Event(
            'reservation', found.uuid, event_types.RESERVATION_DELETE_END,
            object_name=found.name, state=states.RESERVATION_ENDED,
            owner=found.owner,
            message='The reservation and its %d allocation(s) are deleted.'
                    % len(gone),
            payload=payloads.reservation(found._asdict(), gone))])
        return shared
