"""A stateful model of the fleet: random API calls keep its invariants."""
import os

from hypothesis import Phase
from hypothesis import settings
from hypothesis import stateful
from hypothesis import strategies as st
import sqlalchemy as sa

from pool_api import app as pool_app
from pool_conductor.allocator import AllocationWorker
from pool_conductor.baremetal import provisioning
from pool_conductor.conf import CONF
from pool_conductor import context as pool_context
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import consistency
from pool_conductor.db import models
from pool_conductor import rpcapi
from pool_conductor import states
from pool_conductor import workflows

HOST = 'test-host'
VERSION = '1.60'
# The fleet: node names and their resource classes.
NODES = {'n0': 'baremetal', 'n1': 'baremetal', 'n2': 'baremetal',
         'n3': 'baremetal', 'n4': 'gpu'}
RESOURCE_CLASSES = ('baremetal', 'gpu')
# The default pool and the pools rules create and delete.
NEW_POOLS = ('p1', 'p2', 'p3')
POOLS = (models.DEFAULT_POOL, *NEW_POOLS)
WORKFLOWS = {'burnin': ['tested'], 'deploy': ['install', 'complete'],
             'wipe': ['erase', 'wiped']}
# The transition actions of a pool, by a name the rules choose: none,
# workflows that run without being waited for, or workflows waited for (a
# node joins, is built, destroyed and leaves through them).
POOL_ACTIONS = {
    'none': {},
    'workflows': {'allocate_actions': {'workflow': 'deploy'},
                  'release_actions': {'workflow': 'wipe'}},
    'waits': {
        'enter_actions': {'workflow': 'burnin', 'wait_for_stage': 'tested'},
        'allocate_actions': {'workflow': 'deploy',
                             'wait_for_stage': 'complete'},
        'release_actions': {'workflow': 'wipe', 'wait_for_stage': 'wiped'},
        'exit_actions': {'workflow': 'wipe', 'wait_for_stage': 'wiped'},
    },
}
# The pools every sequence starts with: name, parent, actions and members
# (moved from the parent, in this order).
INITIAL_POOLS = (('p1', models.DEFAULT_POOL, 'none', ['n2', 'n3']),
                 ('p2', 'p1', 'waits', ['n3']))
STAGES = tuple(s for stages in WORKFLOWS.values() for s in stages)
# Long enough that no conductor dies and no allocation counts as stuck
# while a sequence runs.
HEARTBEAT_TIMEOUT = 3600
STUCK_AFTER = 3600

# Sequences per run and steps per sequence: 20 to 25 s on each backend
# while the fleet keeps its invariants. POOL_TEST_FLEET_EXAMPLES asks for
# more sequences.
MAX_EXAMPLES = 20
STEPS = 20
# Not Phase.explain: it runs the failing sequence again under a tracer to
# list the lines only failing runs reach, which says little here.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target,
          Phase.shrink)

node_names = st.sampled_from(sorted(NODES))
pool_names = st.sampled_from(POOLS)
machine_lists = st.lists(node_names, min_size=1, max_size=3, unique=True)
short_machine_lists = st.lists(node_names, min_size=1, max_size=2,
                               unique=True)


