"""oslo.policy rules of every API operation, named as Ironic names them."""
import threading
import time

import flask
from oslo_policy import policy

from pool_conductor import exception

# Ironic's personas.
SYSTEM_ADMIN = 'role:admin and system_scope:all'
SYSTEM_MEMBER = 'role:member and system_scope:all'
SYSTEM_READER = 'role:reader and system_scope:all'
API_READER = 'role:reader'
API_MEMBER = 'role:member'

NODE_READER = ('(%s) or (role:reader and project_id:%%(node.owner)s) or '
               '(role:reader and project_id:%%(node.lessee)s)'
               % SYSTEM_READER)
NODE_OWNER_READER = ('(%s) or (role:reader and project_id:%%(node.owner)s)'
                     % SYSTEM_READER)
NODE_OWNER_MEMBER_LESSEE_ADMIN = (
    '(%s) or (role:member and project_id:%%(node.owner)s) or '
    '(role:admin and project_id:%%(node.lessee)s)' % SYSTEM_MEMBER)
NODE_OWNER_ADMIN = ('(%s) or (role:admin and project_id:%%(node.owner)s)'
                    % SYSTEM_ADMIN)
NODE_SYSTEM_MEMBER_OWNER_ADMIN = (
    '(%s) or (role:admin and project_id:%%(node.owner)s)' % SYSTEM_MEMBER)
NODE_SYSTEM_MEMBER_OWNER_LESSEE_ADMIN = (
    '(%s) or (role:admin and project_id:%%(node.owner)s) or '
    '(role:admin and project_id:%%(node.lessee)s)' % SYSTEM_MEMBER)
ALLOCATION_READER = ('(%s) or (role:reader and '
                     'project_id:%%(allocation.owner)s)' % SYSTEM_READER)
ALLOCATION_MEMBER = ('(%s) or (role:member and '
                     'project_id:%%(allocation.owner)s)' % SYSTEM_MEMBER)


def _rule(name: str, check: str, description: str, operations):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations])


NODE = '/v1/nodes/{node_ident}'
PORT = '/v1/ports/{port_uuid}'
PORTGROUP = '/v1/portgroups/{portgroup_ident}'
CHASSIS = '/v1/chassis/{chassis_uuid}'
CONNECTOR = '/v1/volume/connectors/{volume_connector_uuid}'
TARGET = '/v1/volume/targets/{volume_target_uuid}'
ALLOC = '/v1/allocations/{allocation_ident}'

