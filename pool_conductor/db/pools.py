"""Queries on pools, profiles and workflows: named objects of the pool API."""
from oslo_db import exception as db_exc
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models

from pool_conductor import exception
from pool_conductor import secrets

DEFAULT_POOL = models.DEFAULT_POOL
# The kind of each named object, as error messages call it.
_POOLS = models.Pool.__table__
KINDS = {models.Pool: 'Pool', models.Profile: 'Profile',
         models.Workflow: 'Workflow', models.Broker: 'Broker',
         models.ExternalManager: 'ExternalManager'}


def _get(session, model, name: str, lock: dict | None = None):
    """The named object; lock: with_for_update() arguments that lock its
    row until the transaction ends."""
    q = (sa.select(model).where(model.name == name)
         .execution_options(populate_existing=True))
    if lock is not None:
        q = q.with_for_update(**lock)
    obj = session.scalars(q).one_or_none()
    if obj is None:
        raise exception.ObjectNotFound(kind=KINDS[model], name=name)
    return obj


def lock_pool(conn, name: str, share: bool = False) -> sa.Row | None:
    """A pool's row, locked until the transaction ends: shared (share:
    against deletion and changes; actions on one pool do not wait for
    each other) or exclusive (one transaction at a time counts and fills
    it)."""
    return conn.execute(sa.select(_POOLS).where(_POOLS.c.name == name)
                        .with_for_update(read=share)).first()


def get(context, model, name: str):
    """Fetch a pool, profile or workflow by name.

    :raises: ObjectNotFound
    """
    with api.reader(context) as session:
        return _get(session, model, name)


def ancestors(context, name: str) -> list[models.Pool]:
    """A pool and the pools above it, nearest first, share-locked until
    the caller's transaction ends: none of them can be deleted or change
    its parent meanwhile.

    The walk stops at a pool without parent, or at a pool met before (a
    cycle the rules of the caller refuse).

    :raises: ObjectNotFound for a pool of the chain that does not exist
    """
    chain: list[models.Pool] = []
    seen: set[str] = set()
    with api.writer(context) as session:
        while name is not None and name not in seen:
            seen.add(name)
            pool = _get(session, models.Pool, name, lock={'read': True})
            chain.append(pool)
            name = pool.parent_pool
    return chain


def list_all(context, model) -> list:
    """All objects of a kind, by name."""
    with api.reader(context) as session:
        return list(session.scalars(sa.select(model).order_by(model.name)))


def get_many(context, model, names) -> dict:
    """Objects of a kind by name, in one query.

    :raises: ObjectNotFound naming the first name that does not exist
    """
    names = list(dict.fromkeys(names))
    if not names:
        return {}
    with api.reader(context) as session:
        found = {o.name: o for o in session.scalars(
            sa.select(model).where(model.name.in_(names)))}
    for name in names:
        if name not in found:
            raise exception.ObjectNotFound(kind=KINDS[model], name=name)
    return {n: found[n] for n in names}


def create(context, model, values: dict):
    """Create a pool, profile or workflow.

    :raises: ObjectAlreadyExists
    """
    obj = model(**values)
    try:
        with api.writer(context) as session:
            session.add(obj)
            session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.ObjectAlreadyExists(kind=KINDS[model].lower(),
                                            name=values['name']) from None
    return get(context, model, values['name'])


def update(context, model, name: str, values: dict):
    """Change fields of a pool, profile or workflow.

    :raises: ObjectNotFound
    """
    with api.writer(context) as session:
        res = session.execute(
            sa.update(model).where(model.name == name)
            .values(updated_at=api.utcnow(), **values)
            .execution_options(**api.NO_SYNC))
        if res.rowcount != 1:
            raise exception.ObjectNotFound(kind=KINDS[model], name=name)
    return get(context, model, name)


def _json_list_contains(column, name: str):
    """Whether a JSON list of names has name, on every backend.

    Names are restricted to unreserved characters, so the quoted name in
    the JSON text matches only that element; LIKE's wildcard _ is escaped.
    """
    pattern = '%%"%s"%%' % name.replace('_', '\\_')
    return sa.cast(column, sa.Text).like(pattern, escape='\\')


