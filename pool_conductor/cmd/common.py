"""Start-up helpers shared by the console scripts."""
import signal
import sys
import threading

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor.conf import opts


def prepare(argv: list[str] | None = None, project: str = 'pool') -> None:
    """Parse the command line and config files and set up logging."""
    opts.update_opt_defaults()
    CONF(sys.argv[1:] if argv is None else argv, project=project)
    log.setup(CONF, project)


def wait_for_signal() -> None:
    """Block until SIGTERM or SIGINT."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(3600):
        pass
