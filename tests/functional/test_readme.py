"""The walk-throughs of README.rst and of the guides, run as printed from
a fresh virtualenv.

The test copies the checkout to a temporary folder and follows the
documents literally there, as a newcomer would: it reads the literal blocks
(the indented text after a paragraph ending in ``::``) of the sections in
``WALK_THROUGHS`` (README.rst's quick start, then the walk-through pages of
doc/source), and runs each command line of them with bash, in that order:
each walk-through goes on from the state the one before left (the server
started, the variables exported, the nodes made). The documents cannot
drift: a line that fails fails the test, which shows the file, the line and
what it printed.

Which blocks and lines run, by these rules:

* A section is a heading at any level (an underline, or an overline and an
  underline, of one punctuation character, as reStructuredText reads them:
  the README's sections are underlined with ``=``, a guide's title is over-
  and underlined); its blocks are those up to the next heading of its level
  or above, its subsections' included.
* Blocks of the other sections (deployment files, policy rules, ...) do
  not run.
* A block whose first line is a Python ``import`` is Python: it runs as
  one program with the new virtualenv's ``python``.
* Any other block is shell. It is cut into commands: a command goes on
  over lines ending in ``\\``, over a quoted string left open and over a
  ``for``/``while`` loop up to its ``done``. Each command runs in its own
  bash in the checkout; the variables it exports (``export POOL=...``,
  ``. .venv/bin/activate``) carry over to the commands after it.
* Commands in ``NOT_RUN`` do not run (the test suites themselves).
* A ``pool-server`` command (alone, or last in a chain of ``&&``) starts
  the server in the background, as a reader runs it in a terminal of its
  own, and waits until it answers; a server started earlier is stopped
  first, as the documents ask the reader to do.
* A comment line right after a command (``# ...``) shows what the command
  prints. When it shows an error body (``"error_message"``), the command
  must fail and print that error, ``...`` in it standing for any text (a
  UUID, a time); otherwise it only illustrates.
* ``curl`` fails on an HTTP error status (``--fail-with-body``): a request
  the documents show as working must work.
* Commands in ``EXPECTED_FAILURES`` must fail, for the reason given there
  (a refusal the documents show that prints no error body, or a command
  that does not work yet); once one works, the test fails until it is
  taken off the list.

The server listens on a free port and keeps its database in the temporary
folder (oslo.config's ``OS_API__PORT`` and ``OS_DEFAULT__STATE_PATH``
environment variables); ``localize`` is the one place where the documents'
``127.0.0.1:6388`` becomes that port. The programs of the virtualenv that
runs the tests are taken off ``PATH``, so only what the quick start
installs is there. pip installs as the quick start says, from pip's usual
cache.
"""
import dataclasses
import importlib.metadata
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import testtools
from testtools import content

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

# The sections whose blocks run, subsections included: (file in the
# checkout, heading), in the order they run.
WALK_THROUGHS = (
    ('README.rst', 'Quick start'),
    ('doc/source/walk-through.rst', 'Walk-through with curl'),
    ('doc/source/three-ways-in.rst', 'Three ways in'),
    ('doc/source/pools.rst', 'Pools'),
    ('doc/source/claims.rst', 'Claims'),
    ('doc/source/windows.rst', 'Windows'),
)

NOT_RUN = {
    './tools/run-tests.sh': 'the test suites, this one among them',
}

# Command lines (their start) that must fail, and why: refusals the guides
# show from the openstack command, and commands that do not work yet (an
# entry of those goes once the command works).
EXPECTED_FAILURES: dict[str, str] = {
    'openstack pool claim set db --resource-param 0:hostname=':
        "the provider's update filters refuse the change",
    'openstack pool claim create big ':
        'the pool has too few Free machines for the claim',
}

COMMAND_TIMEOUT = 300
INSTALL_TIMEOUT = 900
SERVER_START_TIMEOUT = 60

README_PORT = 6388


@dataclasses.dataclass
class Block:
    # The headings the block is under, the outermost first.
    sections: tuple[str, ...]
    lineno: int
    lines: list[str]
    file: str = 'README.rst'

    def within(self, section: str) -> bool:
        return section in self.sections


@dataclasses.dataclass
class Command:
    text: str
    lineno: int
    shown_output: list[str]
    file: str = 'README.rst'

    @property
    def where(self) -> str:
        return '%s line %d' % (self.file, self.lineno)


def _adornment(line: str) -> str | None:
    """The character of a heading's underline (or overline), else None."""
    match = re.fullmatch(r'([!-/:-@[-`{-~])\1+', line.rstrip())
    return match.group(1) if match else None


