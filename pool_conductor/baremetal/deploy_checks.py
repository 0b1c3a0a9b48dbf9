"""What validating and deploying a node check, as Ironic's fake-hardware.

Pool's nodes have no hardware behind them: every driver interface is the
fake one of Ironic's fake-hardware type, whose own validation accepts any
node. What remains is the check Ironic's conductor makes for every driver
when it validates the deploy interface and before a deployment: the
instance traits.
"""
from pool_conductor import exception

# The interfaces Ironic validates (all but vendor), as of version 1.60.
INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect', 'management',
              'network', 'power', 'raid', 'rescue', 'storage')


def check_instance_traits(node) -> None:
    """Instance traits (instance_info['traits']) must be node traits.

    :raises: InvalidParameterValue, with Ironic's messages
    """
    wanted = (node.instance_info or {}).get('traits')
    if not wanted:
        return
    if (not isinstance(wanted, list)
            or not all(isinstance(t, str) for t in wanted)):
        raise exception.InvalidParameterValue(
            err='Error parsing traits from Node %s instance_info field. A '
                'list of strings is expected.' % node.uuid)
    missing = sorted(set(wanted) - {t.trait for t in node.traits})
    if missing:
        raise exception.InvalidParameterValue(
            err='Cannot specify instance traits that are not also set on '
                'the node. Node %s is missing traits %s'
                % (node.uuid, ', '.join(missing)))


def validate_interfaces(node) -> dict:
    """Each interface's {result, reason} for GET /v1/nodes/<node>/validate:
    a reason only where the result is False, as in Ironic."""
    results = {name: {'result': True} for name in INTERFACES}
    try:
        check_instance_traits(node)
    except exception.InvalidParameterValue as exc:
        results['deploy'] = {'result': False, 'reason': exc.message}
    return results
