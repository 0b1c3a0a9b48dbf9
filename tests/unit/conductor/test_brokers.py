"""Broker drivers: fake and exec, loaded through their entry points."""
import os
import sys

import fixtures
from oslo_config import fixture as config_fixture
import testtools

from pool_conductor import brokers
from pool_conductor.conf import CONF
from pool_conductor import exception
from pool_conductor import external_managers
from pool_conductor import plugins

SCRIPT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                      'brokers', 'machines.py')


class TestLoading(testtools.TestCase):

    def test_drivers_load_by_name(self):
        self.assertEqual('FakeBroker',
                         type(brokers.get_driver('fake')).__name__)
        self.assertEqual('CommandBroker',
                         type(brokers.get_driver('exec')).__name__)

    def test_unknown_driver(self):
        self.assertRaisesRegex(exception.BrokerDriverNotFound, 'nope',
                               brokers.get_driver, 'nope')
        self.assertRaisesRegex(exception.ExternalDriverNotFound, 'nope',
                               external_managers.get_driver, 'nope')

    def test_a_driver_is_loaded_once(self):
        self.assertIs(brokers.get_driver('fake'), brokers.get_driver('fake'))
        self.assertIs(external_managers.get_driver('fake'),
                      external_managers.get_driver('fake'))
        self.assertIsNot(brokers.get_driver('fake'),
                         external_managers.get_driver('fake'))

    def test_a_refusal_of_parameters_is_masked(self):
        class Plugin:
            def validate(self, parameters):
                raise exception.InvalidParameterValue(
                    err='bad password %s' % parameters['password'])
        error = self.assertRaises(
            exception.InvalidParameterValue, plugins.validate, Plugin(),
            {'password': 'hunter2'})
        self.assertNotIn('hunter2', str(error))


class TestFakeBroker(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.driver = brokers.get_driver('fake')

    def test_same_token_same_machine(self):
        params = {'resource_class': 'small', 'traits': ['CUSTOM_A']}
        first = self.driver.create('a' * 32, params)
        self.assertEqual(first, self.driver.create('a' * 32, params))
        self.assertNotEqual(first['ref'],
                            self.driver.create('b' * 32, params)['ref'])
        self.assertEqual('small', first['resource_class'])
        self.assertEqual(['CUSTOM_A'], first['traits'])
        self.assertEqual(first, brokers.check_machine('f', first))

    def test_fail(self):
        self.assertRaisesRegex(exception.BrokerError, 'fail',
                               self.driver.create, 'a' * 32, {'fail': 1})
        self.assertRaises(exception.BrokerError, self.driver.destroy, 'x',
                          {'fail': 1})

    def test_validate(self):
        self.driver.validate({'delay': 0.5, 'fail': 0.1})
        for bad in ({'delay': -1}, {'fail': 2}, {'fail': 'often'},
                    {'delay': True}):
            self.assertRaises(exception.InvalidParameterValue,
                              self.driver.validate, bad)


class TestExecBroker(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.driver = brokers.get_driver('exec')
        self.state = self.useFixture(fixtures.TempDir()).path
        self.programs('machines:%s %s' % (sys.executable, SCRIPT))
        self.params = {'program': 'machines', 'state_dir': self.state}

    def programs(self, *programs: str) -> None:
        self.useFixture(config_fixture.Config(CONF)).config(
            program=list(programs), group='exec_broker')

    def test_create_and_destroy(self):
        machine = self.driver.create('t' * 32, self.params)
        self.assertEqual('vm-' + 't' * 32, machine['ref'])
        self.assertEqual(['CUSTOM_VM'], machine['traits'])
        # The same token is the same machine, not a second one.
        self.assertEqual(machine, self.driver.create('t' * 32, self.params))
        self.assertEqual(1, len(os.listdir(self.state)))
        self.driver.destroy(machine['ref'], self.params)
        self.assertEqual([], os.listdir(self.state))

    def test_errors_name_the_broker(self):
        for behave, message in (('error', 'out of machines'),
                                ('exit', 'program machines exited with '
                                         'status 3: cloud unreachable'),
                                ('garbage', 'did not write a JSON object')):
            exc = self.assertRaises(
                exception.BrokerError, self.driver.create, 't' * 32,
                {**self.params, 'behave': behave})
            self.assertIn('Broker exec failed', str(exc))
            self.assertIn(message, str(exc))

    def test_timeout(self):
        exc = self.assertRaises(
            exception.BrokerError, self.driver.create, 't' * 32,
            {**self.params, 'behave': 'sleep', 'timeout': 0.5})
        self.assertIn('did not answer within 0.5 seconds', str(exc))

    def test_missing_program(self):
        self.programs('gone:/nonexistent/broker --fast')
        exc = self.assertRaises(
            exception.BrokerError, self.driver.create, 't' * 32,
            {**self.params, 'program': 'gone'})
        self.assertIn('program gone could not be run', str(exc))

    def test_validate(self):
        for bad in ({}, {'program': ['machines']},
                    {'program': 'machines', 'timeout': 0}):
            self.assertRaises(exception.InvalidParameterValue,
                              self.driver.validate, bad)
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.driver.validate, {'program': 'nope'})
        self.assertIn('not "nope"; the configured programs are machines.',
                      str(exc))
        self.programs()
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.driver.validate, self.params)
        self.assertIn('no program is configured', str(exc))

    def test_a_command_of_the_caller_never_runs(self):
        made = os.path.join(self.state, 'made')
        params = {'command': ['/bin/sh', '-c', 'touch ' + made]}
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.driver.validate, params)
        self.assertIn('no longer takes the parameter command', str(exc))
        self.assertIn('{"program": "lab-vms"}', str(exc))
        # Beside a configured program too.
        for call in (self.driver.create, self.driver.destroy):
            self.assertRaises(exception.BrokerError, call, 't' * 32,
                              {**self.params, **params})
        self.assertFalse(os.path.exists(made))

    def test_an_entry_of_another_shape(self):
        conf = self.useFixture(config_fixture.Config(CONF))
        CONF.clear_override('program', group='exec_broker')
        conf.load_raw_values(group='exec_broker', program='no-command')
        exc = self.assertRaises(exception.ExecProgramsInvalid,
                                self.driver.validate, self.params)
        self.assertIn("[exec_broker] program is not valid", str(exc))
        self.assertIn("'no-command' doesn't match", str(exc))
        exc = self.assertRaises(exception.BrokerError, self.driver.create,
                                't' * 32, self.params)
        self.assertIn("'no-command' doesn't match", str(exc))

    def test_programs_are_read_at_call_time(self):
        self.programs('other:%s %s' % (sys.executable, SCRIPT))
        self.assertRaises(exception.BrokerError, self.driver.create,
                          't' * 32, self.params)
        self.driver.create('t' * 32, {**self.params, 'program': 'other'})
        self.assertEqual(1, len(os.listdir(self.state)))

    def test_bad_machine(self):
        for machine in ([], {}, {'ref': 3}, {'ref': 'x', 'name': 1},
                        {'ref': 'x', 'traits': 'A'},
                        {'ref': 'x', 'properties': []}):
            self.assertRaises(exception.BrokerError, brokers.check_machine,
                              'b', machine)
