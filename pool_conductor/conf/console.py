"""Options of the [console] group: what the fake console answers."""
from oslo_config import cfg

opts = [
    cfg.StrOpt('socat_address',
               default='127.0.0.1',
               help='The address the console_info of a node\'s enabled '
                    '(fake) serial console names, as Ironic\'s socat '
                    'console names the address it listens on.'),
    cfg.StrOpt('port_range',
               default='10000:20000',
               regex=r'^\d+:\d+$',
               help='The TCP ports of the consoles, "first:last": a node\'s '
                    'console_info names one of them, the same one for the '
                    'node each time.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='console')
