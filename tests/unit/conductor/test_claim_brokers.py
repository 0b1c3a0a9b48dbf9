"""Claims satisfied by the provider pool's broker when no Free machine
matches: machines made to the resource's template, within max_unready,
bound by the next round; broker failures and stolen machines end in
error."""
import sqlalchemy as sa

from pool_conductor import binding
from pool_conductor import claims
from pool_conductor.db import api as db_api
from pool_conductor.db import claims as claims_db
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from tests.unit.api import test_claims


class ClaimBrokerTestCase(test_claims.ClaimTestBase):

    nodes = 1

    def setUp(self):
        super().setUp()
        # The one enrolled machine is of another class: no claim here
        # matches it.
        self.ok(self.patch_json('/v1/nodes/node-0', [
            {'op': 'replace', 'path': '/resource_class',
             'value': 'other'}]))

    def broker(self, max_unready=None, **parameters):
        self.ok(self.post('/v1/brokers', {'name': 'cloud', 'driver': 'fake',
                                          'parameters': parameters}), 201)
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'replace', 'path': '/broker', 'value': 'cloud'},
            {'op': 'replace', 'path': '/autofill', 'value': {
                'create_parameters': {'properties': {'cpus': 4},
                                      'resource_class': 'small'},
                'max_unready': max_unready}}]))
        self.provider(defaults={'resource_class': 'vm',
                                'traits': ['CUSTOM_FAST']})

    def made(self):
        """The broker-made members of the pool, by status."""
        with db_api.reader(self.context) as session:
            return list(session.scalars(sa.select(models.Node).where(
                models.Node.pool == 'lab',
                models.Node.broker.is_not(None)).order_by(models.Node.id)))

    def claim_row(self, uuid):
        return claims_db.get(self.context, uuid)

    def test_empty_pool_claim_of_three_bound_with_broker_machines(self):
        self.broker()
        claim = self.ok(self.claim({'params': {'role': 'db'}}, {}, {}), 201)
        self.assertEqual(0, self.bind())
        shown = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('pending', shown['state'])
        self.assertIsNone(shown['last_error'])
        made = self.made()
        self.assertEqual(['Free'] * 3, [n.pool_status for n in made])
        # Asked with the template over the pool's create_parameters.
        self.assertEqual({'vm'}, {n.resource_class for n in made})
        self.assertEqual([{'cpus': 4}] * 3, [n.properties for n in made])
        self.assertEqual(['CUSTOM_FAST'], self.node(made[0].uuid)['traits'])
        self.assertEqual({'resource_class': 'vm', 'traits': ['CUSTOM_FAST'],
                          'params': {'role': 'db'},
                          'properties': {'cpus': 4}},
                         made[0].extra[binding.BROKER_REQUEST])

        self.assertEqual(1, self.bind())
        shown = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('ready', shown['state'])
        nodes = [self.ok(self.get('/v1/allocations/%s' % a))['node_uuid']
                 for a in shown['allocations']]
        # Each resource got the machine made for it, though its params
        # (role) were not the machine's before.
        self.assertEqual([n.uuid for n in made], nodes)
        self.assertEqual('db', self.node(nodes[0])['params']['role'])
        # Nothing more was asked of the broker.
        self.assertEqual(3, len(self.made()))
        self.assertEqual('Free', self.node('node-0')['pool_status'])

    def test_broker_failure_is_the_claims_error(self):
        self.broker(fail=1)
        claim = self.ok(self.claim({}, {}), 201)
        self.assertEqual(0, self.bind())
        shown = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('error', shown['state'])
        self.assertIn('A machine for the claim could not be made: Broker '
                      'cloud failed: the fake broker failed to create a '
                      'machine', shown['last_error'])
        self.assertEqual([], shown['allocations'])
        # The request given up leaves no machine on its way.
        self.assertEqual([], self.made())
        self.assertEqual(0, self.bind())
        self.assertEqual([], self.made())

    def test_max_unready_limits_machines_in_flight(self):
        self.broker(max_unready=2)
        # Another live conductor is making one machine for the pool.
        conductors_db.register_conductor(self.context, 'other')
        with db_api.writer_connection(self.context) as conn:
            binding.begin_creation(conn, 'lab', 'cloud', 'other', 1)
        claim = self.ok(self.claim({}, {}, {}), 201)
        for free in (1, 2, 3):
            self.assertEqual(0, self.bind())
            statuses = [n.pool_status for n in self.made()]
            self.assertEqual(['Creating'] + ['Free'] * free, statuses)
        self.assertEqual(1, self.bind())
        self.assertEqual('ready', self.ok(self.get(
            '/v1/claims/%s' % claim['uuid']))['state'])
        self.assertEqual('other', self.made()[0].reservation)

    def test_machines_on_their_way_are_not_asked_for_again(self):
        self.broker()
        # The pool's enter actions keep a new machine Joining until its
        # stage is reached.
        self.ok(self.patch_json('/v1/pools/lab', [
            {'op': 'add', 'path': '/enter_actions',
             'value': {'workflow': 'deploy', 'wait_for_stage': 'install'}}]))
        claim = self.ok(self.claim({}), 201)
        for _ in range(2):
            self.assertEqual(0, self.bind())
            self.assertEqual(['Joining'],
                             [n.pool_status for n in self.made()])
        self.assertEqual('pending', self.ok(self.get(
            '/v1/claims/%s' % claim['uuid']))['state'])

    def test_request_left_by_a_dead_conductor_is_made_with_its_token(self):
        self.broker()
        claim = self.ok(self.claim({}), 201)
        # A conductor recorded the request, then died before its broker
        # answered; its lock was cleared.
        with db_api.writer_connection(self.context) as conn:
            binding.begin_creation(
                conn, 'lab', 'cloud', 'gone', 1, 'vm',
                token_prefix=claims.token_prefix(claim['uuid'], 0),
                request={'resource_class': 'vm', 'properties': {'a': 1}})
        conductors_db.clear_dead_reservations(self.context, ['test-host'])
        token = self.made()[0].broker_token
        self.assertEqual(0, self.bind())
        made = self.made()
        self.assertEqual([('Free', token, {'a': 1})],
                         [(n.pool_status, n.broker_token, n.properties)
                          for n in made])
        self.assertEqual(1, self.bind())

    def test_machines_taken_by_others_end_in_error(self):
        self.broker()
        claim = self.claim_row(self.ok(self.claim({}), 201)['uuid'])
        for _ in range(claims.MAX_MADE):
            self.assertEqual(claims.WAITING, claims.process(
                self.context, claim.id, 'test-host'))
            # Another claim binds the machine made for the first.
            other = self.claim_row(self.ok(self.claim({}), 201)['uuid'])
            self.assertEqual(claims.BOUND, claims.process(
                self.context, other.id, 'test-host'))
        self.assertEqual(claims.FAILED, claims.process(
            self.context, claim.id, 'test-host'))
        shown = self.ok(self.get('/v1/claims/%s' % claim.uuid))
        self.assertEqual('error', shown['state'])
        self.assertIn('Resource 0: the 3 machines broker cloud made for it '
                      'were taken by others', shown['last_error'])
        self.assertEqual(claims.MAX_MADE, len(self.made()))


class ClaimWithoutBrokerTestCase(test_claims.ClaimTestBase):

    nodes = 1

    def test_no_match_is_an_error_at_once(self):
        self.provider(defaults={'resource_class': 'vm'})
        claim = self.ok(self.claim({}), 201)
        self.assertEqual(0, self.bind())
        shown = self.ok(self.get('/v1/claims/%s' % claim['uuid']))
        self.assertEqual('error', shown['state'])
        self.assertIn('No Free machine of pool lab', shown['last_error'])
