"""Work a caller controls (provider templates, claim validation) in child
processes that the kernel stops at a limit of CPU time and memory."""
import json
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback

from oslo_log import log

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import waiting

LOG = log.getLogger(__name__)

_HEADER = struct.Struct('!I')
# A job from the parent starts with its wall time limit.
_WALL = struct.Struct('!d')
# How long a new sandbox process may take to import pool's modules.
_START_TIMEOUT = 60
# How much longer than a job's wall time limit its sandbox process may
# take to answer before it is killed (it does not run the job itself).
_MARGIN = 5
# The largest answer read from a worker, in bytes.
_MAX_REPLY = 64 * 1024 * 1024
_MIB = 1024 * 1024
# The child runs the parent's Python on the parent's module path, isolated
# (-I) from the environment and from the working directory; the modules
# whose functions it runs are imported once, before any job, for every
# worker forked.
_BOOT = ('import sys; sys.path[:] = sys.argv[1:]; '
         'import pool_conductor.schemas, pool_conductor.templates; '
         'from pool_conductor import sandbox; sandbox.serve()')


class Budget:
    """The CPU time (of [sandbox] cpu_time_limit) and the time (of
    wall_time_limit) that the sandboxed work of one request may still
    take."""

    def __init__(self):
        self.total = CONF.sandbox.cpu_time_limit
        self.left = self.total
        self.wall = CONF.sandbox.wall_time_limit
        self.wall_left = self.wall


class _Timeout(Exception):
    pass


class _Ended(Exception):
    pass


class _Pipe:
    """Frames (a length, then bytes) over a pair of file descriptors."""

    def __init__(self, read_fd: int, write_fd: int):
        self.read_fd, self.write_fd = read_fd, write_fd
        self.poll = select.poll()
        self.poll.register(read_fd, select.POLLIN)

    def _read(self, size: int, deadline: float | None) -> bytes:
        data = bytearray()
        while len(data) < size:
            if deadline is not None:
                wait = deadline - time.monotonic()
                if wait <= 0 or not self.poll.poll(wait * 1000):
                    raise _Timeout()
            chunk = os.read(self.read_fd, size - len(data))
            if not chunk:
                raise _Ended()
            data += chunk
        return bytes(data)

    def receive(self, deadline: float | None = None) -> bytes:
        """:raises: _Timeout, _Ended (also for a frame out of bounds)"""
        (size,) = _HEADER.unpack(self._read(_HEADER.size, deadline))
        if size > _MAX_REPLY:
            raise _Ended()
        return self._read(size, deadline)

    def send(self, data: bytes) -> None:
        """:raises: _Ended"""
        view = memoryview(_HEADER.pack(len(data)) + data)
        try:
            while view:
                view = view[os.write(self.write_fd, view):]
        except OSError:
            raise _Ended() from None

    def close(self) -> None:
        os.close(self.read_fd)
        os.close(self.write_fd)


