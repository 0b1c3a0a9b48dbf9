"""Every event type, named once.

An event type reads ``<prefix>.<object>.<action>[.<status>]`` as Ironic's
notifications do: ``baremetal.`` for the events Ironic has (the same names,
so that its consumers read them), ``pool.`` for pool's own. The fixed
types are the constants below; the families whose action or status varies
are built by the functions after them, from parts they check, so that a
type no consumer knows cannot be made by a typo. doc/source/events.rst
lists them for operators.
"""

# The fixed types, Ironic's first.

ALLOCATION_CREATE_END = 'baremetal.allocation.create.end'
ALLOCATION_DELETE_END = 'baremetal.allocation.delete.end'
ALLOCATION_UPDATE_END = 'baremetal.allocation.update.end'
NODE_CONSOLE_SET_END = 'baremetal.node.console_set.end'
NODE_CREATE_END = 'baremetal.node.create.end'
NODE_DELETE_END = 'baremetal.node.delete.end'
NODE_MAINTENANCE_SET_END = 'baremetal.node.maintenance_set.end'
NODE_POWER_SET_END = 'baremetal.node.power_set.end'
NODE_UPDATE_END = 'baremetal.node.update.end'

# pool's own.
ALLOCATION_BEFORE_END = 'pool.allocation.before_end'
ALLOCATION_ENDED = 'pool.allocation.ended'
ALLOCATION_HEALED = 'pool.allocation.healed'
ALLOCATION_IDLE_WARNING = 'pool.allocation.idle_warning'
ALLOCATION_LOST = 'pool.allocation.lost'
ALLOCATION_MISSING_RESOURCES = 'pool.allocation.missing_resources'
ALLOCATION_RECLAIMED = 'pool.allocation.reclaimed'
ALLOCATION_SCHEDULED = 'pool.allocation.scheduled'
ALLOCATION_STARTED = 'pool.allocation.started'
ALLOCATION_STARTING = 'pool.allocation.starting'
ALLOCATION_STATE_SET_ERROR = 'pool.allocation.state_set.error'
CLAIM_BOUND = 'pool.claim.bound'
CLAIM_CREATE_END = 'pool.claim.create.end'
CLAIM_DELETED = 'pool.claim.deleted'
CLAIM_ERROR = 'pool.claim.error'
CLAIM_HANDLE_LOST = 'pool.claim.handle.lost'
CLAIM_UPDATE_END = 'pool.claim.update.end'
CONDUCTOR_DEAD = 'pool.conductor.dead'
CONDUCTOR_REGISTERED = 'pool.conductor.registered'
CONDUCTOR_TAKEOVER = 'pool.conductor.takeover'
CONDUCTOR_UNREGISTERED = 'pool.conductor.unregistered'
LIFESPAN_EXPIRED = 'pool.lifespan.expired'
LIFESPAN_EXTENDED = 'pool.lifespan.extended'
NODE_MAINTENANCE_WINDOW_CREATE_END = 'pool.node.maintenance_window.create.end'
NODE_MAINTENANCE_WINDOW_DELETE_END = 'pool.node.maintenance_window.delete.end'
NODE_MAINTENANCE_WINDOW_ENDED = 'pool.node.maintenance_window.ended'
NODE_MAINTENANCE_WINDOW_STARTED = 'pool.node.maintenance_window.started'
NODE_MAINTENANCE_WINDOW_WAITING = 'pool.node.maintenance_window.waiting'
NODE_POOL_STATUS_SET_SUCCESS = 'pool.node.pool_status_set.success'
NODE_WAIT_TIMEOUT_ERROR = 'pool.node.wait_timeout.error'
POOL_AUTOFILL_ERROR = 'pool.pool.autofill.error'
RESERVATION_CREATE_END = 'pool.reservation.create.end'
RESERVATION_DELETE_END = 'pool.reservation.delete.end'


