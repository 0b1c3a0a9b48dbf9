"""Handles: /v1/handles, what claims hold for each resource (read-only).

A handle is an allocation of a claim: the machine one resource of the
claim is bound to (or was, for a lost one). The name is Poolboy's
(ResourceHandle); handles are read under the policy of their claims.
"""
import flask

from pool_api import links
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_api.schemas import claims as schema
from pool_conductor.db import handles as handles_db
from pool_conductor import exception
from pool_conductor import handles
from pool_conductor import states

FIELDS = ('uuid', 'claim_uuid', 'claim_name', 'resource_index',
          'provider', 'state', 'allocation_uuid', 'node_uuid', 'node_name',
          'pool_status', 'provision_state', 'last_error', 'created_at',
          'updated_at', 'links')


def to_dict(index: int | None, provider: str | None, handle,
            claim=None, fields=None) -> dict:
    """A handle (a row of db.handles), or an unbound resource of claim
    (handle None)."""
    if handle is None:
        values = dict.fromkeys(FIELDS)
        values.update(claim_uuid=claim.uuid, claim_name=claim.name,
                      resource_index=index, provider=provider,
                      state=states.HANDLE_UNBOUND, links=[])
    else:
        values = {
            'uuid': handle.uuid,
            'claim_uuid': handle.claim_uuid,
            'claim_name': handle.claim_name,
            'resource_index': handle.claim_resource,
            'provider': provider,
            'state': handles.state_of(handle),
            'allocation_uuid': handle.uuid,
            'node_uuid': handle.node_uuid,
            'node_name': handle.node_name,
            'pool_status': handle.pool_status,
            'provision_state': handle.provision_state,
            'last_error': handle.last_error,
            'created_at': render.timestamp(handle.created_at),
            'updated_at': render.timestamp(handle.updated_at),
            'links': links.resource_links('handles', handle.uuid),
        }
    return render.select(values, fields or FIELDS)


def of_claim(claim, rows: list) -> list[dict]:
    """The handles shown in a claim: one for each resource (unbound when
    it has no machine), and its lost ones."""
    return [to_dict(i, provider, row, claim, [
        f for f in FIELDS if f not in ('claim_uuid', 'claim_name')])
        for i, provider, row in handles.of_claim(claim, rows)]


def list_handles():
    """The handles of the claims one may list, by claim, provider, node,
    owner or state."""
    policy.authorize('pool:claim:list')
    project = policy.project_scope('pool:claim:list_all')
    fields = params.get_fields(FIELDS)
    limit = params.get_limit()
    filters = {name: params.get_string(name, schema.HANDLE_FILTERS[name])
               for name in schema.HANDLE_FILTERS}
    if project is not None:
        if filters['owner'] not in (None, project):
            raise exception.Forbidden()
        filters['owner'] = project
    shown = schema.HANDLE_FILTERS['state']['enum']
    if filters['state'] not in (None, *shown):
        raise exception.InvalidParameterValue(
            err='Invalid handle state "%s"; expected one of %s.'
                % (filters['state'], ', '.join(shown)))
    provider = filters.pop('provider')
    if provider is not None:
        filters['resources'] = handles_db.claims_of_provider(
            flask.g.context, provider)
    found = handles_db.list_handles(flask.g.context, filters, limit=limit,
                                    marker=params.get_marker())
    return params.page('handles', found, limit, [
        to_dict(h.claim_resource, handles.provider_of(h), h, fields=fields)
        for h in found])


def get_handle(handle_uuid):
    """A handle, if the caller may see its claim."""
    handle = handles_db.get(flask.g.context, handle_uuid)
    policy.authorize('pool:claim:get', {'claim.owner': handle.owner or ''},
                     'pool:claim:get',
                     exception.HandleNotFound(handle=handle_uuid))
    return flask.jsonify(to_dict(handle.claim_resource,
                                 handles.provider_of(handle), handle,
                                 fields=params.get_fields(FIELDS)))
