"""Ports on real databases: concurrent VIF attaches never share a port."""
import threading

from pool_conductor import context as pool_context
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import ports as ports_db
from pool_conductor import exception
from pool_conductor import ports
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

    def test_concurrent_attaches_take_distinct_ports(self):
        start = threading.Barrier(ATTACHES)
        outcomes = {}

        def attach(vif):
            start.wait()
            try:
                ports.attach_vif(pool_context.get_admin_context(),
                                 self.node, vif)
                outcomes[vif] = 'attached'
            except exception.NoFreePhysicalPorts:
                outcomes[vif] = 'no free port'
            except exception.ConcurrentUpdate:
                outcomes[vif] = 'retry'

        threads = [threading.Thread(target=attach, args=('vif-%d' % i,))
                   for i in range(ATTACHES)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        recorded = [ports.vif_of(p) for p in ports_db.ports_of_node(
            self.context, self.node.id)]
        attached = sorted(v for v, o in outcomes.items() if o == 'attached')
        # Every port holds one VIF, each VIF that was told it is attached
        # is on a port, and no attach crashed.
        self.assertEqual(ATTACHES, len(outcomes))
        self.assertEqual(PORTS, len([v for v in recorded if v]))
        self.assertEqual(attached, sorted(recorded))
        self.assertEqual(sorted(ports.list_vifs(self.context, self.node)),
                         attached)


class PostgreSQLPortRaceTestCase(PortRaceMixin,
                                 db_fixtures.PostgreSQLTestCase):
    pass


class MySQLPortRaceTestCase(PortRaceMixin, db_fixtures.MySQLTestCase):
    pass
