#!/usr/bin/env python3
"""A broker executable for the exec broker's tests: machines are files.

create writes <state_dir>/vm-<token>.json once and answers with it, so a
repeated token gets the same machine; destroy removes the file. The
parameter ``behave`` makes it misbehave: "error" (answers an error),
"exit" (exits 3), "garbage" (writes no JSON), "sleep" (sleeps 30 s);
``delay`` is the seconds each create takes, after it made the machine.
"""
import json
import os
import sys
import time


def main() -> int:
    request = json.load(sys.stdin)
    params = request['parameters']
    behave = params.get('behave')
    if behave == 'error':
        json.dump({'error': 'out of machines'}, sys.stdout)
        return 0
    if behave == 'exit':
        sys.stderr.write('cloud unreachable\n')
        return 3
    if behave == 'garbage':
        sys.stdout.write('this is not JSON')
        return 0
    if behave == 'sleep':
        time.sleep(30)
    state = params['state_dir']
    if request['action'] == 'destroy':
        os.remove(os.path.join(state, request['ref'] + '.json'))
        json.dump({}, sys.stdout)
        return 0
    ref = 'vm-' + request['token']
    path = os.path.join(state, ref + '.json')
    if not os.path.exists(path):
        with open(path, 'w') as f:
            json.dump({'ref': ref, 'name': 'exec-' + request['token'][:8],
                       'resource_class': params.get('resource_class', 'vm'),
                       'properties': {'cpus': 2}, 'traits': ['CUSTOM_VM']},
                      f)
    time.sleep(params.get('delay', 0))
    with open(path) as f:
        json.dump(json.load(f), sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
