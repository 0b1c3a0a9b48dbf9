"""Waits that use no CPU, during which a process may run other work.

pool-api runs only a few requests at once ([api] max_active_requests): a
request that waits here, for events, for a node a conductor holds locked
or for a sandbox's answer, gives its turn to another meanwhile. Elsewhere
a wait is only a wait.
"""
from collections.abc import Callable
import contextlib
import time
import typing

_around: Callable[[], typing.ContextManager] = contextlib.nullcontext


def install(around: Callable[[], typing.ContextManager]) -> None:
    """Run every wait of this process inside around()."""
    global _around
    _around = around


def during() -> typing.ContextManager:
    """Around a wait that uses no CPU."""
    return _around()


def sleep(seconds: float) -> None:
    """time.sleep(), as a wait."""
    with during():
        time.sleep(seconds)
