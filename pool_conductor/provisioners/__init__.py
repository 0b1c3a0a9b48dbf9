"""Provisioners: what runs the workflows of pool nodes, one per conductor."""
import functools

from stevedore import driver

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor.provisioners import base

NAMESPACE = 'pool.provisioners'


@functools.lru_cache(maxsize=None)
def _load(name: str) -> base.Provisioner:
    try:
        return driver.DriverManager(NAMESPACE, name,
                                    invoke_on_load=True).driver
    except Exception as exc:
        raise exception.ProvisionerNotFound(name=name) from exc


def get_provisioner() -> base.Provisioner:
    """The provisioner ``[provisioner] driver`` names, loaded once.

    :raises: ProvisionerNotFound
    """
    return _load(CONF.provisioner.driver)
