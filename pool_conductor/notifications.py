"""Notifications: the recorded events, published on the message bus.

Each conductor runs publish() every ``[events] publish_interval``: it
sends the sequenced events not yet published, in cursor order, in the
envelope of oslo.messaging's notifications (priority, event_type,
timestamp, publisher_id, message_id, payload) on the topics of
``[DEFAULT] versioned_notifications_topics``, and marks them published in
the same transaction (pool_conductor.db.events.publish: one publisher at
a time, so order holds across conductors). Delivery is at least once: a
conductor killed after a send and before its commit leaves the event to
be sent again, so consumers dedupe on ``message_id``, which is the
event's uuid.

The message is built here and handed to the drivers of
``[oslo_messaging_notifications] driver`` (oslo.messaging's notifier
drivers, loaded as its Notifier loads them) rather than through
oslo.messaging's Notifier, which gives every message a new random
message_id: a re-sent event must carry the id it was first sent with.
"""
import threading

from oslo_log import log
import oslo_messaging as messaging
from stevedore import named

from pool_conductor.conf import CONF
from pool_conductor.db import events as events_db

LOG = log.getLogger(__name__)

# Levels in increasing severity, as [DEFAULT] notification_level names
# them, and the priority oslo.messaging's Notifier gives each on the wire.
PRIORITIES = {'debug': 'DEBUG', 'info': 'INFO', 'warning': 'WARN',
              'error': 'ERROR', 'critical': 'CRITICAL'}
SEVERITY = {level: i for i, level in enumerate(PRIORITIES)}
# The driver when [oslo_messaging_notifications] driver names none: the
# message format of Ironic's consumers.
DEFAULT_DRIVER = 'messagingv2'
CONDUCTOR_SERVICE = 'pool-conductor'
API_SERVICE = 'pool-api'


def should_send(level: str, threshold: str | None) -> bool:
    """Whether an event of level is sent under [DEFAULT]
    notification_level threshold (None: nothing is)."""
    return threshold is not None and (
        SEVERITY.get(level, 0) >= SEVERITY[threshold])


def sending() -> bool:
    """Whether notifications are sent at all ([DEFAULT]
    notification_level is set)."""
    return CONF.notification_level is not None


def publisher_id(row, host: str) -> str:
    """``<service>.<host>``, as Ironic's: pool-conductor and the
    conductor that made the change, else pool-api (the change of an API
    request) and the conductor that publishes it."""
    if row.conductor:
        return '%s.%s' % (CONDUCTOR_SERVICE, row.conductor)
    return '%s.%s' % (API_SERVICE, host)


def message(row, host: str) -> dict:
    """The notification of an event row, as oslo.messaging's Notifier
    builds one, with the event's uuid as its message_id and its time."""
    return {'message_id': row.uuid,
            'publisher_id': publisher_id(row, host),
            'event_type': row.event_type,
            'priority': PRIORITIES.get(row.level, 'INFO'),
            'payload': row.payload,
            'timestamp': str(row.created_at)}


def context(row) -> dict:
    """The request context sent with a notification: who caused it (no
    credentials)."""
    return {'request_id': row.request_id, 'user_id': row.user_id,
            'project_id': row.project_id, 'user': row.user_id,
            'project': row.project_id}


class Publisher:
    """The notification publisher of one conductor (host)."""

    def __init__(self, host: str):
        self.host = host
        self._lock = threading.Lock()
        self._transport = None
        self._drivers = None

    def _driver_manager(self):
        with self._lock:
            if self._drivers is None:
                self._transport = messaging.get_notification_transport(CONF)
                names = (CONF.oslo_messaging_notifications.driver
                         or [DEFAULT_DRIVER])
                self._drivers = named.NamedExtensionManager(
                    'oslo.messaging.notify.drivers', names=names,
                    invoke_on_load=True, invoke_args=[CONF],
                    invoke_kwds={
                        'topics': CONF.versioned_notifications_topics,
                        'transport': self._transport})
            return self._drivers

    def send(self, row) -> None:
        """Send one event row if its level is at or above [DEFAULT]
        notification_level; else nothing (it is still marked published).

        oslo.messaging's drivers log and drop what the bus refuses after
        ``[oslo_messaging_notifications] retry`` attempts; with retry -1
        (the default) a send waits for the bus, so nothing is dropped.
        """
        if not should_send(row.level, CONF.notification_level):
            return
        msg = message(row, self.host)
        ctxt = context(row)
        retry = CONF.oslo_messaging_notifications.retry
        for ext in self._driver_manager().extensions:
            ext.obj.notify(ctxt, msg, msg['priority'], retry)

    def publish(self) -> int:
        """Publish every sequenced event not yet published, [events]
        publish_batch at a time; never raises.

        :returns: how many events were marked published here.
        """
        total = 0
        batch = CONF.events.publish_batch
        # Nothing to send: the events are marked without being read.
        send = self.send if sending() else None
        try:
            while True:
                done = events_db.publish(batch, send)
                if done is None:
                    break   # Another conductor publishes.
                count, error = done
                total += count
                if error is not None:
                    LOG.warning('Publishing notifications stopped after '
                                '%d: %s', count, error)
                    break
                if count < batch:
                    break
        except Exception as exc:
            LOG.warning('Publishing notifications failed: %s', exc)
        return total

    def cleanup(self) -> None:
        with self._lock:
            if self._transport is not None:
                self._transport.cleanup()
            self._transport = self._drivers = None
