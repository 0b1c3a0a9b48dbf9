"""Plug-ins by name: drivers loaded from their entry points once, and
their parameters checked.

The families of plug-ins (brokers, external managers) keep their own
namespace and their own NotFound exception; the loading and the check of
parameters are written here once.
"""
import functools

from stevedore import driver

from pool_conductor import exception
from pool_conductor import secrets


@functools.lru_cache(maxsize=None)
def load(namespace: str, name: str,
         not_found: type[exception.PoolException]):
    """The driver of that name in namespace, loaded once (a failed load
    is tried again next time).

    :raises: not_found(name=name)
    """
    try:
        return driver.DriverManager(namespace, name,
                                    invoke_on_load=True).driver
    except Exception as exc:
        raise not_found(name=name) from exc


def validate(plugin, parameters: dict | None) -> None:
    """plugin.validate(parameters), its refusal's message masked (it may
    quote a secret parameter).

    :raises: InvalidParameterValue
    """
    parameters = parameters or {}
    try:
        plugin.validate(parameters)
    except exception.InvalidParameterValue as exc:
        raise exception.InvalidParameterValue(err=secrets.mask(
            exc.message, known=secrets.secret_values(parameters))) from None
