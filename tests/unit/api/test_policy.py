"""Policy: every endpoint for every persona, and owner/lessee scoping."""
import datetime
import json
import os
import time
from unittest import mock
import uuid

import fixtures

from pool_api import app as pool_app
from pool_api import auth
from pool_api.dashboard import session as dashboard_session
from pool_api import policy
from pool_api import routes
from pool_conductor import allocations
from pool_conductor.baremetal import chassis as chassis_core
from pool_conductor.baremetal import portgroups
from pool_conductor.baremetal import ports
from pool_conductor.baremetal import vifs
from pool_conductor.baremetal import volumes
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import claims as claims_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import deploy_templates as templates_db
from pool_conductor.db import events as events_db
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor.db import reservations as reservations_db
from pool_conductor.db import slots as slots_db
from pool_conductor import events
from tests.unit.api import base
from tests.unit.api.test_pools import POOL_PARAMS

PROJECT = 'project-a'
OTHER = 'project-b'
# A node of PROJECT that ports are created on.
PORT_NODE = '6f1b3a3e-7d55-4c1c-a3a4-6c0d2b9f1e01'

# Headers keystonemiddleware sets for each persona.
PERSONAS = {
    'system_admin': {'X-Roles': 'admin,member,reader',
                     'OpenStack-System-Scope': 'all'},
    'system_reader': {'X-Roles': 'reader', 'OpenStack-System-Scope': 'all'},
    'project_admin': {'X-Roles': 'admin,member,reader',
                      'X-Project-Id': PROJECT},
    'project_member': {'X-Roles': 'member,reader', 'X-Project-Id': PROJECT},
    'project_reader': {'X-Roles': 'reader', 'X-Project-Id': PROJECT},
    'other_member': {'X-Roles': 'member,reader', 'X-Project-Id': OTHER},
    'other_admin': {'X-Roles': 'admin,member,reader', 'X-Project-Id': OTHER},
    'no_role': {'X-Roles': '', 'X-Project-Id': PROJECT},
}
ORDER = tuple(PERSONAS)
OK = 'ok'


def _row(*expected) -> dict:
    return dict(zip(ORDER, expected, strict=True))


# Expected outcome per persona, in the order of PERSONAS: OK (not 401,
# 403 or 404, nor a server error), 403 or 404. {node} is a node owned by
# PROJECT, {free} one nobody owns, {alloc} an allocation of PROJECT.
READ_NODE = _row(OK, OK, OK, OK, OK, 404, 404, 404)
WRITE_NODE = _row(OK, 403, OK, OK, 403, 404, 404, 404)
OWNER_ADMIN = _row(OK, 403, OK, 403, 403, 404, 404, 404)
SYSTEM_ADMIN_ONLY = _row(OK, 403, 403, 403, 403, 403, 403, 403)
SYSTEM_ADMIN_NODE = _row(OK, 403, 403, 403, 403, 404, 404, 404)
SYSTEM_READER_ONLY = _row(OK, OK, 403, 403, 403, 403, 403, 403)
ANY_READER = _row(OK, OK, OK, OK, OK, OK, OK, 403)
ANY_MEMBER = _row(OK, 403, OK, OK, 403, OK, OK, 403)
READ_ALLOC = _row(OK, OK, OK, OK, OK, 404, 404, 404)
WRITE_ALLOC = _row(OK, 403, OK, OK, 403, 404, 404, 404)
HIDDEN_FREE_NODE = _row(OK, OK, 404, 404, 404, 404, 404, 404)
PUBLIC = _row(OK, OK, OK, OK, OK, OK, OK, OK)

