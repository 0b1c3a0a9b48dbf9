"""Every event type is named once, in pool_conductor.event_types."""
import ast
import pathlib

import testtools

from pool_conductor import event_types

ROOT = pathlib.Path(event_types.__file__).resolve().parent.parent


def _spelled_types(path: pathlib.Path) -> list[str]:
    """The string constants of a module that read as an event type."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and node.value in event_types.EVERY):
            found.append(node.value)
    return found


class EventTypesTestCase(testtools.TestCase):

    def test_families_take_only_their_parts(self):
        self.assertEqual('baremetal.port.update.end',
                         event_types.resource_change('port', 'update'))
        self.assertEqual('pool.pool.autofill.scale_up.error',
                         event_types.autofill('scale_up', 'error'))
        for make, parts in (
                (event_types.resource_change, ('port', 'patch')),
                (event_types.resource_change, ('node', 'update')),
                (event_types.autofill, ('scale_up', 'done')),
                (event_types.named_change, ('allocation', 'create'))):
            self.assertRaises(ValueError, make, *parts)
        for make, part in (
                (event_types.node_provision_set, 'ended'),
                (event_types.allocation_state_set, 'end'),
                (event_types.external_node, 'acquire'),
                (event_types.external_manager, 'sync')):
            self.assertRaises(ValueError, make, part)

    def test_types_are_spelled_only_in_event_types(self):
        spelled = {}
        for package in ('pool_conductor', 'pool_api'):
            for path in sorted((ROOT / package).glob('**/*.py')):
                if path.name == 'event_types.py':
                    continue
                found = _spelled_types(path)
                if found:
                    spelled[str(path.relative_to(ROOT))] = found
        self.assertEqual({}, spelled)

    def test_the_operators_guide_names_the_types_of_ironic(self):
        # Ironic's consumers look for these names: the events guide and
        # the notifications guide list them as they are.
        docs = ''.join(p.read_text() for p in (ROOT / 'doc' / 'source').glob(
            '*.rst'))
        missing = sorted(t for t in event_types.EVERY
                         if t.startswith('baremetal.allocation.')
                         and t not in docs)
        self.assertEqual([], missing)
