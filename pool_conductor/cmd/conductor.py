"""pool-conductor: run one conductor."""
from oslo_log import log

from pool_conductor.cmd import common
from pool_conductor import rpc
from pool_conductor import service

LOG = log.getLogger(__name__)


def main() -> None:
    common.prepare()
    svc = service.ConductorService()
    svc.start()
    try:
        common.wait_for_signal()
    finally:
        svc.stop()
        rpc.cleanup()
