"""The fake broker: machines made of nothing, for tests and demos.

A machine derives from the request's token alone, so that the same token
always gives the same machine. Parameters: ``resource_class``,
``properties``, ``traits`` (of every machine), ``delay`` (seconds each
call takes) and ``fail`` (the probability, 0 to 1, that a call fails).
"""
import random
import time

from pool_conductor.brokers import base
from pool_conductor import exception


class FakeBroker(base.BrokerDriver):

    def validate(self, parameters: dict) -> None:
        for key, high in (('delay', 3600), ('fail', 1)):
            value = parameters.get(key, 0)
            if (isinstance(value, bool)
                    or not isinstance(value, (int, float))
                    or not 0 <= value <= high):
                raise exception.InvalidParameterValue(
                    err='The fake broker\'s parameter %s must be a number '
                        'from 0 to %s, not %r.' % (key, high, value))

    def _call(self, what: str, parameters: dict) -> None:
        time.sleep(parameters.get('delay') or 0)
        fail = parameters.get('fail') or 0
        if fail and random.random() < fail:
            raise exception.BrokerError(
                broker='fake',
                reason='the fake broker failed to %s a machine, as its '
                       'parameter fail (%s) asked.' % (what, fail))

    def create(self, token: str, parameters: dict) -> dict:
        self._call('create', parameters)
        return {'ref': token, 'name': 'fake-' + token,
                'driver': 'fake-hardware',
                'resource_class': parameters.get('resource_class',
                                                 'baremetal'),
                'properties': dict(parameters.get('properties') or {}),
                'traits': list(parameters.get('traits') or [])}

    def destroy(self, ref: str, parameters: dict) -> None:
        self._call('destroy', parameters)
