"""Exceptions of pool; each carries the HTTP status the API answers with."""
from http import client as http

from pool_conductor import secrets


class PoolException(Exception):
    """An unknown error occurred."""

    code = http.INTERNAL_SERVER_ERROR

    def __init__(self, message: str | None = None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            # Docstrings are the messages; wrapped lines are joined.
            message = ' '.join((self.__doc__ or '').split())
            try:
                message = message % kwargs
            except (KeyError, TypeError, ValueError):
                pass
        self.message = str(message)
        super().__init__(self.message)


class Invalid(PoolException):
    """Invalid request: %(reason)s"""

    code = http.BAD_REQUEST


class InvalidParameterValue(Invalid):
    """%(err)s"""


class InterfaceNotEnabled(Invalid):
    """The %(interface)s interface "%(value)s" is not enabled for driver
    %(driver)s. Enabled %(interface)s interfaces: %(enabled)s."""


class NoValidDefaultForInterface(Invalid):
    """No default value found for the %(interface)s interface: none is
    enabled, or [DEFAULT] default_%(interface)s_interface is not one of
    those enabled."""


class NodeIsRetired(Invalid):
    """The %(op)s operation can't be performed on node %(node)s because it
    is retired."""


class UnsupportedDriverExtension(Invalid):
    """Driver %(driver)s does not support %(extension)s (disabled or not
    implemented)."""


class UnknownArgument(Invalid):
    """Unknown argument: "%(name)s\""""


class RepeatedArgument(Invalid):
    """Repeated argument: "%(name)s" may be given once."""


class FilterTimeout(Invalid):
    """The filter took too long to evaluate (the limit is %(seconds)s
    seconds); use a simpler filter or regular expression."""


class FilterRefused(Invalid):
    """The database cannot evaluate the filter: %(reason)s"""


class InvalidMAC(Invalid):
    """Expected a MAC address but received %(mac)s."""


class NoFreePhysicalPorts(Invalid):
    """Unable to attach VIF %(vif)s, not enough free physical ports."""


class PortgroupNotEmpty(Invalid):
    """Cannot complete the requested action because portgroup
    %(portgroup)s contains ports."""


class ChassisNotEmpty(Invalid):
    """Cannot complete the requested action because chassis %(chassis)s
    contains nodes."""


class InvalidStateRequested(Invalid):
    """The requested action "%(action)s" can not be performed on node
    "%(node)s" while it is in state "%(state)s"."""


class InvalidState(Invalid):
    """%(err)s"""


class NodeConsoleNotEnabled(Invalid):
    """Console access is not enabled on node %(node)s"""


class NodeNotPoweredOn(Invalid):
    """Cannot inject an NMI into node %(node)s: it is not powered on (its
    power state is %(state)s)."""


class NotAcceptable(PoolException):
    """Request not acceptable: %(reason)s"""

    code = http.NOT_ACCEPTABLE


class MethodNotAllowed(PoolException):
    """%(what)s needs API version %(version)s or newer."""

    code = http.METHOD_NOT_ALLOWED


class Forbidden(PoolException):
    """Access was denied to this resource."""

    code = http.FORBIDDEN


class NotFound(PoolException):
    """Resource could not be found."""

    code = http.NOT_FOUND


class NodeNotFound(NotFound):
    """Node %(node)s could not be found."""


class AllocationNotFound(NotFound):
    """Allocation %(allocation)s could not be found."""


class ClaimNotFound(NotFound):
    """Claim %(claim)s could not be found."""


class ReservationNotFound(NotFound):
    """Reservation %(reservation)s could not be found."""


class HandleNotFound(NotFound):
    """Handle %(handle)s could not be found."""


class DriverNotFound(NotFound):
    """Could not find the following driver(s) or hardware type(s):
    %(driver_name)s."""


class ConductorNotFound(NotFound):
    """Conductor %(conductor)s could not be found."""


class EventNotFound(NotFound):
    """Event %(event)s of %(kind)s %(name)s could not be found."""


class NodeTraitNotFound(NotFound):
    """Node %(node)s does not have trait %(trait)s."""


class DeployTemplateNotFound(NotFound):
    """Deploy template %(template)s could not be found."""


class PortNotFound(NotFound):
    """Port %(port)s could not be found."""


class PortgroupNotFound(NotFound):
    """Portgroup %(portgroup)s could not be found."""


class ChassisNotFound(NotFound):
    """Chassis %(chassis)s could not be found."""


class VolumeConnectorNotFound(NotFound):
    """Volume connector %(connector)s could not be found."""


class VolumeTargetNotFound(NotFound):
    """Volume target %(target)s could not be found."""


class VifNotAttached(NotFound):
    """Unable to detach VIF %(vif)s from node %(node)s because it is not
    attached to it."""


class ObjectNotFound(NotFound):
    """%(kind)s %(name)s could not be found."""


class Conflict(PoolException):
    """Conflict."""

    code = http.CONFLICT


class DuplicateName(Conflict):
    """A node with name %(name)s already exists."""


class NodeAlreadyExists(Conflict):
    """A node with UUID %(uuid)s already exists."""


class InstanceAssociated(Conflict):
    """Instance %(instance_uuid)s is already associated with a node, it
    cannot be associated with this other node %(node)s."""


class AllocationDuplicateName(Conflict):
    """An allocation with name %(name)s already exists."""


class AllocationAlreadyExists(Conflict):
    """An allocation with UUID %(uuid)s already exists."""


class InstanceUUIDInUse(Conflict):
    """Instance %(instance_uuid)s is already associated with node
    %(node)s; an allocation cannot take this UUID, as it would become the
    instance_uuid of its node."""


class PortAlreadyExists(Conflict):
    """A port with UUID %(uuid)s already exists."""


class MACAlreadyExists(Conflict):
    """A port with MAC address %(mac)s already exists."""


class PortgroupAlreadyExists(Conflict):
    """A portgroup with UUID %(uuid)s already exists."""


class PortgroupDuplicateName(Conflict):
    """A portgroup with name %(name)s already exists."""


class PortgroupMACAlreadyExists(Conflict):
    """A portgroup with MAC address %(mac)s already exists."""


class ChassisAlreadyExists(Conflict):
    """A chassis with UUID %(uuid)s already exists."""


class VolumeConnectorAlreadyExists(Conflict):
    """A volume connector with UUID %(uuid)s already exists."""


class VolumeConnectorTypeAndIdAlreadyExists(Conflict):
    """A volume connector with type %(type)s and connector ID
    %(connector_id)s already exists."""


class VolumeTargetAlreadyExists(Conflict):
    """A volume target with UUID %(uuid)s already exists."""


class VolumeTargetBootIndexAlreadyExists(Conflict):
    """A volume target with boot index '%(boot_index)s' for the same node
    already exists."""


class VifAlreadyAttached(Conflict):
    """Unable to attach VIF because VIF %(vif)s is already attached to
    Ironic %(object_type)s %(port)s"""


class DeployTemplateAlreadyExists(Conflict):
    """A deploy template with UUID %(uuid)s already exists."""


class DeployTemplateDuplicateName(Conflict):
    """A deploy template with name %(name)s already exists."""


class NodeLocked(Conflict):
    """Node %(node)s is locked by host %(host)s, please retry after the
    current operation is completed."""


class NodeAssociated(Conflict):
    """Node %(node)s is associated with instance %(instance)s."""


class NodeInWrongState(Conflict):
    """%(err)s"""


class NodeProtected(PoolException):
    """Node %(node)s is protected and cannot be undeployed, rebuilt or
    deleted"""

    code = http.FORBIDDEN


class ConcurrentUpdate(Conflict):
    """%(what)s was changed by another request, please retry."""


class ClaimDuplicateName(Conflict):
    """A claim with name %(name)s already exists."""


class ClaimAlreadyExists(Conflict):
    """A claim with UUID %(uuid)s already exists."""


class ReservationDuplicateName(Conflict):
    """A reservation with name %(name)s already exists."""


class ReservationAlreadyExists(Conflict):
    """A reservation with UUID %(uuid)s already exists."""


class AllocationOfClaim(Conflict):
    """Allocation %(allocation)s is a machine of claim %(claim)s: %(what)s
    the claim instead."""


class NodeOfClaim(Conflict):
    """Node %(node)s is a machine of claim %(claim)s: delete the claim
    to release it."""


class ObjectAlreadyExists(Conflict):
    """A %(kind)s named %(name)s already exists."""


class ObjectInUse(Conflict):
    """%(err)s"""


class InsufficientNodes(Conflict):
    """Pool %(pool)s has %(found)s free nodes matching the request, %(count)s
    were requested; nothing was allocated."""


class CursorExpired(PoolException):
    """Cursor %(since)s is not one of the retained events: they start
    after cursor %(pruned)s and end at cursor %(last)s. Read the current
    state again, then watch from the cursor a request without since
    answers."""

    code = http.GONE


class TooManyWatchers(PoolException):
    """This API process already holds %(count)s requests waiting for
    events ([api] max_waiters); retry after %(retry)s seconds, or read
    without wait."""

    code = http.TOO_MANY_REQUESTS

    @property
    def headers(self) -> dict:
        return {'Retry-After': str(self.kwargs.get('retry', 1))}


class WaitTimedOut(PoolException):
    """Node %(node)s was returned to pool %(pool)s but did not reach stage
    %(stage)s within %(timeout)s seconds; it is still on its way (its
    pool/status is timeout once past its wait_timeout)."""

    code = http.CONFLICT


class TooManyBlockingActions(TooManyWatchers):
    """This API process already holds %(count)s requests waiting ([api]
    max_waiters: events watched and blocking pool actions); retry after
    %(retry)s seconds, or run the action without blocking and watch its
    nodes."""


class NoValidHost(PoolException):
    """No conductor is alive to handle the request; please retry once a
    conductor is running."""

    def __init__(self, message: str | None = None, group: str = '',
                 **kwargs):
        if message is None and group:
            message = ('No conductor of conductor group "%s" is alive to '
                       'handle the request; please retry once one is '
                       'running.' % group)
        super().__init__(message, **kwargs)

    code = http.SERVICE_UNAVAILABLE


class DatabaseUnavailable(PoolException):
    """The database is not reachable at the moment; please retry."""

    code = http.SERVICE_UNAVAILABLE


class DatabaseRefused(Invalid):
    """The database refused a value or an expression of this request:
    %(reason)s"""


class DatabaseConflict(Conflict):
    """The request conflicts with data the database holds: %(reason)s"""


class ProvisionerNotFound(PoolException):
    """No provisioner is named %(name)s in the pool.provisioners entry
    points ([provisioner] driver)."""


class BrokerDriverNotFound(Invalid):
    """No broker driver is named %(name)s in the pool.brokers entry
    points."""


class ExecProgramsInvalid(PoolException):
    """The configuration option [exec_broker] program is not valid:
    %(reason)s"""


class BrokerError(PoolException):
    """Broker %(broker)s failed: %(reason)s"""

    code = http.BAD_GATEWAY

    def __init__(self, message: str | None = None, *,
                 parameters: dict | None = None, **kwargs):
        """The reason is masked (it may quote what a broker printed), the
        secrets among the broker's parameters too, wherever they are."""
        known = secrets.secret_values(parameters or {})
        if 'reason' in kwargs:
            kwargs['reason'] = secrets.mask(str(kwargs['reason']),
                                            known=known)
        super().__init__(None if message is None
                         else secrets.mask(message, known=known), **kwargs)


class WindowConflict(Conflict):
    """%(err)s"""


class WindowLimitExceeded(PoolException):
    """%(err)s"""

    # As a quota in Nova: the project may not hold more; a retry only
    # succeeds once its usage went down.
    code = http.FORBIDDEN


class ExternalDriverNotFound(Invalid):
    """Unknown external manager driver %(name)s."""


class ExternalManagerError(PoolException):
    """External manager %(manager)s failed: %(reason)s"""

    code = http.BAD_GATEWAY


class ExternalTaken(ExternalManagerError):
    """External manager %(manager)s: %(ref)s is taken by another user
    there."""


class ExternalHold(Conflict):
    """Node %(node)s is held for its external manager (fault "%(fault)s");
    the reconciler clears it when the manager frees the hardware."""
