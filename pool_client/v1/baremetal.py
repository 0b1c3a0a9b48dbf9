"""``openstack baremetal allocation create`` with the windows of pool:
python-ironicclient's command, with --start, --end and --duration."""
import logging

from ironicclient.common import utils as ironic_utils
from ironicclient.osc.v1 import baremetal_allocation
from ironicclient.v1 import resource_fields
from osc_lib import exceptions

from pool_client.v1 import allocations

# The fields of a windowed allocation shown besides Ironic's.
WINDOW_FIELDS = ('start_at', 'lifespan_end', 'busy_from', 'busy_until')
# What an allocation asks for, as Ironic's command sends it.
_REQUEST = ('name', 'uuid', 'extra', 'resource_class', 'traits',
            'candidate_nodes', 'node', 'owner')


class CreateBaremetalAllocation(
        baremetal_allocation.CreateBaremetalAllocation):
    """Create a new baremetal allocation, now or for a time window."""

    log = logging.getLogger(__name__ + '.CreateBaremetalAllocation')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        allocations.window_arguments(parser, start_help=(
            'Book a window that starts at this time (RFC 3339 with an '
            'offset, such as 2026-12-01T09:00:00Z) through the pool API: '
            'the allocation is scheduled with a node held for it, and '
            'becomes active at its start. Needs --end or --duration.'))
        return parser

    def take_action(self, parsed_args):
        if all(getattr(parsed_args, k) is None
               for k in allocations.WINDOW):
            return super().take_action(parsed_args)
        self.log.debug('take_action(%s)', parsed_args)
        if not parsed_args.node and not parsed_args.resource_class:
            raise exceptions.CommandError(
                '--resource-class is required except when --node is used')
        # Ironic's client sends only Ironic's fields: a window goes to
        # the pool API with the same session.
        fields = {k: getattr(parsed_args, k)
                  for k in (*_REQUEST, *allocations.WINDOW)
                  if getattr(parsed_args, k) is not None}
        fields = ironic_utils.args_array_to_dict(fields, 'extra')
        client = self.app.client_manager.pool
        allocation = client.allocation_create(**fields)
        if parsed_args.wait_timeout is not None:
            allocation = client.allocation_wait(
                allocation['uuid'], timeout=parsed_args.wait_timeout)
            if allocation.get('state') == allocations.ERROR:
                raise exceptions.CommandError(
                    'Allocation %s failed: %s'
                    % (allocation['uuid'],
                       allocation.get('last_error') or 'unknown error'))
        shown = (*resource_fields.ALLOCATION_DETAILED_RESOURCE.fields,
                 *WINDOW_FIELDS)
        return self.dict2columns({f: allocation.get(f, '') for f in shown})
