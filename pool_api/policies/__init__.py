"""The oslo.policy rules of every API operation, one module per resource.

Rules are named as Ironic names them (``baremetal:<resource>:<action>``)
where Ironic has the operation, ``pool:<resource>:<action>`` elsewhere.
Each module holds the rules of one resource family and answers
``list_rules()``; this one chains them, in the order the sample policy
file lists them. ``base`` holds the personas and the check strings they
share. The enforcement (``authorize`` and its kin) is ``pool_api.policy``,
which registers these defaults.
"""
import itertools

from oslo_policy import policy

from pool_api.policies import allocations
from pool_api.policies import base
from pool_api.policies import brokers
from pool_api.policies import chassis
from pool_api.policies import claims
from pool_api.policies import content
from pool_api.policies import deploy_templates
from pool_api.policies import drivers
from pool_api.policies import events
from pool_api.policies import external_managers
from pool_api.policies import fleet
from pool_api.policies import nodes
from pool_api.policies import portgroups
from pool_api.policies import ports
from pool_api.policies import pools
from pool_api.policies import profiles
from pool_api.policies import providers
from pool_api.policies import reservations
from pool_api.policies import volumes
from pool_api.policies import workflows

# In the order of the sample file: the node and what hangs off it, the
# allocations and what books nodes, the named objects, the views.
_MODULES = (nodes, ports, portgroups, volumes, chassis, deploy_templates,
            drivers, allocations, reservations, claims, pools, profiles,
            workflows, brokers, external_managers, providers, content,
            events, fleet, base)


def list_rules() -> list[policy.RuleDefault]:
    """The rule defaults of the API, for the enforcer and for
    oslopolicy-sample-generator."""
    return list(itertools.chain.from_iterable(
        module.list_rules() for module in _MODULES))
