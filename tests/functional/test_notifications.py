"""Notifications on RabbitMQ: a listener on Ironic's topic receives a
node's whole story in order, also when the conductor that recorded it is
killed before it published anything."""
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
import uuid

import kombu
from oslo_config import cfg
import oslo_messaging as messaging
import sqlalchemy as sa
import testtools

from tests.functional import cluster

TOPIC = 'ironic_versioned_notifications'
# The story of a node from enrollment to deletion (the unit tests hold
# the same story with the PATCH and maintenance steps).
STORY = [
    'baremetal.node.create.end',
    'baremetal.node.power_set.end',
    'baremetal.node.provision_set.success',    # enroll -> manageable
    'baremetal.node.provision_set.success',    # manageable -> available
    'baremetal.allocation.create.end',
    'pool.node.pool_status_set.success',
    'pool.allocation.state_set.success',
    'baremetal.node.provision_set.start',      # available -> deploying
    'baremetal.node.provision_set.end',        # deploying -> active
    'baremetal.node.provision_set.start',      # active -> deleting
    'baremetal.node.provision_set.success',    # deleting -> cleaning
    'pool.node.pool_status_set.success',
    'baremetal.allocation.delete.end',
    'baremetal.node.provision_set.end',        # cleaning -> available
    'baremetal.node.delete.end',
]
NOTIFYING = {'DEFAULT': {'notification_level': 'info'}}


class Listener:
    """An oslo.messaging notification listener on TOPIC of an exchange,
    in a queue of its own (a pool), deleted afterwards."""

    def __init__(self, test: testtools.TestCase, exchange: str):
        self.received: list[dict] = []
        self.lock = threading.Lock()
        conf = cfg.ConfigOpts()
        conf([], project='pool-test', default_config_files=[])
        self.transport = messaging.get_notification_transport(
            conf, url=cluster.RABBIT_URL)
        self.queue = 'pool-test-%s' % uuid.uuid4().hex[:8]
        self.listener = messaging.get_notification_listener(
            self.transport, [messaging.Target(topic=TOPIC,
                                              exchange=exchange)],
            [self], executor='threading', pool=self.queue)
        self.listener.start()
        test.addCleanup(self.stop)

    def _got(self, ctxt, publisher_id, event_type, payload, metadata):
        if event_type.startswith('pool.conductor.'):
            # Conductors starting and stopping: not the story of a node.
            return
        with self.lock:
            self.received.append({
                'event_type': event_type, 'publisher_id': publisher_id,
                'payload': payload, 'context': ctxt, **metadata})

    def info(self, *args):
        self._got(*args)

    def error(self, *args):
        self._got(*args)

    def messages(self, count: int, timeout: float = 60) -> list[dict]:
        """The messages received, once there are at least count."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.2)
        with self.lock:
            raise AssertionError('%d notifications of %d: %s' % (
                len(self.received), count,
                [m['event_type'] for m in self.received]))

    def stop(self) -> None:
        self.listener.stop()
        self.listener.wait()
        self.transport.cleanup()
        # The queues the senders made (oslo.messaging keeps what nobody
        # consumes yet) and the listener's.
        url = 'amqp://' + cluster.RABBIT_URL.split('://', 1)[1]
        with kombu.Connection(url) as conn:
            channel = conn.channel()
            for queue in (self.queue, TOPIC + '.info', TOPIC + '.error'):
                try:
                    channel.queue_delete(queue)
                except Exception:
                    channel = conn.channel()


class NotificationClusterMixin(cluster.ClusterTestMixin):

    SECTIONS = NOTIFYING

    def setUp(self):
        super().setUp()
        self.listener = Listener(self, self.cluster.exchange)

    def wait_for(self, path: str, field: str, value: str,
                 timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.request('GET', path)[field] != value:
            self.assertLess(time.monotonic(), deadline,
                            '%s %s is not %s' % (path, field, value))
            time.sleep(0.2)

    def story(self) -> str:
        """Enroll, manage, provide, allocate, deploy, undeploy and delete
        a node; its UUID."""
        node = self.enroll(1, 'notified')[0]
        path = '/v1/nodes/%s' % node
        alloc = self.request('POST', '/v1/allocations',
                             {'resource_class': 'notified'}, expected=201)
        self.wait_for('/v1/allocations/%s' % alloc['uuid'], 'state',
                      'active')
        for verb, state in (('active', 'active'), ('deleted', 'available')):
            self.request('PUT', path + '/states/provision',
                         {'target': verb}, expected=202)
            self.wait_for(path, 'provision_state', state)
        self.request('DELETE', path, expected=204)
        return node

    def recorded(self) -> list[tuple]:
        """(uuid, event type, published) of every event but the
        conductors', in cursor order."""
        with self.cluster.engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT uuid, event_type, published_at IS NOT NULL '
                "FROM events WHERE seq IS NOT NULL AND object_type != "
                "'conductor' ORDER BY seq")).all()

    def test_story_arrives_in_order(self):
        node = self.story()
        got = self.listener.messages(len(STORY))
        time.sleep(2)   # Nothing more comes.
        got = self.listener.messages(len(STORY))
        self.assertEqual(STORY, [m['event_type'] for m in got])
        self.assertEqual([r[0] for r in self.recorded()],
                         [m['message_id'] for m in got])
        first = got[0]['payload']
        self.assertEqual('NodeCRUDPayload', first['ironic_object.name'])
        self.assertEqual(node, first['ironic_object.data']['uuid'])
        self.assertTrue(got[0]['publisher_id'].startswith('pool-api.'))
        deployed = got[8]
        self.assertEqual('active', deployed['payload'][
            'ironic_object.data']['provision_state'])
        self.assertIn(deployed['publisher_id'],
                      {'pool-conductor.%s' % h for h in self.cluster.hosts})
        # The conductor's step names the request that asked for it.
        self.assertTrue(got[7]['context']['request_id'])
        self.assertEqual(got[7]['context']['request_id'],
                         deployed['context']['request_id'])


