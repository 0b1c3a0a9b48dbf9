"""The exec broker: an operator's executable makes and destroys machines.

The executable (``command``, a list: the program and its arguments, run
without a shell) reads one JSON request on stdin, ``{"action": "create"
| "destroy", "token": ..., "parameters": ..., "ref": ...}``, and writes
the machine (for create), ``{}`` (for destroy) or ``{"error": "..."}``
on stdout. It is killed after ``timeout`` seconds (default 300).
"""
import json
import subprocess

from pool_conductor.brokers import base
from pool_conductor import exception

DEFAULT_TIMEOUT = 300
# Output beyond this is not a machine.
MAX_OUTPUT = 1024 * 1024


class CommandBroker(base.BrokerDriver):

    def validate(self, parameters: dict) -> None:
        command = parameters.get('command')
        if (not isinstance(command, list) or not command
                or not all(isinstance(a, str) and a for a in command)):
            raise exception.InvalidParameterValue(
                err='The exec broker needs the parameter command: a list '
                    'of non-empty strings (the program and its '
                    'arguments), not %r.' % (command,))
        timeout = parameters.get('timeout', DEFAULT_TIMEOUT)
        if (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                or not 0 < timeout <= 86400):
            raise exception.InvalidParameterValue(
                err='The exec broker\'s parameter timeout must be a number '
                    'of seconds from 1 to 86400, not %r.' % (timeout,))

    def _run(self, parameters: dict, request: dict) -> dict:
        def fail(reason: str):
            raise exception.BrokerError(broker='exec', reason=reason)

        try:
            self.validate(parameters)
        except exception.InvalidParameterValue as exc:
            fail(str(exc))
        command = parameters['command']
        try:
            done = subprocess.run(
                command, input=json.dumps(request), capture_output=True,
                text=True, timeout=parameters.get('timeout',
                                                  DEFAULT_TIMEOUT),
                check=False)
        except subprocess.TimeoutExpired:
            fail('%s did not answer within %s seconds'
                 % (command[0], parameters.get('timeout', DEFAULT_TIMEOUT)))
        except OSError as exc:
            fail('%s could not be run: %s' % (command[0], exc))
        try:
            answer = json.loads(done.stdout[:MAX_OUTPUT])
        except ValueError:
            answer = None
        if isinstance(answer, dict) and answer.get('error'):
            fail(str(answer['error']))
        if done.returncode != 0:
            fail('%s exited with status %d: %s' % (
                command[0], done.returncode,
                (done.stderr or done.stdout).strip()[-500:]))
        if not isinstance(answer, dict):
            fail('%s did not write a JSON object on stdout: %r'
                 % (command[0], done.stdout[:200]))
        return answer

    def create(self, token: str, parameters: dict) -> dict:
        return self._run(parameters, {'action': 'create', 'token': token,
                                      'parameters': parameters})

    def destroy(self, ref: str, parameters: dict) -> None:
        self._run(parameters, {'action': 'destroy', 'ref': ref,
                               'parameters': parameters})
