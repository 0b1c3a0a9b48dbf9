"""Options of the [pool] group."""
from oslo_config import cfg

opts = [
    cfg.IntOpt('max_blocking_wait',
               default=7200,
               min=0,
               help='The longest time, in seconds, that a blocking pool '
                    'action (blocking=true) holds its HTTP request; a '
                    'longer wait_timeout is capped to it, and the response '
                    'says so in its X-Pool-Wait-Timeout header. The nodes '
                    'keep their own wait_timeout. A blocking action waits '
                    'as a watch of the events does, woken by the changes '
                    'of its nodes, and counts among the [api] max_waiters '
                    'of its API process (one more is answered 429).'),
    cfg.IntOpt('default_wait_timeout',
               default=7200,
               min=1,
               help='The wait_timeout of a pool action (or of a pool\'s '
                    'own wait_for_stage) that gives none, in seconds, as '
                    'in Digital Rebar: a node allocated or returned that '
                    'has not reached its stage by then is recorded as '
                    'timed out (its pool/status param is "timeout"), '
                    'whether the action blocked or not.'),
    cfg.IntOpt('max_count',
               default=10000,
               min=1,
               help='The largest count a single allocateMachines accepts.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='pool')