class NotificationKillMixin(cluster.ClusterTestMixin):
    """One conductor records the whole story and is killed before it
    publishes any of it: another one publishes it all."""

    CONDUCTORS = 1
    SECTIONS = {**NOTIFYING, 'events': {'publish_interval': 3600}}

    story = NotificationClusterMixin.story
    wait_for = NotificationClusterMixin.wait_for
    recorded = NotificationClusterMixin.recorded

    def test_sigkill_before_publishing_loses_nothing(self):
        listener = Listener(self, self.cluster.exchange)
        self.story()
        deadline = time.monotonic() + 30
        while len(self.recorded()) < len(STORY):
            self.assertLess(time.monotonic(), deadline, self.recorded())
            time.sleep(0.2)
        # Committed and sequenced, none published: the window between.
        self.assertEqual([False] * len(STORY),
                         [r[2] for r in self.recorded()])
        victim = self.cluster.hosts[0]
        self.cluster.signal(victim, signal.SIGKILL)
        successor = victim + '-successor'
        with open(os.path.join(self.cluster.dir, victim + '.conf')) as f:
            conf = f.read()
        with open(os.path.join(self.cluster.dir,
                               successor + '.conf'), 'w') as f:
            f.write(conf.replace('host = %s\n' % victim,
                                 'host = %s\n' % successor)
                    .replace('publish_interval = 3600',
                             'publish_interval = 0.5'))
        self.cluster.start(successor, 'pool_conductor.cmd.conductor')
        got = listener.messages(len(STORY))
        # At least once: deduped on message_id, exactly the story.
        unique = list({m['message_id']: m for m in got}.values())
        self.assertEqual(STORY, [m['event_type'] for m in unique])
        self.assertEqual([r[0] for r in self.recorded()],
                         [m['message_id'] for m in unique])
        deadline = time.monotonic() + 30
        while not all(r[2] for r in self.recorded()):
            self.assertLess(time.monotonic(), deadline, self.recorded())
            time.sleep(0.2)


class PostgreSQLNotificationTestCase(NotificationClusterMixin,
                                     testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLNotificationTestCase(NotificationClusterMixin,
                                testtools.TestCase):
    BACKEND = 'mysql'


class PostgreSQLNotificationKillTestCase(NotificationKillMixin,
                                         testtools.TestCase):
    BACKEND = 'postgresql'


class MySQLNotificationKillTestCase(NotificationKillMixin,
                                    testtools.TestCase):
    BACKEND = 'mysql'


class PoolServerNotificationTestCase(testtools.TestCase):
    """pool-server sends its notifications to the transport of
    [oslo_messaging_notifications] transport_url (its RPC stays in the
    process)."""

    def test_notifications_go_to_the_configured_transport(self):
        exchange = 'pool-test-%s' % uuid.uuid4().hex[:8]
        listener = Listener(self, exchange)
        server = self.useFixture(cluster.PoolServer(
            options='notification_level = info\ncontrol_exchange = %s\n'
                    '[oslo_messaging_notifications]\ntransport_url = %s'
                    % (exchange, cluster.RABBIT_URL)))
        status, node = _request(server.url, 'POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'node-0'})
        self.assertEqual(201, status, node)
        got = listener.messages(1)
        self.assertEqual('baremetal.node.create.end', got[0]['event_type'])
        self.assertEqual(node['uuid'],
                         got[0]['payload']['ironic_object.data']['uuid'])


def _request(url: str, method: str, path: str, body: dict):
    req = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), method=method,
        headers={'Content-Type': 'application/json',
                 'X-OpenStack-Ironic-API-Version': cluster.API_VERSION})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
