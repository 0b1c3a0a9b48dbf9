"""The floor plan of the house, read from the code's own imports.

The rules the README's Layout section states, each a test that fails when
one module breaks it:

* no import circle among pool_conductor's modules (no strongly connected
  component of the import graph larger than one module);
* one way: pool_conductor imports neither pool_api nor pool_client, and
  pool_client imports neither of the others;
* SQL only in pool_conductor/db/: sqlalchemy is imported nowhere else in
  pool_conductor and pool_api (a type hint imports it under
  ``typing.TYPE_CHECKING``);
* booking/ imports nothing above it: only db/, the ground modules and its
  own family; db/ imports only the ground under it (options, exceptions,
  states, and what its queries validate);
* one writer per holder of a node: the write statements of db/binding.py
  (today's holder) are called only from binding.py, those of db/slots.py
  (booked time, the future holders) only from booking/ and binding.py,
  whatever name a module imports them under.

The graph is read with ``ast`` from every import of the module (module
level, under ``if``/``try`` and inside functions alike), so that a
deferred import does not hide a circle; imports under ``if
TYPE_CHECKING:`` are left out, for they never run.
"""
import ast
import functools
import pathlib

import testtools

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
PACKAGES = ('pool_conductor', 'pool_api', 'pool_client')

BINDING_WRITES = frozenset((
    'update_nodes', 'insert_nodes', 'insert_allocations',
    'activate_allocations', 'lose_allocations', 'delete_allocations',
    'move_node'))
SLOT_WRITES = frozenset((
    'insert', 'set_until', 'delete_of', 'drop', 'refresh_booked', 'start',
    'set_scheduled', 'move_slot', 'insert_window', 'set_window_state',
    'delete_window', 'set_maintenance'))

# What booking/ may import besides its own family and db/.
GROUND = frozenset((
    'pool_conductor.allocation_events', 'pool_conductor.conf',
    'pool_conductor.context',
    'pool_conductor.exception', 'pool_conductor.states',
    'pool_conductor.events', 'pool_conductor.event_types',
    'pool_conductor.payloads', 'pool_conductor.node_events',
    'pool_conductor.lifespans', 'pool_conductor.lifecycle',
    'pool_conductor.retry', 'pool_conductor.rounds',
    'pool_conductor.secrets', 'pool_conductor.regex',
    'pool_conductor.drivers', 'pool_conductor.named',
    'pool_conductor.documents', 'pool_conductor.sequencer',
    'pool_conductor.notifications', 'pool_conductor.metrics'))

# What db/ may import besides itself.
DB_GROUND = frozenset((
    'pool_conductor.conf', 'pool_conductor.exception',
    'pool_conductor.states', 'pool_conductor.regex',
    'pool_conductor.secrets', 'pool_conductor.pool_params'))


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def modules(package: str) -> dict[str, pathlib.Path]:
    """The modules of a package, by dotted name (migrations left out:
    alembic loads them by path, nothing imports them)."""
    return {module_name(path): path
            for path in sorted((ROOT / package).glob('**/*.py'))
            if 'migrations' not in path.parts}


def _type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == 'TYPE_CHECKING')
            or (isinstance(test, ast.Attribute)
                and test.attr == 'TYPE_CHECKING'))


