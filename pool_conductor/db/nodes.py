"""Queries on nodes and their traits."""
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import binding as binding_db
from pool_conductor.db import filters as node_filters
from pool_conductor.db import models
from pool_conductor import exception


def _get(session, ident: str) -> models.Node:
    node = session.scalars(
        sa.select(models.Node)
        .where(api.ident_column(models.Node, ident) == ident)
        .execution_options(populate_existing=True)).one_or_none()
    if node is None:
        raise exception.NodeNotFound(node=ident)
    return node


def get_node(context, ident: str) -> models.Node:
    """Fetch a node by UUID or name.

    :raises: NodeNotFound
    """
    with api.reader(context) as session:
        return _get(session, ident)


def get_node_by_id(context, node_id: int) -> models.Node:
    with api.reader(context) as session:
        node = session.get(models.Node, node_id, populate_existing=True)
        if node is None:
            raise exception.NodeNotFound(node=node_id)
        return node


def raise_duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    cols = api.duplicate_columns(exc)
    if 'name' in cols:
        raise exception.DuplicateName(name=values.get('name'))
    if 'instance_uuid' in cols:
        raise exception.InstanceAssociated(
            instance_uuid=values.get('instance_uuid'),
            node=values.get('uuid'))
    raise exception.NodeAlreadyExists(uuid=values.get('uuid'))


def create_node(context, values: dict, traits=(), then=None
                ) -> models.Node:
    """Create a node.

    :param then: called with the session and the new node in the
        transaction of the INSERT (to record its event).
    :raises: NodeAlreadyExists, DuplicateName
    """
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    node = models.Node(**values)
    node.traits = [models.NodeTrait(trait=t) for t in traits]
    try:
        with api.writer(context) as session:
            session.add(node)
            session.flush()
            if then is not None:
                then(session, node)
    except db_exc.DBDuplicateEntry as exc:
        raise_duplicate(exc, values)
    return get_node_by_id(context, node.id)


def list_nodes(context, filters: dict, limit: int | None = None,
               marker: str | None = None, sort_key: str = 'id',
               sort_dir: str = 'asc') -> list[models.Node]:
    """List nodes matching the filters, one page at a time.

    filters: provision_state, resource_class, maintenance (bool),
    associated (bool), owner, lessee, project (owner or lessee), driver,
    chassis_id, match (a list of pool_conductor.db.filters.Filter, ANDed).

    :raises: NodeNotFound if the marker does not exist, FilterTimeout,
        FilterRefused
    """
    node = models.Node
    with api.reader(context) as session:
        q = sa.select(node)
        for key in ('provision_state', 'resource_class', 'owner', 'lessee',
                    'driver', 'conductor_group', 'fault'):
            if filters.get(key) is not None and hasattr(node, key):
                q = q.where(getattr(node, key) == filters[key])
        for key in ('maintenance', 'retired'):
            if filters.get(key) is not None:
                q = q.where(getattr(node, key) == filters[key])
        if filters.get('associated') is not None:
            q = q.where(node.instance_uuid.is_not(None)
                        if filters['associated']
                        else node.instance_uuid.is_(None))
        if filters.get('instance_uuid') is not None:
            q = q.where(node.instance_uuid == filters['instance_uuid'])
        if filters.get('chassis_id') is not None:
            q = q.where(node.chassis_id == filters['chassis_id'])
        if filters.get('project') is not None:
            q = q.where(sa.or_(node.owner == filters['project'],
                               node.lessee == filters['project']))
        seconds = None
        if filters.get('match'):
            q = q.where(node_filters.to_sql(
                session.get_bind().dialect.name, filters['match']))
            seconds = node_filters.time_limit()
        marker_obj = _get(session, marker) if marker else None
        q = api.paginate(q, node, limit, marker_obj, sort_key, sort_dir)
        with api.filter_errors(seconds):
            return list(session.scalars(api.time_limited(q, seconds)))


def update_node(context, node: models.Node, values: dict,
                traits=None, then=None) -> models.Node:
    """Save changed fields of a node if nobody changed it meanwhile.

    The update is a compare-and-swap on the node's generation and on it
    not being locked by a conductor.

    The fields that bind a node to its consumer or place it in a pool
    (binding_db.BINDING_COLUMNS) are written by pool_conductor.binding
    only.

    :param then: called with the session in the transaction of the
        update, once it is made (to record its events).
    :raises: ConcurrentUpdate, NodeLocked, DuplicateName,
        InstanceAssociated
    """
    refused = binding_db.BINDING_COLUMNS.intersection(values)
    if refused:
        raise ValueError('update_node() cannot change %s'
                         % ', '.join(sorted(refused)))
    values = dict(values)
    values['generation'] = node.generation + 1
    values['updated_at'] = api.utcnow()
    if values.get('stage', node.stage) != node.stage:
        values.setdefault('stage_updated_at', values['updated_at'])
    try:
        with api.writer(context) as session:
            res = session.execute(
                sa.update(models.Node)
                .where(models.Node.id == node.id,
                       models.Node.generation == node.generation,
                       models.Node.reservation.is_(None))
                .values(**values)
                .execution_options(synchronize_session=False))
            if res.rowcount != 1:
                current = session.get(models.Node, node.id,
                                      populate_existing=True)
                if current is None:
                    raise exception.NodeNotFound(node=node.uuid)
                if current.reservation:
                    raise exception.NodeLocked(node=node.uuid,
                                               host=current.reservation)
                raise exception.ConcurrentUpdate(what='Node %s' % node.uuid)
            if traits is not None:
                replace_traits(session, node.id, traits)
            if then is not None:
                then(session)
    except db_exc.DBDuplicateEntry as exc:
        raise_duplicate(exc, {**values, 'uuid': node.uuid})
    return get_node_by_id(context, node.id)


