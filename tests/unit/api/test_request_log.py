"""The request log's writer: the lines of a server's requests."""
import logging
import threading
import time

from pool_api import request_log
from tests.unit.api import base


class _Written(logging.Handler):
    """The lines written: the thread that wrote each, its record."""

    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((threading.current_thread().name,
                           record.created, record.getMessage()))


class RequestLogWriterTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        # A handler the request log's lines propagate to.
        self.written = _Written()
        parent = logging.getLogger('pool_api')
        parent.addHandler(self.written)
        self.addCleanup(parent.removeHandler, self.written)
        logger = request_log.LOG.logger
        self.addCleanup(logger.setLevel, logger.level)
        logger.setLevel(logging.INFO)
        request_log.start()
        self.addCleanup(request_log.stop)

    def lines(self) -> list[tuple[str, float, str]]:
        return [line for line in self.written.lines if 'status:' in line[2]]

    def wait_for_lines(self, count: int) -> list[tuple[str, float, str]]:
        deadline = time.monotonic() + 10
        while len(self.lines()) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.lines()

    def test_a_server_writes_the_lines_on_its_writer_in_order(self):
        answered = []
        for path in ('/v1/nodes', '/v1/nodes/missing', '/v1/allocations'):
            self.get(path)
            answered.append(time.time())
        lines = self.wait_for_lines(3)
        self.assertEqual(3, len(lines), lines)
        self.assertEqual(['request-log'] * 3, [t for t, _c, _m in lines])
        self.assertIn('"GET /v1/nodes HTTP/1.1" status: 200', lines[0][2])
        self.assertIn('"GET /v1/nodes/missing HTTP/1.1" status: 404',
                      lines[1][2])
        self.assertIn('"GET /v1/allocations HTTP/1.1" status: 200',
                      lines[2][2])
        # Each line keeps the time its request was answered, not the
        # time it was written.
        for (_t, created, _m), at in zip(lines, answered, strict=True):
            self.assertLessEqual(created, at)

    def test_stopping_writes_the_lines_still_queued(self):
        self.patch(request_log, 'WRITE_DELAY', 60)
        self.get('/v1/nodes')
        # Given time, the writer would write nothing for a minute yet.
        time.sleep(0.2)
        self.assertEqual([], self.lines())
        started = time.monotonic()
        request_log.stop()
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(1, len(self.lines()))
        # From now on each request writes its own line.
        self.get('/v1/nodes')
        lines = self.lines()
        self.assertEqual(2, len(lines))
        self.assertEqual(threading.current_thread().name, lines[1][0])

    def test_a_forked_process_writes_its_own_lines(self):
        # The writer's thread was started by another process: this one's
        # requests do not wait for it.
        self.patch(request_log.os, 'getpid', lambda: -1)
        self.get('/v1/nodes')
        lines = self.lines()
        self.assertEqual(1, len(lines), lines)
        self.assertEqual(threading.current_thread().name, lines[0][0])
