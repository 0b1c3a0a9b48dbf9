"""Test helpers of the commands: a fake app with a mocked pool client."""
import copy
import io
from unittest import mock

from oslotest import base

from pool_client import client

NODE_UUID = '0b3c6a5e-43a8-4d3e-8a4f-2f4f7f4b7a10'
ALLOCATION_UUID = '5e9f2a3c-7a51-4c1e-9d8b-3c1e2f9a4b21'
LINKS = [{'href': 'http://pool/v1/x', 'rel': 'self'}]

NODE = {
    'uuid': NODE_UUID,
    'name': 'node-1',
    'driver': 'fake-hardware',
    'resource_class': 'gold',
    'traits': ['CUSTOM_GPU'],
    'properties': {'cpus': 4},
    'extra': {},
    'instance_uuid': None,
    'allocation_uuid': None,
    'provision_state': 'available',
    'power_state': 'power off',
    'maintenance': False,
    'owner': None,
    'links': LINKS,
}

ALLOCATION = {
    'uuid': ALLOCATION_UUID,
    'name': 'alloc-1',
    'state': 'active',
    'node_uuid': NODE_UUID,
    'last_error': None,
    'resource_class': 'gold',
    'traits': ['CUSTOM_GPU'],
    'candidate_nodes': [],
    'extra': {'k': 'v'},
    'owner': None,
    'links': LINKS,
}


class FakeClientManager:
    def __init__(self):
        self.pool = mock.create_autospec(client.Client, instance=True)


class FakeApp:
    def __init__(self):
        self.client_manager = FakeClientManager()
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()


class ParserError(Exception):
    pass


class TestCommand(base.BaseTestCase):
    """A command with a fake app; its client is a mocked client.Client."""

    def setUp(self):
        super().setUp()
        self.app = FakeApp()
        self.client = self.app.client_manager.pool

    def check_parser(self, cmd, args, verify_args):
        """Parse args with the command's parser and check the result."""
        parser = cmd.get_parser('check_parser')
        try:
            parsed_args = parser.parse_args(args)
        except SystemExit:
            raise ParserError('Argument parse failed: %s' % args) from None
        for attr, value in verify_args:
            self.assertIn(attr, parsed_args)
            self.assertEqual(value, getattr(parsed_args, attr))
        return parsed_args

    def assertParserFails(self, cmd, args):
        with mock.patch('sys.stderr', io.StringIO()):
            self.assertRaises(ParserError, self.check_parser, cmd, args, [])

    @staticmethod
    def node(**values):
        node = copy.deepcopy(NODE)
        node.update(values)
        return node

    @staticmethod
    def allocation(**values):
        alloc = copy.deepcopy(ALLOCATION)
        alloc.update(values)
        return alloc

    @staticmethod
    def machine(columns, data):
        """A ShowOne's output as a dict of machine-readable values."""
        return {c: getattr(d, 'machine_readable', lambda d=d: d)()
                for c, d in zip(columns, data, strict=True)}
