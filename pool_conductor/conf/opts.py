"""Option listing for oslo-config-generator."""
from oslo_log import log

from pool_conductor.conf import api
from pool_conductor.conf import conductor
from pool_conductor.conf import console
from pool_conductor.conf import dashboard
from pool_conductor.conf import database
from pool_conductor.conf import default
from pool_conductor.conf import events
from pool_conductor.conf import exec_broker
from pool_conductor.conf import external_manager
from pool_conductor.conf import pool
from pool_conductor.conf import provisioner
from pool_conductor.conf import sandbox
from pool_conductor.conf import windows


def list_opts():
    """Return the options of pool, grouped, for the sample config."""
    return [
        ('DEFAULT', default.opts),
        ('api', api.opts),
        ('conductor', conductor.opts),
        ('console', console.opts),
        ('dashboard', dashboard.opts),
        ('database', database.opts),
        ('events', events.opts),
        ('exec_broker', exec_broker.opts),
        ('external_manager', external_manager.opts),
        ('pool', pool.opts),
        ('provisioner', provisioner.opts),
        ('windows', windows.opts),
        ('sandbox', sandbox.opts),
    ]


def update_opt_defaults():
    """Set pool's defaults of library options."""
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'oslo.messaging=INFO', 'oslo_messaging=INFO', 'amqp=WARNING',
        'kombu=WARNING', 'alembic=WARNING'])
