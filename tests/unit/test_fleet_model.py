"""The stateful model of the fleet on SQLite, and the invariants it checks."""
import copy

from oslotest import base as oslo_base

from tests import base
from tests import fleet_machine

NODE = '11111111-1111-4111-8111-111111111111'
OTHER = '22222222-2222-4222-8222-222222222222'
ALLOC = '33333333-3333-4333-8333-333333333333'
FLEET = {
    'nodes': [
        {'uuid': NODE, 'name': 'n0', 'pool': 'web', 'pool_status': 'InUse',
         'pool_allocated': True, 'instance_uuid': ALLOC,
         'allocation_uuid': ALLOC},
        {'uuid': OTHER, 'name': 'n1', 'pool': 'default',
         'pool_status': 'Free', 'pool_allocated': False,
         'instance_uuid': None, 'allocation_uuid': None},
    ],
    'allocs': [{'uuid': ALLOC, 'state': 'active', 'node_uuid': NODE}],
    'pools': [{'name': 'default', 'parent_pool': None},
              {'name': 'web', 'parent_pool': 'default'}],
}


class FleetModelTestCase(fleet_machine.FleetModelTests, base.TestCase):
    pass


class CheckFleetTestCase(oslo_base.BaseTestCase):
    """check_fleet finds each broken invariant."""

    def broken(self, change, message):
        fleet = copy.deepcopy(FLEET)
        change(fleet)
        error = self.assertRaises(AssertionError, fleet_machine.check_fleet,
                                  fleet['nodes'], fleet['allocs'],
                                  fleet['pools'])
        self.assertIn(message, str(error))

    def test_healthy_fleet(self):
        fleet_machine.check_fleet(FLEET['nodes'], FLEET['allocs'],
                                  FLEET['pools'])

    def test_allocated_node_in_workflow(self):
        fleet = copy.deepcopy(FLEET)
        for status in ('Building', 'HoldBuild', 'Destroying',
                       'HoldDestroy'):
            fleet['nodes'][0]['pool_status'] = status
            fleet_machine.check_fleet(fleet['nodes'], fleet['allocs'],
                                      fleet['pools'])

    def test_node_with_instance_not_allocated(self):
        def change(fleet):
            fleet['nodes'][1]['instance_uuid'] = OTHER
        self.broken(change, 'has an instance but is not pool_allocated')

    def test_node_with_allocation_free(self):
        def change(fleet):
            fleet['nodes'][0].update(pool_status='Free',
                                     pool_allocated=False)
        self.broken(change, 'has an instance but is not pool_allocated')

    def test_allocated_node_free(self):
        def change(fleet):
            fleet['nodes'][0]['pool_status'] = 'Free'
        self.broken(change, 'is pool_allocated in a free status')

    def test_unallocated_node_in_use(self):
        def change(fleet):
            fleet['nodes'][1]['pool_status'] = 'InUse'
        self.broken(change, 'is not pool_allocated in an allocated status')

    def test_instance_is_not_the_allocation(self):
        def change(fleet):
            fleet['nodes'][0]['instance_uuid'] = OTHER
        self.broken(change, 'instance is not its allocation')

    def test_node_in_missing_pool(self):
        def change(fleet):
            fleet['nodes'][1]['pool'] = 'gone'
        self.broken(change, 'no such pool')

    def test_missing_parent_pool(self):
        def change(fleet):
            fleet['pools'][1]['parent_pool'] = 'gone'
        self.broken(change, 'pool web has a missing parent gone')

    def test_node_held_by_two_allocations(self):
        def change(fleet):
            fleet['allocs'].append({'uuid': OTHER, 'state': 'active',
                                    'node_uuid': NODE})
        self.broken(change, 'held by %s and %s' % (ALLOC, OTHER))

    def test_active_allocation_not_carried(self):
        def change(fleet):
            fleet['nodes'][0].update(instance_uuid=None,
                                     allocation_uuid=None)
        self.broken(change, 'node n0 carries None, not its allocation')

    def test_error_allocation_holding_a_node(self):
        def change(fleet):
            fleet['allocs'][0]['state'] = 'error'
        self.broken(change, 'allocation %s in error holds %s'
                    % (ALLOC, NODE))

    def test_active_allocation_of_missing_node(self):
        def change(fleet):
            fleet['allocs'][0]['node_uuid'] = None
        self.broken(change, 'active allocation %s holds no node of the '
                            'fleet (None)' % ALLOC)

    def test_node_pointing_at_missing_allocation(self):
        def change(fleet):
            fleet['allocs'] = []
        self.broken(change, 'node n0 carries allocation %s, which is not '
                            'active or not its own' % ALLOC)