# The families: each builds its types from the parts it accepts.
PROVISION_SET_STATUSES = ('start', 'end', 'success', 'error')
STATE_SET_STATUSES = ('success', 'error')
CRUD_ACTIONS = ('create', 'update', 'delete')
# The resources besides nodes and allocations whose changes are Ironic's
# baremetal.<resource>.<action>.end.
RESOURCES = ('chassis', 'deploy_template', 'port', 'portgroup',
             'volumeconnector', 'volumetarget')
# The objects of pool named by their names (pool_conductor.named).
NAMED = ('pool', 'broker', 'profile', 'workflow', 'provider',
         'external_manager')
AUTOFILL_ACTIONS = ('scale_up', 'scale_down')
ROUND_STATUSES = ('start', 'end', 'error')
BROKER_ACTIONS = ('create', 'destroy')
# What a round of an external manager's reconciler did to a node, and to
# the manager.
EXTERNAL_NODE_ACTIONS = ('acquire.success', 'release.success', 'taken',
                         'gone', 'freed', 'conflict_resolved', 'claim_lost',
                         'unknown', 'conflict')
EXTERNAL_MANAGER_ACTIONS = ('sync.success', 'sync.error')


def _checked(part: str, allowed: tuple) -> str:
    if part not in allowed:
        raise ValueError('%r is not one of %s' % (part, ', '.join(allowed)))
    return part


def node_provision_set(status: str) -> str:
    """baremetal.node.provision_set.<status>, as Ironic's."""
    return 'baremetal.node.provision_set.%s' % _checked(
        status, PROVISION_SET_STATUSES)


def allocation_state_set(status: str) -> str:
    """pool.allocation.state_set.<status>: a conductor's outcome."""
    return 'pool.allocation.state_set.%s' % _checked(status,
                                                     STATE_SET_STATUSES)


def resource_change(resource: str, action: str) -> str:
    """baremetal.<resource>.<action>.end, as Ironic's."""
    return 'baremetal.%s.%s.end' % (_checked(resource, RESOURCES),
                                    _checked(action, CRUD_ACTIONS))


def named_change(kind: str, action: str) -> str:
    """pool.<kind>.<action>.end of a named object."""
    return 'pool.%s.%s.end' % (_checked(kind, NAMED),
                               _checked(action, CRUD_ACTIONS))


def autofill(action: str, status: str) -> str:
    """pool.pool.autofill.<action>.<status>: a round of AutoFill."""
    return 'pool.pool.autofill.%s.%s' % (_checked(action, AUTOFILL_ACTIONS),
                                         _checked(status, ROUND_STATUSES))


def broker(action: str, status: str) -> str:
    """pool.broker.<action>.<status>: a broker made or destroyed a
    machine."""
    return 'pool.broker.%s.%s' % (_checked(action, BROKER_ACTIONS),
                                  _checked(status, ROUND_STATUSES))


def external_node(action: str) -> str:
    """pool.node.external.<action>: what an external manager's round did
    to a node."""
    return 'pool.node.external.%s' % _checked(action, EXTERNAL_NODE_ACTIONS)


def external_manager(action: str) -> str:
    """pool.external_manager.<action>: a manager answers or fails."""
    return 'pool.external_manager.%s' % _checked(action,
                                                 EXTERNAL_MANAGER_ACTIONS)


def every() -> frozenset:
    """Every event type pool records."""
    fixed = {value for name, value in globals().items()
             if name.isupper() and isinstance(value, str)}
    return frozenset(fixed | {
        *map(node_provision_set, PROVISION_SET_STATUSES),
        *map(allocation_state_set, STATE_SET_STATUSES),
        *(resource_change(r, a) for r in RESOURCES for a in CRUD_ACTIONS),
        *(named_change(k, a) for k in NAMED for a in CRUD_ACTIONS),
        *(autofill(a, s) for a in AUTOFILL_ACTIONS for s in ROUND_STATUSES),
        *(broker(a, s) for a in BROKER_ACTIONS for s in ROUND_STATUSES),
        *map(external_node, EXTERNAL_NODE_ACTIONS),
        *map(external_manager, EXTERNAL_MANAGER_ACTIONS)})

# Every type, for the check of events.Event.
EVERY = every()
