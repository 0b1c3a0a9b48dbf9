"""pool-api: the API on gunicorn, [api] workers processes of threads."""
import atexit

from gunicorn.app import base as gunicorn_base
from oslo_log import log

from pool_api import app
from pool_api.cmd import listen
from pool_conductor.cmd import common
from pool_conductor.conf import CONF
from pool_conductor import metrics

LOG = log.getLogger(__name__)

DESCRIPTION = (
    'pool-api serves the pool API (the Ironic-compatible /v1 and the '
    'pools, profiles and workflows) on gunicorn: [api] workers processes '
    'of [api] threads threads each, on [api] host_ip and [api] port '
    '(--host and --port here). It needs the database and the message bus '
    'that the pool-conductor processes use ([database] connection, '
    '[DEFAULT] transport_url) and runs no conductor itself.')


def bind_address(host: str, port: int) -> str:
    return '[%s]:%d' % (host, port) if ':' in host else '%s:%d' % (host,
                                                                    port)


class Server(gunicorn_base.BaseApplication):
    """gunicorn, configured from pool's options instead of its own."""

    def __init__(self, options: dict):
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        # Each worker builds its own application after the fork, so that
        # database connections and the message bus are not shared.
        return app.create_app()


def main() -> None:
    common.prepare(description=DESCRIPTION, epilog=listen.EPILOG,
                   cli_opts=listen.CLI_OPTS)
    listen.apply_overrides()
    # gunicorn would retry a port in use for seconds, a line each time.
    listen.exit_unless_free('pool-api')
    LOG.info('pool-api listening on %s:%d with %d workers',
             CONF.api.host_ip, CONF.api.port, CONF.api.workers)
    # The workers' counters in shared files: a scrape of any worker sums
    # them all.
    metrics.enable_multiprocess()
    atexit.register(metrics.disable_multiprocess)
    Server({
        'bind': bind_address(CONF.api.host_ip, CONF.api.port),
        'workers': CONF.api.workers,
        'worker_class': 'pool_api.gunicorn_worker.ThreadWorker',
        'threads': CONF.api.threads,
        'timeout': 60,
        # Idle client connections stay open longer than the idle timeout
        # of load balancers and client pools, so that the server is never
        # the side that closes a connection just as a request is sent on
        # it (gunicorn's default is 2 s).
        'keepalive': 75,
        'graceful_timeout': 20,
        'proc_name': 'pool-api',
        'limit_request_line': CONF.api.max_request_line,
        'limit_request_fields': CONF.api.max_header_fields,
        'limit_request_field_size': CONF.api.max_header_field_size,
        'accesslog': None,
        'errorlog': '-',
        'child_exit': lambda _arbiter, worker: metrics.worker_exited(
            worker.pid),
    }).run()
