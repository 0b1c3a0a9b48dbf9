"""Queries shared by the records of Ironic's that hang off nodes (port
groups, volume connectors and targets) and chassis: rows known by UUID,
updated and deleted by a compare-and-swap on their generation."""
from collections.abc import Callable

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception

# How a duplicate entry of a model is told: columns -> exception.
OnDuplicate = Callable[[set, dict], Exception]


def get_by_uuid(context, model, uuid: str, missing: Exception):
    """The row of model with this UUID.

    :raises: missing
    """
    if not uuidutils.is_uuid_like(uuid):
        raise missing
    with api.reader(context) as session:
        found = session.scalars(
            sa.select(model).where(model.uuid == uuid)
            .execution_options(populate_existing=True)).one_or_none()
    if found is None:
        raise missing
    return found


def get_by_id(context, model, row_id: int, missing: Exception):
    with api.reader(context) as session:
        found = session.get(model, row_id, populate_existing=True)
    if found is None:
        raise missing
    return found


def create(context, model, values: dict, on_duplicate: OnDuplicate):
    """Insert a row of model (a UUID made when values has none).

    :raises: what on_duplicate makes of a duplicate entry, NodeNotFound
        when a referenced node went away meanwhile
    """
    values = {**values}
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    row = model(**values)
    try:
        with api.writer(context) as session:
            session.add(row)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise on_duplicate(api.duplicate_columns(exc), values) from None
    except db_exc.DBReferenceError:
        raise exception.NodeNotFound(node=values.get('node_id')) from None
    return get_by_id(context, model, row.id, exception.NotFound())


def update(context, row, values: dict, on_duplicate: OnDuplicate,
           missing: Exception, what: str):
    """Save changed fields of row if nobody changed it meanwhile.

    :raises: ConcurrentUpdate, missing, what on_duplicate makes of a
        duplicate entry
    """
    model = type(row)
    values = {**values, 'generation': row.generation + 1,
              'updated_at': api.utcnow()}
    try:
        with api.writer(context) as session:
            res = session.execute(
                sa.update(model)
                .where(model.id == row.id,
                       model.generation == row.generation)
                .values(**values), execution_options=api.NO_SYNC)
            if res.rowcount != 1:
                if session.get(model, row.id) is None:
                    raise missing
                raise exception.ConcurrentUpdate(what=what)
    except db_exc.DBDuplicateEntry as exc:
        raise on_duplicate(api.duplicate_columns(exc),
                           {**values, 'uuid': row.uuid}) from None
    except db_exc.DBReferenceError:
        raise exception.NodeNotFound(node=values.get('node_id')) from None
    return get_by_id(context, model, row.id, missing)


def delete(context, row, missing: Exception, what: str) -> None:
    """Delete row as it was read: not if it changed meanwhile.

    :raises: ConcurrentUpdate, missing
    """
    model = type(row)
    with api.writer(context) as session:
        res = session.execute(
            sa.delete(model).where(model.id == row.id,
                                   model.generation == row.generation),
            execution_options=api.NO_SYNC)
        if res.rowcount != 1:
            if session.get(model, row.id) is None:
                raise missing
            raise exception.ConcurrentUpdate(what=what)


def of_project(model, query, project: str | None):
    """query limited to the rows of nodes project owns or leases."""
    if project is None:
        return query
    return query.where(model.node_id.in_(
        sa.select(models.Node.id).where(sa.or_(
            models.Node.owner == project, models.Node.lessee == project))))


def page(context, model, query, limit, marker: str | None, sort_key: str,
         sort_dir: str, missing: Callable[[str], Exception]) -> list:
    """One page of query's rows of model after the row of UUID marker.

    :raises: missing(marker) when the marker does not exist
    """
    with api.reader(context) as session:
        marker_row = None
        if marker:
            marker_row = session.scalars(
                sa.select(model).where(model.uuid == marker)).one_or_none()
            if marker_row is None:
                raise missing(marker)
        query = api.paginate(query, model, limit, marker_row, sort_key,
                             sort_dir)
        return list(session.scalars(query))
