"""Start-up helpers shared by the console scripts."""
import signal
import sys
import threading

from oslo_config import cfg
from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor.conf import opts


def prepare(argv: list[str] | None = None, project: str = 'pool',
            description: str | None = None, epilog: str | None = None,
            cli_opts: list[cfg.Opt] | tuple = ()) -> None:
    """Parse the command line and config files and set up logging.

    :param description: what the program is, first in its --help.
    :param epilog: the last paragraph of its --help.
    :param cli_opts: options of this program's command line only.
    """
    opts.update_opt_defaults()
    CONF.register_cli_opts(cli_opts)
    CONF(sys.argv[1:] if argv is None else argv, project=project,
         description=description, epilog=epilog)
    log.setup(CONF, project)


def wait_for_signal() -> None:
    """Block until SIGTERM or SIGINT."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(3600):
        pass
