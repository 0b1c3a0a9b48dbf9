"""Deploy templates: /v1/deploy_templates (1.55)."""
import flask

from pool_api.handlers import util
from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import common
from pool_api.schemas import deploy_templates as schema
from pool_api.schemas import nodes as node_schemas
from pool_api import validation
from pool_conductor.baremetal import deploy_templates
from pool_conductor.db import deploy_templates as templates_db
from pool_conductor import exception
from pool_conductor import secrets

FIELDS = ('uuid', 'name', 'steps', 'extra', 'created_at', 'updated_at',
          'links')
SHORT_FIELDS = ('uuid', 'name', 'links')
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at')
PATCHABLE = ('name', 'steps', 'extra')


def _require_version() -> None:
    """Below 1.55 deploy templates are not there: a GET is 404, any other
    method 405, as in Ironic.

    :raises: NotFound, MethodNotAllowed
    """
    if microversion.at_least(microversion.DEPLOY_TEMPLATES):
        return
    if flask.request.method == 'GET':
        microversion.require(microversion.DEPLOY_TEMPLATES)
    raise exception.MethodNotAllowed(
        'The API version does not allow deploy templates: they need '
        'version 1.%d or newer.' % microversion.DEPLOY_TEMPLATES)


def to_dict(template, fields=None) -> dict:
    """The API representation of a deploy template; secrets in the args
    of its steps are masked."""
    values = {
        'uuid': template.uuid,
        'name': template.name,
        'steps': [{'interface': s['interface'], 'step': s['step'],
                   'args': secrets.mask(s.get('args') or {}),
                   'priority': s['priority']}
                  for s in template.steps or ()],
        'extra': template.extra or {},
        'created_at': render.timestamp(template.created_at),
        'updated_at': render.timestamp(template.updated_at),
        'links': links.resource_links('deploy_templates', template.uuid),
    }
    return render.select(values, fields or FIELDS)


def _stored_steps(steps: list) -> list:
    """Steps as stored: args always there, priorities as integers."""
    return [{'interface': s['interface'], 'step': s['step'],
             'args': s.get('args') or {}, 'priority': int(s['priority'])}
            for s in steps]


def _check(body: dict) -> None:
    """What a schema cannot say of a template: its name is a trait, and
    the RAID configuration a raid.apply_configuration step applies is one.

    :raises: Invalid
    """
    common.check_traits([body['name']])
    for step in body['steps']:
        if (step['interface'], step['step']) == ('raid',
                                                'apply_configuration'):
            config = (step.get('args') or {}).get('raid_config')
            if config:
                validation.validate(node_schemas.RAID_CONFIG_BODY, config)


def list_templates(detail: bool | None = None):
    _require_version()
    policy.authorize('baremetal:deploy_template:get')
    fields = params.get_list_fields(FIELDS, SHORT_FIELDS, False)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(SORT_KEYS)
    found = templates_db.list_templates(
        flask.g.context, limit=limit, marker=params.get_marker(),
        sort_key=sort_key, sort_dir=sort_dir)
    return params.page('deploy_templates', found, limit,
                       [to_dict(t, fields) for t in found])


def create_template():
    _require_version()
    policy.authorize('baremetal:deploy_template:create')
    body = validation.json_body()
    validation.validate(schema.CREATE, body)
    common.check_uuid(body.get('uuid'), 'uuid')
    _check(body)
    values = {'name': body['name'], 'steps': _stored_steps(body['steps']),
              'extra': body.get('extra') or {}}
    if body.get('uuid'):
        values['uuid'] = body['uuid']
    template = deploy_templates.create(flask.g.context, values)
    return util.created(to_dict(template), 'deploy_templates', template.uuid)


def get_template(template_ident):
    _require_version()
    policy.authorize('baremetal:deploy_template:get')
    fields = params.get_fields(FIELDS)
    return flask.jsonify(to_dict(templates_db.get(flask.g.context,
                                                  template_ident), fields))


def update_template(template_ident):
    """Change a template (JSON Patch): its name, steps or extra."""
    _require_version()
    policy.authorize('baremetal:deploy_template:update')
    template = templates_db.get(flask.g.context, template_ident)
    patch = validation.json_body()
    # The patch applies to the steps as stored, their secrets too.
    before = {**to_dict(template), 'steps': list(template.steps or ())}
    after = validation.apply_patch(before, patch, PATCHABLE, {'extra': {}})
    if after['extra'] is None:
        after['extra'] = {}
    validation.validate(schema.UPDATE, {f: after[f] for f in PATCHABLE})
    _check(after)
    after['steps'] = _stored_steps(after['steps'])
    changed = validation.changes(before, after, PATCHABLE)
    if changed:
        template = deploy_templates.update(flask.g.context, template,
                                           changed)
    return flask.jsonify(to_dict(template))


def delete_template(template_ident):
    _require_version()
    policy.authorize('baremetal:deploy_template:delete')
    deploy_templates.delete(flask.g.context, templates_db.get(
        flask.g.context, template_ident))
    return '', 204