RULES = [
    _rule('baremetal:node:create', SYSTEM_ADMIN, 'Create a node.',
          [('POST', '/v1/nodes')]),
    _rule('baremetal:node:list', API_READER,
          'List the nodes one may see: all of them with '
          'baremetal:node:list_all, else those the project owns or leases.',
          [('GET', '/v1/nodes'), ('GET', '/v1/nodes/detail')]),
    _rule('baremetal:node:list_all', SYSTEM_READER,
          'List the nodes of every project.',
          [('GET', '/v1/nodes'), ('GET', '/v1/nodes/detail')]),
    _rule('baremetal:node:get', NODE_READER, 'Show a node.',
          [('GET', NODE), ('GET', NODE + '/states')]),
    _rule('baremetal:node:update', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Update a node.', [('PATCH', NODE)]),
    _rule('baremetal:node:get_indicator_state', NODE_READER,
          'Show the indicators of a node and their states.',
          [('GET', NODE + '/management/indicators'),
           ('GET', NODE + '/management/indicators/{indicator}')]),
    _rule('baremetal:node:set_indicator_state',
          NODE_OWNER_MEMBER_LESSEE_ADMIN, 'Set an indicator of a node.',
          [('PUT', NODE + '/management/indicators/{indicator}')]),
    _rule('baremetal:node:disable_cleaning', SYSTEM_ADMIN,
          'Disable automated cleaning of a node (automated_clean set '
          'false).', [('PATCH', NODE)]),
    _rule('baremetal:node:update_owner', SYSTEM_MEMBER,
          'Change the owner or the lessee of a node.', [('PATCH', NODE)]),
    _rule('baremetal:node:delete', SYSTEM_ADMIN, 'Delete a node.',
          [('DELETE', NODE)]),
    _rule('baremetal:node:set_power_state', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Change the power state of a node.',
          [('PUT', NODE + '/states/power')]),
    _rule('baremetal:node:set_provision_state',
          NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Change the provision state of a node.',
          [('PUT', NODE + '/states/provision')]),
    _rule('baremetal:node:validate', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Validate the driver interfaces of a node.',
          [('GET', NODE + '/validate')]),
    _rule('baremetal:node:get_console', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Show whether the console of a node is enabled, and how to reach '
          'it.', [('GET', NODE + '/states/console')]),
    _rule('baremetal:node:set_console_state',
          NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Enable or disable the console of a node.',
          [('PUT', NODE + '/states/console')]),
    _rule('baremetal:node:inject_nmi', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Inject a non-maskable interrupt into a node.',
          [('PUT', NODE + '/management/inject_nmi')]),
    _rule('baremetal:node:set_raid_state', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Set the target RAID configuration of a node.',
          [('PUT', NODE + '/states/raid')]),
    _rule('baremetal:node:set_maintenance', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Put a node in maintenance.', [('PUT', NODE + '/maintenance')]),
    _rule('baremetal:node:clear_maintenance',
          NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Take a node out of maintenance.',
          [('DELETE', NODE + '/maintenance')]),
    _rule('pool:node:maintenance_window:create', NODE_OWNER_ADMIN,
          'Book a maintenance window of a node.',
          [('POST', NODE + '/maintenance_windows')]),
    _rule('pool:node:maintenance_window:list', NODE_READER,
          'List and show the maintenance windows of a node.',
          [('GET', NODE + '/maintenance_windows'),
           ('GET', NODE + '/maintenance_windows/{window_uuid}')]),
    _rule('pool:node:maintenance_window:delete', NODE_OWNER_ADMIN,
          'Delete a maintenance window of a node.',
          [('DELETE', NODE + '/maintenance_windows/{window_uuid}')]),
    _rule('pool:node:slot:list', NODE_OWNER_READER,
          'List the times a node is held (the allocations of other '
          'projects among them): windowed allocations and maintenance '
          'windows.', [('GET', NODE + '/slots')]),
    _rule('baremetal:node:traits:list', NODE_READER,
          'List the traits of a node.', [('GET', NODE + '/traits')]),
    _rule('baremetal:node:traits:set', NODE_OWNER_ADMIN,
          'Add or replace traits of a node.',
          [('PUT', NODE + '/traits'), ('PUT', NODE + '/traits/{trait}')]),
    _rule('baremetal:node:traits:delete', NODE_OWNER_ADMIN,
          'Remove traits of a node.',
          [('DELETE', NODE + '/traits'),
           ('DELETE', NODE + '/traits/{trait}')]),
    _rule('baremetal:port:get', NODE_READER,
          'Show a port: one of a node the project owns or leases.',
          [('GET', PORT), ('GET', NODE + '/ports'),
           ('GET', NODE + '/ports/detail')]),
    _rule('baremetal:port:list', API_READER,
          'List the ports one may see: all of them with '
          'baremetal:port:list_all, else those of the nodes the project '
          'owns or leases.',
          [('GET', '/v1/ports'), ('GET', '/v1/ports/detail')]),
    _rule('baremetal:port:list_all', SYSTEM_READER,
          'List the ports of every node.',
          [('GET', '/v1/ports'), ('GET', '/v1/ports/detail')]),
    _rule('baremetal:port:create', NODE_OWNER_ADMIN,
          'Create a port.', [('POST', '/v1/ports')]),
    _rule('baremetal:port:update', NODE_OWNER_ADMIN,
          'Update a port.', [('PATCH', PORT)]),
    _rule('baremetal:port:delete', NODE_OWNER_ADMIN,
          'Delete a port.', [('DELETE', PORT)]),
    _rule('baremetal:portgroup:get', NODE_READER,
          'Show a port group: one of a node the project owns or leases.',
          [('GET', PORTGROUP), ('GET', NODE + '/portgroups'),
           ('GET', NODE + '/portgroups/detail'),
           ('GET', PORTGROUP + '/ports'),
           ('GET', PORTGROUP + '/ports/detail')]),
    _rule('baremetal:portgroup:list', API_READER,
          'List the port groups one may see: all of them with '
          'baremetal:portgroup:list_all, else those of the nodes the '
          'project owns or leases.',
          [('GET', '/v1/portgroups'), ('GET', '/v1/portgroups/detail')]),
    _rule('baremetal:portgroup:list_all', SYSTEM_READER,
          'List the port groups of every node.',
          [('GET', '/v1/portgroups'), ('GET', '/v1/portgroups/detail')]),
    _rule('baremetal:portgroup:create', NODE_OWNER_ADMIN,
          'Create a port group.', [('POST', '/v1/portgroups')]),
    _rule('baremetal:portgroup:update', NODE_SYSTEM_MEMBER_OWNER_ADMIN,
          'Update a port group.', [('PATCH', PORTGROUP)]),
    _rule('baremetal:portgroup:delete', NODE_OWNER_ADMIN,
          'Delete a port group.', [('DELETE', PORTGROUP)]),
    _rule('baremetal:volume:get', NODE_READER,
          'Show volume connectors and targets: those of a node the '
          'project owns or leases.',
          [('GET', '/v1/volume'), ('GET', CONNECTOR), ('GET', TARGET),
           ('GET', NODE + '/volume'), ('GET', NODE + '/volume/connectors'),
           ('GET', NODE + '/volume/targets')]),
    _rule('baremetal:volume:list', API_READER,
          'List the volume connectors and targets one may see: all of '
          'them with baremetal:volume:list_all, else those of the nodes '
          'the project owns or leases.',
          [('GET', '/v1/volume/connectors'), ('GET', '/v1/volume/targets'),
           ('GET', NODE + '/volume/connectors'),
           ('GET', NODE + '/volume/targets')]),
    _rule('baremetal:volume:list_all', SYSTEM_READER,
          'List the volume connectors and targets of every node.',
          [('GET', '/v1/volume/connectors'), ('GET', '/v1/volume/targets'),
           ('GET', NODE + '/volume/connectors'),
           ('GET', NODE + '/volume/targets')]),
    _rule('baremetal:volume:create', NODE_SYSTEM_MEMBER_OWNER_LESSEE_ADMIN,
          'Create a volume connector or target.',
          [('POST', '/v1/volume/connectors'),
           ('POST', '/v1/volume/targets')]),
    _rule('baremetal:volume:update', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Update a volume connector or target.',
          [('PATCH', CONNECTOR), ('PATCH', TARGET)]),
    _rule('baremetal:volume:delete', NODE_SYSTEM_MEMBER_OWNER_LESSEE_ADMIN,
          'Delete a volume connector or target.',
          [('DELETE', CONNECTOR), ('DELETE', TARGET)]),
    _rule('baremetal:volume:view_target_properties',
          '(%s) or (role:admin)' % SYSTEM_READER,
          'See the properties of volume targets (they may hold '
          'credentials); others see them masked.',
          [('GET', TARGET), ('GET', '/v1/volume/targets')]),
    _rule('baremetal:chassis:get', SYSTEM_READER, 'Show chassis.',
          [('GET', '/v1/chassis'), ('GET', '/v1/chassis/detail'),
           ('GET', CHASSIS), ('GET', CHASSIS + '/nodes')]),
    _rule('baremetal:chassis:create', SYSTEM_ADMIN, 'Create a chassis.',
          [('POST', '/v1/chassis')]),
    _rule('baremetal:chassis:update', SYSTEM_MEMBER, 'Update a chassis.',
          [('PATCH', CHASSIS)]),
    _rule('baremetal:chassis:delete', SYSTEM_ADMIN, 'Delete a chassis.',
          [('DELETE', CHASSIS)]),
    _rule('baremetal:node:update:chassis_uuid', SYSTEM_ADMIN,
          'Set or change the chassis of a node.', [('PATCH', NODE)]),
    _rule('baremetal:node:vif:list', NODE_READER,
          'List the VIFs attached to a node.', [('GET', NODE + '/vifs')]),
    _rule('baremetal:node:vif:attach', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Attach a VIF to a node.', [('POST', NODE + '/vifs')]),
    _rule('baremetal:node:vif:detach', NODE_OWNER_MEMBER_LESSEE_ADMIN,
          'Detach a VIF from a node.',
          [('DELETE', NODE + '/vifs/{vif_id}')]),
    _rule('baremetal:deploy_template:get', SYSTEM_READER,
          'Show or list deploy templates.',
          [('GET', '/v1/deploy_templates'),
           ('GET', '/v1/deploy_templates/{template_ident}')]),
    _rule('baremetal:deploy_template:create', SYSTEM_ADMIN,
          'Create a deploy template.', [('POST', '/v1/deploy_templates')]),
    _rule('baremetal:deploy_template:update', SYSTEM_ADMIN,
          'Update a deploy template.',
          [('PATCH', '/v1/deploy_templates/{template_ident}')]),
    _rule('baremetal:deploy_template:delete', SYSTEM_ADMIN,
          'Delete a deploy template.',
          [('DELETE', '/v1/deploy_templates/{template_ident}')]),
    _rule('baremetal:allocation:get', ALLOCATION_READER,
          'Show an allocation.',
          [('GET', ALLOC), ('GET', NODE + '/allocation')]),
    _rule('baremetal:allocation:list', API_READER,
          'List the allocations one may see: all of them with '
          'baremetal:allocation:list_all, else those of the project.',
          [('GET', '/v1/allocations')]),
    _rule('baremetal:allocation:list_all', SYSTEM_READER,
          'List the allocations of every project.',
          [('GET', '/v1/allocations')]),
    _rule('baremetal:allocation:create', API_MEMBER,
          'Create an allocation.', [('POST', '/v1/allocations')]),
    _rule('pool:allocation_candidates:get', API_MEMBER,
          'Preview an allocation request: the nodes it would match, the '
          'one it would get now and why the others are left out. Without '
          'baremetal:allocation:create_restricted only the nodes the '
          'project owns or leases are looked at.',
          [('POST', '/v1/allocation_candidates'),
           ('GET', '/v1/allocation_candidates')]),
    _rule('pool:availability:get', API_MEMBER,
          'See when an allocation request could start a window, and the '
          'free periods of the nodes it matches. Without '
          'baremetal:allocation:create_restricted only the nodes the '
          'project owns or leases are looked at.',
          [('GET', '/v1/availability')]),
    _rule('baremetal:allocation:create_restricted', SYSTEM_MEMBER,
          'Create an allocation for any owner, among all nodes. Without '
          'it the owner is the project of the token and the candidates '
          'are the nodes the project owns or leases.',
          [('POST', '/v1/allocations')]),
    _rule('baremetal:allocation:update', ALLOCATION_MEMBER,
          'Change the name or extra of an allocation.',
          [('PATCH', ALLOC)]),
    _rule('baremetal:allocation:delete', ALLOCATION_MEMBER,
          'Delete an allocation.',
          [('DELETE', ALLOC), ('DELETE', NODE + '/allocation')]),
    _rule('baremetal:driver:get', SYSTEM_READER,
          'List and show drivers.',
          [('GET', '/v1/drivers'), ('GET', '/v1/drivers/{driver_name}')]),
    _rule('baremetal:driver:get_properties', SYSTEM_READER,
          'Show the driver_info properties of a driver.',
          [('GET', '/v1/drivers/{driver_name}/properties')]),
    _rule('baremetal:conductor:get', SYSTEM_READER,
          'List and show conductors.',
          [('GET', '/v1/conductors'), ('GET', '/v1/conductors/{hostname}')]),
]
# Pools, profiles, workflows and brokers are read by system readers and
# administered by system admins, as Ironic's deploy templates.
for _noun in ('pool', 'profile', 'workflow', 'broker', 'external_manager'):
    for _verb, _method, _check in (
            ('get', 'GET', SYSTEM_READER), ('list', 'GET', SYSTEM_READER),
            ('create', 'POST', SYSTEM_ADMIN),
            ('update', 'PATCH', SYSTEM_ADMIN),
            ('delete', 'DELETE', SYSTEM_ADMIN)):
        RULES.append(_rule(
            'pool:%s:%s' % (_noun, _verb), _check,
            '%s %ss.' % (_verb.capitalize(), _noun),
            [(_method, '/v1/%ss' % _noun)]))
# Providers are administered by system admins and read by project
# readers too, who name them in their claims.
for _verb, _method, _check in (
        ('get', 'GET', API_READER), ('list', 'GET', API_READER),
        ('create', 'POST', SYSTEM_ADMIN), ('update', 'PATCH', SYSTEM_ADMIN),
        ('delete', 'DELETE', SYSTEM_ADMIN)):
    RULES.append(_rule('pool:provider:%s' % _verb, _check,
                       '%s providers.' % _verb.capitalize(),
                       [(_method, '/v1/providers')]))
CLAIM = '/v1/claims/{claim_ident}'
RULES += [
    _rule('pool:content:export', SYSTEM_READER,
          'Export the workflows, profiles, brokers, pools and providers as '
          'one document (their secrets are left out).',
          [('GET', '/v1/content')]),
    _rule('pool:content:import', SYSTEM_ADMIN,
          'Import a content document: create or change the workflows, '
          'profiles, brokers, pools and providers it holds.',
          [('POST', '/v1/content')]),
]
CLAIM_READER = ('(%s) or (role:reader and project_id:%%(claim.owner)s)'
                % SYSTEM_READER)
CLAIM_MEMBER = ('(%s) or (role:member and project_id:%%(claim.owner)s)'
                % SYSTEM_MEMBER)
RULES += [
    _rule('pool:metrics:get', SYSTEM_READER,
          'Read the Prometheus metrics (unless [api] public_metrics lets '
          'anyone read them).', [('GET', '/metrics')]),
    _rule('pool:fleet:get', SYSTEM_READER,
          'Read the overview of the fleet: counts by state of every node, '
          'pool member, allocation and claim, the conductors and what they '
          'hold, lifespans ending soon and the newest warnings and errors; '
          'the dashboard shows it.',
          [('GET', '/v1/fleet'), ('GET', '/dashboard')]),
]

RULES += [
    _rule('pool:claim:get', CLAIM_READER,
          'Show a claim, or a handle of it.',
          [('GET', CLAIM), ('GET', '/v1/handles/{handle_uuid}')]),
    _rule('pool:claim:list', API_READER,
          'List the claims one may see: all of them with '
          'pool:claim:list_all, else those of the project (and their '
          'handles).',
          [('GET', '/v1/claims'), ('GET', '/v1/handles')]),
    _rule('pool:claim:list_all', SYSTEM_READER,
          'List the claims (and handles) of every project.',
          [('GET', '/v1/claims'), ('GET', '/v1/handles')]),
    _rule('pool:claim:create', API_MEMBER,
          'Create a claim; its owner is the project of the token.',
          [('POST', '/v1/claims')]),
    _rule('pool:claim:create_unrestricted', SYSTEM_MEMBER,
          'Create a claim that may bind any node of its providers\' '
          'pools; without it a claim binds only nodes its project owns '
          'or leases (a machine a broker makes for it is leased to the '
          'project).', [('POST', '/v1/claims')]),
    _rule('pool:claim:update', CLAIM_MEMBER,
          'Change the lifespan_end or the resource templates of a claim.',
          [('PATCH', CLAIM)]),
    _rule('pool:claim:delete', CLAIM_MEMBER,
          'Delete a claim, releasing its machines.', [('DELETE', CLAIM)]),
]
RESERVATION_READER = ('(%s) or (role:reader and '
                      'project_id:%%(reservation.owner)s)' % SYSTEM_READER)
RESERVATION_MEMBER = ('(%s) or (role:member and '
                      'project_id:%%(reservation.owner)s)' % SYSTEM_MEMBER)
RESERVATION = '/v1/reservations/{reservation_ident}'
RULES += [
    _rule('pool:reservation:get', RESERVATION_READER,
          'Show a reservation.', [('GET', RESERVATION)]),
    _rule('pool:reservation:list', API_READER,
          'List the reservations one may see: all of them with '
          'pool:reservation:list_all, else those of the project.',
          [('GET', '/v1/reservations')]),
    _rule('pool:reservation:list_all', SYSTEM_READER,
          'List the reservations of every project.',
          [('GET', '/v1/reservations')]),
    _rule('pool:reservation:create', API_MEMBER,
          'Create a reservation (windowed allocations of several nodes). '
          'Without baremetal:allocation:create_restricted its owner is the '
          'project of the token and it takes only the project\'s nodes.',
          [('POST', '/v1/reservations')]),
    _rule('pool:reservation:delete', RESERVATION_MEMBER,
          'Delete a reservation and all its allocations.',
          [('DELETE', RESERVATION)]),
]
_POOL_ACTIONS = [('POST', '/v1/pools/{pool_ident}/%s' % action)
                 for action in ('addMachines', 'removeMachines',
                                'allocateMachines', 'returnMachines')]
RULES += [
    _rule('pool:pool:action', SYSTEM_ADMIN,
          'Run an action on a pool, or return a node to its pool.',
          _POOL_ACTIONS + [('POST', NODE + '/returnToPool')]),
    _rule('pool:pool:action_all', SYSTEM_MEMBER,
          'Let pool actions touch the nodes of every project. Without it '
          'an action selects only the nodes the project of the token owns '
          'or leases, and a node named in it that the project neither '
          'owns nor leases is not found.',
          _POOL_ACTIONS + [('POST', NODE + '/returnToPool')]),
    _rule('pool:broker:show_secrets', '!',
          'Show the secrets among the parameters of brokers (values of '
          'keys such as password or token); without it they read '
          '******.',
          [('GET', '/v1/brokers'), ('GET', '/v1/brokers/{broker_name}')]),
    _rule('pool:external_manager:show_secrets', '!',
          'Show the secrets among the parameters of external managers '
          '(values of keys such as password or token); without it they '
          'read ******.',
          [('GET', '/v1/external_managers'),
           ('GET', '/v1/external_managers/{manager_name}')]),
    _rule('pool:profile:show_secrets', '!',
          'Show the secret params of profiles (those a profile names in '
          'secret_params, and values of keys such as password or token), '
          'also in a node\'s aggregated params; without it they read '
          '******.',
          [('GET', '/v1/profiles'), ('GET', '/v1/profiles/{profile_name}'),
           ('GET', NODE + '/params')]),
    # Ironic's rule: owners, not lessees, read a node's history, which
    # spans the leases of other projects.
    _rule('baremetal:node:history:get',
          '(%s) or (role:reader and project_id:%%(node.owner)s)'
          % SYSTEM_READER,
          'Read the history of a node: the events of its changes.',
          [('GET', NODE + '/history'),
           ('GET', NODE + '/history/{event_uuid}')]),
    _rule('pool:allocation:history:get', ALLOCATION_READER,
          'Read the history of an allocation.',
          [('GET', ALLOC + '/history'),
           ('GET', ALLOC + '/history/{event_uuid}')]),
    _rule('pool:claim:history:get', CLAIM_READER,
          'Read the history of a claim.',
          [('GET', CLAIM + '/history'),
           ('GET', CLAIM + '/history/{event_uuid}')]),
    _rule('pool:pool:history:get', SYSTEM_READER,
          'Read the history of a pool.',
          [('GET', '/v1/pools/{pool_name}/history'),
           ('GET', '/v1/pools/{pool_name}/history/{event_uuid}')]),
    _rule('pool:event:list', API_READER,
          'Read and watch the events one may see: all of them with '
          'pool:event:list_all, else those of objects the project owns or '
          'leases and those its requests caused.',
          [('GET', '/v1/events')]),
    _rule('pool:event:list_all', SYSTEM_READER,
          'Read and watch the events of every project.',
          [('GET', '/v1/events')]),
    # Ironic's names; the first exists for legacy reasons there.
    policy.RuleDefault(
        'show_password', '!',
        description='Show or mask secrets within node driver '
                    'information in API responses.'),
    policy.RuleDefault(
        'show_instance_secrets', '!',
        description='Show or mask secrets within instance information '
                    'in API responses.'),
]


def list_rules() -> list:
    """The rule defaults, for oslopolicy-sample-generator."""
    return RULES


class CachedEnforcer:
    """An oslo.policy enforcer that remembers its decisions.

    oslo.policy looks for changed policy files and walks the rule's check
    tree on every call, a few hundred microseconds each; the API checks
    one to three rules per request. A decision depends only on the rules,
    the target and the credentials, so it is remembered until the rules
    change, which is looked for at most every RELOAD_INTERVAL seconds.
    """

    RELOAD_INTERVAL = 1.0
    MAX_DECISIONS = 10000

    def __init__(self, conf):
        self.enforcer = policy.Enforcer(conf)
        self.enforcer.register_defaults(RULES)
        self._decisions: dict = {}
        self._rules = None
        self._checked = 0.0
        self._lock = threading.Lock()

    def _fresh_rules(self) -> None:
        now = time.monotonic()
        if now - self._checked < self.RELOAD_INTERVAL:
            return
        with self._lock:
            self.enforcer.load_rules()
            if self.enforcer.rules is not self._rules:
                self._rules = self.enforcer.rules
                self._decisions = {}
            self._checked = now

    def allowed(self, rule: str, target: dict, context) -> bool:
        self._fresh_rules()
        creds = context.to_policy_values()
        key = (rule, tuple(sorted(target.items())),
               tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                            for k, v in creds.items())))
        decision = self._decisions.get(key)
        if decision is None:
            decision = self.enforcer.authorize(rule, target, creds,
                                               do_raise=False)
            decisions = self._decisions
            if len(decisions) >= self.MAX_DECISIONS:
                decisions.clear()
            decisions[key] = decision
        return decision


def _make_enforcer() -> CachedEnforcer:
    # Imported here: oslopolicy tools load this module after they parsed
    # their own command line, when pool's options can no longer register.
    from pool_conductor.conf import CONF
    return CachedEnforcer(CONF)


def get_enforcer() -> policy.Enforcer:
    """The enforcer of this process, for oslopolicy tools."""
    return _make_enforcer().enforcer


def setup(app: flask.Flask) -> None:
    """Give the application its enforcer: policy files are read once, and
    again only when they change."""
    app.extensions['pool_policy'] = _make_enforcer()


def allowed(rule: str, target: dict | None = None) -> bool:
    """Whether the request's context passes a rule."""
    return flask.current_app.extensions['pool_policy'].allowed(
        rule, target or {}, flask.g.context)


def authorize(rule: str, target: dict | None = None,
              read_rule: str | None = None,
              hidden: Exception | None = None) -> None:
    """Step one of every handler: check the request may do this.

    :param read_rule: the rule to see the target at all, checked first:
        a caller who may not gets ``hidden`` whatever rule allows, so
        that it cannot tell the target exists nor act on it
    :raises: Forbidden, or hidden
    """
    if read_rule is not None and not allowed(read_rule, target):
        raise hidden
    if not allowed(rule, target):
        raise exception.Forbidden()


def authorize_node(rule: str, node, ident: str) -> None:
    """authorize() on a node: NodeNotFound for one the caller cannot see.
    """
    authorize(rule, {'node.owner': node.owner or '',
                     'node.lessee': node.lessee or ''},
              'baremetal:node:get', exception.NodeNotFound(node=ident))


def authorize_allocation(rule: str, alloc, ident: str) -> None:
    """authorize() on an allocation: AllocationNotFound for one the
    caller cannot see."""
    authorize(rule, {'allocation.owner': alloc.owner or ''},
              'baremetal:allocation:get',
              exception.AllocationNotFound(allocation=ident))


def authorize_claim(rule: str, claim, ident: str) -> None:
    """authorize() on a claim: ClaimNotFound for one the caller cannot
    see."""
    authorize(rule, {'claim.owner': claim.owner or ''}, 'pool:claim:get',
              exception.ClaimNotFound(claim=ident))


def authorize_reservation(rule: str, found, ident: str) -> None:
    """authorize() on a reservation: ReservationNotFound for one the
    caller cannot see."""
    authorize(rule, {'reservation.owner': found.owner or ''},
              'pool:reservation:get',
              exception.ReservationNotFound(reservation=ident))


def project_scope(list_all_rule: str) -> str | None:
    """The project a list is limited to, None when it sees all.

    :raises: Forbidden for a caller with neither right nor project
    """
    if allowed(list_all_rule):
        return None
    project = flask.g.context.project_id
    if not project:
        raise exception.Forbidden()
    return project


# The rule to read each kind of named object.
READ_RULES = {'Pool': 'pool:pool:get', 'Profile': 'pool:profile:get',
              'Workflow': 'pool:workflow:get', 'Broker': 'pool:broker:get',
              'Provider': 'pool:provider:get',
              'ExternalManager': 'pool:external_manager:get'}


def check_readable(kind: str, names) -> None:
    """Named pools, profiles or workflows a request refers to must be
    ones the caller may read: else the first is not found, with the
    message of a missing one, whether it exists or not.

    :raises: ObjectNotFound
    """
    names = [n for n in names if n]
    if names and not allowed(READ_RULES[kind]):
        raise exception.ObjectNotFound(kind=kind, name=names[0])
