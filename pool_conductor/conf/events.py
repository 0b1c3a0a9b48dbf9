"""Options of the [events] group."""
from oslo_config import cfg

opts = [
    cfg.FloatOpt('sequence_interval',
                 default=0.2,
                 min=0.01,
                 help='Seconds between two passes of a conductor that give '
                      'new events their cursors (in commit order), after '
                      'which watchers see them and notifications are sent.'),
    cfg.IntOpt('sequence_batch',
               default=1000,
               min=1,
               help='The most events one pass gives cursors to.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='events')
