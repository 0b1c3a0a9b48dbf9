"""The fake external manager: resources in a JSON file, for tests and
demos.

Parameters: ``path``, the file that holds the resources (shared by the
processes that use it, under a file lock); ``fail`` (true: every call
fails, as a manager outage); ``acquire_delay`` (seconds an acquire takes
after it made its claim: a window to stop a conductor in). The file maps
each ref to ``{"owner": "none"|"pool"|"other", "token": ..., "spec":
...}``; a ref missing from it is absent. take(), free(), remove() and
add() change it as the other user of the hardware would; calls() counts
the calls each kind received and acquired() lists the claims made, in
order.
"""
import contextlib
import fcntl
import json
import os
import time

from pool_conductor import exception
from pool_conductor.external_managers import base


@contextlib.contextmanager
def _world(path: str):
    """The resources of a file, locked, written back on exit."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with os.fdopen(os.dup(fd), 'r+') as f:
            text = f.read()
            world = json.loads(text) if text.strip() else {}
            world.setdefault('resources', {})
            world.setdefault('calls', {})
            world.setdefault('acquired', [])
            yield world
            f.seek(0)
            f.truncate()
            json.dump(world, f)
    finally:
        os.close(fd)


def add(path: str, *refs: str) -> None:
    with _world(path) as world:
        for ref in refs:
            world['resources'].setdefault(ref, {'owner': base.NONE})


def take(path: str, ref: str, token: str = 'someone-else') -> None:
    """Another user takes ref."""
    with _world(path) as world:
        world['resources'][ref] = {'owner': base.OTHER, 'token': token}


def free(path: str, ref: str) -> None:
    with _world(path) as world:
        world['resources'][ref] = {'owner': base.NONE}


def remove(path: str, ref: str) -> None:
    with _world(path) as world:
        world['resources'].pop(ref, None)


def set_failing(path: str, failing: bool) -> None:
    with _world(path) as world:
        world['failing'] = failing


def resources(path: str) -> dict:
    with _world(path) as world:
        return world['resources']


def calls(path: str) -> dict:
    with _world(path) as world:
        return dict(world['calls'])


def acquired(path: str) -> list:
    """[ref, key] of every claim made, in order (a repeated key too)."""
    with _world(path) as world:
        return list(world['acquired'])


class FakeExternalManager(base.ExternalManagerDriver):

    def validate(self, parameters: dict) -> None:
        path = parameters.get('path')
        if not isinstance(path, str) or not path:
            raise exception.InvalidParameterValue(
                err='The fake external manager needs a parameter "path" '
                    '(the file of its resources).')

    @contextlib.contextmanager
    def _call(self, parameters: dict, what: str):
        with _world(parameters['path']) as world:
            world['calls'][what] = world['calls'].get(what, 0) + 1
            if world.get('failing') or parameters.get('fail'):
                raise exception.ExternalManagerError(
                    manager='fake', reason='the fake manager is down')
            yield world['resources']

    def observe(self, parameters, refs):
        with self._call(parameters, 'observe') as found:
            out = {}
            for ref in refs:
                item = found.get(ref)
                if item is None:
                    out[ref] = base.Observation(base.ABSENT)
                else:
                    out[ref] = base.Observation(item['owner'],
                                                item.get('token'))
            return out

    def acquire(self, parameters, ref, key, spec):
        with _world(parameters['path']) as world:
            world['calls']['acquire'] = world['calls'].get('acquire', 0) + 1
            if world.get('failing') or parameters.get('fail'):
                raise exception.ExternalManagerError(
                    manager='fake', reason='the fake manager is down')
            item = world['resources'].get(ref)
            if item is None:
                raise exception.ExternalManagerError(
                    manager='fake', reason='%s does not exist' % ref)
            if not (item['owner'] == base.NONE or (
                    item['owner'] == base.POOL
                    and item.get('token') == key)):
                raise exception.ExternalTaken(manager='fake', ref=ref)
            world['resources'][ref] = {'owner': base.POOL, 'token': key,
                                       'spec': spec}
            world['acquired'].append([ref, key])
        time.sleep(parameters.get('acquire_delay') or 0)
        return key

    def release(self, parameters, ref, token):
        with self._call(parameters, 'release') as found:
            item = found.get(ref)
            if (item is not None and item['owner'] == base.POOL
                    and item.get('token') == token):
                found[ref] = {'owner': base.NONE}

    def discover(self, parameters):
        with self._call(parameters, 'discover') as found:
            return [base.Resource(ref) for ref in sorted(found)]
