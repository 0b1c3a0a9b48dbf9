"""openstack pool export and openstack pool import."""
import io
import json
import os
import tempfile

from osc_lib import exceptions

from pool_client.v1 import content
from tests.unit.client import base

DOCUMENT = {'meta': {'name': 'pool-content', 'version': 'v0.0.0',
                     'description': None},
            'sections': {'workflows': {'deploy': {'description': None,
                                                  'stages': ['a']}},
                         'profiles': {}, 'brokers': {}, 'providers': {},
                         'pools': {'default': {'meta': {}}}}}


class TestExport(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = content.ExportContent(self.app, None)
        self.client.content_export.return_value = json.loads(
            json.dumps(DOCUMENT))

    def test_to_stdout(self):
        self.cmd.take_action(self.check_parser(self.cmd, [], []))
        self.client.content_export.assert_called_once_with()
        self.assertEqual(DOCUMENT, json.loads(self.app.stdout.getvalue()))

    def test_to_a_file_with_meta(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'pools.json')
            self.cmd.take_action(self.check_parser(self.cmd, [
                '--file', path, '--name', 'lab', '--content-version',
                'v1.2.0'],
                [('file', path)]))
            with open(path) as f:
                written = json.load(f)
        self.assertEqual({**DOCUMENT['meta'], 'name': 'lab',
                          'version': 'v1.2.0'}, written['meta'])
        self.assertEqual(DOCUMENT['sections'], written['sections'])
        self.assertEqual('', self.app.stdout.getvalue())


class TestImport(base.TestCommand):

    def setUp(self):
        super().setUp()
        self.cmd = content.ImportContent(self.app, None)
        self.client.content_import.return_value = {
            'workflows': {'created': ['deploy'], 'updated': [],
                          'unchanged': []},
            'pools': {'created': [], 'updated': [],
                      'unchanged': ['default']}}

    def test_from_a_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'pools.json')
            with open(path, 'w') as f:
                json.dump(DOCUMENT, f)
            columns, rows = self.cmd.take_action(self.check_parser(
                self.cmd, [path], [('file', path)]))
        self.client.content_import.assert_called_once_with(DOCUMENT)
        self.assertEqual(('Kind', 'Name', 'Result'), columns)
        self.assertEqual([('pools', 'default', 'unchanged'),
                          ('workflows', 'deploy', 'created')], list(rows))

    def test_from_stdin(self):
        self.app.stdin = io.StringIO(json.dumps(DOCUMENT))
        self.cmd.take_action(self.check_parser(self.cmd, ['-'], []))
        self.client.content_import.assert_called_once_with(DOCUMENT)

    def test_unreadable_or_not_json(self):
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          self.check_parser(self.cmd, ['/nonexistent'], []))
        self.app.stdin = io.StringIO('{not json')
        self.assertRaises(exceptions.CommandError, self.cmd.take_action,
                          self.check_parser(self.cmd, ['-'], []))
        self.client.content_import.assert_not_called()
