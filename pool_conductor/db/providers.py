"""Queries on providers."""
from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception

_PROVIDER = models.Provider


def _get(session, name: str) -> models.Provider:
    provider = session.scalars(
        sa.select(_PROVIDER).where(_PROVIDER.name == name)
        .execution_options(populate_existing=True)).one_or_none()
    if provider is None:
        raise exception.ObjectNotFound(kind='Provider', name=name)
    return provider


def get(context, name: str) -> models.Provider:
    """:raises: ObjectNotFound"""
    with api.reader(context) as session:
        return _get(session, name)


def get_many(context, names) -> dict[str, models.Provider]:
    """Providers by name, in one query.

    :raises: ObjectNotFound naming the first name that does not exist
    """
    names = list(dict.fromkeys(names))
    with api.reader(context) as session:
        found = {p.name: p for p in session.scalars(
            sa.select(_PROVIDER).where(_PROVIDER.name.in_(names)))}
    for name in names:
        if name not in found:
            raise exception.ObjectNotFound(kind='Provider', name=name)
    return found


def list_all(context) -> list[models.Provider]:
    with api.reader(context) as session:
        return list(session.scalars(sa.select(_PROVIDER)
                                    .order_by(_PROVIDER.name)))


def create(context, values: dict) -> models.Provider:
    """:raises: ObjectAlreadyExists"""
    try:
        with api.writer(context) as session:
            session.add(_PROVIDER(**values))
            session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.ObjectAlreadyExists(kind='provider',
                                            name=values['name']) from None
    return get(context, values['name'])


def update(context, name: str, values: dict) -> models.Provider:
    """:raises: ObjectNotFound"""
    with api.writer(context) as session:
        res = session.execute(
            sa.update(_PROVIDER).where(_PROVIDER.name == name)
            .values(updated_at=api.utcnow(), **values)
            .execution_options(**api.NO_SYNC))
        if res.rowcount != 1:
            raise exception.ObjectNotFound(kind='Provider', name=name)
    return get(context, name)


def _mentions(column, name: str):
    """Whether a JSON document's text has name as a quoted string (names
    are unreserved characters; LIKE's wildcard _ is escaped)."""
    pattern = '%%"%s"%%' % name.replace('_', '\\_')
    return sa.cast(column, sa.Text).like(pattern, escape='\\')


def delete(context, name: str) -> models.Provider:
    """Delete a provider no claim uses (a claim that is not expired);
    the provider as it was.

    :raises: ObjectNotFound, ObjectInUse
    """
    claim = models.Claim
    with api.writer(context) as session:
        provider = _get(session, name)
        # Claims mentioning the name are found in SQL, and checked
        # exactly here.
        users = [c for c in session.scalars(
            sa.select(claim).where(claim.state != 'expired',
                                   _mentions(claim.resources, name)))
            if any(r.get('provider') == name for r in c.resources or ())]
        if users:
            raise exception.ObjectInUse(
                err='Provider %s cannot be deleted: claim %s uses it.'
                    % (name, users[0].uuid))
        session.execute(sa.delete(_PROVIDER)
                        .where(_PROVIDER.id == provider.id)
                        .execution_options(**api.NO_SYNC))
    return provider
