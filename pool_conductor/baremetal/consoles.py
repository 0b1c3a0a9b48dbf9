"""The consoles of nodes: Ironic's console mode, with a fake console.

A node's console is recorded as enabled or disabled; an enabled one
answers the connection information of a socat serial console, as
Ironic's socat console interfaces do, at ``[console] socat_address`` on
a port of ``[console] port_range`` chosen by the node's id. No console
runs behind it.
"""
from pool_conductor.baremetal import nodes
from pool_conductor.conf import CONF
from pool_conductor import exception


def info(node) -> dict:
    """The console_info of a node whose console is enabled.

    :raises: NodeConsoleNotEnabled
    """
    if not node.console_enabled:
        raise exception.NodeConsoleNotEnabled(node=node.uuid)
    first, last = (int(p) for p in CONF.console.port_range.split(':'))
    port = first + node.id % max(last - first + 1, 1)
    return {'type': 'socat',
            'url': 'tcp://%s:%d' % (CONF.console.socat_address, port)}


def set_mode(context, node, enabled: bool):
    """Enable or disable a node's console (Ironic's console_set); a
    console already so is left as it is, as in Ironic.

    :raises: NodeLocked, ConcurrentUpdate
    """
    if bool(node.console_enabled) == enabled:
        return node
    return nodes.update(context, node, {'console_enabled': enabled,
                                        'last_error': None})