CASES = [
    ('GET', '/', None, PUBLIC),
    ('GET', '/v1', None, PUBLIC),
    ('GET', '/v1/openapi.json', None, PUBLIC),
    ('GET', '/metrics', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/fleet', None, SYSTEM_READER_ONLY),
    # The page answers 403 with a page of its own; its login, logout and
    # static files are everyone's.
    ('GET', '/dashboard', None, SYSTEM_READER_ONLY),
    ('POST', '/dashboard/login', None, PUBLIC),
    ('POST', '/dashboard/logout', None, PUBLIC),
    ('GET', '/dashboard/dashboard.css', None, PUBLIC),
    ('GET', '/dashboard/dashboard.js', None, PUBLIC),
    # The event feed's own rule, where the API has a feed.
    ('GET', '/dashboard/watch', None,
     ANY_READER if any(r.rule == '/v1/events' for r in routes.ROUTES)
     else _row(*[404] * len(ORDER))),
    ('GET', '/v1/nodes', None, ANY_READER),
    ('GET', '/v1/nodes/detail', None, ANY_READER),
    ('POST', '/v1/nodes', {'driver': 'fake-hardware'}, SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/nodes/{node}', None, READ_NODE),
    ('GET', '/v1/nodes/{free}', None, HIDDEN_FREE_NODE),
    ('PATCH', '/v1/nodes/{node}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], WRITE_NODE),
    ('PATCH', '/v1/nodes/{node}',
     [{'op': 'replace', 'path': '/owner', 'value': OTHER}],
     _row(OK, 403, 403, 403, 403, 404, 404, 404)),
    ('PATCH', '/v1/nodes/{node}',
     [{'op': 'add', 'path': '/automated_clean', 'value': False}],
     _row(OK, 403, 403, 403, 403, 404, 404, 404)),
    ('DELETE', '/v1/nodes/{node}', None, SYSTEM_ADMIN_NODE),
    ('GET', '/v1/nodes/{node}/states', None, READ_NODE),
    ('GET', '/v1/nodes/{node}/management/indicators', None, READ_NODE),
    ('GET', '/v1/nodes/{node}/management/indicators/led@system', None,
     READ_NODE),
    ('PUT', '/v1/nodes/{node}/management/indicators/led@system',
     {'state': 'OFF'}, WRITE_NODE),
    ('GET', '/v1/nodes/{node}/validate', None, WRITE_NODE),
    ('PUT', '/v1/nodes/{node}/states/power', {'target': 'power on'},
     WRITE_NODE),
    ('PUT', '/v1/nodes/{node}/states/provision', {'target': 'manage'},
     WRITE_NODE),
    ('GET', '/v1/nodes/{node}/states/console', None, WRITE_NODE),
    ('PUT', '/v1/nodes/{node}/states/console', {'enabled': True},
     WRITE_NODE),
    ('PUT', '/v1/nodes/{node}/states/raid', {}, WRITE_NODE),
    ('PUT', '/v1/nodes/{node}/management/inject_nmi', None, WRITE_NODE),
    ('PUT', '/v1/nodes/{node}/maintenance', {'reason': 'r'}, WRITE_NODE),
    ('DELETE', '/v1/nodes/{node}/maintenance', None, WRITE_NODE),
    ('GET', '/v1/nodes/{node}/maintenance_windows', None, READ_NODE),
    ('POST', '/v1/nodes/{node}/maintenance_windows',
     {'start_at': '2099-01-01T00:00:00Z', 'end_at': '2099-01-02T00:00:00Z',
      'reason': 'r'}, OWNER_ADMIN),
    ('GET', '/v1/nodes/{node}/maintenance_windows/{window}', None,
     READ_NODE),
    ('DELETE', '/v1/nodes/{node}/maintenance_windows/{window}', None,
     OWNER_ADMIN),
    ('GET', '/v1/nodes/{node}/slots', None, READ_NODE),
    ('GET', '/v1/nodes/{node}/traits', None, READ_NODE),
    ('PUT', '/v1/nodes/{node}/traits', {'traits': ['CUSTOM_A']},
     OWNER_ADMIN),
    ('DELETE', '/v1/nodes/{node}/traits', None, OWNER_ADMIN),
    ('PUT', '/v1/nodes/{node}/traits/CUSTOM_B', None, OWNER_ADMIN),
    ('DELETE', '/v1/nodes/{node}/traits/CUSTOM_T', None, OWNER_ADMIN),
    ('GET', '/v1/nodes/{used}/allocation', None, READ_ALLOC),
    ('DELETE', '/v1/nodes/{used}/allocation', None, WRITE_ALLOC),
    ('GET', '/v1/allocations', None, ANY_READER),
    ('POST', '/v1/allocations', {'resource_class': 'baremetal'},
     ANY_MEMBER),
    ('POST', '/v1/allocations',
     {'resource_class': 'baremetal', 'owner': OTHER},
     _row(OK, 403, 403, 403, 403, OK, OK, 403)),
    ('GET', '/v1/allocations/{alloc}', None, READ_ALLOC),
    ('PATCH', '/v1/allocations/{alloc}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], WRITE_ALLOC),
    ('DELETE', '/v1/allocations/{alloc}', None, WRITE_ALLOC),
    ('GET', '/v1/deploy_templates', None, SYSTEM_READER_ONLY),
    ('POST', '/v1/deploy_templates', {
        'name': 'CUSTOM_NEW', 'steps': [{
            'interface': 'deploy', 'step': 'deploy', 'args': {},
            'priority': 100}]}, SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/deploy_templates/{template}', None, SYSTEM_READER_ONLY),
    ('PATCH', '/v1/deploy_templates/{template}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], SYSTEM_ADMIN_ONLY),
    ('DELETE', '/v1/deploy_templates/{template}', None, SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/drivers', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/drivers/fake-hardware', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/drivers/fake-hardware/properties', None,
     SYSTEM_READER_ONLY),
    ('GET', '/v1/conductors', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/conductors/test-host', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/nodes/{node}/params', None, READ_NODE),
    ('PUT', '/v1/nodes/{node}/params', {'a': 1}, WRITE_NODE),
    ('PATCH', '/v1/nodes/{node}/params',
     [{'op': 'add', 'path': '/a', 'value': 1}], WRITE_NODE),
    ('POST', '/v1/nodes/{node}/returnToPool', {}, SYSTEM_ADMIN_NODE),
    ('GET', '/v1/content', None, SYSTEM_READER_ONLY),
    ('POST', '/v1/content', {'sections': {}}, SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/ports', None, ANY_READER),
    ('GET', '/v1/ports/detail', None, ANY_READER),
    # A node the caller cannot see is a bad request, as in Ironic.
    ('POST', '/v1/ports', {'node_uuid': PORT_NODE,
                           'address': '52:54:00:00:00:01'},
     _row(OK, 403, OK, 403, 403, 400, 400, 400)),
    ('GET', '/v1/ports/{port}', None, READ_NODE),
    ('PATCH', '/v1/ports/{port}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], OWNER_ADMIN),
    ('DELETE', '/v1/ports/{port}', None, OWNER_ADMIN),
    # Listing needs baremetal:port:list first.
    ('GET', '/v1/nodes/{node}/ports', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/nodes/{node}/ports/detail', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/nodes/{node}/vifs', None, READ_NODE),
    ('POST', '/v1/nodes/{node}/vifs', {'id': 'vif-2'}, WRITE_NODE),
    ('DELETE', '/v1/nodes/{node}/vifs/vif-1', None, WRITE_NODE),
    ('GET', '/v1/portgroups', None, ANY_READER),
    ('GET', '/v1/portgroups/detail', None, ANY_READER),
    ('POST', '/v1/portgroups', {'node_uuid': PORT_NODE},
     _row(OK, 403, OK, 403, 403, 400, 400, 400)),
    ('GET', '/v1/portgroups/{portgroup}', None, READ_NODE),
    ('PATCH', '/v1/portgroups/{portgroup}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], OWNER_ADMIN),
    ('DELETE', '/v1/portgroups/{portgroup}', None, OWNER_ADMIN),
    ('GET', '/v1/portgroups/{portgroup}/ports', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/portgroups/{portgroup}/ports/detail', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/nodes/{node}/portgroups', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/nodes/{node}/portgroups/detail', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/chassis', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/chassis/detail', None, SYSTEM_READER_ONLY),
    ('POST', '/v1/chassis', {}, SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/chassis/{chassis}', None, SYSTEM_READER_ONLY),
    ('PATCH', '/v1/chassis/{chassis}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], SYSTEM_ADMIN_ONLY),
    ('DELETE', '/v1/chassis/{chassis}', None, SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/chassis/{chassis}/nodes', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/chassis/{chassis}/nodes/detail', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/volume', None, ANY_READER),
    ('GET', '/v1/nodes/{node}/volume', None, READ_NODE),
    ('GET', '/v1/volume/connectors', None, ANY_READER),
    ('GET', '/v1/volume/targets', None, ANY_READER),
    ('POST', '/v1/volume/connectors',
     {'node_uuid': PORT_NODE, 'type': 'iqn', 'connector_id': 'iqn.x'},
     _row(OK, 403, OK, 403, 403, 400, 400, 400)),
    ('POST', '/v1/volume/targets',
     {'node_uuid': PORT_NODE, 'volume_type': 'iscsi', 'volume_id': 'v',
      'boot_index': 0},
     _row(OK, 403, OK, 403, 403, 400, 400, 400)),
    ('GET', '/v1/volume/connectors/{connector}', None, READ_NODE),
    ('PATCH', '/v1/volume/connectors/{connector}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], WRITE_NODE),
    ('DELETE', '/v1/volume/connectors/{connector}', None, OWNER_ADMIN),
    ('GET', '/v1/volume/targets/{target}', None, READ_NODE),
    ('PATCH', '/v1/volume/targets/{target}',
     [{'op': 'add', 'path': '/extra/a', 'value': 1}], WRITE_NODE),
    ('DELETE', '/v1/volume/targets/{target}', None, OWNER_ADMIN),
    ('GET', '/v1/nodes/{node}/volume/connectors', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
    ('GET', '/v1/nodes/{node}/volume/targets', None,
     _row(OK, OK, OK, OK, OK, 404, 404, 403)),
] + [
    # Pools, profiles and workflows are read by system readers and
    # administered by system admins.
    (method, path % {'kind': kind}, body, expected)
    for kind, create in (('pools', {'name': 'p1'}),
                         ('profiles', {'name': 'p1'}),
                         ('workflows', {'name': 'w1', 'stages': []}),
                         ('brokers', {'name': 'b1', 'driver': 'fake'}),
                         ('external_managers',
                          {'name': 'm1', 'driver': 'fake',
                           'parameters': {'path': '/nonexistent'}}))
    for method, path, body, expected in (
        ('GET', '/v1/%(kind)s', None, SYSTEM_READER_ONLY),
        ('POST', '/v1/%(kind)s', create, SYSTEM_ADMIN_ONLY),
        ('GET', '/v1/%(kind)s/{%(kind)s}', None, SYSTEM_READER_ONLY),
        ('PATCH', '/v1/%(kind)s/{%(kind)s}',
         [{'op': 'replace', 'path': '/description', 'value': 'd'}],
         SYSTEM_ADMIN_ONLY),
        ('DELETE', '/v1/%(kind)s/{%(kind)s}', None, SYSTEM_ADMIN_ONLY))
] + [
    ('GET', '/v1/pools/{pools}/status', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/external_managers/{external_managers}/status', None,
     SYSTEM_READER_ONLY),
] + [('POST', '/v1/pools/{pools}/%s' % action, {}, SYSTEM_ADMIN_ONLY)
     for action in ('addMachines', 'removeMachines', 'allocateMachines',
                    'returnMachines')] + [
    # Providers are read by every reader, who name them in claims;
    # claims are scoped to their owner as allocations are.
    ('GET', '/v1/providers', None, ANY_READER),
    ('POST', '/v1/providers', {'name': 'p1', 'pool': 'default'},
     SYSTEM_ADMIN_ONLY),
    ('GET', '/v1/providers/{providers}', None, ANY_READER),
    ('PATCH', '/v1/providers/{providers}',
     [{'op': 'replace', 'path': '/description', 'value': 'd'}],
     SYSTEM_ADMIN_ONLY),
    ('DELETE', '/v1/providers/{providers}', None, SYSTEM_ADMIN_ONLY),
    # A project previews among its own nodes.
    ('POST', '/v1/allocation_candidates', {'resource_class': 'baremetal'},
     ANY_MEMBER),
    ('GET', '/v1/allocation_candidates', None, ANY_MEMBER),
    # A 400 without duration, once the policy let it through.
    ('GET', '/v1/availability', None, ANY_MEMBER),
    ('GET', '/v1/claims', None, ANY_READER),
    # An empty claim is refused (400) once the policy let it through.
    ('POST', '/v1/claims', {'resources': []}, ANY_MEMBER),
    ('GET', '/v1/claims/{claim}', None, READ_ALLOC),
    ('PATCH', '/v1/claims/{claim}',
     [{'op': 'add', 'path': '/lifespan_end', 'value': None}], WRITE_ALLOC),
    ('DELETE', '/v1/claims/{claim}', None, WRITE_ALLOC),
    # Reservations are scoped to their owner as allocations are; a count
    # of 0 is refused (400) once the policy let it through.
    ('GET', '/v1/reservations', None, ANY_READER),
    ('POST', '/v1/reservations', {'count': 0}, ANY_MEMBER),
    ('GET', '/v1/reservations/{reservation}', None, READ_ALLOC),
    ('DELETE', '/v1/reservations/{reservation}', None, WRITE_ALLOC),
    # Handles are read as their claims are.
    ('GET', '/v1/handles', None, ANY_READER),
    ('GET', '/v1/handles/{handle}', None, READ_ALLOC),
    # Events are filtered to the caller's project; histories are read as
    # their objects are (a node's by its owner, not its lessee).
    ('GET', '/v1/events', None, ANY_READER),
    ('GET', '/v1/nodes/{node}/history', None, READ_NODE),
    ('GET', '/v1/nodes/{node}/history/{event}', None, READ_NODE),
    ('GET', '/v1/allocations/{alloc}/history', None, READ_ALLOC),
    ('GET', '/v1/allocations/{alloc}/history/{event}', None, READ_ALLOC),
    ('GET', '/v1/claims/{claim}/history', None, READ_ALLOC),
    ('GET', '/v1/claims/{claim}/history/{event}', None, READ_ALLOC),
    ('GET', '/v1/pools/{pools}/history', None, SYSTEM_READER_ONLY),
    ('GET', '/v1/pools/{pools}/history/{event}', None, SYSTEM_READER_ONLY),
]


CASES_BY_ROUTE = {(m, p): b for m, p, b, _e in CASES}


def _mac() -> str:
    return ':'.join(['52'] + ['%02x' % b for b in os.urandom(5)])


def _placeholders(rule: str) -> str:
    """A route's rule with the placeholders of the table."""
    for name, value in (('<allocation_ident>', '{alloc}'),
                        ('<hostname>', 'test-host'),
                        ('<driver_name>', 'fake-hardware'),
                        ('<indicator>', 'led@system'),
                        ('<trait>', 'CUSTOM_T'),
                        ('<port_uuid>', '{port}'),
                        ('<portgroup_ident>', '{portgroup}'),
                        ('<connector_uuid>', '{connector}'),
                        ('<chassis_uuid>', '{chassis}'),
                        ('<target_uuid>', '{target}'),
                        ('<vif_id>', 'vif-1'),
                        ('<pool_name>', '{pools}'),
                        ('<profile_name>', '{profiles}'),
                        ('<workflow_name>', '{workflows}'),
                        ('<broker_name>', '{brokers}'),
                        ('<manager_name>', '{external_managers}'),
                        ('<provider_name>', '{providers}'),
                        ('<claim_ident>', '{claim}'),
                        ('<reservation_ident>', '{reservation}'),
                        ('<template_ident>', '{template}'),
                        ('<handle_uuid>', '{handle}'),
                        ('<event_uuid>', '{event}'),
                        ('<window_uuid>', '{window}')):
        rule = rule.replace(name, value)
    return rule


class PolicyTestCase(base.APITestCase):
    """Requests carry the identity headers of keystonemiddleware."""

    def setUp(self):
        # The identity comes from the headers, as behind auth_token.
        self.patch(auth, 'wrap', lambda app: app)
        super().setUp()
        self.config(auth_strategy='keystone')
        conductors_db.register_conductor(self.context, 'test-host')

    def resources(self, path: str) -> dict:
        """The resources a path names, created afresh."""
        ids = {}
        if '{node}' in path:
            node = self.create_node(owner=PROJECT, traits=['CUSTOM_T'])
            ids['node'] = node.uuid
            # A port with VIF vif-1 and a free one.
            for vif in ('vif-1', None):
                ports.create(self.context, node, {'address': _mac()})
                if vif:
                    vifs.attach_vif(self.context, node, vif)
        if '{port}' in path:
            node = self.create_node(owner=PROJECT)
            ids['port'] = ports.create(self.context, node, {
                'address': _mac()}).uuid
        if '{portgroup}' in path:
            node = self.create_node(owner=PROJECT)
            ids['portgroup'] = portgroups.create(
                self.context, node, {'mode': 'active-backup'}).uuid
        if '{chassis}' in path:
            ids['chassis'] = chassis_core.create(self.context, {}).uuid
        if '{connector}' in path:
            node = self.create_node(owner=PROJECT)
            ids['connector'] = volumes.create(
                self.context, volumes.CONNECTOR, node,
                {'type': 'iqn', 'connector_id': _mac()}).uuid
        if '{target}' in path:
            node = self.create_node(owner=PROJECT)
            ids['target'] = volumes.create(
                self.context, volumes.TARGET, node,
                {'volume_type': 'iscsi', 'volume_id': 'v', 'boot_index': 0,
                 'properties': {}}).uuid
        if '{free}' in path:
            ids['free'] = self.create_node().uuid
        if '{used}' in path:
            used = self.create_node(owner=PROJECT, maintenance=True,
                                    provision_state='active')
            allocations.backfill(
                self.context, {'owner': PROJECT}, used)
            ids['used'] = used.uuid
        if '{window}' in path:
            # A window over the allocation of {used} as well: data.
            ids['window'] = str(uuid.uuid4())
            node = nodes_db.get_node(self.context,
                                     ids.get('node') or ids['used'])
            with db_api.writer(self.context) as session:
                slots_db.insert_window(
                    session.connection(), node.id, ids['window'],
                    datetime.datetime(2099, 1, 1),
                    datetime.datetime(2099, 1, 2), 'r', 'scheduled')
        for kind, model, values in (
                ('pools', models.Pool, {}),
                ('profiles', models.Profile, {}),
                ('workflows', models.Workflow, {}),
                ('brokers', models.Broker, {'driver': 'fake'}),
                ('external_managers', models.ExternalManager,
                 {'driver': 'fake'})):
            if '{%s}' % kind in path:
                ids[kind] = pools_db.create(self.context, model, {
                    'name': '%s-%s' % (kind, uuid.uuid4().hex[:8]),
                    **values}).name
        if '{providers}' in path:
            ids['providers'] = providers_db.create(self.context, {
                'name': 'provider-%s' % uuid.uuid4().hex[:8],
                'pool': 'default'}).name
        if '{claim}' in path:
            ids['claim'] = claims_db.create(self.context, {
                'uuid': str(uuid.uuid4()), 'owner': PROJECT,
                'resources': [], 'state': 'error'}).uuid
        if '{reservation}' in path:
            with db_api.writer_connection(self.context) as conn:
                found = str(uuid.uuid4())
                reservations_db.insert(conn, {
                    'uuid': found, 'owner': PROJECT, 'traits': [],
                    'candidate_nodes': [], 'extra': {}, 'count_min': 1,
                    'count_max': 1, 'start_at': db_api.utcnow(),
                    'end_at': db_api.utcnow(),
                    'created_at': db_api.utcnow()})
            ids['reservation'] = found
        if '{template}' in path:
            ids['template'] = templates_db.create(self.context, {
                'name': 'CUSTOM_%s' % uuid.uuid4().hex[:8].upper(),
                'steps': []}).uuid
        if '{handle}' in path:
            claim = claims_db.create(self.context, {
                'uuid': str(uuid.uuid4()), 'owner': PROJECT,
                'resources': [{'provider': 'p', 'template': {}}],
                'state': 'error'})
            ids['handle'] = allocations_db.create_allocation(self.context, {
                'owner': PROJECT, 'state': 'error', 'claim_id': claim.id,
                'claim_resource': 0, 'resource_class': 'rc'}).uuid
        if '{alloc}' in path:
            ids['alloc'] = allocations_db.create_allocation(self.context, {
                'owner': PROJECT, 'state': 'error',
                'resource_class': 'rc'}).uuid
        if '{event}' in path:
            ids['event'] = self.record_event(path, ids)
        return ids

    def record_event(self, path: str, ids: dict) -> str:
        """An event of the object of a history path."""
        kind = path.split('/')[2]
        object_type, placeholder = {
            'nodes': ('node', 'node'), 'allocations': ('allocation', 'alloc'),
            'claims': ('claim', 'claim'), 'pools': ('pool', 'pools')}[kind]
        ident = ids.get(placeholder) or ids.get('used')
        event = events.Event(object_type, ident, 'pool.test.end',
                             object_name=ident)
        with db_api.writer(self.context) as session:
            events.record(session, [event])
        return events_db.history(self.context, object_type,
                                 object_name=ident)[-1].uuid

    def as_persona(self, persona: str, method: str, path: str, body=None):
        return self.request(method, path, body, headers=PERSONAS[persona])

    def get_node(self, ident: str) -> dict:
        resp = self.as_persona('system_admin', 'GET', '/v1/nodes/' + ident)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()

    def use_policy(self, rules: dict) -> None:
        """Run the API with an operator's policy file of these rules."""
        path = self.useFixture(fixtures.TempDir()).join('policy.yaml')
        with open(path, 'w') as f:
            json.dump(rules, f)
        self.config(policy_file=path, group='oslo_policy')
        self.app = pool_app.create_app()
        self.client = self.app.test_client()


class TestPolicyTable(PolicyTestCase):

    def setUp(self):
        super().setUp()
        self.create_node(uuid=PORT_NODE, owner=PROJECT)

    def test_every_endpoint_for_every_persona(self):
        for method, path, body, expected in CASES:
            url = path.format(**self.resources(path))
            for persona in ORDER:
                if method != 'GET':
                    # A permitted change must not hide what the next
                    # persona is tried on.
                    url = path.format(**self.resources(path))
                resp = self.as_persona(persona, method, url, body)
                want = expected[persona]
                where = '%s %s as %s: %s' % (method, path, persona,
                                             resp.get_data()[:300])
                if want == OK:
                    self.assertNotIn(resp.status_code, (401, 403, 404),
                                     where)
                    self.assertLess(resp.status_code, 500, where)
                else:
                    self.assertEqual(want, resp.status_code, where)

    def test_every_route_is_in_the_table(self):
        tested = {(m, p) for m, p, _b, _e in CASES}
        for rule, method, _handler, _doc in routes.ROUTES:
            path = _placeholders(rule.replace('<node_ident>', '{node}'))
            alternatives = {path, path.replace('{node}', '{used}'),
                            path.replace('CUSTOM_T', 'CUSTOM_B')}
            self.assertTrue(
                any((method, p) in tested for p in alternatives),
                '%s %s has no row in the policy table' % (method, rule))

    def test_every_route_authorizes(self):
        public = {('GET', p) for p in auth.PUBLIC_PATHS} | {
            (r.method, r.rule) for r in routes.ROUTES
            if r.rule in dashboard_session.PUBLIC_PATHS}
        if not any(r.rule == '/v1/events' for r in routes.ROUTES):
            # It answers 404 where there is no feed to read.
            public.add(('GET', dashboard_session.WATCH_PATH))
        # Routes whose body names what the policy is checked on.
        bodies = {route: CASES_BY_ROUTE[route]
                  for route in (('POST', '/v1/ports'),
                                ('POST', '/v1/portgroups'),
                                ('POST', '/v1/volume/connectors'),
                                ('POST', '/v1/volume/targets'))}
        for rule, method, _handler, _doc in routes.ROUTES:
            if (method, rule) in public:
                continue
            url = _placeholders(rule.replace('<node_ident>', '{used}'))
            url = url.format(**self.resources(url))
            with mock.patch.object(policy, 'allowed',
                                   wraps=policy.allowed) as allowed:
                self.as_persona('system_admin', method, url,
                                bodies.get((method, rule)))
            self.assertTrue(allowed.called,
                            '%s %s never checks a policy rule'
                            % (method, rule))


class TestScoping(PolicyTestCase):

    def test_project_lists_only_its_nodes(self):
        own = self.create_node(owner=PROJECT)
        leased = self.create_node(lessee=PROJECT)
        self.create_node(owner=OTHER)
        resp = self.as_persona('project_reader', 'GET', '/v1/nodes')
        self.assertEqual({own.uuid, leased.uuid},
                         {n['uuid'] for n in resp.get_json()['nodes']})
        resp = self.as_persona('system_reader', 'GET', '/v1/nodes')
        self.assertEqual(3, len(resp.get_json()['nodes']))

    def test_project_lists_only_the_ports_of_its_nodes(self):
        mine = [ports.create(self.context, self.create_node(**{key: PROJECT}),
                             {'address': _mac()}).uuid
                for key in ('owner', 'lessee')]
        other = self.create_node(owner=OTHER)
        ports.create(self.context, other, {'address': _mac()})
        resp = self.as_persona('project_reader', 'GET', '/v1/ports')
        self.assertEqual(set(mine),
                         {p['uuid'] for p in resp.get_json()['ports']})
        resp = self.as_persona('project_reader', 'GET',
                               '/v1/ports?node=%s' % other.uuid)
        self.assertEqual(404, resp.status_code)
        resp = self.as_persona('system_reader', 'GET', '/v1/ports/detail')
        self.assertEqual(3, len(resp.get_json()['ports']))

    def test_project_sees_only_the_volumes_of_its_nodes(self):
        mine = [volumes.create(
            self.context, volumes.TARGET, self.create_node(**{key: PROJECT}),
            {'volume_type': 'iscsi', 'volume_id': 'v', 'boot_index': 0,
             'properties': {'target_lun': 1}}).uuid
            for key in ('owner', 'lessee')]
        theirs = volumes.create(
            self.context, volumes.TARGET, self.create_node(owner=OTHER),
            {'volume_type': 'iscsi', 'volume_id': 'v', 'boot_index': 0,
             'properties': {}}).uuid
        resp = self.as_persona('project_reader', 'GET',
                               '/v1/volume/targets?detail=true')
        found = resp.get_json()['targets']
        self.assertEqual(set(mine), {t['uuid'] for t in found})
        # Only admins see the properties of targets.
        self.assertEqual({'redacted_contents'},
                         set(found[0]['properties']))
        resp = self.as_persona('project_admin', 'GET',
                               '/v1/volume/targets/%s' % mine[0])
        self.assertEqual({'target_lun': 1}, resp.get_json()['properties'])
        self.assertError(404, self.as_persona(
            'project_admin', 'GET', '/v1/volume/targets/%s' % theirs))
        resp = self.as_persona('system_reader', 'GET', '/v1/volume/targets')
        self.assertEqual(3, len(resp.get_json()['targets']))

    def test_only_a_system_admin_sets_the_chassis_of_a_node(self):
        node = self.create_node(owner=PROJECT)
        chassis = chassis_core.create(self.context, {}).uuid
        change = [{'op': 'add', 'path': '/chassis_uuid', 'value': chassis}]
        for persona in ('project_admin', 'project_member'):
            self.assertError(403, self.as_persona(
                persona, 'PATCH', '/v1/nodes/%s' % node.uuid, change))
        resp = self.as_persona('system_admin', 'PATCH',
                               '/v1/nodes/%s' % node.uuid, change)
        self.assertEqual(chassis, resp.get_json()['chassis_uuid'])

    def test_project_lists_only_its_allocations(self):
        mine = allocations_db.create_allocation(self.context, {
            'owner': PROJECT, 'state': 'error', 'resource_class': 'rc'})
        allocations_db.create_allocation(self.context, {
            'owner': OTHER, 'state': 'error', 'resource_class': 'rc'})
        resp = self.as_persona('project_member', 'GET', '/v1/allocations')
        self.assertEqual([mine.uuid], [a['uuid'] for a in
                                       resp.get_json()['allocations']])
        resp = self.as_persona('project_member', 'GET',
                               '/v1/allocations?owner=' + OTHER)
        self.assertError(403, resp)

    def test_allocation_owner_comes_from_the_token(self):
        resp = self.as_persona('project_member', 'POST', '/v1/allocations',
                               {'resource_class': 'baremetal'})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual(PROJECT, resp.get_json()['owner'])

    def test_candidates_of_a_project_are_its_nodes(self):
        self.create_node(owner=OTHER, name='theirs')
        resp = self.as_persona('project_member', 'POST', '/v1/allocations',
                               {'resource_class': 'baremetal',
                                'candidate_nodes': ['theirs']})
        self.assertError(400, resp, 'theirs')

    def test_forbidden_error_in_ironic_shape(self):
        resp = self.as_persona('project_reader', 'POST', '/v1/nodes',
                               {'driver': 'fake-hardware'})
        self.assertIn('denied', self.assertError(403, resp))

    def test_operator_policy_file_overrides_defaults(self):
        path = self.useFixture(fixtures.TempDir()).join('policy.yaml')
        with open(path, 'w') as f:
            json.dump({'baremetal:conductor:get': 'role:reader'}, f)
        self.config(policy_file=path, group='oslo_policy')
        self.app = pool_app.create_app()
        self.client = self.app.test_client()
        resp = self.as_persona('project_reader', 'GET', '/v1/conductors')
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_changed_policy_file_applies_without_restart(self):
        path = self.useFixture(fixtures.TempDir()).join('policy.yaml')
        with open(path, 'w') as f:
            json.dump({}, f)
        self.config(policy_file=path, group='oslo_policy')
        self.patch(policy.CachedEnforcer, 'RELOAD_INTERVAL', 0)
        self.app = pool_app.create_app()
        self.client = self.app.test_client()
        self.assertError(403, self.as_persona('project_reader', 'GET',
                                              '/v1/conductors'))
        with open(path, 'w') as f:
            json.dump({'baremetal:conductor:get': 'role:reader'}, f)
        # oslo.policy notices a change by the file's modification time.
        os.utime(path, (time.time() + 10, time.time() + 10))
        resp = self.as_persona('project_reader', 'GET', '/v1/conductors')
        self.assertEqual(200, resp.status_code, resp.get_data())

    def test_decisions_are_remembered(self):
        enforcer = self.app.extensions['pool_policy'].enforcer
        with mock.patch.object(enforcer, 'authorize',
                               wraps=enforcer.authorize) as authorize:
            for _ in range(3):
                self.as_persona('project_reader', 'GET', '/v1/conductors')
            self.as_persona('system_reader', 'GET', '/v1/conductors')
        self.assertEqual(2, authorize.call_count)


class TestHiddenReferences(PolicyTestCase):
    """Pools, profiles and workflows named in a body that the caller may
    not read are not found, as missing ones."""

    def test_node_patch_with_unreadable_profile_is_not_found(self):
        node = self.create_node(owner=PROJECT)
        pools_db.create(self.context, models.Profile,
                        {'name': 'admins', 'params': {'k': 'v'}})
        url = '/v1/nodes/%s' % node.uuid
        answers = [self.as_persona('project_member', 'PATCH', url, [
            {'op': 'add', 'path': '/profiles/-', 'value': name}])
            for name in ('admins', 'missing')]
        existing, missing = [self.assertError(404, r) for r in answers]
        self.assertEqual(missing.replace('missing', 'admins'), existing)
        self.assertEqual([], self.get_node(node.uuid)['profiles'])

    def test_node_patch_with_unreadable_workflow_is_not_found(self):
        node = self.create_node(owner=PROJECT)
        pools_db.create(self.context, models.Workflow, {'name': 'wipe'})
        resp = self.as_persona('project_member', 'PATCH',
                               '/v1/nodes/%s' % node.uuid, [
                                   {'op': 'add', 'path': '/workflow',
                                    'value': 'wipe'}])
        self.assertError(404, resp, 'Workflow wipe could not be found')

    def test_profiles_the_node_had_stay_without_reading_them(self):
        node = self.create_node(owner=PROJECT, profiles=['admins', 'old'])
        for name in ('admins', 'old'):
            pools_db.create(self.context, models.Profile, {'name': name})
        resp = self.as_persona('project_member', 'PATCH',
                               '/v1/nodes/%s' % node.uuid, [
                                   {'op': 'remove', 'path': '/profiles/1'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(['admins'], resp.get_json()['profiles'])

    def test_readable_profile_is_attached(self):
        self.use_policy({'pool:profile:get': 'role:member'})
        node = self.create_node(owner=PROJECT)
        pools_db.create(self.context, models.Profile, {'name': 'shared'})
        resp = self.as_persona('project_member', 'PATCH',
                               '/v1/nodes/%s' % node.uuid, [
                                   {'op': 'add', 'path': '/profiles/-',
                                    'value': 'shared'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(['shared'], resp.get_json()['profiles'])

    def test_pool_body_with_unreadable_parent_or_profile(self):
        self.use_policy({'pool:pool:create': 'role:admin'})
        pools_db.create(self.context, models.Pool, {'name': 'web'})
        pools_db.create(self.context, models.Profile, {'name': 'admins'})
        for body, name in (
                ({'parent_pool': 'web'}, 'Pool web'),
                ({'enter_actions': {'add_profiles': ['admins']}},
                 'Profile admins')):
            resp = self.as_persona('project_admin', 'POST', '/v1/pools',
                                   {'name': 'mine', **body})
            self.assertError(404, resp, name + ' could not be found')


class TestProjectPoolActions(PolicyTestCase):
    """Pool actions an operator lets project admins run touch only the
    nodes of their project."""

    def setUp(self):
        super().setUp()
        self.use_policy({'pool:pool:action': 'role:admin',
                         'pool:pool:get': 'role:admin'})
        pools_db.create(self.context, models.Pool, {'name': 'web'})
        self.mine = self.create_node(owner=PROJECT, name='mine')
        self.leased = self.create_node(owner=OTHER, lessee=PROJECT,
                                       name='leased')
        self.theirs = self.create_node(owner=OTHER, name='theirs')

    def act(self, persona: str, action: str, body: dict, pool='web'):
        return self.as_persona(persona, 'POST', '/v1/pools/%s/%s'
                               % (pool, action), body)

    def pool_of(self, node) -> str:
        return self.get_node(node.uuid)['pool']

    def test_named_node_of_another_project_is_not_found(self):
        for action in ('addMachines', 'allocateMachines'):
            answers = [self.act('project_admin', action,
                                {'machine_list': [name]})
                       for name in ('theirs', 'nothing')]
            theirs, nothing = [self.assertError(404, r) for r in answers]
            self.assertEqual(nothing.replace('nothing', 'theirs'), theirs)
        self.assertEqual('default', self.pool_of(self.theirs))
        self.assertFalse(self.get_node(self.theirs.uuid)['pool_allocated'])

    def test_unreadable_pool_and_profile_are_not_found(self):
        pools_db.create(self.context, models.Profile, {'name': 'admins'})
        resp = self.act('project_admin', 'allocateMachines',
                        {'add_profiles': ['admins']})
        self.assertError(404, resp, 'Profile admins could not be found')
        self.use_policy({'pool:pool:action': 'role:admin'})
        resp = self.act('project_admin', 'addMachines',
                        {'all_machines': True})
        self.assertError(404, resp, 'Pool web could not be found')
        self.assertEqual('default', self.pool_of(self.mine))

    def test_all_machines_moves_only_the_projects_nodes(self):
        resp = self.act('project_admin', 'addMachines',
                        {'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'mine', 'leased'},
                         {r['name'] for r in resp.get_json()})
        self.assertEqual('default', self.pool_of(self.theirs))
        resp = self.act('system_admin', 'addMachines',
                        {'machine_list': ['theirs']})
        self.assertEqual(200, resp.status_code, resp.get_data())
        resp = self.act('project_admin', 'removeMachines',
                        {'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('web', self.pool_of(self.theirs))

    def test_allocate_takes_only_the_projects_nodes(self):
        self.act('system_admin', 'addMachines', {'all_machines': True})
        resp = self.act('project_admin', 'allocateMachines', {'count': 3})
        self.assertEqual(409, resp.status_code, resp.get_data())
        resp = self.act('project_admin', 'allocateMachines',
                        {'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'mine', 'leased'},
                         {r['name'] for r in resp.get_json()})
        self.assertFalse(self.get_node(self.theirs.uuid)['pool_allocated'])
        # The allocations are the project's.
        resp = self.as_persona('project_admin', 'GET', '/v1/allocations')
        self.assertEqual(2, len(resp.get_json()['allocations']))

    def test_return_of_another_projects_node_is_not_found(self):
        self.act('system_admin', 'addMachines', {'all_machines': True})
        resp = self.act('system_admin', 'allocateMachines',
                        {'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        resp = self.act('project_admin', 'returnMachines',
                        {'machine_list': ['theirs']})
        self.assertError(404, resp, 'theirs')
        resp = self.as_persona('project_admin', 'POST', '/v1/nodes/%s/'
                               'returnToPool' % self.theirs.uuid, {})
        self.assertError(404, resp, self.theirs.uuid)
        node = self.get_node(self.theirs.uuid)
        self.assertEqual(('InUse', True),
                         (node['pool_status'], node['pool_allocated']))
        self.assertIsNotNone(node['allocation_uuid'])
        resp = self.act('project_admin', 'returnMachines',
                        {'all_machines': True})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual({'mine', 'leased'},
                         {r['name'] for r in resp.get_json()})
        self.assertEqual('InUse',
                         self.get_node(self.theirs.uuid)['pool_status'])


class TestReturnToPoolAuthorizesTheNode(PolicyTestCase):

    def test_unseen_node_is_not_found_and_kept(self):
        pools_db.create(self.context, models.Pool, {'name': 'web'})
        node = self.create_node(owner=PROJECT, name='mine')
        for action in ('addMachines', 'allocateMachines'):
            resp = self.as_persona('system_admin', 'POST',
                                   '/v1/pools/web/' + action,
                                   {'machine_list': ['mine']})
            self.assertEqual(200, resp.status_code, resp.get_data())
        # Even with the right to run pool actions on every node, a node
        # the caller cannot see is not found.
        self.use_policy({'pool:pool:action': 'role:admin',
                         'pool:pool:action_all': 'role:admin'})
        resp = self.as_persona('other_admin', 'POST',
                               '/v1/nodes/%s/returnToPool' % node.uuid, {})
        self.assertError(404, resp, node.uuid)
        got = self.get_node(node.uuid)
        self.assertEqual('InUse', got['pool_status'])
        self.assertIsNotNone(got['allocation_uuid'])
        resp = self.as_persona('project_admin', 'POST',
                               '/v1/nodes/%s/returnToPool' % node.uuid, {})
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertIsNone(self.get_node(node.uuid)['allocation_uuid'])


class TestSecrets(PolicyTestCase):
    """Secrets of driver_info and instance_info are masked as in Ironic.
    """

    DRIVER_INFO = {'ipmi_address': '10.0.0.1', 'ipmi_username': 'root',
                   'ipmi_password': 'hunter2',
                   'redfish': {'redfish_password': 'hunter3'}}
    INSTANCE_INFO = {'image_source': 'img', 'configdrive': 'secret-drive',
                     'image_url': 'https://swift/temp?sig=x'}
    MASKED_DRIVER_INFO = {'ipmi_address': '10.0.0.1',
                          'ipmi_username': 'root',
                          'ipmi_password': '******',
                          'redfish': {'redfish_password': '******'}}
    MASKED_INSTANCE_INFO = {'image_source': 'img', 'configdrive': '******',
                            'image_url': '******'}

    def setUp(self):
        super().setUp()
        self.node = self.create_node(owner=PROJECT,
                                     driver_info=self.DRIVER_INFO,
                                     instance_info=self.INSTANCE_INFO)

    def shown(self, persona: str) -> list[dict]:
        """The node as each read answers it."""
        url = '/v1/nodes/%s' % self.node.uuid
        answers = [
            self.as_persona(persona, 'GET', url).get_json(),
            self.as_persona(persona, 'GET', '/v1/nodes/detail'
                            ).get_json()['nodes'][0],
            self.as_persona(persona, 'GET', '/v1/nodes?fields=driver_info,'
                            'instance_info').get_json()['nodes'][0],
            self.as_persona(persona, 'PATCH', url, [
                {'op': 'add', 'path': '/extra/a', 'value': 1}]).get_json(),
            # The same again changes nothing: the node as it is.
            self.as_persona(persona, 'PATCH', url, [
                {'op': 'add', 'path': '/extra/a', 'value': 1}]).get_json(),
        ]
        return [{k: a[k] for k in ('driver_info', 'instance_info')}
                for a in answers]

    def test_masked_for_project_and_system_readers(self):
        masked = {'driver_info': self.MASKED_DRIVER_INFO,
                  'instance_info': self.MASKED_INSTANCE_INFO}
        for persona in ('project_member', 'system_admin'):
            for answer in self.shown(persona):
                self.assertEqual(masked, answer, persona)

    def test_configdrive_given_as_dict_is_masked_whole(self):
        nodes_db.update_node(self.context, self.node, {'instance_info': {
            'configdrive': {'user_data': '#cloud-config\npassword: x',
                            'meta_data': {'hostname': 'h'}}}})
        for persona in ('project_member', 'system_admin'):
            for answer in self.shown(persona):
                self.assertEqual({'configdrive': '******'},
                                 answer['instance_info'], persona)

    def test_shown_to_whom_the_rules_allow(self):
        self.use_policy({'show_password': 'role:admin and system_scope:all',
                         'show_instance_secrets':
                             'role:admin and system_scope:all'})
        for answer in self.shown('system_admin'):
            self.assertEqual({'driver_info': self.DRIVER_INFO,
                              'instance_info': self.INSTANCE_INFO}, answer)
        for answer in self.shown('project_member'):
            self.assertEqual('******',
                             answer['driver_info']['ipmi_password'])

    def test_a_change_keeps_the_secrets(self):
        url = '/v1/nodes/%s' % self.node.uuid
        resp = self.as_persona('project_member', 'PATCH', url, [
            {'op': 'add', 'path': '/driver_info/ipmi_port', 'value': 623}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('******', resp.get_json()['driver_info'][
            'ipmi_password'])
        node = nodes_db.get_node(self.context, self.node.uuid)
        self.assertEqual('hunter2', node.driver_info['ipmi_password'])


class TestSecretProfileParams(PolicyTestCase):
    """A profile's secret params reach only those pool:profile:show_secrets
    lets see them."""

    def setUp(self):
        super().setUp()
        resp = self.as_persona('system_admin', 'POST', '/v1/profiles', {
            'name': 'admins', 'secret_params': ['root_pw'],
            'params': {'root_pw': 's3cret', 'ntp': 'ntp.example'}})
        self.assertEqual(201, resp.status_code, resp.get_data())
        self.assertEqual(['root_pw'], resp.get_json()['secret_params'])
        self.node = self.create_node(owner=PROJECT, profiles=['admins'],
                                     params={'own': 1})
        self.url = '/v1/nodes/%s/params' % self.node.uuid

    def params(self, persona: str, query: str = '?aggregate=true') -> dict:
        resp = self.as_persona(persona, 'GET', self.url + query)
        self.assertEqual(200, resp.status_code, resp.get_data())
        return resp.get_json()

    def test_masked_for_who_may_not_read_the_profile(self):
        self.assertEqual({'root_pw': '******', 'ntp': 'ntp.example',
                          'own': 1, **POOL_PARAMS},
                         self.params('project_reader'))
        self.assertEqual({'own': 1, **POOL_PARAMS},
                         self.params('project_reader', ''))

    def test_masked_for_profile_readers(self):
        self.assertEqual({'root_pw': '******', 'ntp': 'ntp.example',
                          'own': 1, **POOL_PARAMS},
                         self.params('system_reader'))
        for persona in ('system_reader', 'system_admin'):
            resp = self.as_persona(persona, 'GET', '/v1/profiles/admins')
            self.assertEqual({'root_pw': '******', 'ntp': 'ntp.example'},
                             resp.get_json()['params'])

    def test_shown_when_the_policy_allows(self):
        self.use_policy({'pool:profile:show_secrets': 'role:reader'})
        self.assertEqual('s3cret', self.params('project_reader')['root_pw'])
        resp = self.as_persona('system_reader', 'GET', '/v1/profiles')
        self.assertEqual('s3cret',
                         resp.get_json()['profiles'][0]['params']['root_pw'])

    def test_the_nodes_own_param_is_shown(self):
        nodes_db.update_node(self.context, self.node,
                             {'params': {'root_pw': 'mine'}})
        self.assertEqual('mine', self.params('project_reader')['root_pw'])

    def test_marked_secret_later(self):
        resp = self.as_persona('system_admin', 'PATCH',
                               '/v1/profiles/admins', [
                                   {'op': 'add', 'path': '/secret_params/-',
                                    'value': 'ntp'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual(['root_pw', 'ntp'],
                         resp.get_json()['secret_params'])
        self.assertEqual('******', self.params('project_reader')['ntp'])


class TestAllocationPool(PolicyTestCase):

    def test_unreadable_pool_is_not_found_as_a_missing_one(self):
        pools_db.create(self.context, models.Pool, {'name': 'web'})
        answers = [self.as_persona('project_member', 'POST',
                                   '/v1/allocations',
                                   {'resource_class': 'baremetal',
                                    'pool': name})
                   for name in ('web', 'nothing')]
        web, nothing = [self.assertError(404, r) for r in answers]
        self.assertEqual(nothing.replace('nothing', 'web'), web)
        resp = self.as_persona('system_admin', 'POST', '/v1/allocations',
                               {'resource_class': 'baremetal',
                                'pool': 'web'})
        self.assertEqual(201, resp.status_code, resp.get_data())


class TestNodeSeenFirst(PolicyTestCase):

    def test_an_unseen_node_is_not_found_whatever_the_rule_allows(self):
        # Every rule of a node operation lets anyone through.
        self.use_policy({rule.name: '@' for rule in policy.RULES
                         if rule.name.startswith(('baremetal:node:',
                                                  'pool:pool:action'))
                         and rule.name != 'baremetal:node:get'})
        for method, path, body, _expected in CASES:
            if '{node}' not in path or method == 'GET':
                continue
            url = path.format(**self.resources(path))
            before = self.get_node(url.split('/')[3])
            resp = self.as_persona('other_member', method, url, body)
            self.assertError(404, resp)
            after = self.get_node(before['uuid'])
            self.assertEqual(before['updated_at'], after['updated_at'],
                             '%s %s' % (method, path))
