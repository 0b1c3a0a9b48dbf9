"""Options of the [exec_broker] group."""
from oslo_config import cfg
from oslo_config import types

opts = [
    cfg.MultiOpt('program',
                 item_type=types.String(
                     regex=r'^[A-Za-z0-9][A-Za-z0-9._-]*:\s*\S'),
                 help='A program that exec brokers may run, as '
                      '"NAME:COMMAND LINE", for example "lab-vms:'
                      '/usr/local/bin/lab-vms --cloud lab" (NAME of '
                      'letters, digits, ".", "_" and "-"); repeat the '
                      'option for each program. A broker names one in its '
                      'parameter "program"; what runs is only ever one of '
                      'these. The command line is split at whitespace (no '
                      'quoting) and run without a shell, by the '
                      'conductors; the API checks the names a broker '
                      'gives against the same list, so set it alike on '
                      'both. None by default: no exec broker can run.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='exec_broker')
