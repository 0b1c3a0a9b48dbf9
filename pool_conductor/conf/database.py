"""Options of the [database] group (oslo.db's, and pool's own)."""
from oslo_config import cfg
from oslo_db import options as db_options

opts = [
    cfg.StrOpt('sqlite_wal_synchronous',
               default='FULL',
               choices=[('FULL', 'An fsync of the write-ahead log at every '
                                 'commit.'),
                        ('NORMAL', 'An fsync at checkpoints only.')],
               help='How a SQLite database (pool-server\'s) makes commits '
                    'durable: FULL waits for an fsync of the '
                    'write-ahead log at every commit; NORMAL only at '
                    'checkpoints, so that commits are faster (about a '
                    'third more allocations per second was measured) and '
                    'a crash of the process still loses nothing, but a '
                    'crash of the machine or a power failure may lose '
                    'the last committed transactions. The database stays '
                    'consistent either way. Read when a connection '
                    'opens; not applied when sqlite_synchronous is false '
                    '(synchronous OFF).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    db_options.set_defaults(conf)
    conf.register_opts(opts, group='database')
