"""Claims: /v1/claims, machines claimed together from providers."""
import flask

from pool_api.handlers import handles
from pool_api.handlers import util
from pool_api import links
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import claims as schema
from pool_api.schemas import common
from pool_api import validation
from pool_conductor import claim_release
from pool_conductor import claim_templates
from pool_conductor import claims
from pool_conductor.db import claims as claims_db
from pool_conductor.db import providers as providers_db
from pool_conductor import exception
from pool_conductor import providers
from pool_conductor import sandbox
from pool_conductor import states

FIELDS = ('uuid', 'name', 'owner', 'state', 'last_error', 'resources',
          'allocations', 'handles', 'lifespan_end', 'created_at', 'updated_at',
          'links')
SORT_KEYS = ('id', 'uuid', 'name', 'state', 'owner', 'lifespan_end',
             'created_at', 'updated_at')
PATCHABLE = ('lifespan_end', 'resources')


def to_dict(claim, machines: list, fields=None) -> dict:
    """The API representation of a claim."""
    values = {
        'uuid': claim.uuid,
        'name': claim.name,
        'owner': claim.owner,
        'state': claims.state_of(claim, machines),
        'last_error': claim.last_error,
        'resources': claim.resources,
        'allocations': [m.uuid for m in claims.live(machines)],
        'handles': handles.of_claim(claim, machines),
        'lifespan_end': render.timestamp(claim.lifespan_end),
        'created_at': render.timestamp(claim.created_at),
        'updated_at': render.timestamp(claim.updated_at),
        'links': links.resource_links('claims', claim.uuid),
    }
    return render.select(values, fields or FIELDS)


def _body(claim, fields=None) -> dict:
    machines = claims_db.machines(flask.g.context, [claim.id])
    return to_dict(claim, machines.get(claim.id, []), fields)


def get_authorized(ident: str, rule: str):
    """The claim of a request, if the caller may do rule on it.

    :raises: ClaimNotFound (also for one the caller may not see),
        Forbidden
    """
    claim = claims_db.get(flask.g.context, ident)
    policy.authorize_claim(rule, claim, ident)
    return claim


def _check(schema_: dict, document, where: str) -> None:
    """Check a resolved resource template.

    :raises: InvalidParameterValue naming where
    """
    try:
        validation.validate(schema_, document)
        common.check_traits(document.get('traits'))
    except exception.Invalid as exc:
        raise exception.InvalidParameterValue(
            err='%s: %s' % (where, exc.message)) from None


def create_claim():
    """Write a claim pending; a conductor binds it."""
    policy.authorize('pool:claim:create')
    body = validation.json_body()
    validation.validate(schema.CLAIM_CREATE, body)
    common.check_name(body.get('name'), 'claim')
    common.check_uuid(body.get('uuid'), 'uuid')
    # Providers the caller may not read are not found, as missing ones.
    policy.check_readable('Provider', [r['provider']
                                       for r in body['resources']
                                       if r.get('provider')])
    context = flask.g.context
    values = {k: body[k] for k in ('uuid', 'name') if body.get(k)}
    values['owner'] = context.project_id
    values['requester'] = {k: getattr(context, k, None) for k in (
        'user_id', 'user_name', 'project_id', 'project_name')}
    # A claim binds only nodes its project owns or leases, unless the
    # caller may give out any node.
    if not policy.allowed('pool:claim:create_unrestricted'):
        values['node_project'] = values['owner']
    values['lifespan_end'] = validation.timestamp(body.get('lifespan_end'),
                                                  'lifespan_end')
    claim = claims.create(flask.g.context, values, body['resources'],
                          util.rpcapi(),
                          schema.RESOURCE_TEMPLATE, _check)
    return util.created(_body(claim), 'claims', claim.uuid)


def list_claims():
    policy.authorize('pool:claim:list')
    project = policy.project_scope('pool:claim:list_all')
    fields = params.get_fields(FIELDS)
    limit = params.get_limit()
    sort_key, sort_dir = params.get_sort(SORT_KEYS)
    filters = {name: params.get_string(name, schema.FILTERS[name])
               for name in ('state', 'owner')}
    if project is not None:
        if filters['owner'] not in (None, project):
            raise exception.Forbidden()
        filters['owner'] = project
    if filters['state'] not in (None, *states.CLAIM_STATES):
        raise exception.InvalidParameterValue(
            err='Invalid claim state "%s"; expected one of %s.'
                % (filters['state'], ', '.join(states.CLAIM_STATES)))
    found = claims_db.list_claims(
        flask.g.context, filters, limit=limit, marker=params.get_marker(),
        sort_key=sort_key, sort_dir=sort_dir)
    machines = claims_db.machines(flask.g.context, [c.id for c in found])
    return params.page('claims', found, limit,
                       [to_dict(c, machines.get(c.id, []), fields)
                        for c in found])


def get_claim(claim_ident):
    claim = get_authorized(claim_ident, 'pool:claim:get')
    return flask.jsonify(_body(claim, params.get_fields(FIELDS)))


def update_claim(claim_ident):
    """Change the lifespan_end of a claim, or the templates of its bound
    resources within its providers' update_filters (JSON Patch)."""
    claim = get_authorized(claim_ident, 'pool:claim:update')
    context = flask.g.context
    before = {'lifespan_end': render.timestamp(claim.lifespan_end),
              'resources': claim.resources}
    after = validation.apply_patch(before, validation.json_body(),
                                   PATCHABLE, {'lifespan_end': None,
                                               'resources': []})
    validation.validate(schema.CLAIM_UPDATE, after)
    changed = validation.changes(before, after, PATCHABLE)
    if 'resources' in changed:
        claim_templates.check_changeable(claim)
        new = changed['resources']
        if [r['provider'] for r in new] != [r['provider']
                                            for r in claim.resources]:
            raise exception.InvalidParameterValue(
                err='The resources of a claim and their providers cannot '
                    'be added, removed or changed; only their templates.')
        found = providers_db.get_many(context, [r['provider'] for r in new])
        budget = sandbox.Budget()
        for i, (old, resource) in enumerate(zip(claim.resources, new,
                                                strict=True)):
            template = resource.get('template') or {}
            resource['template'] = template
            if template == old['template']:
                continue
            provider = found[resource['provider']]
            _check(schema.RESOURCE_TEMPLATE, template,
                   'resources/%d/template' % i)
            providers.validate(provider, template, i, budget)
            providers.template_changes(provider, i, old['template'], template)
    if 'lifespan_end' in changed:
        changed['lifespan_end'] = claim_templates.changed_end(
            context, claim, validation.timestamp(changed['lifespan_end'],
                                                 'lifespan_end'))
    if changed:
        claim_templates.update(context, claim, changed)
        claim = claims_db.get(context, claim.uuid)
    return flask.jsonify(_body(claim))


def delete_claim(claim_ident):
    """Delete a claim and release its machines."""
    claim = get_authorized(claim_ident, 'pool:claim:delete')
    claim_release.destroy(flask.g.context, claim,
                          util.rpcapi())
    return '', 204
