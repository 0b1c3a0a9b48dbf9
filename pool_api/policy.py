"""The enforcement of the API's policy: every handler's first step.

The rules themselves, one module per resource, are ``pool_api.policies``;
this module registers them with an oslo.policy enforcer that remembers
its decisions (``CachedEnforcer``), and gives the handlers their checks:
``authorize`` and its forms for an object the caller may not even see
(``authorize_node`` and the like, which answer not found), the project a
list is limited to (``project_scope``) and the named objects a request
may refer to (``check_readable``). It is also the oslo.policy entry point
of ``oslopolicy-sample-generator`` and its kin (``list_rules``,
``get_enforcer``).
"""
import threading
import time

import flask
from oslo_policy import policy

from pool_api import policies
from pool_conductor import exception

RULES = policies.list_rules()


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
