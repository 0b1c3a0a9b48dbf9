"""A thin client of the pool API on a keystoneauth session.

It speaks the ``/v1`` API (Ironic's nodes and allocations API), sends the
API version in ``X-OpenStack-Ironic-API-Version`` and turns error
responses into :class:`PoolClientError` with the server's message.
"""
import json
import time
import urllib.parse

from keystoneauth1 import exceptions as ksa_exc
from osc_lib import exceptions
from oslo_utils import uuidutils

LATEST_VERSION = '1.60'
VERSION_HEADER = 'X-OpenStack-Ironic-API-Version'
ALLOCATING = 'allocating'
CLAIM_PENDING = 'pending'
# Pool statuses of nodes on their way to a stage of their workflow.
MOVING = ('Joining', 'Building', 'Destroying', 'Leaving')



def _statuses(results: list) -> str:
    """How many nodes of a pool action's results are in each status."""
    counts: dict = {}
    for r in results:
        counts[r.get('status')] = counts.get(r.get('status'), 0) + 1
    return ', '.join('%d %s' % (n, status)
                     for status, n in sorted(counts.items(), key=str))

class PoolClientError(exceptions.CommandError):
    """A request failed: the server's message and the HTTP status code.

    ``status_code`` is None when no response came (connection errors,
    timeouts of the client's own waits).
    """

    def __init__(self, message: str, status_code: int | None = None):
        self.message = message
        self.status_code = status_code
        if status_code is not None:
            text = '%s (HTTP %d)' % (message, status_code)
        else:
            text = message
        super().__init__(text)


def error_message(response) -> str:
    """The message of an error response.

    pool, like Ironic, answers ``{"error_message": "<JSON string>"}``
    where the JSON string is ``{"faultstring": ..., ...}``.
    """
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        message = body.get('error_message', body)
        if isinstance(message, str):
            try:
                message = json.loads(message)
            except ValueError:
                return message
        if isinstance(message, dict):
            for key in ('faultstring', 'message', 'title'):
                if message.get(key):
                    return str(message[key])
        elif message:
            return str(message)
    text = (getattr(response, 'text', '') or '').strip()
    return text or getattr(response, 'reason', None) or 'Request failed'


def trim_endpoint(endpoint: str) -> str:
    """The endpoint without a trailing slash or API version."""
    endpoint = endpoint.rstrip('/')
    if endpoint.endswith('/v1'):
        endpoint = endpoint[:-len('/v1')]
    return endpoint


def _path(*parts: str) -> str:
    return '/v1/' + '/'.join(urllib.parse.quote(str(p), safe='')
                             for p in parts)


class Repeated(list):
    """The values of a query parameter sent once per value (filters on the
    same key are ANDed), where other lists are joined by commas."""


def _query(params: dict | None) -> dict | None:
    """Query parameters without the unset ones, booleans as the API wants
    them, lists joined by commas and Repeated values repeated."""
    if not params:
        return None
    query = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, Repeated):
            value = list(value)
        elif isinstance(value, bool):
            value = 'true' if value else 'false'
        elif isinstance(value, list | tuple):
            value = ','.join(value)
        query[key] = value
    return query or None


