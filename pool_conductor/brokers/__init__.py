"""Resource brokers: drivers that create and destroy machines for pools."""
from pool_conductor.brokers import base
from pool_conductor import exception
from pool_conductor import plugins

NAMESPACE = 'pool.brokers'
# Fields of a machine a broker returns that become the node's.
MACHINE_FIELDS = ('name', 'driver', 'resource_class', 'properties',
                  'driver_info')


def get_driver(name: str) -> base.BrokerDriver:
    """The broker driver of that name, loaded once.

    :raises: BrokerDriverNotFound
    """
    return plugins.load(NAMESPACE, name, exception.BrokerDriverNotFound)


def check_broker(values: dict) -> None:
    """Check a broker's driver exists and takes its parameters.

    :raises: BrokerDriverNotFound, InvalidParameterValue, its message
        masked (it may quote a secret parameter)
    """
    plugins.validate(get_driver(values['driver']), values.get('parameters'))


def check_machine(broker: str, machine) -> dict:
    """A machine as a broker returned it, checked.

    :raises: BrokerError naming the broker
    """
    def fail(reason: str):
        raise exception.BrokerError(broker=broker, reason=reason)

    if not isinstance(machine, dict):
        fail('it returned %r, not a machine (a JSON object)' % (machine,))
    ref = machine.get('ref')
    if not isinstance(ref, str) or not ref or len(ref) > 255:
        fail('the machine it returned has no "ref" (a string of 1 to 255 '
             'characters)')
    for key in ('name', 'driver', 'resource_class'):
        if machine.get(key) is not None and not isinstance(machine[key],
                                                           str):
            fail('the machine\'s "%s" is not a string' % key)
    for key in ('properties', 'driver_info', 'params'):
        if machine.get(key) is not None and not isinstance(machine[key],
                                                           dict):
            fail('the machine\'s "%s" is not an object' % key)
    traits = machine.get('traits') or []
    if not isinstance(traits, list) or not all(
            isinstance(t, str) for t in traits):
        fail('the machine\'s "traits" is not a list of strings')
    return machine
