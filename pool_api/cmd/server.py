"""pool-server: API and conductor in one process, on SQLite by default."""
import os
import threading

from oslo_log import log

from pool_api import app
from pool_api import cheroot_server
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


def main() -> None:
    CONF.set_default('transport_url', DEFAULT_TRANSPORT_URL)
    # The all-in-one development server; auth_strategy.wrap() warns.
    CONF.set_default('auth_strategy', 'noauth')
    CONF.set_default('connection', DEFAULT_CONNECTION, group='database')
    common.prepare()
    if CONF.database.connection.startswith('sqlite:///'):
        os.makedirs(os.path.dirname(
            CONF.database.connection[len('sqlite:///'):]) or '.',
            exist_ok=True)
    migration.upgrade()
    server = cheroot_server.make_server(app.create_app())
    # Bind first: a port in use stops the start before anything runs.
    server.prepare()
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
        conductor.stop()
        rpc.cleanup()
