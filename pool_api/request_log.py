"""The request log: one line for every request once it is answered.

In a server (pool-api's workers, pool-server) the lines are formatted and
written by one thread of the process, a batch at a time, at most
WRITE_DELAY seconds after the answer: written by each request thread, a
line cost it a lock, a write and the switches of the interpreter lock
between the threads that wait for them, a fifth of the CPU of the
smallest request. The record is made when the request is answered, so the
line keeps the time of the answer; lines still queued are written when
the server stops. Without a writer (the application in a test, a WSGI
server of the operator's) each request writes its own line.
"""
import collections
import logging
import os
import threading
import time

from oslo_context import context as oslo_context
from oslo_log import log
from oslo_middleware import request_id

LOG = log.getLogger('pool_api.app')

# How long the writer lets lines gather before it writes them.
WRITE_DELAY = 0.05

# The environ key of the request's context, set by the application.
CONTEXT = 'pool.context'


class Writer:
    """The thread that writes the request log's records of this process
    through the handlers that the request log's logger propagates to."""

    def __init__(self):
        self.records = collections.deque()
        self.queued = threading.Event()
        self.stopping = threading.Event()
        self.pid = None
        self.thread = None

    def running(self) -> bool:
        # A thread does not survive a fork: a forked worker starts its own.
        return self.pid == os.getpid() and not self.stopping.is_set()

    def start(self) -> None:
        """Write this process's request lines from now on."""
        # A forked process's copy of its parent's queue is the parent's
        # to write.
        self.records.clear()
        self.stopping.clear()
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self._run,
                                       name='request-log', daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Write the lines still queued; requests answered from now on
        write their own."""
        if not self.running():
            return
        self.stopping.set()
        self.queued.set()
        self.thread.join(5)
        self.write()

    def put(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.queued.set()
        if not self.running():
            # Stopped meanwhile: its last write may have come before.
            self.write()

    def write(self) -> None:
        parent = LOG.logger.parent
        while True:
            try:
                record = self.records.popleft()
            except IndexError:
                return
            try:
                # Where the record would have propagated to: the handlers
                # of the logger's ancestors.
                parent.callHandlers(record)
            except Exception:
                logging.getLogger(__name__).exception(
                    'A line of the request log could not be written.')

    def _run(self) -> None:
        while not self.stopping.is_set():
            self.queued.wait()
            # Lines gather meanwhile, to be written in one go.
            self.stopping.wait(WRITE_DELAY)
            self.queued.clear()
            self.write()


WRITER = Writer()


class _Deferred(logging.Handler):
    """Hands the request log's records to the writer of the process."""

    def handle(self, record: logging.LogRecord) -> bool:
        if WRITER.running():
            WRITER.put(record)
        else:
            LOG.logger.parent.callHandlers(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        self.handle(record)


def start() -> None:
    """Start this process's writer (in a server, after it forks)."""
    logger = LOG.logger
    if not any(isinstance(h, _Deferred) for h in logger.handlers):
        handler = _Deferred()
        handler.propagated = logger.propagate
        logger.addHandler(handler)
        logger.propagate = False
    WRITER.start()


def stop() -> None:
    """Write the lines still queued and stop the writer; each request
    writes its own line again."""
    WRITER.stop()
    logger = LOG.logger
    for handler in [h for h in logger.handlers if isinstance(h, _Deferred)]:
        logger.removeHandler(handler)
        logger.propagate = handler.propagated


def _context(environ: dict):
    context = environ.get(CONTEXT)
    if context is None:
        # The request did not reach the application (refused by the
        # authentication, too large, the health check).
        context = oslo_context.RequestContext(
            request_id=environ.get(request_id.ENV_REQUEST_ID),
            global_request_id=environ.get(request_id.GLOBAL_REQ_ID),
            user_id=environ.get('HTTP_X_USER_ID'),
            project_id=environ.get('HTTP_X_PROJECT_ID'),
            overwrite=False)
    return context


class RequestLog:
    """One line in the log for every request once it is answered, as
    OpenStack services write it: the context of the request (its ID, the
    user and the project), the client, the request line, the status, the
    length of the body and the time taken. Inside the middleware that
    gives each request its ID (an ID the client sends is only kept as the
    global request ID) and returns it in X-Openstack-Request-Id; outside
    the authentication, so that refused requests are written too."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ: dict, start_response):
        started = time.monotonic()
        answer = {}

        def start(status: str, headers: list, exc_info=None):
            answer['status'] = status.split(' ', 1)[0]
            answer['length'] = next((v for k, v in headers
                                     if k.lower() == 'content-length'), '-')
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, start)
        finally:
            query = environ.get('QUERY_STRING')
            LOG.info('%s "%s %s%s %s" status: %s len: %s time: %.7f',
                     environ.get('REMOTE_ADDR') or '-',
                     environ.get('REQUEST_METHOD'),
                     environ.get('PATH_INFO'),
                     '?' + query if query else '',
                     environ.get('SERVER_PROTOCOL'),
                     answer.get('status', '-'), answer.get('length', '-'),
                     time.monotonic() - started,
                     extra={'context': _context(environ)})