def _heading(lines: list[str], i: int) -> tuple[str, bool] | None:
    """(its underline's character, whether it has an overline) if
    lines[i] is the title of a heading, else None."""
    line = lines[i]
    if (not line.strip() or line[0].isspace() or _adornment(line)
            or i + 1 >= len(lines)):
        return None
    char = _adornment(lines[i + 1])
    if char is None or len(lines[i + 1].rstrip()) < len(line.rstrip()):
        return None
    over = i > 0 and lines[i - 1].rstrip() == lines[i + 1].rstrip()
    return char, over


def literal_blocks(text: str, file: str = 'README.rst') -> list[Block]:
    """The literal blocks of an reStructuredText document, in order, each
    with the headings it is under.

    As reStructuredText does, a heading's level is the order in which its
    style (the character, with or without an overline) first appears in
    the document."""
    lines = text.splitlines()
    blocks = []
    styles: list[tuple[str, bool]] = []
    sections: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        style = _heading(lines, i)
        if style is not None:
            if style not in styles:
                styles.append(style)
            level = styles.index(style)
            sections = sections[:level] + [''] * (level - len(sections))
            sections.append(line.strip())
            i += 2
            continue
        if line.rstrip().endswith('::') and not line.lstrip().startswith('..'):
            indent = len(line) - len(line.lstrip())
            j = i + 1
            body = []
            while j < len(lines):
                nxt = lines[j]
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                body.append((j, nxt))
                j += 1
            while body and not body[-1][1].strip():
                body.pop()
            while body and not body[0][1].strip():
                body.pop(0)
            if body:
                margin = min(len(t) - len(t.lstrip())
                             for _, t in body if t.strip())
                blocks.append(Block(tuple(sections), body[0][0] + 1,
                                    [t[margin:] for _, t in body], file))
            i = max(j, i + 1)
            continue
        i += 1
    return blocks


def _complete(text: str) -> bool:
    if text.rstrip().endswith('\\'):
        return False
    try:
        words = shlex.split(text, comments=True)
    except ValueError:  # a quotation still open
        return False
    # A loop ends at its done.
    return words.count('do') == sum(w in ('done', 'done;') for w in words)


def shell_commands(block: Block) -> list[Command]:
    """The commands of a shell block, each with the output it shows."""
    commands: list[Command] = []
    current: list[str] = []
    start = block.lineno
    for offset, line in enumerate(block.lines):
        if not current:
            if not line.strip():
                continue
            if line.startswith('#'):
                if commands:
                    commands[-1].shown_output.append(line[1:].strip())
                continue
            start = block.lineno + offset
        current.append(line)
        text = '\n'.join(current)
        if _complete(text):
            commands.append(Command(text, start, [], block.file))
            current = []
    if current:
        raise AssertionError('%s line %d: a command does not end: %s'
                             % (block.file, start, '\n'.join(current)))
    return commands


def localize(text: str, port: int) -> str:
    """The documents' text with the test server's port for pool's."""
    return text.replace('127.0.0.1:%d' % README_PORT, '127.0.0.1:%d' % port)


def shows_error(shown: str, output: str) -> bool:
    """Whether output is the error shown, ``...`` standing for any text."""
    pattern = '.*'.join(re.escape(part) for part in shown.split('...'))
    return re.fullmatch(pattern, output, re.DOTALL) is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def server_part(command: str) -> tuple[str, str] | None:
    """(what runs before, the pool-server command) if the command starts
    pool-server, else None."""
    parts = command.split(' && ')
    words = shlex.split(parts[-1])
    if words and os.path.basename(words[0]) == 'pool-server':
        return ' && '.join(parts[:-1]), parts[-1]
    return None


def test_path() -> str:
    """PATH without the programs of the virtualenv running the tests."""
    own = {os.path.dirname(sys.executable)}
    if os.environ.get('VIRTUAL_ENV'):
        own.add(os.path.join(os.environ['VIRTUAL_ENV'], 'bin'))
    return os.pathsep.join(
        p for p in os.environ.get('PATH', '').split(os.pathsep)
        if p and os.path.realpath(p) not in {os.path.realpath(o)
                                             for o in own})


