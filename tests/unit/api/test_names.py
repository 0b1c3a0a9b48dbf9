"""Names of objects: one rule for every resource, and the objects stored
under a name the rule refuses today still shown and deleted."""
from pool_api.schemas import common
from pool_conductor.db import models
from pool_conductor.db import nodes as nodes_db
from pool_conductor.db import pools as pools_db
from tests.unit.api import base

# Names no client can put in a URL's path as they are ("." and ".."
# are removed from it), or that hold what a name may not.
BAD_NAMES = ('.', '..', 'a/b', 'a\n', 'a\nb', '\na', ' a', 'a ', 'a b',
             'a\tb', 'a\x7f', 'a%2Fb', 'a?b', 'a#b', '', 'x' * 256)
GOOD_NAMES = ('...', '.hidden', 'a.', 'node-1.example.com', 'x~y_Z-0',
              'x' * 255)


class TestNameRule(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.node = self.enroll(name='n1')
        self.workflows = 0
        for collection, body in (('pools', {'name': 'web'}),
                                 ('providers', {'name': 'pv',
                                                'pool': 'web'})):
            resp = self.post('/v1/' + collection, body)
            self.assertEqual(201, resp.status_code, resp.get_data())

    def creations(self, name: str):
        """(what, response) of creating each kind of object named name."""
        yield 'node', self.post('/v1/nodes', {'driver': 'fake-hardware',
                                              'name': name})
        yield 'allocation', self.post('/v1/allocations', {
            'resource_class': 'rc', 'name': name})
        yield 'pool', self.post('/v1/pools', {'name': name})
        yield 'profile', self.post('/v1/profiles', {'name': name})
        yield 'workflow', self.post('/v1/workflows', {'name': name})
        yield 'broker', self.post('/v1/brokers', {'name': name,
                                                  'driver': 'fake'})
        yield 'provider', self.post('/v1/providers', {'name': name,
                                                      'pool': 'web'})
        yield 'claim', self.post('/v1/claims', {
            'name': name, 'resources': [{'provider': 'pv'}]})
        # Names of other objects are names too.
        self.workflows += 1
        yield 'stage', self.post('/v1/workflows', {
            'name': 'w%d' % self.workflows, 'stages': [name]})

    def rename(self, name: str):
        return self.patch_json('/v1/nodes/' + self.node['uuid'], [
            {'op': 'replace', 'path': '/name', 'value': name}])

    def test_bad_names_are_400_stating_the_rule(self):
        for name in BAD_NAMES:
            for what, resp in [*self.creations(name),
                               ('node rename', self.rename(name))]:
                message = self.assertError(400, resp)
                self.assertIn(common.NAME_RULE, message, (what, name))
        for collection in ('nodes', 'allocations', 'pools', 'profiles',
                           'workflows', 'brokers', 'providers', 'claims'):
            names = [o['name'] for o in self.get(
                '/v1/' + collection).get_json()[collection]]
            self.assertEqual([], [n for n in names if n in BAD_NAMES],
                             collection)

    def test_good_names_are_taken(self):
        for name in GOOD_NAMES:
            resp = self.rename(name)
            self.assertEqual(200, resp.status_code, (name, resp.get_data()))
        self.rename('n1')
        for name in GOOD_NAMES:
            for what, resp in self.creations(name):
                self.assertEqual(201, resp.status_code,
                                 (what, name, resp.get_data()))


class TestStoredNames(base.APITestCase):
    """Objects named before the rule, "." or "..", are reached with the
    dots escaped in the path (%2E), as clients that keep a path as it is
    send them; they can be shown and deleted."""

    def test_show_and_delete(self):
        for name in ('.', '..'):
            escaped = name.replace('.', '%2E')
            pools_db.create(self.context, models.Pool, {'name': name})
            pools_db.create(self.context, models.Provider,
                            {'name': name, 'pool': name})
            for model in (models.Profile, models.Workflow):
                pools_db.create(self.context, model, {'name': name})
            pools_db.create(self.context, models.Broker,
                            {'name': name, 'driver': 'fake'})
            nodes_db.create_node(self.context, {
                'name': name, 'driver': 'fake-hardware',
                'provision_state': 'available'})
            for collection in ('nodes', 'providers', 'pools', 'profiles',
                               'workflows', 'brokers'):
                path = '/v1/%s/%s' % (collection, escaped)
                resp = self.get(path)
                self.assertEqual(200, resp.status_code, resp.get_data())
                self.assertEqual(name, resp.get_json()['name'])
                resp = self.delete(path)
                self.assertEqual(204, resp.status_code,
                                 (path, resp.get_data()))
                self.assertError(404, self.get(path))
        self.assertEqual(['default'], [p['name'] for p in self.get(
            '/v1/pools').get_json()['pools']])

    def test_a_node_renamed(self):
        node = nodes_db.create_node(self.context, {
            'name': '.', 'driver': 'fake-hardware'})
        patch = [{'op': 'replace', 'path': '/name', 'value': 'dot'}]
        resp = self.patch_json('/v1/nodes/' + node.uuid, patch)
        self.assertEqual(200, resp.status_code, resp.get_data())
        self.assertEqual('dot', resp.get_json()['name'])
