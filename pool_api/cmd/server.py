"""pool-server: API and conductor in one process, on SQLite by default."""
import os
import sys
import threading

from oslo_log import log

from pool_api import app
from pool_api import cheroot_server
from pool_api.cmd import listen
from pool_api import request_log
from pool_conductor.cmd import common
from pool_conductor.conf import CONF
from pool_conductor.db import migration
from pool_conductor import rpc
from pool_conductor import service

LOG = log.getLogger(__name__)

# The API and the conductor talk through oslo.messaging's in-process
# driver unless a transport_url is configured.
DEFAULT_TRANSPORT_URL = 'fake://'
DEFAULT_CONNECTION = 'sqlite:///$state_path/pool.sqlite'
DEFAULT_MAX_POOL_SIZE = 32

DESCRIPTION = (
    'pool-server runs the pool API and a conductor in one process, for '
    'development and trials: by default on http://127.0.0.1:6388, with '
    'no authentication ([DEFAULT] auth_strategy = noauth), its database in '
    'SQLite at $state_path/pool.sqlite (~/.local/state/pool) and the '
    'message bus inside the process. The options that matter most: --port '
    'and --host, [database] connection and [DEFAULT] state_path in a '
    '--config-file. Production runs pool-api and pool-conductor instead.')


def main() -> None:
    CONF.set_default('transport_url', DEFAULT_TRANSPORT_URL)
    # The all-in-one development server; auth_strategy.wrap() warns.
    CONF.set_default('auth_strategy', 'noauth')
    CONF.set_default('connection', DEFAULT_CONNECTION, group='database')
    # The API's request threads and the conductor's workers each keep a
    # connection open (opening one costs more than a short transaction).
    CONF.set_default('max_pool_size', DEFAULT_MAX_POOL_SIZE,
                     group='database')
    common.prepare(description=DESCRIPTION, epilog=listen.EPILOG,
                   cli_opts=listen.CLI_OPTS)
    listen.apply_overrides()
    # Bind first: a port in use stops the start before anything runs. The
    # application is set once the database is ready.
    listen.exit_unless_free('pool-server')
    server = cheroot_server.make_server()
    try:
        server.prepare()
    except OSError as exc:
        sys.exit(listen.refusal('pool-server', exc))
    if CONF.database.connection.startswith('sqlite:///'):
        os.makedirs(os.path.dirname(
            CONF.database.connection[len('sqlite:///'):]) or '.',
            exist_ok=True)
    migration.upgrade()
    cheroot_server.attach(server, app.create_app())
    request_log.start()
    conductor = service.ConductorService()
    conductor.start()
    LOG.info('pool-server serves the API on http://%s:%d ([DEFAULT] '
             'auth_strategy = %s)', CONF.api.host_ip, CONF.api.port,
             CONF.auth_strategy)
    thread = threading.Thread(target=server.serve, name='pool-api',
                              daemon=True)
    thread.start()
    try:
        common.wait_for_signal()
    finally:
        server.stop()
        request_log.stop()
        conductor.stop()
        rpc.cleanup()
