"""The exec broker: a program the operator configured makes and destroys
machines.

The operator lists the programs exec brokers may run in ``[exec_broker]
program`` (``NAME:COMMAND LINE``); a broker's parameter ``program`` names
one, so an API caller chooses among them, never what runs. The program,
run without a shell, reads one JSON request on stdin, ``{"action":
"create" | "destroy", "token": ..., "parameters": ..., "ref": ...}``, and
writes the machine (for create), ``{}`` (for destroy) or ``{"error":
"..."}`` on stdout. It is killed after ``timeout`` seconds (default 300).
What it writes reaches errors and logs masked (BrokerError).
"""
import json
import subprocess

from oslo_config import cfg

from pool_conductor.brokers import base
from pool_conductor.conf import CONF
from pool_conductor import exception

DEFAULT_TIMEOUT = 300
# Output beyond this is not a machine.
MAX_OUTPUT = 1024 * 1024


def programs() -> dict[str, list[str]]:
    """The configured programs: their command lines by name.

    :raises: ExecProgramsInvalid for an entry of another shape
    """
    try:
        entries = CONF.exec_broker.program or ()
    except cfg.ConfigFileValueError as exc:
        raise exception.ExecProgramsInvalid(reason=exc) from None
    return {name: line.split()
            for name, line in (e.split(':', 1) for e in entries)}


def _configured(known: dict) -> str:
    if not known:
        return ('no program is configured ([exec_broker] program in the '
                'conductors\' and API\'s configuration).')
    return 'the configured programs are %s.' % ', '.join(sorted(known))


def command(parameters: dict) -> list[str]:
    """The command line of the program a broker's parameters name.

    :raises: InvalidParameterValue
    """
    known = programs()
    if 'command' in parameters:
        raise exception.InvalidParameterValue(
            err='The exec broker no longer takes the parameter command: '
                'the operator configures the programs it may run '
                '([exec_broker] program). Name one in the parameter '
                'program instead, such as {"program": "lab-vms"}; '
                + _configured(known))
    name = parameters.get('program')
    if not isinstance(name, str) or name not in known:
        raise exception.InvalidParameterValue(
            err='The exec broker needs the parameter program, the name of '
                'a program the operator configured%s; %s' % (
                    ', not "%s"' % name if isinstance(name, str) else '',
                    _configured(known)))
    return known[name]


class CommandBroker(base.BrokerDriver):

    def validate(self, parameters: dict) -> None:
        self._check(parameters)

    def _check(self, parameters: dict) -> list[str]:
        """The command line to run, parameters checked.

        :raises: InvalidParameterValue
        """
        line = command(parameters)
        timeout = parameters.get('timeout', DEFAULT_TIMEOUT)
        if (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                or not 0 < timeout <= 86400):
            raise exception.InvalidParameterValue(
                err='The exec broker\'s parameter timeout must be a number '
                    'of seconds from 1 to 86400, not %r.' % (timeout,))
        return line

    def _run(self, parameters: dict, request: dict) -> dict:
        def fail(reason: str):
            # From None: the context (such as TimeoutExpired) quotes the
            # whole command line.
            raise exception.BrokerError(broker='exec', reason=reason,
                                        parameters=parameters) from None

        try:
            line = self._check(parameters)
        except (exception.InvalidParameterValue,
                exception.ExecProgramsInvalid) as exc:
            fail(str(exc))
        name = 'program %s' % parameters['program']
        timeout = parameters.get('timeout', DEFAULT_TIMEOUT)
        try:
            done = subprocess.run(
                line, input=json.dumps(request),
                capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            fail('%s did not answer within %s seconds' % (name, timeout))
        except OSError as exc:
            fail('%s could not be run: %s' % (name, exc))
        try:
            answer = json.loads(done.stdout[:MAX_OUTPUT])
        except ValueError:
            answer = None
        if isinstance(answer, dict) and answer.get('error'):
            fail(str(answer['error']))
        if done.returncode != 0:
            fail('%s exited with status %d: %s' % (
                name, done.returncode,
                (done.stderr or done.stdout).strip()[-500:]))
        if not isinstance(answer, dict):
            fail('%s did not write a JSON object on stdout: %r'
                 % (name, done.stdout[:200]))
        return answer

    def create(self, token: str, parameters: dict) -> dict:
        return self._run(parameters, {'action': 'create', 'token': token,
                                      'parameters': parameters})

    def destroy(self, ref: str, parameters: dict) -> None:
        self._run(parameters, {'action': 'destroy', 'ref': ref,
                               'parameters': parameters})
