"""Options of the [database] group (oslo.db)."""
from oslo_config import cfg
from oslo_db import options as db_options


def register_opts(conf: cfg.ConfigOpts) -> None:
    db_options.set_defaults(conf)
