"""A conductor killed while it drives nodes through a workflow.

Two pool-conductor processes run the fake provisioner, whose stages take
STAGE_DELAY seconds each. allocateMachines puts NODES nodes into a
workflow of several stages; the conductor that drives them is killed
while they are Building, and the other one must take them over and bring
every one of them to InUse, none left Building.
"""
import collections
import signal
import time

import sqlalchemy as sa
import testtools

from tests.functional import cluster

NODES = 6
STAGES = ['discover', 'firmware', 'raid', 'install', 'configure',
          'complete']
STAGE_DELAY = 1.5
# heartbeat_timeout (5 s) + check_workflows_interval, then the stages
# left (9 s at most), with a wide margin for two loaded cores.
DONE_WITHIN = 60


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError('%s did not happen within %d s'
                                 % (what, timeout))
        time.sleep(0.2)


class WorkflowTakeoverMixin(cluster.ClusterTestMixin):

    BACKEND = 'postgresql'
    CONDUCTOR_OPTIONS = {'check_workflows_interval': 0.5}
    SECTIONS = {'provisioner': {'driver': 'fake',
                                'fake_stage_delay': STAGE_DELAY}}

    def enroll(self) -> list[str]:
        uuids = []
        for i in range(NODES):
            node = self.request('POST', '/v1/nodes', {
                'driver': 'fake-hardware', 'name': 'wf-%d' % i}, 201)
            for verb in ('manage', 'provide'):
                self.request('PUT', '/v1/nodes/%s/states/provision'
                             % node['uuid'], {'target': verb}, 202)
            uuids.append(node['uuid'])
        return uuids

    def drivers(self) -> dict[str, str | None]:
        """The conductor driving each node, by node UUID."""
        with self.cluster.engine.connect() as conn:
            return dict(conn.execute(sa.text(
                'SELECT uuid, pool_conductor_affinity FROM nodes')).all())

    def statuses(self) -> dict[str, tuple[str, str]]:
        nodes = self.request(
            'GET', '/v1/nodes?fields=uuid,pool_status,stage')['nodes']
        return {n['uuid']: (n['pool_status'], n['stage']) for n in nodes}

    def test_kill_the_conductor_driving_the_nodes(self):
        uuids = self.enroll()
        self.request('POST', '/v1/workflows',
                     {'name': 'deploy', 'stages': STAGES}, 201)
        body = self.request('POST', '/v1/pools/default/allocateMachines', {
            'count': NODES, 'new_workflow': 'deploy',
            'wait_for_stage': 'complete'})
        self.assertEqual(['Building'] * NODES, [r['status'] for r in body])

        def all_claimed():
            drivers = self.drivers()
            return drivers if None not in drivers.values() else None

        drivers = _wait(all_claimed, 30, 'every node being claimed')
        victim, _ = collections.Counter(drivers.values()).most_common(1)[0]
        driven = sorted(u for u, host in drivers.items() if host == victim)
        self.cluster.signal(victim, signal.SIGKILL)
        # Killed in the middle of the workflow.
        statuses = self.statuses()
        self.assertEqual({'Building'}, {statuses[u][0] for u in driven},
                         statuses)
        self.assertNotIn('complete', {statuses[u][1] for u in driven})

        def all_in_use():
            current = self.statuses()
            return current if {s for s, _ in current.values()} == {
                'InUse'} else None

        statuses = _wait(all_in_use, DONE_WITHIN,
                         'every node reaching InUse')
        self.assertEqual({(u, ('InUse', 'complete')) for u in uuids},
                         set(statuses.items()))
        survivor, = set(self.cluster.hosts) - {victim}
        log = self.cluster.log(survivor)
        for uuid in driven:
            self.assertIn('Took over node %s from dead conductor %s'
                          % (uuid, victim), log)
        self.assertEqual({None}, set(self.drivers().values()))
        allocations = self.request(
            'GET', '/v1/allocations?fields=state,node_uuid')['allocations']
        self.assertEqual(sorted(uuids), sorted(a['node_uuid']
                                               for a in allocations))
        self.assertEqual({'active'}, {a['state'] for a in allocations})
        returncode, output = self.cluster.check()
        self.assertEqual(0, returncode, output)


class PostgreSQLWorkflowTakeoverTestCase(WorkflowTakeoverMixin,
                                         testtools.TestCase):
    pass


class MySQLWorkflowTakeoverTestCase(WorkflowTakeoverMixin,
                                    testtools.TestCase):

    BACKEND = 'mysql'
