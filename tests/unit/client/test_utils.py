"""pool_client.utils: the JSON Patch of set and unset commands, the
options of list and show commands."""
import argparse
import io
from unittest import mock

from osc_lib import exceptions
from oslotest import base

from pool_client import utils


class TestJsonPointer(base.BaseTestCase):

    def test_escapes(self):
        self.assertEqual('/params/inventory~1data~1CPUS',
                         utils.json_pointer('params', 'inventory/data/CPUS'))
        self.assertEqual('/a~0b', utils.json_pointer('a~b'))
        self.assertEqual('', utils.json_pointer())


class TestSetUnsetPatch(base.BaseTestCase):

    def test_set_patch(self):
        args = argparse.Namespace(name='n', owner=None, description='',
                                  extra=['a=1', 'b/c=x'], properties=None)
        self.assertEqual([
            {'op': 'add', 'path': '/name', 'value': 'n'},
            {'op': 'add', 'path': '/description', 'value': ''},
            {'op': 'add', 'path': '/extra/a', 'value': 1},
            # As python-ironicclient: a slash is a path into nested maps.
            {'op': 'add', 'path': '/extra/b/c', 'value': 'x'},
        ], utils.set_patch(args, ('name', 'owner', 'description'),
                           {'extra': 'extra', 'properties': 'properties'}))

    def test_unset_patch(self):
        args = argparse.Namespace(name=True, owner=False, extra=['a'])
        self.assertEqual([
            {'op': 'remove', 'path': '/name'},
            {'op': 'remove', 'path': '/extra/a'},
        ], utils.unset_patch(args, ('name', 'owner'), {'extra': 'extra'}))

    def test_nothing(self):
        args = argparse.Namespace(name=None, extra=None)
        self.assertEqual([], utils.set_patch(args, ('name',),
                                             {'extra': 'extra'}))
        self.assertEqual([], utils.unset_patch(args, ('name',)))


class TestParamPatch(base.BaseTestCase):

    def test_add(self):
        self.assertEqual([
            {'op': 'add', 'path': '/params/inventory~1data~1CPUS',
             'value': 8},
            {'op': 'add', 'path': '/params/role', 'value': 'web'},
            {'op': 'add', 'path': '/params/tags', 'value': ['a', 'b']},
        ], utils.param_patch('add', 'params', [
            'inventory/data/CPUS=8', 'role=web', 'tags=["a", "b"]']))

    def test_remove_at_the_root(self):
        self.assertEqual([{'op': 'remove', 'path': '/a~1b'}],
                         utils.param_patch('remove', None, ['a/b']))

    def test_none(self):
        self.assertEqual([], utils.param_patch('add', 'params', None))

    def test_errors(self):
        self.assertRaises(exceptions.CommandError, utils.param_patch,
                          'add', None, ['no-value'])
        self.assertRaises(exceptions.CommandError, utils.param_patch,
                          'move', None, ['a'])


class TestSendPatch(base.BaseTestCase):

    def test_send(self):
        update, log = mock.Mock(), mock.Mock()
        utils.send_patch(log, update, 'x', [{'op': 'remove', 'path': '/a'}])
        update.assert_called_once_with('x', [{'op': 'remove', 'path': '/a'}])
        log.warning.assert_not_called()

    def test_nothing_to_send(self):
        update, log = mock.Mock(), mock.Mock()
        utils.send_patch(log, update, 'x', [], 'unset')
        update.assert_not_called()
        log.warning.assert_called_once_with('Please specify what to %s.',
                                            'unset')


class TestListArguments(base.BaseTestCase):
    """The shared options of the list and show commands keep the wording
    each command had when it spelled them out."""

    def _helps(self, parser) -> dict:
        return {a.option_strings[0]: (a.metavar, a.help)
                for a in parser._actions if a.option_strings[0] != '-h'}

    def test_list_and_display_arguments(self):
        parser = argparse.ArgumentParser()
        utils.add_list_arguments(parser, 'allocation')
        utils.add_display_arguments(parser, 'allocation', ('uuid', 'name'))
        self.assertEqual({
            '--limit': ('<limit>', 'Maximum number of allocations to '
                        'return, 0 for no limit. Default: all of them.'),
            '--marker': ('<allocation>', 'Allocation UUID (for example, of '
                         'the last allocation of a previous list): list the '
                         'allocations after it.'),
            '--sort': ('<key>[:<direction>]', 'Sort output by the given '
                       'allocation fields and directions (asc or desc, '
                       'default asc), separated by commas.'),
            '--long': (None, 'Show all the fields of the allocations.'),
            '--fields': ('<field>', 'One or more allocation fields. Only '
                         'these fields are fetched from the server. Cannot '
                         'be used with --long.'),
        }, self._helps(parser))
        self.assertRaises(SystemExit, parser.parse_args,
                          ['--long', '--fields', 'uuid'])

    def test_marker_help_of_its_own(self):
        parser = argparse.ArgumentParser()
        utils.add_list_arguments(parser, 'claim', marker_help='Own help.')
        self.assertEqual(('<claim>', 'Own help.'),
                         self._helps(parser)['--marker'])

    def test_show_fields_argument(self):
        parser = argparse.ArgumentParser()
        utils.add_fields_argument(parser, 'port', ('uuid', 'address'))
        self.assertEqual(
            {'--fields': ('<field>', 'One or more port fields. Only these '
                          'fields are fetched from the server.')},
            self._helps(parser))
        self.assertEqual([['uuid'], ['address']], parser.parse_args(
            ['--fields', 'uuid', '--fields', 'address']).fields)


class _Stream(io.StringIO):

    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class TestProgress(base.BaseTestCase):

    def test_terminal_shows_each_new_state_with_the_time(self):
        stream = _Stream(tty=True)
        progress = utils.Progress('Allocation a1', stream)
        for state in ('allocating', 'allocating', 'active'):
            progress(state)
        lines = stream.getvalue().splitlines()
        self.assertEqual(2, len(lines))
        self.assertRegex(lines[0],
                         r'^Allocation a1: allocating \(\d+\.\d s\)$')
        self.assertRegex(lines[1], r'^Allocation a1: active \(\d+\.\d s\)$')

    def test_quiet_when_not_a_terminal(self):
        stream = _Stream(tty=False)
        progress = utils.Progress('Allocation a1', stream)
        progress('allocating')
        progress('active')
        self.assertEqual('', stream.getvalue())