class Client:
    """The pool API.

    :param session: a keystoneauth session (osc-lib's
        ``instance.session``).
    :param endpoint: the root URL of the API, with or without ``/v1``.
    :param api_version: the API version every request asks for.
    :param poll_interval: seconds between two polls of :meth:`wait`.
    """

    def __init__(self, session, endpoint: str,
                 api_version: str = LATEST_VERSION,
                 poll_interval: float = 1.0):
        self.session = session
        self.endpoint = trim_endpoint(endpoint)
        self.api_version = api_version
        self.poll_interval = poll_interval

    # HTTP ------------------------------------------------------------------

    def request(self, method: str, path: str, body=None,
                params: dict | None = None):
        """Send a request; the decoded JSON response or None.

        :param path: a path below the endpoint (``/v1/nodes``) or a full
            URL.
        :raises: PoolClientError
        """
        if path.startswith(('http://', 'https://')):
            url = path
        else:
            url = self.endpoint + path
        headers = {VERSION_HEADER: self.api_version,
                   'Accept': 'application/json'}
        kwargs = {}
        if body is not None:
            kwargs['json'] = body
        query = _query(params)
        if query:
            kwargs['params'] = query
        try:
            response = self.session.request(url, method, headers=headers,
                                            raise_exc=False, **kwargs)
        except ksa_exc.ConnectionError as exc:
            raise PoolClientError('Unable to reach the pool API at %s: %s'
                                  % (self.endpoint, exc)) from None
        except ksa_exc.ClientException as exc:
            raise PoolClientError('%s %s failed: %s'
                                  % (method, url, exc)) from None
        if response.status_code >= 400:
            raise PoolClientError(error_message(response),
                                  response.status_code)
        if response.status_code == 204 or not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise PoolClientError(
                'The pool API answered %s %s with a body that is not JSON'
                % (method, url), response.status_code) from None

    def get(self, path: str, params: dict | None = None):
        return self.request('GET', path, params=params)

    def post(self, path: str, body=None, params: dict | None = None):
        return self.request('POST', path, body=body, params=params)

    def put(self, path: str, body=None, params: dict | None = None):
        return self.request('PUT', path, body=body, params=params)

    def patch(self, path: str, body=None):
        return self.request('PATCH', path, body=body)

    def delete(self, path: str, params: dict | None = None):
        return self.request('DELETE', path, params=params)

    def _list(self, collection: str, key: str, params: dict,
              limit: int | None = None) -> list:
        """All items of a collection, following its ``next`` links.

        :param limit: the most items to return; None or 0 for all.
        """
        params = dict(params)
        if limit:
            params['limit'] = limit
        path = '/v1/' + collection
        items: list = []
        seen = set()
        while True:
            body = self.get(path, params=params) or {}
            items.extend(body.get(key) or [])
            if limit and len(items) >= limit:
                return items[:limit]
            next_url = body.get('next')
            if not next_url:
                return items
            query = urllib.parse.parse_qs(
                urllib.parse.urlsplit(next_url).query)
            params = {k: v[-1] if len(v) == 1 else Repeated(v)
                      for k, v in query.items()}
            marker = params.get('marker')
            if not marker or marker in seen:
                return items
            seen.add(marker)

    # Pools -----------------------------------------------------------------

    def content_export(self) -> dict:
        """The pools, profiles, workflows, providers and brokers as one
        content document, secrets left out."""
        return self.get('/v1/content')

    def content_import(self, document: dict) -> dict:
        """Create or change the objects of a content document, all or
        none; per kind, the names created, updated and unchanged."""
        return self.post('/v1/content', body=document)

    def pool_create(self, **fields) -> dict:
        return self.post('/v1/pools', body=fields)

    def pool_list(self) -> list:
        return (self.get('/v1/pools') or {}).get('pools') or []

    def pool_get(self, pool: str) -> dict:
        return self.get(_path('pools', pool))

    def pool_delete(self, pool: str) -> None:
        self.delete(_path('pools', pool))

    def pool_update(self, pool: str, patch: list) -> dict:
        """Change a pool with a JSON Patch; its name is fixed."""
        return self.patch(_path('pools', pool), body=patch)

    def pool_status(self, pool: str) -> dict:
        """{"name", "total", "statuses": {status: number of members}}."""
        return self.get(_path('pools', pool, 'status'))

    def fleet_get(self, ending_within: int | None = None) -> dict:
        """The overview of the fleet (GET /v1/fleet)."""
        params = {}
        if ending_within is not None:
            params['ending_within'] = ending_within
        return self.get('/v1/fleet', params=params)

    def pool_action(self, pool: str, action: str, **params) -> list:
        """Run addMachines, removeMachines, allocateMachines or
        returnMachines on a pool; one result per node."""
        return self.post(_path('pools', pool) + '/' + action, body=params)

    # Brokers ---------------------------------------------------------------

    def broker_create(self, **fields) -> dict:
        return self.post('/v1/brokers', body=fields)

    def broker_list(self) -> list:
        return (self.get('/v1/brokers') or {}).get('brokers') or []

    def broker_get(self, broker: str) -> dict:
        return self.get(_path('brokers', broker))

    def broker_update(self, broker: str, patch: list) -> dict:
        """Change a broker with a JSON Patch; its name is fixed."""
        return self.patch(_path('brokers', broker), body=patch)

    def broker_delete(self, broker: str) -> None:
        self.delete(_path('brokers', broker))

    def external_manager_create(self, **fields) -> dict:
        return self.post('/v1/external_managers', body=fields)

    def external_manager_list(self) -> list:
        return (self.get('/v1/external_managers')
                or {}).get('external_managers') or []

    def external_manager_get(self, manager: str) -> dict:
        return self.get(_path('external_managers', manager))

    def external_manager_update(self, manager: str, patch: list) -> dict:
        """Change an external manager with a JSON Patch; its name is
        fixed."""
        return self.patch(_path('external_managers', manager), body=patch)

    def external_manager_delete(self, manager: str) -> None:
        self.delete(_path('external_managers', manager))

    def external_manager_status(self, manager: str) -> dict:
        return self.get(_path('external_managers', manager) + '/status')

    # Profiles and workflows ------------------------------------------------

    def profile_create(self, **fields) -> dict:
        return self.post('/v1/profiles', body=fields)

    def profile_list(self) -> list:
        return (self.get('/v1/profiles') or {}).get('profiles') or []

    def profile_get(self, profile: str) -> dict:
        return self.get(_path('profiles', profile))

    def profile_update(self, profile: str, patch: list) -> dict:
        """Change a profile with a JSON Patch; its name is fixed."""
        return self.patch(_path('profiles', profile), body=patch)

    def profile_delete(self, profile: str) -> None:
        self.delete(_path('profiles', profile))

    def workflow_create(self, **fields) -> dict:
        return self.post('/v1/workflows', body=fields)

    def workflow_list(self) -> list:
        return (self.get('/v1/workflows') or {}).get('workflows') or []

    def workflow_get(self, workflow: str) -> dict:
        return self.get(_path('workflows', workflow))

    def workflow_update(self, workflow: str, patch: list) -> dict:
        """Change a workflow with a JSON Patch; its name is fixed."""
        return self.patch(_path('workflows', workflow), body=patch)

    def workflow_delete(self, workflow: str) -> None:
        self.delete(_path('workflows', workflow))

    # Nodes -----------------------------------------------------------------

    def node_create(self, **fields) -> dict:
        return self.post('/v1/nodes', body=fields)

    def node_list(self, fields=None, detail: bool = False,
                  limit: int | None = None, marker: str | None = None,
                  sort_key: str | None = None, sort_dir: str | None = None,
                  match: dict | None = None, **filters) -> list:
        """Nodes matching the filters (provision_state, resource_class,
        maintenance, associated, owner, lessee, driver, instance_uuid).

        :param match: {key: [value, ...]}: the API's filters on node
            fields and params, such as {"pool": ["web"],
            "inventory/data/CPUS": ["Gte(4)", "Lte(16)"]}, all ANDed.
        """
        params = dict(filters, fields=fields, marker=marker,
                      sort_key=sort_key, sort_dir=sort_dir)
        for key, values in (match or {}).items():
            params[key] = Repeated(values)
        collection = 'nodes/detail' if detail and not fields else 'nodes'
        return self._list(collection, 'nodes', params, limit)

    def node_get(self, node: str, fields=None) -> dict:
        return self.get(_path('nodes', node), params={'fields': fields})

    def nodes_wait(self, results: list, timeout: float | None = 0,
                   progress=None) -> list:
        """Wait until none of the nodes of a pool action's results is on
        its way to a stage (Joining, Building, Destroying, Leaving),
        reading them again whenever the event feed brings a change of
        pool status.

        :param timeout: seconds to wait at most; 0 or None waits forever.
        :param progress: called with how many nodes are in each status,
            each time they are read.
        :returns: the results, with each node's status now.
        :raises: PoolClientError on timeout, naming the nodes still moving
        """
        deadline = time.monotonic() + timeout if timeout else None
        results = [dict(r) for r in results]
        if not [r for r in results if r.get('status') in MOVING]:
            return results
        report = progress or (lambda _state: None)
        report(_statuses(results))
        changes = self._changes(
            deadline, object_type='node',
            event_type='pool.node.pool_status_set.success')
        for _changed in changes:
            moving = [r for r in results if r.get('status') in MOVING]
            for r in moving:
                node = self.node_get(r['uuid'], fields=[
                    'uuid', 'name', 'pool_status', 'pool_allocated'])
                r.update(status=node.get('pool_status'),
                         allocated=node.get('pool_allocated'))
            report(_statuses(results))
            moving = [r for r in results if r.get('status') in MOVING]
            if not moving:
                return results
            if deadline is not None and time.monotonic() >= deadline:
                raise PoolClientError(
                    'After %s seconds these nodes have not reached their '
                    'stage: %s' % (timeout, ', '.join(
                        '%s (%s)' % (r.get('name') or r['uuid'],
                                     r['status']) for r in moving)))

    def node_update(self, node: str, patch: list) -> dict:
        """Change a node with a JSON Patch."""
        return self.patch(_path('nodes', node), body=patch)

    def node_delete(self, node: str) -> None:
        self.delete(_path('nodes', node))

    def node_set_provision_state(self, node: str, verb: str) -> None:
        self.put(_path('nodes', node, 'states', 'provision'),
                 body={'target': verb})

    def node_set_maintenance(self, node: str,
                             reason: str | None = None) -> None:
        body = {'reason': reason} if reason is not None else None
        self.put(_path('nodes', node, 'maintenance'), body=body)

    def node_unset_maintenance(self, node: str) -> None:
        self.delete(_path('nodes', node, 'maintenance'))

    def node_maintenance_window_create(self, node: str, start_at: str,
                                       end_at: str, reason: str) -> dict:
        """Book a maintenance window of a node (times in RFC 3339)."""
        return self.post(_path('nodes', node, 'maintenance_windows'),
                         body={'start_at': start_at, 'end_at': end_at,
                               'reason': reason})

    def node_maintenance_window_list(self, node: str) -> list:
        return self.get(_path('nodes', node, 'maintenance_windows'))[
            'maintenance_windows']

    def node_maintenance_window_show(self, node: str, window: str) -> dict:
        return self.get(_path('nodes', node, 'maintenance_windows', window))

    def node_maintenance_window_delete(self, node: str, window: str
                                       ) -> None:
        self.delete(_path('nodes', node, 'maintenance_windows', window))

    def node_slot_list(self, node: str) -> list:
        """The times a node is held: windowed allocations and maintenance
        windows, by start."""
        return self.get(_path('nodes', node, 'slots'))['slots']

    def node_return(self, node: str, **params) -> str:
        """Run returnToPool on a node: returnMachines of that node in its
        own pool; "Success" (else an error is raised)."""
        return self.post(_path('nodes', node, 'returnToPool'), body=params)

    def node_params(self, node: str, aggregate: bool = False) -> dict:
        """The params of a node; with aggregate, overlaid on its
        profiles'."""
        return self.get(_path('nodes', node, 'params'),
                        params={'aggregate': True} if aggregate else None)

    def node_set_params(self, node: str, params: dict) -> dict:
        """Replace all params of a node."""
        return self.put(_path('nodes', node, 'params'), body=params)

    def node_update_params(self, node: str, patch: list) -> dict:
        """Change params of a node with a JSON Patch on the params map."""
        return self.patch(_path('nodes', node, 'params'), body=patch)

    def node_traits(self, node: str) -> list:
        return (self.get(_path('nodes', node, 'traits')) or {}).get(
            'traits', [])

    def node_set_traits(self, node: str, traits: list) -> None:
        self.put(_path('nodes', node, 'traits'), body={'traits': traits})

    def node_add_trait(self, node: str, trait: str) -> None:
        self.put(_path('nodes', node, 'traits', trait))

    def node_remove_trait(self, node: str, trait: str | None = None) -> None:
        """Remove one trait of a node, or all of them when trait is None."""
        if trait is None:
            self.delete(_path('nodes', node, 'traits'))
        else:
            self.delete(_path('nodes', node, 'traits', trait))

    # Allocations -----------------------------------------------------------

    def allocation_create(self, **fields) -> dict:
        return self.post('/v1/allocations', body=fields)

    def allocation_candidates(self, **request) -> dict:
        """Preview an allocation request: the matching nodes, the one the
        allocator would pick and how many nodes each filter left out
        (POST /v1/allocation_candidates)."""
        return self.post('/v1/allocation_candidates', body=request)

    def availability(self, **query) -> dict:
        """The earliest start of a request (resource_class, traits as a
        list, pool, owner, duration, count, after, before) and the free
        periods of each matching node (GET /v1/availability)."""
        if query.get('traits'):
            query['traits'] = ','.join(query['traits'])
        return self.get('/v1/availability', params=query)

    def allocation_list(self, fields=None, limit: int | None = None,
                        marker: str | None = None,
                        sort_key: str | None = None,
                        sort_dir: str | None = None, **filters) -> list:
        """Allocations matching the filters (node, resource_class, state,
        owner)."""
        params = dict(filters, fields=fields, marker=marker,
                      sort_key=sort_key, sort_dir=sort_dir)
        return self._list('allocations', 'allocations', params, limit)

    # Providers and claims --------------------------------------------------

    def provider_create(self, **fields) -> dict:
        return self.post('/v1/providers', body=fields)

    def provider_list(self) -> list:
        return (self.get('/v1/providers') or {}).get('providers') or []

    def provider_get(self, provider: str) -> dict:
        return self.get(_path('providers', provider))

    def provider_update(self, provider: str, patch: list) -> dict:
        """Change a provider with a JSON Patch; its name is fixed."""
        return self.patch(_path('providers', provider), body=patch)

    def provider_delete(self, provider: str) -> None:
        self.delete(_path('providers', provider))

    def claim_create(self, **fields) -> dict:
        return self.post('/v1/claims', body=fields)

    def claim_list(self, fields=None, limit: int | None = None,
                   marker: str | None = None, sort_key: str | None = None,
                   sort_dir: str | None = None, **filters) -> list:
        """Claims matching the filters (state, owner)."""
        params = dict(filters, fields=fields, marker=marker,
                      sort_key=sort_key, sort_dir=sort_dir)
        return self._list('claims', 'claims', params, limit)

    def claim_get(self, claim: str, fields=None) -> dict:
        return self.get(_path('claims', claim), params={'fields': fields})

    def reservation_create(self, **fields) -> dict:
        """Book windowed allocations of several nodes for one window (count
        an int, or {"min": .., "max": ..}), all or nothing."""
        return self.post('/v1/reservations', body=fields)

    def reservation_list(self, fields=None, limit: int | None = None,
                         marker: str | None = None,
                         sort_key: str | None = None,
                         sort_dir: str | None = None, **filters) -> list:
        """Reservations matching the filters (owner, pool)."""
        params = dict(filters, fields=fields, marker=marker,
                      sort_key=sort_key, sort_dir=sort_dir)
        return self._list('reservations', 'reservations', params, limit)

    def reservation_get(self, reservation: str, fields=None) -> dict:
        return self.get(_path('reservations', reservation),
                        params={'fields': fields})

    def reservation_delete(self, reservation: str) -> None:
        """Delete a reservation and all its allocations."""
        self.delete(_path('reservations', reservation))

    def handle_list(self, fields=None, limit: int | None = None,
                    marker: str | None = None, **filters) -> list:
        """Handles of claims matching the filters (claim, provider, node,
        owner, state)."""
        params = dict(filters, fields=fields, marker=marker)
        return self._list('handles', 'handles', params, limit)

    def handle_get(self, handle: str, fields=None) -> dict:
        return self.get(_path('handles', handle), params={'fields': fields})

    def claim_update(self, claim: str, patch: list) -> dict:
        """Change the lifespan_end or resource templates of a claim with a
        JSON Patch."""
        return self.patch(_path('claims', claim), body=patch)

    def claim_delete(self, claim: str) -> None:
        self.delete(_path('claims', claim))

    def claim_wait(self, claim: str, timeout: float | None = 0,
                   progress=None) -> dict:
        """Wait until a claim is no longer ``pending``, reading it again
        whenever the event feed brings one of its events (and at least
        every 5 seconds: a claim's state also follows its machines).

        :param timeout: seconds to wait at most; 0 or None waits forever.
        :param progress: called with the claim's state each time it is
            read.
        :returns: the claim, ``bound``, ``ready``, ``error`` or
            ``expired``.
        :raises: PoolClientError on timeout
        """
        deadline = time.monotonic() + timeout if timeout else None
        changes = self._changes(deadline, round_wait=5,
                                object_type='claim',
                                object_uuid=self._uuid_of(claim,
                                                          self.claim_get))
        for _changed in changes:
            result = self.claim_get(claim)
            if progress is not None:
                progress(result.get('state'))
            if result.get('state') != CLAIM_PENDING:
                return result
            if deadline is not None and time.monotonic() >= deadline:
                raise PoolClientError(
                    'Claim %s is still pending after %s seconds'
                    % (result.get('uuid', claim), timeout))

    # Ports -----------------------------------------------------------------

    def port_create(self, **fields) -> dict:
        return self.post('/v1/ports', body=fields)

    def port_list(self, fields=None, limit: int | None = None,
                  marker: str | None = None, sort_key: str | None = None,
                  sort_dir: str | None = None, detail: bool = False,
                  **filters) -> list:
        """Ports matching the filters (node, address)."""
        params = dict(filters, fields=fields, marker=marker,
                      sort_key=sort_key, sort_dir=sort_dir)
        collection = 'ports/detail' if detail else 'ports'
        return self._list(collection, 'ports', params, limit)

    def port_get(self, port: str, fields=None) -> dict:
        return self.get(_path('ports', port), params={'fields': fields})

    def port_update(self, port: str, patch: list) -> dict:
        return self.patch(_path('ports', port), body=patch)

    def port_delete(self, port: str) -> None:
        self.delete(_path('ports', port))

    def conductor_list(self, detail: bool = False) -> list:
        params = {'detail': 'true'} if detail else None
        return self.get('/v1/conductors', params=params)['conductors']

    def conductor_get(self, hostname: str) -> dict:
        return self.get(_path('conductors', hostname))

    def allocation_get(self, allocation: str, fields=None) -> dict:
        return self.get(_path('allocations', allocation),
                        params={'fields': fields})

    def allocation_update(self, allocation: str, patch: list) -> dict:
        """Change the name or extra of an allocation with a JSON Patch."""
        return self.patch(_path('allocations', allocation), body=patch)

    def allocation_delete(self, allocation: str) -> None:
        self.delete(_path('allocations', allocation))

    def allocation_wait(self, allocation: str, timeout: float | None = 0,
                        progress=None) -> dict:
        """Wait until an allocation is no longer ``allocating``: read it
        again whenever the event feed brings one of its events (polling
        a server without the feed).

        :param timeout: seconds to wait at most; 0 or None waits forever.
        :param progress: called with the allocation's state each time it
            is read.
        :returns: the allocation, ``active`` or ``error``.
        :raises: PoolClientError on timeout
        """
        deadline = time.monotonic() + timeout if timeout else None
        changes = self._changes(deadline, object_type='allocation',
                                object_uuid=self._uuid_of(
                                    allocation, self.allocation_get))
        for _changed in changes:
            result = self.allocation_get(allocation)
            if progress is not None:
                progress(result.get('state'))
            if result.get('state') != ALLOCATING:
                return result
            if deadline is not None and time.monotonic() >= deadline:
                raise PoolClientError(
                    'Allocation %s is still allocating after %s seconds'
                    % (result.get('uuid', allocation), timeout))

    # Events ----------------------------------------------------------------

    def event_page(self, since: int | None = None,
                   wait: float | None = None, limit: int | None = None,
                   **filters) -> dict:
        """One page of the event feed: {"events", "cursor", "more",
        "oldest"}; without since, no events and the current cursor.

        :param wait: seconds the server may hold the request when no
            event follows since.
        :param filters: object_type, object_uuid, event_type,
            event_type_prefix, level (the lowest shown), request_id,
            detail.
        """
        params = dict(filters, since=since, limit=limit)
        if wait:
            # The API takes decimals, not exponents.
            params['wait'] = '%.3f' % wait
        return self.get('/v1/events', params=params)

    def event_list(self, since: int | None = None,
                   limit: int | None = None, **filters) -> list:
        """The events after since (from the oldest retained when None),
        following the cursor to the last one, at most limit of them."""
        if since is None:
            since = self.event_page(**filters)['oldest']
        items: list = []
        while True:
            try:
                body = self.event_page(since=since, limit=limit, **filters)
            except PoolClientError as exc:
                if exc.status_code != 410 or items:
                    raise
                # Retention deleted them meanwhile: from what is left.
                since = self.event_page(**filters)['oldest']
                continue
            items.extend(body['events'])
            since = body['cursor']
            if limit and len(items) >= limit:
                return items[:limit]
            if not body['more']:
                return items

    def event_watch(self, since: int | None = None, wait: float = 30,
                    **filters):
        """Yield the events after since (from now when None) as they come,
        for ever; the server holds each request up to wait seconds.

        :raises: PoolClientError with status 410 when the events after
            since were deleted before they were read.
        """
        if since is None:
            since = self.event_page(**filters)['cursor']
        while True:
            body = self.event_page(since=since, wait=wait, **filters)
            yield from body['events']
            since = body['cursor']

    def _uuid_of(self, ident: str, get) -> str:
        """The UUID of an object named by name or UUID."""
        if uuidutils.is_uuid_like(ident):
            return ident
        return get(ident)['uuid']

    def _changes(self, deadline: float | None, round_wait: float = 30,
                 **filters):
        """Yield once at once, then each time the event feed brings an
        event that passes filters (or after round_wait seconds without
        one, or once the deadline passed): a wait reads its object again
        each time. Against a server without the feed (404), or one with
        all its waiting requests taken (429), it polls every
        poll_interval instead.
        """
        try:
            # The cursor comes first: a change after it is not missed.
            cursor = self.event_page(**filters)['cursor']
        except PoolClientError as exc:
            if exc.status_code != 404:
                raise
            cursor = None
        yield
        while True:
            if deadline is None:
                wait = round_wait
            else:
                wait = min(round_wait, max(0.0, deadline - time.monotonic()))
            if cursor is None or wait <= 0:
                time.sleep(min(self.poll_interval, wait) if wait > 0
                           else 0)
            else:
                try:
                    cursor = self.event_page(since=cursor, wait=wait,
                                             **filters)['cursor']
                except PoolClientError as exc:
                    if exc.status_code == 410:
                        cursor = self.event_page(**filters)['cursor']
                    elif exc.status_code == 429:
                        time.sleep(min(self.poll_interval, wait))
                    else:
                        raise
            yield

    # History ---------------------------------------------------------------

    def history_list(self, kind: str, ident: str, detail: bool = False,
                     limit: int | None = None, marker: str | None = None,
                     sort_dir: str | None = None) -> list:
        """The history of a node, allocation, pool or claim (kind is the
        collection: nodes, allocations, pools, claims), oldest first."""
        params = {'detail': detail or None, 'marker': marker,
                  'sort_dir': sort_dir}
        collection = _path(kind, ident, 'history')[len('/v1/'):]
        return self._list(collection, 'history', params, limit)

    def history_get(self, kind: str, ident: str, event: str) -> dict:
        """One event of the history of an object."""
        return self.get(_path(kind, ident, 'history', event))