class TestReadme(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp(prefix='pool-readme-')
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.checkout = os.path.join(self.tmp, 'pool')
        self.copy_checkout()
        self.port = free_port()
        self.server: subprocess.Popen | None = None
        self.server_log = os.path.join(self.tmp, 'pool-server.log')
        self.addCleanup(self.stop_server)
        self.timings: list[str] = []
        self.addDetail('timings', content.Content(
            content.UTF8_TEXT, lambda: ['\n'.join(self.timings).encode()]))
        bin_dir = os.path.join(self.tmp, 'bin')
        os.mkdir(bin_dir)
        curl = shutil.which('curl')
        if curl is None:
            self.fail('curl is not installed')
        with open(os.path.join(bin_dir, 'curl'), 'w') as f:
            f.write('#!/bin/sh\nexec %s --fail-with-body "$@"\n'
                    % shlex.quote(curl))
        os.chmod(os.path.join(bin_dir, 'curl'), 0o755)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(('OS_', 'PYTHON', 'VIRTUAL_ENV'))}
        self.env['PATH'] = bin_dir + os.pathsep + test_path()
        # No git history in the copy: pbr takes the version from here.
        self.env['PBR_VERSION'] = self.version()

    def version(self) -> str:
        try:
            return importlib.metadata.version('pool')
        except importlib.metadata.PackageNotFoundError:
            return '0.0.1'

    def copy_checkout(self) -> None:
        """The files of the work tree that git knows or would add."""
        files = subprocess.run(
            ['git', 'ls-files', '-z', '--cached', '--others',
             '--exclude-standard'], cwd=REPO, check=True,
            capture_output=True).stdout.decode().split('\0')
        for name in filter(None, files):
            source = os.path.join(REPO, name)
            if not os.path.isfile(source):  # deleted, not yet committed
                continue
            target = os.path.join(self.checkout, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)

    def report(self, what: str, text: str, rc: int, output: str) -> str:
        return ('%s\n%s\nexit code %s; it printed:\n%s\n%s' % (
            what, text, rc, output,
            ('pool-server log (end):\n' + self.log_tail())
            if self.server else ''))

    def log_tail(self) -> str:
        try:
            with open(self.server_log, errors='replace') as f:
                return f.read()[-4000:]
        except OSError:
            return ''

    def run_shell(self, text: str, timeout: int = COMMAND_TIMEOUT
                  ) -> tuple[int, str]:
        """Run text in bash in the checkout; keep what it exports."""
        env_file = os.path.join(self.tmp, 'env')
        script = '%s\n__rc=$?\nenv -0 > %s\nexit $__rc\n' % (
            text, shlex.quote(env_file))
        proc = subprocess.run(['bash', '-c', script], cwd=self.checkout,
                              env=self.env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        try:
            with open(env_file) as f:
                pairs = f.read().split('\0')
            os.unlink(env_file)
        except OSError:  # the command ended the shell (exit, exec)
            pairs = []
        if pairs:
            self.env = dict(p.split('=', 1) for p in pairs if '=' in p)
        return proc.returncode, proc.stdout

    def stop_server(self) -> None:
        if self.server is None:
            return
        self.server.send_signal(signal.SIGTERM)
        try:
            self.server.wait(30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.server = None

    def start_server(self, command: str, where: str) -> None:
        self.stop_server()
        env = dict(self.env, OS_API__PORT=str(self.port),
                   OS_DEFAULT__STATE_PATH=os.path.join(self.tmp, 'state'))
        log = open(self.server_log, 'a')
        self.addCleanup(log.close)
        self.server = subprocess.Popen(
            ['bash', '-c', 'exec ' + command], cwd=self.checkout, env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        url = 'http://127.0.0.1:%d/v1' % self.port
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                break
            try:
                urllib.request.urlopen(url, timeout=5).read()
                return
            except OSError:
                time.sleep(0.2)
        self.fail('%s: pool-server did not start:\n%s\n'
                  'its output:\n%s' % (where, command, self.log_tail()))

    def run_command(self, command: Command) -> None:
        text = localize(command.text, self.port)
        where = command.where
        if command.text in NOT_RUN:
            return
        server = server_part(text)
        if server is not None:
            before, text = server
            if before:
                started = time.monotonic()
                rc, output = self.run_shell(before, INSTALL_TIMEOUT)
                self.timings.append('%s: %.1f s: %s' % (
                    where, time.monotonic() - started, before))
                if rc != 0:
                    self.fail(self.report(where + ' failed:', before, rc,
                                          output))
            self.start_server(text, where)
            return
        started = time.monotonic()
        rc, output = self.run_shell(text)
        self.timings.append('%s: %.1f s: %s' % (
            where, time.monotonic() - started, text.splitlines()[0]))
        expected = [reason for prefix, reason in EXPECTED_FAILURES.items()
                    if command.text.startswith(prefix)]
        errors = [line for line in command.shown_output
                  if '"error_message"' in line]
        if expected:
            if rc == 0:
                self.fail('%s works now: take it off EXPECTED_FAILURES (%s)'
                          '\n%s' % (where, expected[0], text))
        elif errors:
            if rc == 0:
                self.fail(self.report(where + ' shows an error, but worked:',
                                      text, rc, output))
            for line in errors:
                if not shows_error(line, output.strip()):
                    self.fail('%s prints another error:\n%s\nnot the one '
                              'shown:\n%s' % (where, output.strip(), line))
        elif rc != 0:
            self.fail(self.report(where + ' failed:', text, rc, output))

    def run_python(self, block: Block) -> None:
        python = os.path.join(self.checkout, '.venv', 'bin', 'python')
        code = localize('\n'.join(block.lines), self.port)
        proc = subprocess.run([python, '-c', code], cwd=self.checkout,
                              env=self.env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=COMMAND_TIMEOUT)
        if proc.returncode != 0:
            self.fail(self.report(
                '%s line %d (Python) failed:' % (block.file, block.lineno),
                code, proc.returncode, proc.stdout))

    def walk_through_blocks(self) -> list[Block]:
        """The blocks of WALK_THROUGHS, in their order."""
        blocks = []
        for name, section in WALK_THROUGHS:
            with open(os.path.join(REPO, name)) as f:
                found = [b for b in literal_blocks(f.read(), name)
                         if b.within(section)]
            self.assertNotEqual([], found, '%s has no literal blocks under '
                                'a heading %r' % (name, section))
            blocks.extend(found)
        return blocks

    def test_walk_throughs(self):
        for block in self.walk_through_blocks():
            if block.lines[0].startswith(('import ', 'from ')):
                self.run_python(block)
                continue
            for command in shell_commands(block):
                self.run_command(command)


class TestReadmeRules(testtools.TestCase):
    """How the documents are read, on small ones."""

    DOCUMENT = '''\
Title
=====

Intro::

    export A=1
    for x in a b; do
      echo "$x
        y"
    done
    curl -s $POOL/nope
    # {"error_message": "x"}

Other
=====

Config::

    [DEFAULT]
'''

    # A guide: its title over- and underlined, sections under it, and
    # subsections.
    GUIDE = '''\
=====
Guide
=====

Start::

    echo start

Part
----

In the part::

    echo part

Detail
~~~~~~

In the detail::

    echo detail

``term``
    A definition, not a heading.

Next
----

Next::

    echo next
'''

    def test_blocks_and_commands(self):
        blocks = literal_blocks(self.DOCUMENT)
        self.assertEqual([('Title',), ('Other',)],
                         [b.sections for b in blocks])
        commands = shell_commands(blocks[0])
        self.assertEqual(
            ['export A=1',
             'for x in a b; do\n  echo "$x\n    y"\ndone',
             'curl -s $POOL/nope'],
            [c.text for c in commands])
        self.assertEqual(['{"error_message": "x"}'],
                         commands[2].shown_output)
        self.assertEqual([6, 7, 11], [c.lineno for c in commands])
        self.assertEqual('README.rst line 11', commands[2].where)

    def test_heading_levels(self):
        blocks = literal_blocks(self.GUIDE, 'doc/source/guide.rst')
        self.assertEqual(
            [('Guide',), ('Guide', 'Part'), ('Guide', 'Part', 'Detail'),
             ('Guide', 'Next')],
            [b.sections for b in blocks])
        self.assertEqual(['echo part', 'echo detail'],
                         [b.lines[0] for b in blocks if b.within('Part')])
        self.assertEqual(4, len([b for b in blocks if b.within('Guide')]))
        self.assertEqual('doc/source/guide.rst line 7',
                         shell_commands(blocks[0])[0].where)

    def test_server_commands(self):
        self.assertEqual(
            ('python3 -m venv .venv', '.venv/bin/pool-server'),
            server_part('python3 -m venv .venv && .venv/bin/pool-server'))
        self.assertEqual(('', 'pool-server --config-file demo.conf'),
                         server_part('pool-server --config-file demo.conf'))
        self.assertIsNone(server_part('openstack pool list'))

    def test_shown_error(self):
        shown = ('{"error_message": "Allocation ... is a machine of '
                 'claim ...."}')
        self.assertTrue(shows_error(
            shown, '{"error_message": "Allocation 5a42 is a machine of claim '
                   'fed6."}'))
        self.assertFalse(shows_error(
            shown, '{"error_message": "Allocation 5a42 could not be found."}'))
        self.assertFalse(shows_error('{"error_message": "x"}',
                                     '{"error_message": "xy"}'))

    def test_localize(self):
        self.assertEqual('http://127.0.0.1:9999/v1',
                         localize('http://127.0.0.1:6388/v1', 9999))
