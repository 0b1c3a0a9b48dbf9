"""Provision, power and allocation states, named as Ironic names them."""

ENROLL = 'enroll'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
ACTIVE = 'active'

POWER_ON = 'power on'
POWER_OFF = 'power off'
REBOOT = 'rebooting'
SOFT_POWER_OFF = 'soft power off'
SOFT_REBOOT = 'soft rebooting'

# States a deployment and an undeployment pass through, moved on by a
# conductor (pool_conductor.baremetal.provisioning) as Ironic's fake-hardware
# does: deploying to active; deleting, then cleaning, to available.
DEPLOYING = 'deploying'
DELETING = 'deleting'
CLEANING = 'cleaning'
# Rescue: an active node boots a rescue system (rescuing to rescue) and
# back to its instance (unrescuing to active).
RESCUING = 'rescuing'
RESCUE = 'rescue'
UNRESCUING = 'unrescuing'
IN_PROGRESS = (DEPLOYING, DELETING, CLEANING, RESCUING, UNRESCUING)

# Where a state in progress fails to (the fake provisioning fails where a
# node's params tell it to, pool_conductor.baremetal.provisioning).
DEPLOY_FAIL = 'deploy failed'
CLEAN_FAIL = 'clean failed'
RESCUE_FAIL = 'rescue failed'
UNRESCUE_FAIL = 'unrescue failed'
FAIL_STATE = {DEPLOYING: DEPLOY_FAIL, CLEANING: CLEAN_FAIL,
              RESCUING: RESCUE_FAIL, UNRESCUING: UNRESCUE_FAIL}

# The states a node holding an instance is in, at rest: an undeployment
# starts from any of them, as in Ironic's state machine.
_DEPLOYED = (ACTIVE, DEPLOY_FAIL, RESCUE, RESCUE_FAIL, UNRESCUE_FAIL)

# Provision verbs of PUT /v1/nodes/<id>/states/provision:
# verb -> (states it is allowed from, resulting state).
VERBS = {
    'manage': ((ENROLL, AVAILABLE, CLEAN_FAIL), MANAGEABLE),
    'provide': ((MANAGEABLE,), AVAILABLE),
    'active': ((AVAILABLE, DEPLOY_FAIL), ACTIVE),
    'deploy': ((AVAILABLE, DEPLOY_FAIL), ACTIVE),
    'rebuild': ((ACTIVE, DEPLOY_FAIL), ACTIVE),
    'deleted': (_DEPLOYED, AVAILABLE),
    'undeploy': (_DEPLOYED, AVAILABLE),
    'clean': ((MANAGEABLE,), MANAGEABLE),
    'rescue': ((ACTIVE, RESCUE, RESCUE_FAIL, UNRESCUE_FAIL), RESCUE),
    'unrescue': ((RESCUE, RESCUE_FAIL, UNRESCUE_FAIL), ACTIVE),
}

# The state a verb enters first, where it is not its result at once.
FIRST_STATE = {'active': DEPLOYING, 'deploy': DEPLOYING,
               'rebuild': DEPLOYING, 'deleted': DELETING,
               'undeploy': DELETING, 'clean': CLEANING,
               'rescue': RESCUING, 'unrescue': UNRESCUING}
# What each state in progress becomes when a conductor moves it on; a
# cleaning ends in its target (available after an undeployment,
# manageable after a manual cleaning).
NEXT_STATE = {DEPLOYING: ACTIVE, DELETING: CLEANING, CLEANING: AVAILABLE,
              RESCUING: RESCUE, UNRESCUING: ACTIVE}
ENDS_IN_TARGET = (CLEANING,)
# Where a retired node's cleaning ends instead, as in Ironic.
RETIRED_CLEANED = MANAGEABLE

# States in which a node's instance may be released while not in
# maintenance (Ironic forbids it for active and in-progress states).
UPDATE_ALLOWED_STATES = (ENROLL, MANAGEABLE, AVAILABLE)

ALLOCATING = 'allocating'
ALLOCATION_ERROR = 'error'
ALLOCATION_ACTIVE = 'active'
# A windowed allocation whose start is ahead: it holds a slot of a node
# (pool_conductor.booking.windows), and becomes allocating at its start.
ALLOCATION_SCHEDULED = 'scheduled'
ALLOCATION_STATES = (ALLOCATING, ALLOCATION_ACTIVE, ALLOCATION_ERROR,
                     ALLOCATION_SCHEDULED)

# Statuses of a node in its pool (Digital Rebar's PoolStatus), and
# Creating: a machine a broker is making for the pool (Poolboy's
# unready).
POOL_CREATING = 'Creating'
POOL_JOINING = 'Joining'
POOL_HOLD_JOIN = 'HoldJoin'
POOL_FREE = 'Free'
POOL_BUILDING = 'Building'
POOL_HOLD_BUILD = 'HoldBuild'
POOL_IN_USE = 'InUse'
POOL_DESTROYING = 'Destroying'
POOL_HOLD_DESTROY = 'HoldDestroy'
POOL_LEAVING = 'Leaving'
POOL_HOLD_LEAVE = 'HoldLeave'
POOL_STATUSES = (POOL_CREATING, POOL_JOINING, POOL_HOLD_JOIN, POOL_FREE,
                 POOL_BUILDING, POOL_HOLD_BUILD, POOL_IN_USE, POOL_DESTROYING,
                 POOL_HOLD_DESTROY, POOL_LEAVING, POOL_HOLD_LEAVE)