class Fleet:
    """What the machine drives: the app, the worker and the database.

    Casts of allocations to the conductor are recorded in ``casts``
    instead of being sent; ``run_worker`` processes them.
    """

    def __init__(self, test):
        self.context = pool_context.get_admin_context()
        self.app = pool_app.create_app()
        self.client = self.app.test_client()
        self.casts: list[int] = []
        self.worker = AllocationWorker(HOST, 1, batch_size=8)
        test.addCleanup(self.worker.stop)
        test.patch(rpcapi.ConductorAPI, 'alive_with_groups',
                   lambda _self, _ctx: [(HOST, '')])
        test.patch(rpcapi.ConductorAPI, 'create_allocation',
                   lambda _self, _ctx, alloc_id, host:
                   self.casts.append(alloc_id))
        # Nodes cast in a provision state in progress are moved on by
        # run_provisioning, or by the conductor's check.
        self.provision_casts: list[int] = []
        test.patch(rpcapi.ConductorAPI, 'continue_provisioning',
                   lambda _self, _ctx, node_id, host:
                   self.provision_casts.append(node_id))

    def reset(self) -> None:
        """Empty the database but for the default pool and the conductor,
        which is alive."""
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Node).values(allocation_id=None))
            for table in reversed(models.Base.metadata.sorted_tables):
                if table.name == models.Conductor.__tablename__:
                    continue
                query = sa.delete(table)
                if table.name == models.Pool.__tablename__:
                    query = query.where(table.c.name != models.DEFAULT_POOL)
                session.execute(query)
        conductors_db.register_conductor(self.context, HOST)
        self.casts = []
        self.provision_casts = []

    def request(self, method: str, path: str, body=None):
        """The answer to a request, which must not be a server error."""
        kwargs = {'headers': {'X-OpenStack-Ironic-API-Version': VERSION}}
        if body is not None:
            kwargs['json'] = body
        resp = self.client.open(path, method=method, **kwargs)
        assert resp.status_code < 500, (
            '%s %s %s: %s %s' % (method, path, body, resp.status_code,
                                 resp.get_data(as_text=True)))
        return resp

    def create(self, path: str, body: dict) -> dict:
        resp = self.request('POST', path, body)
        assert resp.status_code == 201, resp.get_data(as_text=True)
        return resp.get_json()

    def enroll(self, name: str) -> None:
        self.create('/v1/nodes', {'name': name, 'driver': 'fake-hardware',
                                  'resource_class': NODES[name]})
        for verb in ('manage', 'provide'):
            resp = self.request('PUT', '/v1/nodes/%s/states/provision'
                                % name, {'target': verb})
            assert resp.status_code == 202, resp.get_data(as_text=True)

    def run_worker(self) -> None:
        """Process the allocations sent to the conductor, in one batch."""
        casts, self.casts = self.casts, []
        if casts:
            self.worker.process_batch(casts)

    def run_provisioning(self) -> None:
        """Move on the nodes cast in a provision state in progress."""
        casts, self.provision_casts = self.provision_casts, []
        provisioning.continue_nodes(self.context, casts)

    def run_conductor(self, rounds: int) -> None:
        for _ in range(rounds):
            workflows.check_workflows(self.context, HOST)
            provisioning.check(self.context)


