"""oslo.messaging transport, servers and clients of pool."""
from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from pool_conductor import context as pool_context

TOPIC = 'pool.conductor'
_transport = None


class ContextSerializer(messaging.Serializer):
    """Sends the request context with each message."""

    def serialize_entity(self, ctxt, entity):
        return entity

    def deserialize_entity(self, ctxt, entity):
        return entity

    def serialize_context(self, ctxt):
        return ctxt.to_dict()

    def deserialize_context(self, ctxt):
        return pool_context.RequestContext.from_dict(ctxt)


def get_transport(conf: cfg.ConfigOpts):
    """The process-wide RPC transport, built from conf on first use."""
    global _transport
    if _transport is None:
        _transport = messaging.get_rpc_transport(conf)
    return _transport


def cleanup() -> None:
    global _transport
    if _transport is not None:
        _transport.cleanup()
        _transport = None


def get_server(conf: cfg.ConfigOpts, host: str, endpoints: list):
    target = messaging.Target(topic=TOPIC, server=host)
    return messaging.get_rpc_server(
        get_transport(conf), target, endpoints, executor='threading',
        serializer=ContextSerializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy)


def get_client(conf: cfg.ConfigOpts, version: str):
    target = messaging.Target(topic=TOPIC, version=version)
    return messaging.get_rpc_client(get_transport(conf), target,
                                    serializer=ContextSerializer())
