"""Concurrent changes of a node: the generation compare-and-swap."""
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from tests.unit.api import base


class NodeUpdateRaceTestCase(base.APITestCase):
    """Two writers that read the same generation of a node: the first
    one's change is saved, the second one's is refused, not written over
    it."""

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='n1', extra={'rack': 'r1'})

    def test_stale_writer_is_refused(self):
        first = nodes_db.get_node(self.context, self.node.uuid)
        second = nodes_db.get_node(self.context, self.node.uuid)
        nodes_db.update_node(self.context, first, {'description': 'first'})
        self.assertRaises(exception.ConcurrentUpdate, nodes_db.update_node,
                          self.context, second, {'description': 'second'})
        self.assertEqual('first', nodes_db.get_node(
            self.context, self.node.uuid).description)

    def test_stale_patch_is_409_and_loses_nothing(self):
        path = '/v1/nodes/%s' % self.node.uuid
        # Both requests read the node before either writes: the second
        # one is served the node as it was before the first PATCH.
        stale = nodes_db.get_node(self.context, self.node.uuid)
        resp = self.patch_json(path, [
            {'op': 'add', 'path': '/extra/owner', 'value': 'alice'}])
        self.assertEqual(200, resp.status_code, resp.get_data())
        real_get_node = nodes_db.get_node
        self.patch(nodes_db, 'get_node', lambda _ctx, _ident, **_kw: stale)
        resp = self.patch_json(path, [
            {'op': 'add', 'path': '/extra/size', 'value': 'big'}])
        self.assertError(409, resp, 'was changed by another request')
        # The first change survives: the stale extra ({'rack': 'r1',
        # 'size': 'big'}) was not written over it.
        self.assertEqual({'rack': 'r1', 'owner': 'alice'}, real_get_node(
            self.context, self.node.uuid).extra)
