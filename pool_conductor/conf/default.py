"""Options of the [DEFAULT] group."""
import os
import socket

from oslo_config import cfg

# The driver interfaces of a node, as Ironic names them, with the
# implementations pool enables by default. Every implementation of pool is
# fake-hardware's: a node has no hardware behind it, so each interface
# records its calls and answers as Ironic's fake one does, whatever its
# name. The first of each list is the default of a node that names none.
INTERFACE_DEFAULTS = {
    'bios': ['fake', 'no-bios'],
    'boot': ['fake', 'ipxe', 'pxe'],
    'console': ['fake', 'no-console'],
    'deploy': ['fake', 'direct', 'ramdisk'],
    'firmware': ['fake', 'no-firmware'],
    'inspect': ['fake', 'no-inspect', 'agent'],
    'management': ['fake', 'ipmitool', 'redfish'],
    'network': ['flat', 'noop'],
    'power': ['fake', 'ipmitool', 'redfish'],
    'raid': ['fake', 'no-raid', 'agent'],
    'rescue': ['fake', 'no-rescue', 'agent'],
    'storage': ['noop', 'fake', 'cinder'],
    'vendor': ['fake', 'no-vendor', 'ipmitool'],
}


def _interface_opts(name: str, enabled: list[str]) -> list[cfg.Opt]:
    return [
        cfg.ListOpt('enabled_%s_interfaces' % name,
                    default=enabled,
                    help='The %s interfaces a node may have (the '
                         '%s_interface field). Pool has no hardware behind '
                         'its nodes: each behaves as Ironic\'s fake one, and '
                         'the name is recorded for the clients that read '
                         'it. A node created or updated with another one is '
                         'refused.' % (name, name)),
        cfg.StrOpt('default_%s_interface' % name,
                   help='The %s interface given to a node that names none '
                        '(and to one whose interfaces are reset). Unset: '
                        'the first of enabled_%s_interfaces. It must be '
                        'one of those.' % (name, name)),
    ]


opts = [
    cfg.StrOpt('default_portgroup_mode',
               default='active-backup',
               help='The bonding mode of a port group created without one '
                    '(Ironic\'s option of the same name); the Linux '
                    'bonding modes are balance-rr, active-backup, '
                    'balance-xor, broadcast, 802.3ad, balance-tlb and '
                    'balance-alb.'),
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
               default='keystone',
               choices=[('keystone', 'Tokens checked by keystonemiddleware '
                                     'auth_token against Keystone '
                                     '([keystone_authtoken] options).'),
                        ('http_basic', 'HTTP Basic authentication against '
                                       'the bcrypt hashes of '
                                       '[DEFAULT] http_basic_auth_user_file;'
                                       ' every user is a system admin.'),
                        ('noauth', 'No authentication: every request is '
                                   'served as a system admin. For '
                                   'development only.')],
               help='Authentication strategy of the API. pool-server '
                    'defaults to noauth.'),
    cfg.StrOpt('http_basic_auth_user_file',
               default='/etc/pool/htpasswd',
               help='Path to an Apache htpasswd file of users and their '
                    'bcrypt password hashes (htpasswd -B), read when '
                    'auth_strategy = http_basic.'),
    cfg.StrOpt('http_basic_auth_realm',
               default='Pool API',
               help='The realm sent in the WWW-Authenticate header of 401 '
                    'responses when auth_strategy = http_basic.'),
    cfg.StrOpt('notification_level',
               choices=[('debug', '"debug" level'),
                        ('info', '"info" level'),
                        ('warning', '"warning" level'),
                        ('error', '"error" level'),
                        ('critical', '"critical" level')],
               help='The lowest level of the events sent as notifications '
                    '(the transport of [oslo_messaging_notifications] '
                    'transport_url, by default the RPC one). Unset, none '
                    'is sent; events are still recorded.'),
    cfg.ListOpt('versioned_notifications_topics',
                default=['ironic_versioned_notifications'],
                help='The topics notifications are sent to: Ironic\'s by '
                     'default, so that consumers of Ironic\'s versioned '
                     'notifications receive pool\'s.'),
    cfg.ListOpt('enabled_hardware_types',
                default=['fake-hardware'],
                help='The hardware types (drivers) GET /v1/drivers lists as '
                     'served by the conductors. A node may name any driver; '
                     'every driver has the enabled interfaces of the '
                     '[DEFAULT] enabled_*_interfaces options.'),
    *[opt for name, enabled in INTERFACE_DEFAULTS.items()
      for opt in _interface_opts(name, enabled)],
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)