class FleetMachine(stateful.RuleBasedStateMachine):
    """Random sequences of every entry point of the API on a small fleet.

    Each rule is one entry point (or the allocation worker, or a round of
    the conductor's workflows) with random arguments, many of them
    invalid: an answer in 4xx is fine, one in 5xx fails. After each step
    ``pool-dbsync check`` must find nothing wrong, and the nodes,
    allocations and pools read through the API must keep the invariants
    (check_fleet). The pool actions take pool None for the pool of the
    first node they name (or the default pool), and a machine_list of None
    for all_machines.

    A test binds it to a Fleet (the ``fleet`` class attribute) and runs
    it; each sequence starts on a fresh fleet of NODES in INITIAL_POOLS.
    """

    fleet: Fleet

    def __init__(self):
        super().__init__()
        self.fleet.reset()
        for name, stages in WORKFLOWS.items():
            self.fleet.create('/v1/workflows', {'name': name,
                                                'stages': stages})
        for name in NODES:
            self.fleet.enroll(name)
        for name, parent, actions, members in INITIAL_POOLS:
            self.fleet.create('/v1/pools', {'name': name,
                                            'parent_pool': parent,
                                            **POOL_ACTIONS[actions]})
            resp = self.pool_action(name, 'addMachines',
                                    {'machine_list': members})
            assert resp.status_code == 200, resp.get_data(as_text=True)

    def request(self, method: str, path: str, body=None):
        return self.fleet.request(method, path, body)

    def pool_action(self, pool: str | None, action: str, body: dict):
        """POST a pool action; pool None is the pool of the first node of
        the machine_list, or the default pool."""
        if pool is None:
            pool = models.DEFAULT_POOL
            if body.get('machine_list'):
                resp = self.request('GET', '/v1/nodes/%s'
                                    % body['machine_list'][0])
                pool = resp.get_json()['pool']
        return self.request('POST', '/v1/pools/%s/%s' % (pool, action),
                            body)

    # Allocations

    @stateful.rule(resource_class=st.sampled_from(RESOURCE_CLASSES),
                   pool=st.none() | pool_names,
                   candidates=st.none() | machine_lists,
                   process=st.booleans())
    def create_allocation(self, resource_class, pool, candidates, process):
        body = {'resource_class': resource_class}
        if pool is not None:
            body['pool'] = pool
        if candidates is not None:
            body['candidate_nodes'] = candidates
        self.request('POST', '/v1/allocations', body)
        if process:
            self.fleet.run_worker()

    @stateful.rule()
    def run_allocation_worker(self):
        self.fleet.run_worker()

    @stateful.rule()
    def run_provisioning(self):
        self.fleet.run_provisioning()

    @stateful.rule(node=node_names, deploy=st.booleans(),
                   resource_class=st.none() | st.sampled_from(
                       RESOURCE_CLASSES))
    def backfill_allocation(self, node, deploy, resource_class):
        if deploy:
            self.request('PUT', '/v1/nodes/%s/states/provision' % node,
                         {'target': 'active'})
        body = {'node': node}
        if resource_class is not None:
            body['resource_class'] = resource_class
        resp = self.request('POST', '/v1/allocations', body)
        if resp.status_code == 201:
            alloc = resp.get_json()
            assert alloc['state'] == states.ALLOCATION_ACTIVE, alloc
            node_uuid = self.request('GET', '/v1/nodes/%s' % node
                                     ).get_json()['uuid']
            assert alloc['node_uuid'] == node_uuid, alloc

    @stateful.rule(index=st.integers(min_value=0, max_value=7))
    def delete_allocation(self, index):
        allocs = self.request('GET', '/v1/allocations'
                              ).get_json()['allocations']
        if allocs:
            self.request('DELETE', '/v1/allocations/%s'
                         % allocs[index % len(allocs)]['uuid'])

    @stateful.rule(node=node_names)
    def delete_node_allocation(self, node):
        self.request('DELETE', '/v1/nodes/%s/allocation' % node)

    # Pool actions

    @stateful.rule(pool=st.none() | pool_names,
                   count=st.integers(min_value=1, max_value=3),
                   machine_list=st.none() | machine_lists,
                   partial_success=st.booleans(),
                   wait_for_stage=st.booleans())
    def allocate_machines(self, pool, count, machine_list, partial_success,
                          wait_for_stage):
        body = {'partial_success': partial_success}
        if machine_list is not None:
            body['machine_list'] = machine_list
        else:
            body['count'] = count
        if wait_for_stage:
            body.update(new_workflow='deploy', wait_for_stage='complete')
        resp = self.pool_action(pool, 'allocateMachines', body)
        if resp.status_code != 200:
            return
        results = resp.get_json()
        # Without wait_for_stage the pool's allocate actions may wait.
        allowed = ((states.POOL_BUILDING,) if wait_for_stage
                   else (states.POOL_IN_USE, states.POOL_BUILDING))
        for result in results:
            assert result['allocated'] and result['status'] in allowed, (
                results)
        names = [r['name'] for r in results]
        assert len(set(names)) == len(names), results
        if machine_list is not None:
            assert set(names) <= set(machine_list), (
                'allocateMachines %s gave %s' % (machine_list, names))
            if not partial_success:
                assert set(names) == set(machine_list), (
                    'allocateMachines %s gave %s' % (machine_list, names))
        elif not partial_success:
            assert len(names) == count, (
                'allocateMachines of %d gave %s' % (count, names))

    @staticmethod
    def _machines(machine_list: list | None) -> dict:
        """The nodes of a pool action: those named, or with None all
        those it applies to."""
        if machine_list is None:
            return {'all_machines': True}
        return {'machine_list': machine_list}

    @staticmethod
    def _return_body(force: bool, wait_for_stage: bool) -> dict:
        body = {'force': force}
        if wait_for_stage:
            body.update(new_workflow='wipe', wait_for_stage='wiped')
        return body

    @stateful.rule(pool=st.none() | pool_names,
                   machine_list=st.none() | short_machine_lists,
                   force=st.booleans(), wait_for_stage=st.booleans())
    def return_machines(self, pool, machine_list, force, wait_for_stage):
        self.pool_action(pool, 'returnMachines', {
            **self._machines(machine_list),
            **self._return_body(force, wait_for_stage)})

    @stateful.rule(node=node_names, force=st.booleans(),
                   wait_for_stage=st.booleans())
    def return_to_pool(self, node, force, wait_for_stage):
        self.request('POST', '/v1/nodes/%s/returnToPool' % node,
                     self._return_body(force, wait_for_stage))

    @stateful.rule(pool=pool_names, machine_list=st.none() | machine_lists)
    def add_machines(self, pool, machine_list):
        self.pool_action(pool, 'addMachines', self._machines(machine_list))

    @stateful.rule(pool=st.none() | st.sampled_from(NEW_POOLS),
                   machine_list=st.none() | machine_lists)
    def remove_machines(self, pool, machine_list):
        self.pool_action(pool, 'removeMachines',
                         self._machines(machine_list))

    # Nodes

    @stateful.rule(node=node_names, instance=st.uuids())
    def add_instance_uuid(self, node, instance):
        self.request('PATCH', '/v1/nodes/%s' % node, [
            {'op': 'add', 'path': '/instance_uuid', 'value': str(instance)}])

    @stateful.rule(node=node_names)
    def remove_instance_uuid(self, node):
        self.request('PATCH', '/v1/nodes/%s' % node, [
            {'op': 'remove', 'path': '/instance_uuid'}])

    @stateful.rule(node=node_names, stage=st.none() | st.sampled_from(STAGES),
                   runnable=st.none() | st.booleans())
    def report_stage(self, node, stage, runnable):
        ops = []
        if stage is not None:
            ops.append({'op': 'replace', 'path': '/stage', 'value': stage})
        if runnable is not None or not ops:
            ops.append({'op': 'replace', 'path': '/runnable',
                        'value': runnable is not False})
        self.request('PATCH', '/v1/nodes/%s' % node, ops)

    @stateful.rule(node=node_names, on=st.booleans())
    def set_maintenance(self, node, on):
        self.request('PUT' if on else 'DELETE',
                     '/v1/nodes/%s/maintenance' % node)

    @stateful.rule(node=node_names, verb=st.sampled_from(
        ('active', 'deploy', 'deleted', 'undeploy')))
    def set_provision_state(self, node, verb):
        self.request('PUT', '/v1/nodes/%s/states/provision' % node,
                     {'target': verb})

    @stateful.rule(node=node_names, maintenance=st.booleans())
    def delete_and_enroll_node(self, node, maintenance):
        """Delete a node and enroll one of the same name and class, so that
        the fleet keeps its size."""
        if maintenance:
            self.request('PUT', '/v1/nodes/%s/maintenance' % node)
        if self.request('DELETE', '/v1/nodes/%s' % node).status_code == 204:
            self.fleet.enroll(node)

    # Pools

    @stateful.rule(name=st.sampled_from(NEW_POOLS),
                   parent=st.none() | pool_names,
                   actions=st.sampled_from(sorted(POOL_ACTIONS)))
    def create_pool(self, name, parent, actions):
        self.request('POST', '/v1/pools', {'name': name,
                                           'parent_pool': parent,
                                           **POOL_ACTIONS[actions]})

    @stateful.rule(name=st.sampled_from(NEW_POOLS))
    def delete_pool(self, name):
        self.request('DELETE', '/v1/pools/%s' % name)

    # The conductor

    @stateful.rule(rounds=st.integers(min_value=1, max_value=3))
    def conductor_round(self, rounds):
        self.fleet.run_conductor(rounds)

    # Invariants

    @stateful.invariant()
    def database_is_consistent(self):
        problems = consistency.find_problems(
            self.fleet.context, HEARTBEAT_TIMEOUT, STUCK_AFTER)
        assert problems == [], '\n'.join(problems)

    @stateful.invariant()
    def api_shows_a_consistent_fleet(self):
        nodes = self.request('GET', '/v1/nodes/detail').get_json()['nodes']
        allocs = self.request('GET', '/v1/allocations'
                              ).get_json()['allocations']
        pools = self.request('GET', '/v1/pools').get_json()['pools']
        assert sorted(n['name'] for n in nodes) == sorted(NODES), nodes
        check_fleet(nodes, allocs, pools)


