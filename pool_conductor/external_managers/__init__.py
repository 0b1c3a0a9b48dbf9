"""External managers: drivers of systems that own hardware pool shares."""
from pool_conductor.external_managers import base
from pool_conductor import exception
from pool_conductor import plugins

NAMESPACE = 'pool.external_managers'


def get_driver(name: str) -> base.ExternalManagerDriver:
    """The external manager driver of that name, loaded once.

    :raises: ExternalDriverNotFound
    """
    return plugins.load(NAMESPACE, name, exception.ExternalDriverNotFound)


def check_manager(values: dict) -> None:
    """Check a manager's driver exists and takes its parameters.

    :raises: ExternalDriverNotFound, InvalidParameterValue, its message
        masked (it may quote a secret parameter)
    """
    plugins.validate(get_driver(values['driver']), values.get('parameters'))