def _imports(tree: ast.AST):
    """Every import statement that can run (not under TYPE_CHECKING)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from _imports(ast.Module(body=node.orelse,
                                           type_ignores=[]))
        else:
            yield from _imports(node)


class Module:
    """One module's imports: the modules it names, and the local names
    bound to a module or to a function of one."""

    def __init__(self, name: str, text: str, known: set[str],
                 package: bool = False):
        self.name = name
        self.tree = ast.parse(text)
        self.imported: set[str] = set()
        # local name -> dotted module it stands for
        self.module_aliases: dict[str, str] = {}
        # local name -> (dotted module, function name)
        self.function_aliases: dict[str, tuple[str, str]] = {}
        package = name if package else name.rpartition('.')[0]
        for node in _imports(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.imported.add(alias.name)
                    if alias.asname:
                        self.module_aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split('.')[0]
                        self.module_aliases.setdefault(top, top)
                        # "import a.b" lets the code say a.b.f()
                        self.module_aliases[alias.name] = alias.name
                continue
            base = node.module or ''
            if node.level:
                anchor = package.split('.')
                anchor = anchor[:len(anchor) - node.level + 1]
                base = '.'.join(anchor + ([base] if base else []))
            for alias in node.names:
                local = alias.asname or alias.name
                full = '%s.%s' % (base, alias.name)
                if full in known:
                    self.imported.add(full)
                    self.module_aliases[local] = full
                else:
                    self.imported.add(base)
                    self.function_aliases[local] = (base, alias.name)

    def calls_of(self, module: str, functions: frozenset):
        """The lines that call functions of module, whatever the alias."""
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr in functions
                    and self._dotted(func.value) == module):
                yield node.lineno
            elif (isinstance(func, ast.Name)
                  and self.function_aliases.get(func.id, (None, None))[0]
                  == module
                  and self.function_aliases[func.id][1] in functions):
                yield node.lineno
        # A write handed on without a call (a callback) counts too.
        for node in ast.walk(self.tree):
            if (isinstance(node, ast.Attribute) and node.attr in functions
                    and self._dotted(node.value) == module
                    and not self._called(node)):
                yield node.lineno

    def _called(self, attribute: ast.Attribute) -> bool:
        return any(isinstance(call, ast.Call) and call.func is attribute
                   for call in ast.walk(self.tree))

    def _dotted(self, node: ast.expr) -> str | None:
        """The module an expression such as ``binding_db`` or
        ``pool_conductor.db.binding`` stands for."""
        if isinstance(node, ast.Name):
            return self.module_aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            head = self._dotted(node.value)
            return None if head is None else '%s.%s' % (head, node.attr)
        return None


@functools.cache
def read(package: str) -> dict[str, Module]:
    found = modules(package)
    known = set().union(*(modules(p) for p in PACKAGES))
    return {name: Module(name, path.read_text(), known,
                         path.name == '__init__.py')
            for name, path in found.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of a graph, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(vertex: str) -> None:
        index[vertex] = low[vertex] = len(index)
        stack.append(vertex)
        on_stack.add(vertex)
        for succ in sorted(graph[vertex]):
            if succ not in index:
                visit(succ)
                low[vertex] = min(low[vertex], low[succ])
            elif succ in on_stack:
                low[vertex] = min(low[vertex], index[succ])
        if low[vertex] == index[vertex]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == vertex:
                    break
            found.append(sorted(component))

    for vertex in sorted(graph):
        if vertex not in index:
            visit(vertex)
    return found


def _packages_of(name: str) -> set[str]:
    parts = name.split('.')
    return {'.'.join(parts[:i]) for i in range(1, len(parts))}


class LayoutTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conductor = read('pool_conductor')

    def test_no_import_circle_in_the_conductor(self):
        names = set(self.conductor)
        graph = {}
        for name, module in self.conductor.items():
            # A package's __init__ runs before its modules: importing
            # pool_conductor.db.api imports pool_conductor.db too, but
            # that arrow is not one of the code's own.
            graph[name] = {target for target in module.imported
                           if target in names and target != name
                           and target not in _packages_of(name)}
        circles = [c for c in strongly_connected(graph) if len(c) > 1]
        self.assertEqual([], circles)

    def test_one_way_between_the_packages(self):
        wrong = []
        for package, forbidden in (('pool_conductor', ('pool_api',
                                                       'pool_client')),
                                   ('pool_client', ('pool_api',
                                                    'pool_conductor'))):
            for name, module in read(package).items():
                wrong += ['%s imports %s' % (name, target)
                          for target in sorted(module.imported)
                          if target.split('.')[0] in forbidden]
        self.assertEqual([], wrong)

    def test_sqlalchemy_only_in_db(self):
        wrong = []
        for package in ('pool_conductor', 'pool_api'):
            for name, module in read(package).items():
                if name.startswith('pool_conductor.db'):
                    continue
                wrong += [name for target in module.imported
                          if target.split('.')[0] == 'sqlalchemy']
        self.assertEqual([], sorted(set(wrong)))

    def test_booking_imports_nothing_above_it(self):
        wrong = []
        for name, module in self.conductor.items():
            if not name.startswith('pool_conductor.booking'):
                continue
            for target in sorted(module.imported):
                if not target.startswith('pool_conductor'):
                    continue
                if (target.startswith(('pool_conductor.booking',
                                       'pool_conductor.db',
                                       'pool_conductor.conf'))
                        or target == 'pool_conductor' or target in GROUND):
                    continue
                wrong.append('%s imports %s' % (name, target))
        self.assertEqual([], wrong)

    def test_db_imports_only_the_ground(self):
        wrong = ['%s imports %s' % (name, target)
                 for name, module in self.conductor.items()
                 if name.startswith('pool_conductor.db')
                 for target in sorted(module.imported)
                 if target.startswith('pool_conductor')
                 and not target.startswith(('pool_conductor.db',
                                            'pool_conductor.conf'))
                 and target != 'pool_conductor' and target not in DB_GROUND]
        self.assertEqual([], wrong)

    def _writers(self, module: str, functions: frozenset) -> set[str]:
        found = set()
        for package in PACKAGES:
            for name, reader in read(package).items():
                if name != module and any(reader.calls_of(module,
                                                          functions)):
                    found.add(name)
        return found

    def test_only_the_binding_writer_writes_the_binding(self):
        self.assertEqual({'pool_conductor.binding'},
                         self._writers('pool_conductor.db.binding',
                                       BINDING_WRITES))

    def test_only_booking_and_the_binding_writer_write_slots(self):
        writers = self._writers('pool_conductor.db.slots', SLOT_WRITES)
        self.assertEqual(
            set(), {w for w in writers
                    if w != 'pool_conductor.binding'
                    and not w.startswith('pool_conductor.booking.')})
        self.assertIn('pool_conductor.binding', writers)


class ReaderTestCase(testtools.TestCase):
    """The reader sees a write under any name it is imported as."""

    def _writes(self, text: str) -> list[int]:
        module = Module('pool_conductor.probe', text,
                        set(modules('pool_conductor')))
        return list(module.calls_of('pool_conductor.db.binding',
                                    BINDING_WRITES))

    def test_any_alias_is_resolved(self):
        for text in (
                'from pool_conductor.db import binding as b\n'
                'b.update_nodes(1, 2)\n',
                'from pool_conductor.db import binding\n'
                'binding.move_node(1, 2)\n',
                'import pool_conductor.db.binding\n'
                'pool_conductor.db.binding.insert_nodes(1)\n',
                'import pool_conductor.db.binding as bdb\n'
                'bdb.delete_allocations(1)\n',
                'from pool_conductor.db.binding import update_nodes as u\n'
                'u(1)\n',
                'from .db import binding as x\n'
                'x.insert_allocations(1)\n',
                'from pool_conductor.db import binding as b\n'
                'f = b.update_nodes\n'):
            self.assertNotEqual([], self._writes(text), text)

    def test_reads_and_other_modules_are_not_writes(self):
        for text in (
                'from pool_conductor.db import binding as b\n'
                'b.lock_nodes(1, 2)\n',
                'from pool_conductor.db import nodes as binding_db\n'
                'binding_db.update_nodes(1)\n',
                'from pool_conductor import binding\n'
                'binding.update_nodes(1)\n'):
            self.assertEqual([], self._writes(text), text)

    def test_a_circle_is_found(self):
        graph = {'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}
        self.assertEqual([['a', 'b', 'c'], ['d']],
                         sorted(strongly_connected(graph)))