# A node in one of these statuses is given to a consumer (pool_allocated):
# being built for it, in use, or being cleaned after it.
POOL_ALLOCATED = (POOL_BUILDING, POOL_HOLD_BUILD, POOL_IN_USE,
                  POOL_DESTROYING, POOL_HOLD_DESTROY)
# Statuses in which a node moves through a workflow towards a stage, and
# the held status of each, where it waits to be runnable again.
POOL_MOVING = (POOL_JOINING, POOL_BUILDING, POOL_DESTROYING, POOL_LEAVING)
POOL_HOLD = {POOL_JOINING: POOL_HOLD_JOIN, POOL_BUILDING: POOL_HOLD_BUILD,
             POOL_DESTROYING: POOL_HOLD_DESTROY,
             POOL_LEAVING: POOL_HOLD_LEAVE}
# Every status of a node waiting for a stage, held or not: a conductor
# drives it (pool_conductor_affinity).
POOL_WAITING = POOL_MOVING + tuple(POOL_HOLD.values())

# Claims (Poolboy's ResourceClaims): written as pending by the API, bound
# by a conductor (all resources or none), else in error; ready is shown
# for a bound claim whose machines are all InUse; expired once its
# lifespan has ended and its machines are released.
CLAIM_PENDING = 'pending'
CLAIM_BOUND = 'bound'
CLAIM_READY = 'ready'
CLAIM_ERROR = 'error'
CLAIM_EXPIRED = 'expired'
CLAIM_STATES = (CLAIM_PENDING, CLAIM_BOUND, CLAIM_READY, CLAIM_ERROR,
                CLAIM_EXPIRED)
# Reservations (windowed allocations of several nodes booked together):
# shown from their members: scheduled while all wait for the window,
# starting while some are started, active once all are, error when one
# is, ended when none is left (expired or deleted).
RESERVATION_SCHEDULED = 'scheduled'
RESERVATION_STARTING = 'starting'
RESERVATION_ACTIVE = 'active'
RESERVATION_ERROR = 'error'
RESERVATION_ENDED = 'ended'
RESERVATION_STATES = (RESERVATION_SCHEDULED, RESERVATION_STARTING,
                      RESERVATION_ACTIVE, RESERVATION_ERROR,
                      RESERVATION_ENDED)
# Handles (Poolboy's ResourceHandles): what a claim holds for each of
# its resources. A resource no machine is bound to yet is unbound; a
# bound machine is building until it is InUse in its pool, then ready;
# a machine that was taken from the claim (deleted, failed, or taken by
# an external manager) leaves its handle lost.
HANDLE_UNBOUND = 'unbound'
HANDLE_BUILDING = 'building'
HANDLE_READY = 'ready'
HANDLE_LOST = 'lost'
HANDLE_STATES = (HANDLE_UNBOUND, HANDLE_BUILDING, HANDLE_READY, HANDLE_LOST)

# What the reconciler of an external manager last saw of a node's
# hardware there: nobody's, pool's claim, another user's, no longer
# there, or not known (the manager did not answer for several rounds).
EXTERNAL_FREE = 'free'
EXTERNAL_OURS = 'ours'
EXTERNAL_THEIRS = 'theirs'
EXTERNAL_GONE = 'gone'
EXTERNAL_UNKNOWN = 'unknown'
EXTERNAL_STATES = (EXTERNAL_FREE, EXTERNAL_OURS, EXTERNAL_THEIRS,
                   EXTERNAL_GONE, EXTERNAL_UNKNOWN)

# A node's fault (Ironic's field, API 1.42): why pool put it in
# maintenance. The external ones are set and cleared by the reconciler
# only; a node in maintenance without one is the operator's.
FAULT_EXTERNAL_HOLD = 'external hold'
FAULT_EXTERNAL_CONFLICT = 'external conflict'
FAULT_EXTERNAL_GONE = 'external gone'
# The states of a maintenance window: its start is ahead; it began and
# waits for its node to be free; its node is in maintenance for it.
WINDOW_SCHEDULED = 'scheduled'
WINDOW_WAITING = 'waiting'
WINDOW_ACTIVE = 'active'
WINDOW_STATES = (WINDOW_SCHEDULED, WINDOW_WAITING, WINDOW_ACTIVE)
# A node in maintenance for a maintenance window of it
# (pool_conductor.booking.maintenance_windows).
FAULT_SCHEDULED_MAINTENANCE = 'scheduled maintenance'
EXTERNAL_FAULTS = (FAULT_EXTERNAL_HOLD, FAULT_EXTERNAL_CONFLICT,
                   FAULT_EXTERNAL_GONE)
