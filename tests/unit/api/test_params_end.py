"""Params and profiles a claim or an allocation set are taken off its
machines when it ends (returned, deleted, expired, released), set back
to the node's own values, unless the pool or the provider keeps them."""
import datetime

import sqlalchemy as sa

from pool_conductor import claim_release
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor import expiry
from tests.unit.api import test_claims


class AllocationParamsTestCase(test_claims.ClaimTestBase):

    nodes = 2

    def allocate(self, **body):
        return self.ok(self.post('/v1/pools/lab/allocateMachines', dict({
            'machine_list': ['node-0'],
            'add_parameters': {'role': 'web', 'tier': 'front'},
            'add_profiles': ['web']}, **body)))

    def assert_node_own(self):
        node = self.node('node-0')
        self.assertEqual(({'rack': 'r1', 'role': 'db'}, [], 'Free'),
                         (node['params'], node['profiles'],
                          node['pool_status']))

    def setUp(self):
        super().setUp()
        self.set_params('node-0', {'rack': 'r1', 'role': 'db'})

    def test_return_machines_takes_off_what_the_allocation_set(self):
        self.allocate()
        node = self.node('node-0')
        self.assertEqual(({'rack': 'r1', 'role': 'web', 'tier': 'front'},
                          ['web']), (node['params'], node['profiles']))
        self.ok(self.post('/v1/pools/lab/returnMachines',
                          {'machine_list': ['node-0']}))
        self.assert_node_own()

    def test_deleting_the_allocation(self):
        self.allocate()
        self.ok(self.delete('/v1/nodes/node-0/allocation'), 204)
        self.assert_node_own()

    def test_expiry(self):
        self.allocate(lifespan_end=(
            db_api.utcnow() + datetime.timedelta(hours=1)).isoformat())
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).values(
                lifespan_end=db_api.utcnow()
                - datetime.timedelta(seconds=1)))
        self.assertEqual(1, expiry.expire(self.context, 'test-host'))
        self.assert_node_own()

    def test_pool_keeps_them(self):
        body = self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/keep_params', 'value': True}]))
        self.assertTrue(body['keep_params'])
        self.allocate()
        self.ok(self.post('/v1/pools/lab/returnMachines',
                          {'machine_list': ['node-0']}))
        node = self.node('node-0')
        self.assertEqual(({'rack': 'r1', 'role': 'web', 'tier': 'front'},
                          ['web'], 'Free'),
                         (node['params'], node['profiles'],
                          node['pool_status']))
        self.assertError(400, self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/keep_params', 'value': 'yes'}]))


class ClaimParamsTestCase(test_claims.ClaimTestBase):

    nodes = 1

    def setUp(self):
        super().setUp()
        self.set_params('node-0', {'rack': 'r1', 'role': 'db'})

    def bound(self, **provider):
        self.provider(defaults={'params': {'role': 'web'},
                                'profiles': ['web']},
                      match_ignore=['/params'], **provider)
        claim = self.ok(self.claim({'params': {'tier': 'front'}},
                                   name='c'), 201)
        self.assertEqual(1, self.bind())
        node = self.node('node-0')
        self.assertEqual({'rack': 'r1', 'role': 'web', 'tier': 'front'},
                         node['params'])
        return claim

    def test_expiry_sets_the_nodes_own_values_back(self):
        self.bound()
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Claim).values(
                lifespan_end=db_api.utcnow()
                - datetime.timedelta(seconds=1)))
        self.assertEqual(1, claim_release.expire(self.context, 'test-host'))
        node = self.node('node-0')
        self.assertEqual(({'rack': 'r1', 'role': 'db'}, [], 'Free'),
                         (node['params'], node['profiles'],
                          node['pool_status']))

    def test_provider_keeps_them(self):
        self.bound(keep_params=True)
        self.ok(self.delete('/v1/claims/c'), 204)
        node = self.node('node-0')
        self.assertEqual(({'rack': 'r1', 'role': 'web', 'tier': 'front'},
                          ['web'], 'Free'),
                         (node['params'], node['profiles'],
                          node['pool_status']))

    def test_params_added_by_a_change_go_too(self):
        self.provider(update_filters=[{'path_match': '/params/.*'}],
                      match_ignore=['/params'])
        self.ok(self.claim({'params': {'role': 'web'}}, name='c'), 201)
        self.assertEqual(1, self.bind())
        self.ok(self.patch_json('/v1/claims/c', [
            {'op': 'add', 'path': '/resources/0/template/params/extra',
             'value': 1}]))
        self.assertEqual({'rack': 'r1', 'role': 'web', 'extra': 1},
                         self.node('node-0')['params'])
        self.ok(self.delete('/v1/claims/c'), 204)
        self.assertEqual({'rack': 'r1', 'role': 'db'},
                         self.node('node-0')['params'])
