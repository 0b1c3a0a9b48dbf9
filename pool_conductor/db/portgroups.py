"""Queries on port groups, the bonded ports of nodes."""
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor.db import records
from pool_conductor import exception

_PG = models.Portgroup


def _duplicate(columns: set, values: dict) -> Exception:
    if 'address' in columns:
        return exception.PortgroupMACAlreadyExists(mac=values.get('address'))
    if 'name' in columns:
        return exception.PortgroupDuplicateName(name=values.get('name'))
    return exception.PortgroupAlreadyExists(uuid=values.get('uuid'))


def get_portgroup(context, ident: str) -> models.Portgroup:
    """A port group by UUID or name.

    :raises: PortgroupNotFound
    """
    missing = exception.PortgroupNotFound(portgroup=ident)
    if uuidutils.is_uuid_like(ident):
        return records.get_by_uuid(context, _PG, ident, missing)
    with api.reader(context) as session:
        found = session.scalars(
            sa.select(_PG).where(_PG.name == ident)
            .execution_options(populate_existing=True)).one_or_none()
    if found is None:
        raise missing
    return found


def get_portgroup_by_id(context, portgroup_id: int) -> models.Portgroup:
    return records.get_by_id(context, _PG, portgroup_id,
                             exception.PortgroupNotFound(
                                 portgroup=portgroup_id))


def create_portgroup(context, values: dict) -> models.Portgroup:
    """:raises: PortgroupAlreadyExists, PortgroupDuplicateName,
        PortgroupMACAlreadyExists, NodeNotFound"""
    values = {'extra': {}, 'internal_info': {}, 'properties': {},
              'standalone_ports_supported': True, **values}
    return records.create(context, _PG, values, _duplicate)


def update_portgroup(context, portgroup: models.Portgroup,
                     values: dict) -> models.Portgroup:
    """A compare-and-swap on the port group's generation.

    :raises: ConcurrentUpdate, PortgroupNotFound, PortgroupDuplicateName,
        PortgroupMACAlreadyExists, NodeNotFound
    """
    return records.update(
        context, portgroup, values, _duplicate,
        exception.PortgroupNotFound(portgroup=portgroup.uuid),
        'Portgroup %s' % portgroup.uuid)


def delete_portgroup(context, portgroup: models.Portgroup) -> None:
    """Delete a port group as it was read, if it has no ports.

    :raises: PortgroupNotEmpty, ConcurrentUpdate, PortgroupNotFound
    """
    try:
        with api.writer(context) as session:
            if has_ports(session, portgroup.id):
                raise exception.PortgroupNotEmpty(portgroup=portgroup.uuid)
            records.delete(context, portgroup,
                           exception.PortgroupNotFound(
                               portgroup=portgroup.uuid),
                           'Portgroup %s' % portgroup.uuid)
    except db_exc.DBReferenceError:
        # A port joined it meanwhile.
        raise exception.PortgroupNotEmpty(portgroup=portgroup.uuid) from None


def has_ports(session, portgroup_id: int) -> bool:
    return session.scalar(
        sa.select(models.Port.id)
        .where(models.Port.portgroup_id == portgroup_id).limit(1)) is not None


def list_portgroups(context, filters: dict, limit: int | None = None,
                    marker: str | None = None, sort_key: str = 'id',
                    sort_dir: str = 'asc') -> list[models.Portgroup]:
    """List port groups by node_id, address and project (the owner or
    the lessee of their node), one page at a time.

    :raises: PortgroupNotFound if the marker does not exist
    """
    query = sa.select(_PG)
    if filters.get('node_id') is not None:
        query = query.where(_PG.node_id == filters['node_id'])
    if filters.get('address') is not None:
        query = query.where(_PG.address == filters['address'])
    query = records.of_project(_PG, query, filters.get('project'))
    return records.page(
        context, _PG, query, limit, marker, sort_key, sort_dir,
        lambda m: exception.PortgroupNotFound(portgroup=m))


def portgroups_of_node(context, node_id: int) -> list[models.Portgroup]:
    """The port groups of a node, in id order (in the transaction open on
    context, if any)."""
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(_PG).where(_PG.node_id == node_id).order_by(_PG.id)
            .execution_options(populate_existing=True)))
