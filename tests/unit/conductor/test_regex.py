"""compile_safe: user regular expressions that cannot hang the server."""
import time

import testtools

from pool_conductor import exception
from pool_conductor import regex


class TestCompileSafe(testtools.TestCase):

    def test_matches(self):
        self.assertTrue(regex.compile_safe(r'^rack-\d+$').search('rack-12'))
        self.assertIsNone(regex.compile_safe(r'^rack-\d+$').search('x'))

    def test_catastrophic_pattern_runs_in_linear_time(self):
        pattern = regex.compile_safe(r'^(a+)+$')
        start = time.monotonic()
        self.assertIsNone(pattern.search('a' * 100000 + 'b'))
        self.assertLess(time.monotonic() - start, 1.0)

    def test_too_long_is_invalid(self):
        self.assertRaisesRegex(exception.Invalid, 'at most 255',
                               regex.compile_safe, 'a' * 256)

    def test_invalid_pattern(self):
        self.assertRaisesRegex(exception.Invalid, 'Invalid name_regex',
                               regex.compile_safe, '(unclosed',
                               'name_regex')

    def test_backreference_is_refused(self):
        self.assertRaises(exception.Invalid, regex.compile_safe, r'(a)\1')

    def test_not_a_string(self):
        self.assertRaises(exception.Invalid, regex.compile_safe, 12)
