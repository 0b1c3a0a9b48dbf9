"""Ports and port groups on real databases: concurrent VIF attaches never
share a port or a port group and never record one VIF twice."""
import threading

from pool_conductor.baremetal import portgroups
from pool_conductor.baremetal import ports
from pool_conductor.baremetal import vifs as vifs_core
from pool_conductor import context as pool_context
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import portgroups as portgroups_db
from pool_conductor.db import ports as ports_db
from pool_conductor import exception
from tests.functional import db_fixtures

PORTS = 4
ATTACHES = 12


class PortRaceMixin:

    def setUp(self):
        super().setUp()
        self.context = pool_context.get_admin_context()
        self.node = nodes_db.create_node(self.context, {
            'driver': 'fake-hardware', 'provision_state': 'available'})
        for i in range(PORTS):
            ports.create(self.context, self.node,
                         {'address': '52:54:00:00:01:%02x' % i})

    def race(self, vifs) -> dict:
        """Attach the VIFs at once; what each attach ended with."""
        start = threading.Barrier(len(vifs))
        outcomes = {}

        def attach(i, vif):
            start.wait()
            try:
                vifs_core.attach_vif(pool_context.get_admin_context(),
                                 self.node, vif)
                outcomes[i] = 'attached'
            except exception.NoFreePhysicalPorts:
                outcomes[i] = 'no free port'
            except exception.VifAlreadyAttached:
                outcomes[i] = 'already attached'

        threads = [threading.Thread(target=attach, args=(i, vif))
                   for i, vif in enumerate(vifs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return outcomes

    def test_concurrent_attaches_take_distinct_ports(self):
        vifs = ['vif-%d' % i for i in range(ATTACHES)]
        outcomes = self.race(vifs)
        recorded = [ports.vif_of(p) for p in ports_db.ports_of_node(
            self.context, self.node.id)]
        attached = sorted(vifs[i] for i, o in outcomes.items()
                          if o == 'attached')
        # Every port holds one VIF, each VIF that was told it is attached
        # is on a port, and no attach crashed.
        self.assertEqual(ATTACHES, len(outcomes))
        self.assertEqual(PORTS, len([v for v in recorded if v]))
        self.assertEqual(attached, sorted(recorded))
        self.assertEqual(sorted(vifs_core.list_vifs(self.context, self.node)),
                         attached)

    def test_concurrent_attaches_take_a_port_group_once(self):
        # The first two ports bonded: the group and the two other ports
        # take a VIF each.
        group = portgroups.create(self.context, self.node,
                                  {'mode': 'active-backup'})
        for port in ports_db.ports_of_node(self.context, self.node.id)[:2]:
            ports_db.update_port(self.context, port,
                                 {'portgroup_id': group.id})
        vifs = ['vif-%d' % i for i in range(ATTACHES)]
        outcomes = self.race(vifs)
        attached = sorted(vifs[i] for i, o in outcomes.items()
                          if o == 'attached')
        self.assertEqual(3, len(attached))
        group = portgroups_db.get_portgroup(self.context, group.uuid)
        self.assertIn(ports.vif_of(group), attached)
        self.assertEqual(attached, sorted(
            vifs_core.list_vifs(self.context, self.node)))

    def test_one_vif_attached_at_once_is_recorded_once(self):
        outcomes = self.race(['vif-x'] * ATTACHES)
        self.assertEqual(['already attached'] * (ATTACHES - 1) + ['attached'],
                         sorted(outcomes.values()))
        self.assertEqual(['vif-x'],
                         vifs_core.list_vifs(self.context, self.node))


class PostgreSQLPortRaceTestCase(PortRaceMixin,
                                 db_fixtures.PostgreSQLTestCase):
    pass


class MySQLPortRaceTestCase(PortRaceMixin, db_fixtures.MySQLTestCase):
    pass