def check_fleet(nodes: list[dict], allocs: list[dict],
                pools: list[dict]) -> None:
    """Assert the invariants of nodes, allocations and pools as the API
    shows them."""
    by_uuid = {n['uuid']: n for n in nodes}
    pool_names = {p['name'] for p in pools}
    for pool in pools:
        assert pool['parent_pool'] in pool_names | {None}, (
            'pool %(name)s has a missing parent %(parent_pool)s' % pool)
    for node in nodes:
        what = ('%(name)s (%(pool)s, %(pool_status)s, pool_allocated '
                '%(pool_allocated)s, instance %(instance_uuid)s, '
                'allocation %(allocation_uuid)s)' % node)
        assert node['pool'] in pool_names, 'node %s: no such pool' % what
        if node['instance_uuid'] or node['allocation_uuid']:
            assert node['pool_allocated'], (
                'node %s has an instance but is not pool_allocated'
                % what)
        if node['pool_allocated']:
            assert node['pool_status'] in states.POOL_ALLOCATED, (
                'node %s is pool_allocated in a free status' % what)
        else:
            assert node['pool_status'] in consistency.POOL_UNALLOCATED, (
                'node %s is not pool_allocated in an allocated status'
                % what)
        if node['allocation_uuid']:
            assert node['instance_uuid'] == node['allocation_uuid'], (
                'node %s: instance is not its allocation' % what)
    holders: dict[str, str] = {}
    for alloc in allocs:
        if alloc['state'] != states.ALLOCATION_ACTIVE:
            assert alloc['node_uuid'] is None, (
                'allocation %(uuid)s in %(state)s holds %(node_uuid)s'
                % alloc)
            continue
        node = by_uuid.get(alloc['node_uuid'])
        assert node is not None, (
            'active allocation %(uuid)s holds no node of the fleet '
            '(%(node_uuid)s)' % alloc)
        assert alloc['node_uuid'] not in holders, (
            'node %s held by %s and %s' % (
                node['name'], holders[alloc['node_uuid']], alloc['uuid']))
        assert node['allocation_uuid'] == alloc['uuid'], (
            'node %s carries %s, not its allocation %s'
            % (node['name'], node['allocation_uuid'], alloc['uuid']))
        holders[alloc['node_uuid']] = alloc['uuid']
    for node in nodes:
        if node['allocation_uuid']:
            assert holders.get(node['uuid']) == node['allocation_uuid'], (
                'node %s carries allocation %s, which is not active or '
                'not its own' % (node['name'], node['allocation_uuid']))


class FleetModelTests:
    """Runs the machine; mix into a test case that provides a database.

    The test case provides ``config`` (an oslo.config fixture) and a
    database in use; this sets up the configuration the API and the
    conductor need.
    """

    def setUp(self):
        super().setUp()
        # oslo.policy looks its files up through the parsed configuration.
        CONF([], project='pool', default_config_files=[],
             default_config_dirs=[])
        self.config(host=HOST, transport_url='fake://',
                    auth_strategy='noauth')
        self.config(driver='fake', fake_stage_delay=0, group='provisioner')
        self.config(heartbeat_timeout=HEARTBEAT_TIMEOUT, group='conductor')

    def test_random_sequences_keep_the_invariants(self):
        machine = type('FleetMachine', (FleetMachine,),
                       {'fleet': Fleet(self)})
        examples = int(os.environ.get('POOL_TEST_FLEET_EXAMPLES',
                                      MAX_EXAMPLES))
        stateful.run_state_machine_as_test(machine, settings=settings(
            max_examples=examples, stateful_step_count=STEPS,
            deadline=None, database=None, print_blob=False,
            phases=PHASES))
