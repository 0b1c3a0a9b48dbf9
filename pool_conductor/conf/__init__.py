"""Configuration of pool: one module per option group."""
from oslo_config import cfg
from oslo_log import log
from oslo_messaging import opts as messaging_opts

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

CONF = cfg.CONF

default.register_opts(CONF)
events.register_opts(CONF)
api.register_opts(CONF)
conductor.register_opts(CONF)
console.register_opts(CONF)
dashboard.register_opts(CONF)
database.register_opts(CONF)
exec_broker.register_opts(CONF)
external_manager.register_opts(CONF)
pool.register_opts(CONF)
provisioner.register_opts(CONF)
windows.register_opts(CONF)
sandbox.register_opts(CONF)
log.register_options(CONF)
for _group, _opts in messaging_opts.list_opts():
    CONF.register_opts(_opts, group=_group)
