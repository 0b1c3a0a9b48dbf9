"""External managers: drivers of systems that own hardware pool shares."""
import functools

from stevedore import driver

from pool_conductor.external_managers import base
from pool_conductor import exception
from pool_conductor import secrets

NAMESPACE = 'pool.external_managers'


@functools.lru_cache(maxsize=None)
def get_driver(name: str) -> base.ExternalManagerDriver:
    """The external manager driver of that name, loaded once.

    :raises: ExternalDriverNotFound
    """
    try:
        return driver.DriverManager(NAMESPACE, name,
                                    invoke_on_load=True).driver
    except Exception as exc:
        raise exception.ExternalDriverNotFound(name=name) from exc


def check_manager(values: dict) -> None:
    """Check a manager's driver exists and takes its parameters.

    :raises: ExternalDriverNotFound, InvalidParameterValue, its message
        masked (it may quote a secret parameter)
    """
    parameters = values.get('parameters') or {}
    try:
        get_driver(values['driver']).validate(parameters)
    except exception.InvalidParameterValue as exc:
        raise exception.InvalidParameterValue(err=secrets.mask(
            exc.message, known=secrets.secret_values(parameters))) from None
