"""What a failing exec broker program prints reaches last_error and the
log masked."""
import logging
import sys

import fixtures

from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from tests.unit.conductor import test_autofill

# It echoes the secrets it was given, as a program in trouble may.
LEAKY = '''
import json, sys
params = json.load(sys.stdin)['parameters']
sys.stderr.write('login failed with api_token=%s then with %s and %s\\n'
                 % (params['api_token'], params['api_token'],
                    params['password']))
sys.exit(2)
'''
TOKEN = 'tok-4f9a1c'
PASSWORD = 'pw-77b2e0'


class TestBrokerOutput(test_autofill.AutoFillTestCase):

    def setUp(self):
        super().setUp()
        script = self.useFixture(fixtures.TempDir()).join('leaky.py')
        with open(script, 'w') as f:
            f.write(LEAKY)
        self.config(program=['leaky:%s %s' % (sys.executable, script)],
                    group='exec_broker')
        pools_db.update(self.context, models.Broker, 'cloud', {
            'driver': 'exec',
            'parameters': {'program': 'leaky', 'api_token': TOKEN}})
        self.log = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))

    def test_secrets_of_a_failing_program_are_masked(self):
        self.pool(min_free=1, create_parameters={'password': PASSWORD})
        done = self.filler.check(self.context)['web']
        self.assertEqual((1, 0), (done.requested, done.created))
        errors = [pools_db.get(self.context, models.Pool, 'web').last_error,
                  self.members()[0].last_error]
        for error in errors:
            self.assertIn('Broker cloud failed: program leaky exited with '
                          'status 2: login failed with api_token=****** '
                          'then with ****** and ******', error)
        self.assertIn('api_token=******', self.log.output)
        for text in errors + [self.log.output]:
            self.assertNotIn(TOKEN, text)
            self.assertNotIn(PASSWORD, text)
