"""Options of the [sandbox] group."""
from oslo_config import cfg

opts = [
    cfg.FloatOpt('cpu_time_limit',
                 default=0.5,
                 min=0.01,
                 help='Seconds of CPU time that rendering the templates of '
                      'the providers of one request, and validating its '
                      'resource templates against the providers\' '
                      'validation, may take in all. They run in sandbox '
                      'processes, which the kernel stops at the limit; the '
                      'request then answers 400.'),
    cfg.FloatOpt('wall_time_limit',
                 default=2.0,
                 min=0.01,
                 help='Seconds that the same work of one request may take '
                      'in all, waiting for a CPU included (not waiting for '
                      'a free sandbox process): the process running it is '
                      'then killed and the request answers 400.'),
    cfg.IntOpt('memory_limit',
               default=256,
               min=16,
               help='MiB of address space that one render or validation '
                    'may add to the process running it; beyond it, the '
                    'request answers 400.'),
    cfg.IntOpt('processes',
               default=2,
               min=1,
               help='The most sandbox processes of one API process, each '
                    'running one render or validation at a time; a request '
                    'that finds none free waits for one. Each is started '
                    'on first use and kept.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='sandbox')
