"""The --host and --port options of the API commands, and a port in use."""
import errno
import socket
import sys

from oslo_config import cfg

from pool_conductor.conf import CONF

# Their own dest: [DEFAULT] host is the conductor's name, and the file
# options stay [api] host_ip and [api] port.
CLI_OPTS = [
    cfg.HostAddressOpt('host', dest='listen_host', metavar='ADDRESS',
                       help='The address the API listens on; overrides '
                            '[api] host_ip (default 127.0.0.1).'),
    cfg.PortOpt('port', dest='listen_port', metavar='PORT',
                help='The TCP port the API listens on; overrides [api] '
                     'port (default 6388).'),
]

EPILOG = ('Without --config-file, options are read from pool.conf in '
          '~/.pool/, ~/, /etc/pool/ or /etc/ where one exists; '
          'etc/pool/pool.conf.sample lists them all. The command line wins '
          'over the files.')


def apply_overrides() -> None:
    """Make --host and --port the values of [api] host_ip and port."""
    if CONF.listen_host is not None:
        CONF.set_override('host_ip', CONF.listen_host, group='api')
    if CONF.listen_port is not None:
        CONF.set_override('port', CONF.listen_port, group='api')


def refusal(prog: str, exc: OSError) -> str:
    """One line saying why the API cannot listen where it was told."""
    cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
    if cause.errno == errno.EADDRINUSE:
        why = ('the port is in use by another process; choose another '
               'with --port or [api] port')
    else:
        why = '%s; check --host and --port ([api] host_ip and port)' % (
            cause.strerror or cause)
    return '%s: cannot listen on %s port %d: %s.' % (
        prog, CONF.api.host_ip, CONF.api.port, why)


def exit_unless_free(prog: str) -> None:
    """Exit with status 1 and one line on stderr when the API's address
    cannot be bound."""
    family = socket.AF_INET6 if ':' in CONF.api.host_ip else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((CONF.api.host_ip, CONF.api.port))
    except OSError as exc:
        sys.exit(refusal(prog, exc))
