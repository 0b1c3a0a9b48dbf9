"""Queries on ports, the network interfaces of nodes."""
import contextlib
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception


def _get(session, ident: str) -> models.Port:
    port = session.scalars(
        sa.select(models.Port).where(models.Port.uuid == ident)
        .execution_options(populate_existing=True)).one_or_none()
    if port is None:
        raise exception.PortNotFound(port=ident)
    return port


def get_port(context, uuid: str) -> models.Port:
    """Fetch a port by UUID.

    :raises: PortNotFound
    """
    if not uuidutils.is_uuid_like(uuid):
        raise exception.PortNotFound(port=uuid)
    with api.reader(context) as session:
        return _get(session, uuid)


def get_port_by_id(context, port_id: int) -> models.Port:
    with api.reader(context) as session:
        port = session.get(models.Port, port_id, populate_existing=True)
        if port is None:
            raise exception.PortNotFound(port=port_id)
        return port


def _raise_duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    if 'address' in api.duplicate_columns(exc):
        raise exception.MACAlreadyExists(mac=values.get('address'))
    raise exception.PortAlreadyExists(uuid=values.get('uuid'))


def create_port(context, values: dict) -> models.Port:
    """Create a port of the node values['node_id'].

    :raises: PortAlreadyExists, MACAlreadyExists, NodeNotFound (the node
        or the port group went away meanwhile)
    """
    values = {'extra': {}, 'internal_info': {}, 'local_link_connection': {},
              'pxe_enabled': True, 'is_smartnic': False, **values}
    values.setdefault('uuid', uuidutils.generate_uuid())
    port = models.Port(**values)
    try:
        with api.writer(context) as session:
            session.add(port)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, values)
    except db_exc.DBReferenceError:
        raise exception.NodeNotFound(node=values['node_id']) from None
    return get_port_by_id(context, port.id)


def list_ports(context, filters: dict, limit: int | None = None,
               marker: str | None = None, sort_key: str = 'id',
               sort_dir: str = 'asc') -> list[models.Port]:
    """List ports by node_id, address, portgroup_id and project (the
    owner or the lessee of their node), one page at a time.

    :raises: PortNotFound if the marker does not exist
    """
    port = models.Port
    with api.reader(context) as session:
        q = sa.select(port)
        if filters.get('node_id') is not None:
            q = q.where(port.node_id == filters['node_id'])
        if filters.get('address') is not None:
            q = q.where(port.address == filters['address'])
        if filters.get('portgroup_id') is not None:
            q = q.where(port.portgroup_id == filters['portgroup_id'])
        if filters.get('project') is not None:
            project = filters['project']
            q = q.where(port.node_id.in_(
                sa.select(models.Node.id).where(sa.or_(
                    models.Node.owner == project,
                    models.Node.lessee == project))))
        marker_obj = _get(session, marker) if marker else None
        q = api.paginate(q, port, limit, marker_obj, sort_key, sort_dir)
        return list(session.scalars(q))


def update_port(context, port: models.Port, values: dict) -> models.Port:
    """Save changed fields of a port if nobody changed it meanwhile (a
    compare-and-swap on its generation).

    :raises: ConcurrentUpdate, PortNotFound, MACAlreadyExists,
        NodeNotFound (a new node_id that went away)
    """
    values = {**values, 'generation': port.generation + 1,
              'updated_at': api.utcnow()}
    try:
        with api.writer(context) as session:
            res = session.execute(
                sa.update(models.Port)
                .where(models.Port.id == port.id,
                       models.Port.generation == port.generation)
                .values(**values), execution_options=api.NO_SYNC)
            if res.rowcount != 1:
                if session.get(models.Port, port.id) is None:
                    raise exception.PortNotFound(port=port.uuid)
                raise exception.ConcurrentUpdate(what='Port %s' % port.uuid)
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, {**values, 'uuid': port.uuid})
    except db_exc.DBReferenceError:
        raise exception.NodeNotFound(node=values.get('node_id')) from None
    return get_port_by_id(context, port.id)


def delete_port(context, port: models.Port) -> None:
    """Delete a port as it was read: not if it changed meanwhile.

    :raises: ConcurrentUpdate, PortNotFound
    """
    with api.writer(context) as session:
        res = session.execute(
            sa.delete(models.Port)
            .where(models.Port.id == port.id,
                   models.Port.generation == port.generation),
            execution_options=api.NO_SYNC)
        if res.rowcount != 1:
            if session.get(models.Port, port.id) is None:
                raise exception.PortNotFound(port=port.uuid)
            raise exception.ConcurrentUpdate(what='Port %s' % port.uuid)


def ports_of_node(context, node_id: int) -> list[models.Port]:
    """The ports of a node, in id order."""
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(models.Port).where(models.Port.node_id == node_id)
            .order_by(models.Port.id)
            .execution_options(populate_existing=True)))


def ports_of_portgroup(context, portgroup_id: int) -> list[models.Port]:
    """The member ports of a port group, in id order."""
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(models.Port)
            .where(models.Port.portgroup_id == portgroup_id)
            .order_by(models.Port.id)
            .execution_options(populate_existing=True)))


@contextlib.contextmanager
def locked_ports_of_node(context, node_id: int):
    """The ports of a node, in id order, in a write transaction that holds
    the node's row lock until the block ends: the block's changes to the
    node's ports (through this module, with the same context) are
    serialized with those of other blocks on the same node, and undone if
    the block raises.
    """
    with api.writer(context) as session:
        session.execute(sa.select(models.Node.id)
                        .where(models.Node.id == node_id)
                        .with_for_update())
        yield list(session.scalars(
            sa.select(models.Port).where(models.Port.node_id == node_id)
            .order_by(models.Port.id)
            .execution_options(populate_existing=True)))
