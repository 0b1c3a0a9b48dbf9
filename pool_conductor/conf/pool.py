"""Options of the [pool] group."""
from oslo_config import cfg

opts = [
    cfg.IntOpt('max_blocking_wait',
               default=60,
               min=0,
               help='The longest time, in seconds, that a blocking pool '
                    'action (blocking=true) holds its HTTP request; a '
                    'longer wait_timeout is capped to it, and the response '
                    'says so in its X-Pool-Wait-Timeout header.'),
    cfg.IntOpt('default_wait_timeout',
               default=7200,
               min=1,
               help='The wait_timeout of a pool action that gives none, '
                    'in seconds, as in Digital Rebar.'),
    cfg.IntOpt('max_count',
               default=10000,
               min=1,
               help='The largest count a single allocateMachines accepts.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='pool')
