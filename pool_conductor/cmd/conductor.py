"""pool-conductor: run one conductor."""
from oslo_log import log

from pool_conductor.cmd import common
from pool_conductor import rpc
from pool_conductor import service

LOG = log.getLogger(__name__)


DESCRIPTION = (
    'pool-conductor runs one conductor: it processes the allocations, '
    'pool actions and workflows that pool-api sends it over the message '
    'bus ([DEFAULT] transport_url) and keeps its state in the database '
    '([database] connection). Its name, [DEFAULT] host, must be unique '
    'among the conductors of a deployment. It listens on no port.')


def main() -> None:
    common.prepare(description=DESCRIPTION)
    svc = service.ConductorService()
    svc.start()
    try:
        common.wait_for_signal()
    finally:
        svc.stop()
        rpc.cleanup()
