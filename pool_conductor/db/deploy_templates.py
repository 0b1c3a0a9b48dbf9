"""Queries on deploy templates."""
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from pool_conductor.db import api
from pool_conductor.db import models
from pool_conductor import exception

_TEMPLATE = models.DeployTemplate


def _get(session, ident: str) -> models.DeployTemplate:
    template = session.scalars(
        sa.select(_TEMPLATE)
        .where(api.ident_column(_TEMPLATE, ident) == ident)
        .execution_options(populate_existing=True)).one_or_none()
    if template is None:
        raise exception.DeployTemplateNotFound(template=ident)
    return template


def get(context, ident: str) -> models.DeployTemplate:
    """A deploy template by UUID or name.

    :raises: DeployTemplateNotFound
    """
    with api.reader(context) as session:
        return _get(session, ident)


def _raise_duplicate(exc: db_exc.DBDuplicateEntry, values: dict):
    if 'name' in api.duplicate_columns(exc):
        raise exception.DeployTemplateDuplicateName(name=values.get('name'))
    raise exception.DeployTemplateAlreadyExists(uuid=values.get('uuid'))


def create(context, values: dict) -> models.DeployTemplate:
    """:raises: DeployTemplateAlreadyExists, DeployTemplateDuplicateName"""
    values = {'extra': {}, **values}
    values.setdefault('uuid', uuidutils.generate_uuid())
    template = _TEMPLATE(**values)
    try:
        with api.writer(context) as session:
            session.add(template)
            session.flush()
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, values)
    return template


def list_templates(context, limit: int | None = None,
                   marker: str | None = None, sort_key: str = 'id',
                   sort_dir: str = 'asc') -> list[models.DeployTemplate]:
    """One page of deploy templates.

    :raises: DeployTemplateNotFound if the marker does not exist
    """
    with api.reader(context) as session:
        marker_obj = _get(session, marker) if marker else None
        q = api.paginate(sa.select(_TEMPLATE), _TEMPLATE, limit, marker_obj,
                         sort_key, sort_dir)
        return list(session.scalars(q))


def by_names(context, names) -> list[models.DeployTemplate]:
    """The deploy templates of these names, in name order."""
    names = sorted(set(names or ()))
    if not names:
        return []
    with api.reader(context) as session:
        return list(session.scalars(
            sa.select(_TEMPLATE).where(_TEMPLATE.name.in_(names))
            .order_by(_TEMPLATE.name)))


def update(context, template: models.DeployTemplate,
           values: dict) -> models.DeployTemplate:
    """Save changed fields of a template if nobody changed it meanwhile
    (a compare-and-swap on its generation).

    :raises: ConcurrentUpdate, DeployTemplateNotFound,
        DeployTemplateDuplicateName
    """
    values = {**values, 'generation': template.generation + 1,
              'updated_at': api.utcnow()}
    try:
        with api.writer(context) as session:
            res = session.execute(
                sa.update(_TEMPLATE)
                .where(_TEMPLATE.id == template.id,
                       _TEMPLATE.generation == template.generation)
                .values(**values), execution_options=api.NO_SYNC)
            if res.rowcount != 1:
                _gone_or_changed(session, template)
            return session.get(_TEMPLATE, template.id,
                               populate_existing=True)
    except db_exc.DBDuplicateEntry as exc:
        _raise_duplicate(exc, {**values, 'uuid': template.uuid})


def delete(context, template: models.DeployTemplate) -> None:
    """Delete a template as it was read: not if it changed meanwhile.

    :raises: ConcurrentUpdate, DeployTemplateNotFound
    """
    with api.writer(context) as session:
        res = session.execute(
            sa.delete(_TEMPLATE)
            .where(_TEMPLATE.id == template.id,
                   _TEMPLATE.generation == template.generation),
            execution_options=api.NO_SYNC)
        if res.rowcount != 1:
            _gone_or_changed(session, template)


def _gone_or_changed(session, template) -> None:
    if session.get(_TEMPLATE, template.id) is None:
        raise exception.DeployTemplateNotFound(template=template.uuid)
    raise exception.ConcurrentUpdate(what='Deploy template %s'
                                     % template.uuid)
