"""Options of the [DEFAULT] group."""
import os
import socket

from oslo_config import cfg

opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='localhost',
               help='Name of this node. It must be unique among the '
                    'conductors of a deployment: allocations are routed to '
                    'a conductor by this name and taken over by others '
                    'when it stops heartbeating.'),
    cfg.StrOpt('state_path',
               default=os.path.join(os.path.expanduser('~'), '.local',
                                    'state', 'pool'),
               sample_default='$HOME/.local/state/pool',
               help='Directory where pool keeps its state, such as the '
                    'SQLite database of pool-server.'),
    cfg.StrOpt('auth_strategy',
               default='noauth',
               choices=[('noauth', 'No authentication: every request is '
                                   'served with full rights. For '
                                   'development only.')],
               help='Authentication strategy of the API.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)