# A sandbox process is started once (it imports pool's modules) and
# serves jobs one at a time: it runs each in a worker process it forked,
# reused for the next job until a limit stops it, so that a new one costs a
# fork, not a start. The worker runs the caller's work; the sandbox process
# only passes jobs and answers, and watches the clock.
class _Process:
    """A sandbox process, as its parent sees it."""

    def __init__(self):
        # -I ignores PYTHONDONTWRITEBYTECODE: -B says it again.
        flags = ['-I', '-B'] if sys.flags.dont_write_bytecode else ['-I']
        self.popen = subprocess.Popen(
            [sys.executable, *flags, '-c', _BOOT, *sys.path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
            close_fds=True, start_new_session=True)
        self.pipe = _Pipe(self.popen.stdout.fileno(),
                          self.popen.stdin.fileno())
        try:
            self.pipe.receive(time.monotonic() + _START_TIMEOUT)
        except (_Timeout, _Ended):
            self.stop()
            raise RuntimeError('A sandbox process did not start.') from None

    def ask(self, job: tuple, wall: float) -> dict:
        """:raises: _Timeout, _Ended"""
        self.pipe.send(_WALL.pack(wall) + pickle.dumps(job))
        # JSON: the parent unpickles nothing a worker wrote.
        return json.loads(self.pipe.receive(time.monotonic() + wall
                                            + _MARGIN))

    def stop(self) -> None:
        self.popen.kill()
        self.popen.wait()
        self.popen.stdin.close()
        self.popen.stdout.close()


class _Pool:
    """At most [sandbox] processes sandbox processes; a caller that finds
    none idle waits for one."""

    def __init__(self):
        self.owner = os.getpid()
        self.idle: list[_Process] = []
        self.started = 0
        self.changed = threading.Condition()

    def take(self) -> _Process:
        with self.changed:
            while not self.idle and self.started >= CONF.sandbox.processes:
                self.changed.wait()
            if self.idle:
                return self.idle.pop()
            self.started += 1
        try:
            return _Process()
        except BaseException:
            self.discard(None)
            raise

    def give_back(self, process: _Process) -> None:
        with self.changed:
            self.idle.append(process)
            self.changed.notify()

    def discard(self, process: _Process | None) -> None:
        if process is not None:
            process.stop()
        with self.changed:
            self.started -= 1
            self.changed.notify()


_POOL = _Pool()
_POOL_LOCK = threading.Lock()


def _pool() -> _Pool:
    global _POOL
    with _POOL_LOCK:
        # After a fork, the processes belong to the parent.
        if _POOL.owner != os.getpid():
            _POOL = _Pool()
        return _POOL


def _over(what: str, limit: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(err='%s took more than %s.'
                                           % (what, limit))


def call(func, args: tuple, what: str, budget: Budget | None = None):
    """func(*args) in a sandbox, within the CPU time and the time left in
    budget (a new one by default) and [sandbox] memory_limit.

    :param func: a module-level function; its result must be JSON.
    :param what: the work, for the messages ("rendering the templates").
    :raises: InvalidParameterValue beyond a limit, or for an Invalid error
        func raised (with its message)
    """
    budget = budget or Budget()
    if budget.left <= 0:
        raise _over(what, '%s s of CPU time' % budget.total)
    if budget.wall_left <= 0:
        raise _over(what, '%s s' % budget.wall)
    reply = _ask((func, args, budget.left,
                  CONF.sandbox.memory_limit * _MIB), budget)
    _refuse(reply, what, budget)
    if 'error' in reply:
        raise RuntimeError('The sandbox failed: %s' % reply['error'])
    return reply['result']


def _ask(job: tuple, budget: Budget) -> dict:
    """The answer to a job; what it cost is taken from budget."""
    pool = _pool()
    with waiting.during():
        # Waiting for a free sandbox process, or for one to start, does
        # not count.
        process = pool.take()
        start = time.monotonic()
        try:
            reply = process.ask(job, budget.wall_left)
        except (_Timeout, _Ended):
            pool.discard(process)
            raise RuntimeError(
                'A sandbox process stopped answering.') from None
        except BaseException:
            pool.discard(process)
            raise
    pool.give_back(process)
    budget.wall_left -= time.monotonic() - start
    # A worker stopped at a limit has used all that was left.
    budget.left -= reply.get('cpu', budget.left)
    return reply


def _refuse(reply: dict, what: str, budget: Budget) -> None:
    """:raises: InvalidParameterValue for a job stopped at a limit, or
    that the caller's input made fail"""
    limit = {'cpu': '%s s of CPU time' % budget.total,
             'wall': '%s s' % budget.wall}.get(reply.get('limit'))
    if limit:
        raise _over(what, limit)
    if 'memory' in reply:
        raise exception.InvalidParameterValue(
            err='%s needed more than %d MiB of memory.'
                % (what, CONF.sandbox.memory_limit))
    if 'ended' in reply:
        # Not at a limit we set, but on the caller's input (C code that
        # aborts when memory runs out, for instance).
        LOG.warning('%s: a sandbox worker ended with status %d.', what,
                    reply['ended'])
        raise exception.InvalidParameterValue(
            err='%s stopped its sandbox process (exit status %d).'
                % (what, reply['ended']))
    if 'invalid' in reply:
        raise exception.InvalidParameterValue(err=reply['invalid'])


# The worker ------------------------------------------------------------------

def _address_space() -> int:
    with open('/proc/self/statm') as statm:
        return int(statm.read().split()[0]) * os.sysconf('SC_PAGE_SIZE')


def _limit(cpu: float, memory: int) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = _address_space() + memory
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    # SIGPROF's default action ends the process after cpu seconds of CPU
    # time, also in C code holding the GIL.
    signal.setitimer(signal.ITIMER_PROF, max(cpu, 1e-6))


def _unlimit() -> None:
    signal.setitimer(signal.ITIMER_PROF, 0)
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _run(func, args: tuple, cpu: float, memory: int) -> dict:
    start = time.process_time()
    try:
        _limit(cpu, memory)
        try:
            reply = {'result': func(*args)}
        finally:
            _unlimit()
    except MemoryError:
        reply = {'memory': True}
    except exception.Invalid as exc:
        reply = {'invalid': exc.message}
    except Exception:
        reply = {'error': traceback.format_exc()}
    reply['cpu'] = time.process_time() - start
    return reply


def _work(pipe: _Pipe) -> None:
    """The loop of a worker: jobs, answers, until its pipe closes. An
    answer starts with + if the worker may serve again, - if not (after a
    MemoryError its heap may stay large)."""
    while True:
        try:
            reply = _run(*pickle.loads(pipe.receive()))
        except _Ended:
            return
        pipe.send((b'-' if 'memory' in reply else b'+')
                  + json.dumps(reply).encode())


# The sandbox process ---------------------------------------------------------

class _Worker:
    """A worker process, as the sandbox process sees it."""

    def __init__(self, parent: _Pipe):
        jobs_r, jobs_w = os.pipe()
        replies_r, replies_w = os.pipe()
        self.pid = os.fork()
        if not self.pid:
            parent.close()
            os.close(jobs_w)
            os.close(replies_r)
            try:
                _work(_Pipe(jobs_r, replies_w))
            finally:
                os._exit(0)
        os.close(jobs_r)
        os.close(replies_w)
        self.pipe = _Pipe(replies_r, jobs_w)

    def run(self, payload: bytes, wall: float) -> tuple[bytes, bool]:
        """The worker's answer, and whether it may serve again."""
        try:
            self.pipe.send(payload)
            reply = self.pipe.receive(time.monotonic() + wall)
        except _Timeout:
            self.stop()
            return json.dumps({'limit': 'wall'}).encode(), False
        except _Ended:
            status = self.stop()
            if status == -signal.SIGPROF:
                return json.dumps({'limit': 'cpu'}).encode(), False
            return json.dumps({'ended': status}).encode(), False
        return reply[1:], reply[:1] == b'+'

    def stop(self) -> int:
        """Kill the worker; its exit status (minus a signal number)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _pid, status = os.waitpid(self.pid, 0)
        self.pipe.close()
        return os.waitstatus_to_exitcode(status)


def serve() -> None:
    """The loop of a sandbox process: jobs from stdin to a worker, and its
    answers (or the limit that stopped it) to stdout, until stdin ends."""
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    parent = _Pipe(os.dup(0), os.dup(1))
    # Anything printed goes to the server's log, not to the parent.
    os.dup2(2, 1)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    parent.send(b'ready')
    worker = None
    while True:
        try:
            payload = parent.receive()
        except _Ended:
            return
        worker = worker or _Worker(parent)
        (wall,) = _WALL.unpack(payload[:_WALL.size])
        reply, reusable = worker.run(payload[_WALL.size:], wall)
        if not reusable:
            worker = None
        parent.send(reply)
