"""Machines brokers make and destroy: the broker asked, the machine
recorded on its node, or the node given up; shared by AutoFill and
claims. Brokers are called outside transactions, while the conductor
holds the node's lock."""
from oslo_db import exception as db_exc

from pool_conductor import binding
from pool_conductor import brokers
from pool_conductor.db import api as db_api
from pool_conductor.db import machines as machines_db
from pool_conductor.db import nodes as nodes_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import exception
from pool_conductor import metrics
from pool_conductor import payloads
from pool_conductor import retry


def create_parameters(pool) -> dict:
    """What a pool's broker is asked for a machine by default (its
    autofill's create_parameters)."""
    return (pool.autofill or {}).get('create_parameters') or {}


def room(conn, pool) -> int | None:
    """How many more machines a pool's broker may be asked for now: its
    autofill's max_unready less the members being created (None: no
    limit). Counted under the pool's exclusive lock."""
    limit = (pool.autofill or {}).get('max_unready')
    if limit is None:
        return None
    return max(0, limit - machines_db.creating_count(conn, pool.name))


def request_of(node, defaults: dict) -> dict:
    """What a node's broker is asked for it: the request recorded on the
    node when it was made for a claim, else defaults (its pool's
    create_parameters)."""
    return (node.extra or {}).get(binding.BROKER_REQUEST, defaults)


def event(node, action: str, status: str, ref: str | None = None,
          error: str | None = None) -> events.Event:
    """pool.broker.<create|destroy>.<end|error> of a machine a node's
    broker made or destroyed (or failed to), readable by the project
    the machine was made for (the node's lessee)."""
    broker = node.broker
    done = {'create': 'made', 'destroy': 'destroyed'}[action]
    message = ('Broker %s %s machine %s of node %s' % (
        broker, done, ref or getattr(node, 'broker_ref', None), node.uuid)
        if error is None else
        'Broker %s failed to %s the machine of node %s: %s' % (
            broker, action, node.uuid, error))
    return events.Event(
        'broker', events.name_uuid('broker', broker),
        event_types.broker(action, status), object_name=broker,
        level='error' if status == 'error' else 'info', message=message,
        payload=payloads.machine(broker, node, getattr(node, 'pool', None),
                                 ref, error),
        lessee=getattr(node, 'lessee', None))


def failed(context, node, host: str, action: str, error: str,
           abandon: bool = False) -> bool:
    """Record a broker's failure to create or destroy the machine of a
    node host holds (pool.broker.<action>.error): on the node, which host
    releases (its creation is asked again later), or, with abandon, by
    deleting the node Creating (its creation is given up).

    :returns: whether host still held the node.
    """
    failure = event(node, action, 'error', error=error)
    if abandon:
        return binding.abandon_creation(context, node.id, host, [failure])
    with db_api.writer_connection(context) as conn:
        if not machines_db.fail_node(context, node.id, host, error):
            return False
        events.record(conn, [failure], conductor=host)
        return True


def _driver(context, name: str):
    """A broker's driver, its parameters and the driver's name.

    :raises: BrokerError for a broker or driver that is gone
    """
    broker = machines_db.get_broker(context, name)
    if broker is None:
        raise exception.BrokerError(broker=name, reason='it does not exist')
    try:
        driver = brokers.get_driver(broker.driver)
    except exception.BrokerDriverNotFound as exc:
        raise exception.BrokerError(broker=name, reason=str(exc)) from exc
    return driver, dict(broker.parameters or {}), broker.driver


def call(context, name: str, method: str, *args, extra: dict | None = None):
    """Call a broker's driver (create or destroy) with its parameters
    under extra; its errors name the broker.

    :raises: BrokerError
    """
    driver, parameters, kind = _driver(context, name)
    try:
        result = getattr(driver, method)(*args, {**parameters,
                                                 **(extra or {})})
    except exception.BrokerError as exc:
        metrics.BROKER_CALLS.labels(kind, method, 'error').inc()
        raise exception.BrokerError(
            broker=name, reason=exc.kwargs.get('reason', str(exc))) from exc
    except Exception as exc:
        metrics.BROKER_CALLS.labels(kind, method, 'error').inc()
        raise exception.BrokerError(broker=name, reason=str(exc)) from exc
    metrics.BROKER_CALLS.labels(kind, method, 'ok').inc()
    return result


def make(context, node, parameters: dict, host: str) -> bool:
    """Ask the broker of a node Creating that host holds for its machine
    (with the node's token), and record the machine on the node, with the
    params of the request (Digital Rebar's CreateParameters) and those
    the broker gives the machine.

    :returns: whether host still held the node.
    :raises: BrokerError
    """
    machine = brokers.check_machine(node.broker, call(
        context, node.broker, 'create', node.broker_token,
        extra=parameters))
    return retry.on_deadlock(_finish, context, node.id, machine, host,
                             parameters.get('params'))


def _finish(context, node_id: int, machine: dict, host: str,
            params: dict | None) -> bool:
    try:
        with db_api.writer_connection(context) as conn:
            node = machines_db.held_by(conn, node_id, host)
            if node is None:
                return False
            binding.finish_creation(
                conn, node, machine, [event(node, 'create', 'end',
                                            machine['ref'])], host,
                params=params)
            return True
    except db_exc.DBDuplicateEntry:
        raise exception.BrokerError(
            broker=node.broker,
            reason='the machine it made is named %s, as a node that '
                   'exists already' % machine.get('name')) from None


def destroy(context, node, host: str) -> bool:
    """Have the broker of a Free node host holds locked destroy its
    machine, then delete the node.

    :returns: whether host still held the node.
    :raises: BrokerError
    """
    call(context, node.broker, 'destroy', node.broker_ref)
    return binding.delete_destroyed(context, node.id, host, [
        event(node, 'destroy', 'end', node.broker_ref)])


def make_recorded(context, token_prefix: str, host: str) -> str | None:
    """Have the brokers make the machines recorded with tokens that start
    with token_prefix (a claim's) that host holds or no conductor does
    (left by a dead one: asked again with their token). After a failure,
    the requests not made yet are given up with the one that failed.

    :returns: the first broker's error, if any.
    """
    error = None
    for node in machines_db.creating_for(context, token_prefix, host):
        if node.reservation is None and not nodes_db.reserve(
                context, node.id, host):
            continue
        if error is None:
            try:
                make(context, node, request_of(node, {}), host)
                continue
            except exception.BrokerError as exc:
                error = str(exc)
                failed(context, node, host, 'create', error, abandon=True)
                continue
        binding.abandon_creation(context, node.id, host)
    return error
