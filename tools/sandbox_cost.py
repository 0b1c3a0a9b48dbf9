"""Print what the sandbox of templates and claim validation costs: a call
in the server's process and in a sandbox process, the start of a sandbox
process, and the wall time of the most costly renders and validations a
claim can ask for, with the default [sandbox] limits.

Usage: .venv/bin/python -m tools.sandbox_cost
"""
import datetime
import statistics
import time

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import sandbox
from pool_conductor import schemas
from pool_conductor import templates
from tests import hostile

CALLS = 300
DOCUMENT = {'params': {'hostname': '{{ resource_claim.name }}-'
                                   '{{ resource_index }}',
                       'until': '{{ timestamp.utcnow.add("1d") }}'}}
SCHEMA = {'type': 'object', 'properties': {'params': {
    'type': 'object', 'required': ['hostname']}}}
# A template of some 5 ms of CPU time: 100 of them are a claim's worst.
LOOP = ('{% for i in range(1000) %}{% for j in range(20) %}{% endfor %}'
        '{% endfor %}')


def _values() -> dict:
    return templates.variables({'name': 'web'}, 0, {'name': 'p'},
                               datetime.datetime(2026, 1, 1))


def _median_ms(func) -> float:
    times = []
    for _ in range(CALLS):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _wall(func) -> tuple[float, str]:
    start = time.monotonic()
    try:
        func()
        outcome = 'accepted'
    except exception.Invalid as exc:
        outcome = exc.message
    return time.monotonic() - start, outcome


def per_call() -> None:
    values = _values()
    start = time.monotonic()
    templates.render_document(DOCUMENT, values, 'P')
    print('first call, starting a sandbox process: %.2f s'
          % (time.monotonic() - start))
    rendered = templates.render_document(DOCUMENT, values, 'P')
    for name, in_process, in_sandbox in (
            ('render', lambda: templates._walk(DOCUMENT, values, 'P'),
             lambda: templates.render_document(DOCUMENT, values, 'P')),
            ('validation', lambda: schemas.first_error(SCHEMA, rendered),
             lambda: sandbox.call(schemas.first_error, (SCHEMA, rendered),
                                  'V'))):
        print('%s, median of %d calls: %.3f ms in the server process, '
              '%.3f ms in a sandbox process'
              % (name, CALLS, _median_ms(in_process),
                 _median_ms(in_sandbox)))
    _wall(lambda: templates.render_document({'x': hostile.SLOW_SUM}, values,
                                            'P'))
    seconds_next, _ = _wall(lambda: templates.render_document(
        DOCUMENT, values, 'P'))
    print('the call after a worker was stopped (a new worker forked): '
          '%.3f s' % seconds_next)


def hostile_calls() -> None:
    values = _values()
    cases = [('template ' + name, lambda t=text: templates.render_document(
        {'x': t}, values, 'P'))
        for name, text in (('sum', hostile.SLOW_SUM),
                           ('tojson', hostile.SLOW_TOJSON),
                           ('join', hostile.HUGE_JOIN))]
    cases += [
        ('validation uniqueItems', lambda: sandbox.call(
            schemas.first_error, (hostile.UNIQUE_ITEMS,
                                  hostile.UNIQUE_CLAIM), 'V')),
        ('validation anyOf', lambda: sandbox.call(
            schemas.first_error, (hostile.any_of_chain(),
                                  hostile.any_of_claim()), 'V')),
        ('100 resources of 5 ms', _hundred_resources)]
    for name, func in cases:
        seconds, outcome = _wall(func)
        print('%-25s %.2f s  %s' % (name, seconds, outcome))


def _hundred_resources() -> None:
    """The renders and validations of one claim of 100 resources."""
    budget = sandbox.Budget()
    values = _values()
    for _ in range(100):
        templates.render_document({'x': LOOP}, values, 'P', budget)
        sandbox.call(schemas.first_error, (SCHEMA, {}), 'V', budget)


def main() -> None:
    CONF([], project='pool', default_config_files=[],
         default_config_dirs=[])
    per_call()
    hostile_calls()


if __name__ == '__main__':
    main()