def _users(session, model, name: str) -> str | None:
    """What refers to the named object, described, or None."""
    node = models.Node
    if model is models.Pool:
        if name == DEFAULT_POOL:
            return 'it is the default pool'
        if session.scalar(sa.select(node.id).where(node.pool == name)
                          .limit(1)) is not None:
            return 'it has member nodes'
        # A Leaving node joins its destination once it reaches its stage.
        if session.scalar(sa.select(node.id).where(
                node.pool_destination == name).limit(1)) is not None:
            return 'nodes are moving to it'
        if session.scalar(sa.select(models.Pool.id).where(
                models.Pool.parent_pool == name).limit(1)) is not None:
            return 'it is the parent pool of another pool'
        provider = session.scalar(sa.select(models.Provider.name).where(
            models.Provider.pool == name).limit(1))
        if provider is not None:
            return 'provider %s uses it' % provider
        # Few pools fill themselves: their settings are read, not searched
        # in JSON, which each backend queries its own way.
        for other, autofill in session.execute(sa.select(
                models.Pool.name, models.Pool.autofill).where(
                models.Pool.autofill.is_not(None))):
            for key in ('acquire_pool', 'return_pool'):
                if (autofill or {}).get(key) == name:
                    return 'it is the autofill.%s of pool %s' % (key, other)
        return None
    if model is models.Broker:
        pool = session.scalar(sa.select(models.Pool.name).where(
            models.Pool.broker == name).limit(1))
        if pool is not None:
            return 'pool %s uses it' % pool
        uuid = session.scalar(sa.select(node.uuid).where(
            node.broker == name).limit(1))
        return 'node %s was made by it' % uuid if uuid else None
    if model is models.ExternalManager:
        uuid = session.scalar(sa.select(node.uuid).where(
            node.external_manager == name).limit(1))
        return 'node %s is shared with it' % uuid if uuid else None
    column = (node.workflow == name if model is models.Workflow
              else _json_list_contains(node.profiles, name))
    uuid = session.scalar(sa.select(node.uuid).where(column).limit(1))
    return 'node %s uses it' % uuid if uuid else None


def delete(context, model, name: str):
    """Delete a pool, profile or workflow nothing refers to; the object
    as it was.

    The row is locked first: a transaction that share-locks a pool to
    add members or children to it (pool actions, a child's creation)
    either commits before the check below sees what it added, or waits
    and then finds the pool gone.

    :raises: ObjectNotFound, ObjectInUse; DBReferenceError when a row
        referring to the object was written without the lock
    """
    with api.writer(context) as session:
        obj = _get(session, model, name, lock={})
        users = _users(session, model, name)
        if users:
            raise exception.ObjectInUse(
                err='%s %s cannot be deleted: %s.'
                    % (KINDS[model], name, users))
        session.execute(sa.delete(model).where(model.id == obj.id)
                        .execution_options(**api.NO_SYNC))
    return obj


def status_counts(context, name: str) -> dict[str, int]:
    """The number of members of a pool in each pool status.

    :raises: ObjectNotFound
    """
    node = models.Node
    with api.reader(context) as session:
        _get(session, models.Pool, name)
        rows = session.execute(
            sa.select(node.pool_status, sa.func.count())
            .where(node.pool == name).group_by(node.pool_status)).all()
    return dict(rows)


def effective_params(context, node: models.Node,
                     hide_secrets: bool = False) -> dict:
    """A node's params overlaid on those of its profiles.

    As in Digital Rebar, a node's own param wins, then its profiles in
    their order: the first profile that has a param gives its value.
    Profiles deleted meanwhile give nothing.

    :param hide_secrets: mask the secret params of profiles (those each
        names and those pool_conductor.secrets knows)
    """
    names = node.profiles or []
    with api.reader(context) as session:
        found = {p.name: p for p in session.scalars(
            sa.select(models.Profile)
            .where(models.Profile.name.in_(names)))} if names else {}
    result: dict = {}
    for name in reversed(names):
        profile = found.get(name)
        if profile is None:
            continue
        params = profile.params or {}
        if hide_secrets:
            params = secrets.mask(params, keys=profile.secret_params or ())
        result.update(params)
    result.update(node.params or {})
    return result
