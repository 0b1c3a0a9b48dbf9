"""Provider templates: rendering, their helpers, and the sandbox refusing
what could reach the server or exhaust it."""
import datetime
import time

from oslo_config import fixture as config_fixture
import testtools

from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import sandbox
from pool_conductor import templates
from tests import hostile

NOW = datetime.datetime(2026, 11, 24, 12, 0, 0)
LOOP = ('{% for i in range(1000) %}{% for j in range(1000) %}'
        '{% for k in range(1000) %}{% endfor %}{% endfor %}{% endfor %}')


class RenderTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(config_fixture.Config(CONF)).config

    def render(self, text: str, budget: sandbox.Budget | None = None):
        values = templates.variables(
            {'name': 'web', 'owner': 'p1', 'resources': [{'a': 1}]}, 2,
            {'name': 'small', 'pool': 'lab'}, NOW)
        return templates.render_document({'params': {'x': text}}, values,
                                         'Provider small defaults',
                                         budget)['params']['x']

    def refused(self, text: str, message: str):
        error = self.assertRaises(exception.InvalidParameterValue,
                                  self.render, text)
        self.assertIn('Provider small defaults: the template at /params/x',
                      error.message)
        self.assertIn(message, error.message)
        return error

    def test_variables(self):
        self.assertEqual('web-2-small-lab-1', self.render(
            '{{ resource_claim.name }}-{{ resource_index }}-'
            '{{ resource_provider.name }}-{{ resource_provider["pool"] }}-'
            '{{ resource_claim.resources[0].a }}'))

    def test_whole_document_rendered_not_keys(self):
        doc = {'params': {'{{ 1 }}': ['{{ 1 + 1 }}', 3, {'k': '{{ 3 }}'}]},
               'workflow': None}
        self.assertEqual({'params': {'{{ 1 }}': ['2', 3, {'k': '3'}]},
                          'workflow': None},
                         templates.render_document(doc, {}, 'x'))

    def test_timestamp_helpers(self):
        self.assertEqual('2021-05-01T12:30:00Z', self.render(
            '{{ timestamp("2021-05-01T12:30:00Z") }}'))
        self.assertEqual('2021-05-01T15:30:00Z', self.render(
            '{{ timestamp("2021-05-01T12:30:00Z").add("3h") }}'))
        # An offset is converted to UTC.
        self.assertEqual('2021-05-01T10:30:00Z', self.render(
            '{{ timestamp("2021-05-01T12:30:00+02:00") }}'))
        self.assertEqual('2026-11-24T12:00:00Z',
                         self.render('{{ timestamp.utcnow }}'))
        self.assertEqual('2026-11-25T12:00:00Z',
                         self.render('{{ timestamp.utcnow.add("1d") }}'))
        self.assertEqual('2026-11-24 12:00:00',
                         self.render('{{ timestamp.utcnow.datetime }}'))
        self.refused('{{ timestamp("yesterday") }}', 'ISO 8601')
        self.refused('{{ timestamp.utcnow.add("soon") }}', 'add must be')

    def test_timedelta_helpers(self):
        self.assertEqual('0:10:00', self.render('{{ timedelta("10m") }}'))
        self.assertEqual('1 day, 2:00:00',
                         self.render('{{ timedelta("1d2h").timedelta }}'))
        self.assertEqual('600', self.render(
            '{{ timedelta("10m").total_seconds }}'))
        self.refused('{{ timedelta("10 minutes") }}', 'timedelta must be')

    def test_python_objects_stay_closed(self):
        for text in ("{{ ''.__class__ }}",
                     "{{ ''.__class__.__mro__[1].__subclasses__() }}",
                     '{{ resource_claim.items() }}',
                     '{{ resource_claim.__class__ }}',
                     '{{ timestamp.__init__.__globals__ }}',
                     '{{ timestamp.utcnow.datetime.replace(year=1) }}',
                     '{{ timedelta("1h").timedelta.__class__ }}',
                     '{{ "a".upper() }}'):
            self.refused(text, 'unsafe')

    def test_removed_globals_and_filters(self):
        for text, message in (
                ('{{ cycler.__init__.__globals__ }}', 'unsafe'),
                ('{{ lipsum(1000000) }}', "'lipsum' is undefined"),
                ('{{ joiner() }}', "'joiner' is undefined"),
                ('{{ namespace(a=1) }}', "'namespace' is undefined"),
                ("{{ 'x'|center(1000000000) }}", "No filter named 'center'"),
                ("{{ 'x'|indent(1000000000) }}", "No filter named 'indent'"),
                ("{{ 'x'|replace('', 'yy') }}", "No filter named 'replace'"),
                ("{{ '%s'|format(1) }}", "No filter named 'format'"),
                ("{{ 'x'|wordwrap(3) }}", "No filter named 'wordwrap'"),
                ("{{ [1]|batch(1000000000, 'x')|list }}",
                 "No filter named 'batch'")):
            self.refused(text, message)

    def test_statements_refused(self):
        self.refused('{% macro f(s) %}{{ f(s ~ s) }}{% endmacro %}'
                     '{{ f("a") }}', 'the macro statement is not available')
        self.refused('{% include "/etc/passwd" %}',
                     'the include statement is not available')
        self.refused('{% import "x" as x %}', 'not available')
        self.refused('{% extends "x" %}', 'not available')

    def test_sizes_bounded(self):
        message = 'builds a value larger than allowed'
        for text in ('{{ range(10**9) }}',
                     "{{ 'a' * 10**9 }}",
                     "{{ 10**9 * 'a' }}",
                     "{{ [1] * 10**9 }}",
                     '{{ 2 ** 100000 }}',
                     '{{ (2 ** 4000) * (2 ** 4000) }}',
                     "{{ ('a' * 60000) ~ ('b' * 6000) }}",
                     "{{ ('a' * 60000) + ('b' * 6000) }}",
                     "{{ (range(1000)|list) * 1000 }}",
                     "{{ (['a' * 65536] * 1)|join('xx') ~ 'x' }}",
                     '{% for i in range(1000) %}{% for j in range(1000) %}'
                     'xxxxxxxxxx{% endfor %}{% endfor %}',
                     '{{ 1.5 ** 100000 }}'):
            self.refused(text, message)
        self.refused("{{ '%999999999d' % 1 }}",
                     'string formatting with % is not available')
        self.refused('{{ "x" * 4097 }}' + ' ' * 4096,
                     'at most 4096 characters')
        # Within the bounds.
        self.assertEqual(65536, len(self.render("{{ 'a' * 65536 }}")))
        self.assertEqual('1,2,3', self.render(
            "{{ range(1, 4)|join(',') }}"))
        self.assertEqual('7', self.render('{{ 15 % 8 }}'))

    def over_limit(self, text: str, message: str,
                   budget: sandbox.Budget | None = None) -> float:
        """Seconds until text is refused with message."""
        start = time.monotonic()
        error = self.assertRaises(exception.InvalidParameterValue,
                                  self.render, text, budget)
        self.assertEqual('Provider small defaults: rendering the templates '
                         + message, error.message)
        return time.monotonic() - start

    def test_endless_loop_stopped(self):
        self.over_limit(LOOP, 'took more than 0.5 s of CPU time.')
        self.assertEqual('ok', self.render('ok'))

    def test_c_code_stopped_at_the_cpu_limit(self):
        # The sum took 17 s behind a watchdog of 0.5 s.
        seconds = self.over_limit(hostile.SLOW_SUM, 'took more than 0.5 s '
                                                    'of CPU time.')
        # Stopped, not run to its end; the bound leaves room for a busy
        # machine (the CPU time limit, not the wall clock's, is what the
        # message names).
        self.assertLess(seconds, 8)
        # The JSON text grows by about a byte a nanosecond: the CPU time
        # or the memory limit stops it first, by the machine's speed.
        start = time.monotonic()
        error = self.assertRaises(exception.InvalidParameterValue,
                                  self.render, hostile.SLOW_TOJSON)
        self.assertIn(error.message, (
            'Provider small defaults: rendering the templates took more '
            'than 0.5 s of CPU time.',
            'Provider small defaults: rendering the templates needed more '
            'than 256 MiB of memory.'))
        self.assertLess(time.monotonic() - start, 8)
        self.assertEqual('1', self.render('{{ 1 }}'))

    def test_memory_limit(self):
        self.config(memory_limit=64, group='sandbox')
        seconds = self.over_limit(hostile.HUGE_JOIN,
                                  'needed more than 64 MiB of memory.')
        self.assertLess(seconds, 8)
        self.assertEqual('1', self.render('{{ 1 }}'))

    def test_limits_read_at_call_time(self):
        self.config(cpu_time_limit=0.05, group='sandbox')
        self.over_limit(LOOP, 'took more than 0.05 s of CPU time.')
        self.config(cpu_time_limit=30, wall_time_limit=0.3,
                    group='sandbox')
        self.over_limit(LOOP, 'took more than 0.3 s.')

    def test_budget_shared_by_the_calls_of_a_request(self):
        budget = sandbox.Budget()
        # Some 0.05 s of CPU time, well above the clock's resolution.
        self.assertEqual('', self.render(
            '{% for i in range(1000) %}{% for j in range(200) %}{% endfor %}'
            '{% endfor %}', budget))
        self.assertLess(budget.left, 0.5)
        self.over_limit(LOOP, 'took more than 0.5 s of CPU time.', budget)
        # Nothing is left for a next template of the same request.
        seconds = self.over_limit('{{ 1 }}', 'took more than 0.5 s of CPU '
                                             'time.', budget)
        self.assertLess(seconds, 0.1)
        self.assertEqual('1', self.render('{{ 1 }}'))

    def test_output_is_what_a_database_stores(self):
        for text, message in (
                (hostile.NUL, 'holds a NUL character, which cannot be '
                              'stored.'),
                (hostile.LONE_SURROGATE, 'holds a lone surrogate (\\ud800 to '
                                         '\\udfff), which is not a '
                                         'character.')):
            error = self.assertRaises(exception.InvalidParameterValue,
                                      self.render, text)
            self.assertEqual('Provider small defaults: the output of the '
                             'template at /params/x ' + message,
                             error.message)

    def test_total_output_bounded(self):
        document = {'a': "{{ 'a' * 65536 }}", 'b': ["{{ 'b' * 65536 }}",
                                                     'c']}
        error = self.assertRaises(exception.InvalidParameterValue,
                                  templates.render_document, document, {},
                                  'Provider p defaults')
        self.assertEqual('Provider p defaults: the templates render more '
                         'than 131072 characters in all (at /b/1).',
                         error.message)

    def test_strict_undefined(self):
        self.refused('{{ nothing }}', "'nothing' is undefined")
        self.refused('{{ resource_claim.nothing }}', 'nothing')

    def test_errors_are_refusals(self):
        self.refused('{{ 1 // 0 }}', 'division')
        self.refused('{{ unclosed', 'failed')
        self.refused('{{ [1][5] }}', 'failed')
