"""GET /v1/fleet: every count equals the list it links to, conductors and
what they hold, lifespans ending soon, warnings and errors."""
import datetime
import urllib.parse

import sqlalchemy as sa

from pool_api import app as pool_app
from pool_api import auth
from pool_api import openapi
from pool_api import routes
from pool_conductor.allocator import AllocationWorker
from pool_conductor.db import allocations as allocations_db
from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from pool_conductor import events
from tests.unit.api import base
from tests.unit.api import test_openapi


def counts(document: dict):
    """(where, {count, href}) of every count of a fleet document."""
    for pool in document['pools']:
        yield 'pool %s total' % pool['name'], pool['total']
        for status, count in pool['statuses'].items():
            yield 'pool %s %s' % (pool['name'], status), count
    yield 'nodes', document['nodes']['total']
    for key in ('provision_states', 'power_states', 'maintenance'):
        for row in document['nodes'][key]:
            yield 'nodes %s %s' % (key, row['value']), row
    for kind in ('allocations', 'claims'):
        yield kind, document[kind]['total']
        for row in document[kind]['states']:
            yield '%s %s' % (kind, row['value']), row


class FleetTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'test-host')

    def fleet(self, query: str = '') -> dict:
        resp = self.get('/v1/fleet' + query)
        self.assertEqual(200, resp.status_code, resp.get_data())
        checker = test_openapi.OpenAPIChecker(openapi.build(routes.ROUTES))
        checker.check('GET', '/v1/fleet', resp)
        return resp.get_json()

    def listed(self, href: str) -> int:
        """How many items the API's list at href has (every page)."""
        url = urllib.parse.urlsplit(href)
        path = '%s?%s' % (url.path, url.query) if url.query else url.path
        collection = url.path.rsplit('/', 1)[-1]
        found = 0
        while path:
            resp = self.get(path)
            self.assertEqual(200, resp.status_code, (href, resp.get_data()))
            body = resp.get_json()
            found += len(body[collection])
            path = body.get('next', '').replace('http://localhost', '')
        return found

    def assertCountsAreTheLists(self, document: dict) -> None:
        for where, count in counts(document):
            if count.get('value', '') is None:
                # The lists have no filter for a null value.
                self.assertIsNone(count['href'], where)
                continue
            self.assertEqual(count['count'], self.listed(count['href']),
                             '%s: %s' % (where, count['href']))

    def test_counts_equal_the_lists_after_changes(self):
        worker = AllocationWorker('test-host', 1, batch_size=8)
        self.addCleanup(worker.stop)
        self.post('/v1/pools', {'name': 'web', 'parent_pool': 'default'})
        for i in range(6):
            self.enroll(name='node-%d' % i)
        self.create_node(name='manageable', provision_state='manageable',
                         power_state='power on')
        self.create_node(name='nothing', provision_state='enroll',
                         power_state=None)
        resp = self.post('/v1/pools/web/addMachines',
                         {'machine_list': ['node-0', 'node-1']})
        self.assertEqual(200, resp.status_code, resp.get_data())
        for _ in range(3):
            self.post('/v1/allocations', {'resource_class': 'baremetal'})
        self.post('/v1/allocations', {'resource_class': 'missing'})
        worker.process_batch([a for a, _ in self.casts])
        before = self.fleet()
        self.assertCountsAreTheLists(before)
        by_state = {r['value']: r['count']
                    for r in before['allocations']['states']}
        self.assertEqual({'allocating': 0, 'active': 3, 'error': 1,
                          'scheduled': 0}, by_state)
        self.assertEqual(8, before['nodes']['total']['count'])
        web = next(p for p in before['pools'] if p['name'] == 'web')
        self.assertEqual(2, web['statuses']['Free']['count'])
        # A null power state is counted, without a list to link to.
        self.assertIn({'value': None, 'count': 1, 'href': None},
                      before['nodes']['power_states'])

        # The fleet changes: a release, maintenance, a node deleted.
        allocation = self.get('/v1/allocations?state=active').get_json()[
            'allocations'][0]
        self.delete('/v1/allocations/%s' % allocation['uuid'])
        self.put('/v1/nodes/node-5/maintenance', {'reason': 'disk'})
        self.delete('/v1/nodes/nothing')
        after = self.fleet()
        self.assertCountsAreTheLists(after)
        by_state = {r['value']: r['count']
                    for r in after['allocations']['states']}
        self.assertEqual(2, by_state['active'])
        self.assertEqual({False: 6, True: 1},
                         {r['value']: r['count']
                          for r in after['nodes']['maintenance']})

    def test_pool_names_and_states_are_quoted_in_links(self):
        self.create_node(name='odd', power_state='power on')
        document = self.fleet()
        power = {r['value']: r['href']
                 for r in document['nodes']['power_states']}
        self.assertEqual('http://localhost/v1/nodes?power_state=power+on',
                         power['power on'])
        self.assertEqual(1, self.listed(power['power on']))

    def _conductor(self, hostname: str, seconds_ago: int) -> None:
        conductors_db.register_conductor(self.context, hostname)
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == hostname).values(
                updated_at=db_api.utcnow()
                - datetime.timedelta(seconds=seconds_ago)))

    def test_conductors_alive_or_dead_with_what_they_hold(self):
        self._conductor('gone', 3600)
        allocations_db.create_allocation(self.context, {
            'state': 'allocating', 'resource_class': 'baremetal',
            'conductor_affinity': 'gone'})
        allocations_db.create_allocation(self.context, {
            'state': 'allocating', 'resource_class': 'baremetal',
            'conductor_affinity': 'test-host'})
        self.create_node(name='locked', reservation='gone')
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Pool).where(
                models.Pool.name == 'default').values(
                autofill_conductor='test-host'))
        document = self.fleet()
        by_host = {c['hostname']: c for c in document['conductors']}
        self.assertTrue(by_host['test-host']['alive'])
        self.assertFalse(by_host['gone']['alive'])
        self.assertEqual(1, by_host['gone']['allocations'])
        self.assertEqual(1, by_host['gone']['node_locks'])
        self.assertEqual(1, by_host['test-host']['allocations'])
        self.assertEqual(['default'], [
            p['name'] for p in by_host['test-host']['autofill_pools']])
        self.assertEqual({'allocations': 1, 'claims': 0, 'node_locks': 1},
                         document['stranded'])
        self.assertEqual('http://localhost/v1/conductors/gone',
                         by_host['gone']['href'])

    def test_lifespans_ending_soon(self):
        now = db_api.utcnow()
        node = self.create_node(name='held')
        soon = allocations_db.create_allocation(self.context, {
            'state': 'active', 'resource_class': 'baremetal',
            'name': 'soon',
            'lifespan_end': now + datetime.timedelta(minutes=5)})
        with db_api.writer(self.context) as session:
            session.execute(sa.update(models.Allocation).where(
                models.Allocation.id == soon.id).values(node_id=node.id))
        allocations_db.create_allocation(self.context, {
            'state': 'active', 'resource_class': 'baremetal',
            'name': 'later', 'lifespan_end': now + datetime.timedelta(
                hours=5)})
        allocations_db.create_allocation(self.context, {
            'state': 'active', 'resource_class': 'baremetal',
            'name': 'never'})
        ending = self.fleet()['ending_soon']
        self.assertEqual(3600, ending['within'])
        self.assertEqual(['soon'], [a['name'] for a in
                                    ending['allocations']['items']])
        item = ending['allocations']['items'][0]
        self.assertEqual('held', item['node_name'])
        self.assertTrue(item['href'].endswith('/v1/allocations/'
                                              + soon.uuid))
        ending = self.fleet('?ending_within=86400')['ending_soon']
        self.assertEqual(['soon', 'later'], [
            a['name'] for a in ending['allocations']['items']])
        self.config(max_listed=1, group='dashboard')
        ending = self.fleet('?ending_within=86400')['ending_soon']
        self.assertEqual(2, ending['allocations']['total'])
        self.assertEqual(1, len(ending['allocations']['items']))
        for value in ('-1', 'soon', '999999999999'):
            self.assertError(400, self.get('/v1/fleet?ending_within='
                                           + value), 'ending_within')

    def test_latest_warnings_and_errors_newest_first(self):
        node = self.create_node(name='noisy')
        with db_api.writer(self.context) as session:
            for i, level in enumerate(('info', 'warning', 'debug', 'error',
                                       'critical')):
                events.record(session, [events.Event(
                    'node', node.uuid, 'test.event.%d' % i, level=level,
                    object_name=node.name, message='message %d' % i)])
        alerts = self.fleet()['alerts']
        self.assertEqual(['critical', 'error', 'warning'],
                         [a['level'] for a in alerts])
        self.assertEqual('message 4', alerts[0]['message'])
        self.assertTrue(alerts[0]['href'].endswith('/v1/nodes/'
                                                   + node.uuid))
        self.config(max_listed=2, group='dashboard')
        self.assertEqual(['critical', 'error'],
                         [a['level'] for a in self.fleet()['alerts']])

    def test_project_readers_may_not_read_it(self):
        self.config(auth_strategy='keystone')
        # auth_token is out of the way: the identity is in the headers.
        self.patch(auth, 'wrap', lambda app: app)
        self.client = pool_app.create_app().test_client()
        resp = self.get('/v1/fleet', headers={
            'X-Roles': 'reader', 'X-Project-Id': 'project-a'})
        self.assertError(403, resp)
        resp = self.get('/v1/fleet', headers={
            'X-Roles': 'reader', 'OpenStack-System-Scope': 'all'})
        self.assertEqual(200, resp.status_code, resp.get_data())