def replace_traits(session, node_id: int, traits) -> None:
    """Replace the traits of a node (session: a Session or a Connection)."""
    session.execute(sa.delete(models.NodeTrait)
                    .where(models.NodeTrait.node_id == node_id))
    if traits:
        session.execute(sa.insert(models.NodeTrait), [
            {'node_id': node_id, 'trait': t} for t in sorted(set(traits))])


def delete_node(conn, node_id: int) -> None:
    """Delete a node, its traits, ports, port groups, volume connectors
    and targets, and allocations that still name it."""
    for model in (models.Port, models.Portgroup, models.VolumeConnector,
                  models.VolumeTarget):
        conn.execute(sa.delete(model.__table__).where(
            model.__table__.c.node_id == node_id))
    conn.execute(sa.delete(models.Allocation.__table__).where(
        models.Allocation.__table__.c.node_id == node_id))
    conn.execute(sa.delete(models.NodeTrait.__table__).where(
        models.NodeTrait.__table__.c.node_id == node_id))
    conn.execute(sa.delete(models.Node.__table__).where(
        models.Node.__table__.c.id == node_id))


_NODES = models.Node.__table__


def list_in_progress(context, provision_states, limit: int,
                     conductor_group: str | None = None) -> list[int]:
    """Ids of nodes in one of provision_states that no conductor holds
    (of a conductor group, when given), the longest waiting first."""
    where = [_NODES.c.provision_state.in_(list(provision_states)),
             _NODES.c.reservation.is_(None)]
    if conductor_group is not None:
        where.append(_NODES.c.conductor_group == conductor_group)
    with api.reader(context) as session:
        return list(session.execute(
            sa.select(_NODES.c.id)
            .where(*where)
            .order_by(_NODES.c.provision_updated_at, _NODES.c.id)
            .limit(limit)).scalars())


def reserve(context, node_id: int, host: str) -> bool:
    """Lock a node for a conductor (Ironic's reservation): a
    compare-and-swap, so of two conductors exactly one gets it.

    :returns: whether host holds the lock now.
    """
    with api.writer_connection(context) as conn:
        return conn.execute(
            sa.update(_NODES).where(_NODES.c.id == node_id,
                                    _NODES.c.reservation.is_(None))
            .values(reservation=host)).rowcount == 1


def unreserve(context, node_id: int, host: str) -> bool:
    """Release a conductor's lock of a node, if it holds it."""
    with api.writer_connection(context) as conn:
        return conn.execute(
            sa.update(_NODES).where(_NODES.c.id == node_id,
                                    _NODES.c.reservation == host)
            .values(reservation=None)).rowcount == 1


def get_node_uuids(context, idents,
                   project: str | None = None) -> dict[str, str]:
    """Map node names and UUIDs to UUIDs, in one query.

    :param project: only the nodes this project owns or leases exist
    :raises: NodeNotFound naming the first ident that matches no node
    """
    idents = list(dict.fromkeys(idents))
    uuids = [i for i in idents if uuidutils.is_uuid_like(i)]
    names = [i for i in idents if not uuidutils.is_uuid_like(i)]
    node = models.Node
    q = (sa.select(node.uuid, node.name)
         .where(sa.or_(node.uuid.in_(uuids), node.name.in_(names))))
    if project is not None:
        q = q.where(sa.or_(node.owner == project, node.lessee == project))
    with api.reader(context) as session:
        rows = session.execute(q).all()
    found = {}
    for uuid, name in rows:
        found[uuid] = uuid
        if name is not None:
            found[name] = uuid
    for ident in idents:
        if ident not in found:
            raise exception.NodeNotFound(node=ident)
    return {i: found[i] for i in idents}


def pools_of(context, uuids) -> dict[str, str]:
    """The pool of each node, by UUID."""
    node = models.Node
    with api.reader(context) as session:
        return dict(session.execute(sa.select(node.uuid, node.pool).where(
            node.uuid.in_(list(uuids)))).all())
