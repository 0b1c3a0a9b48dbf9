"""Digital Rebar filters: parsing, and their SQL on SQLite."""
from pool_conductor import context as pool_context
from pool_conductor.db import filters
from pool_conductor.db import nodes as nodes_db
from pool_conductor import exception
from pool_conductor import regex
from tests import base


class TestParse(base.TestCase):

    def test_functions_and_values(self):
        self.assertEqual(filters.Filter('a', 'Eq', (3,)),
                         filters.parse('a', 'Eq(3)'))
        self.assertEqual(('3',), filters.parse('a', 'Eq("3")').args)
        self.assertEqual((1.5,), filters.parse('a', 'Gt(1.5)').args)
        self.assertEqual((True,), filters.parse('a', 'Eq(true)').args)
        self.assertEqual(('x', 2, 'y'),
                         filters.parse('a', 'In(x, 2,y)').args)
        self.assertEqual((1, 9), filters.parse('a', 'Between(1,9)').args)
        self.assertEqual(('^a,b$',), filters.parse('a', 'Re(^a,b$)').args)

    def assertInvalid(self, key, value, contains):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                filters.parse, key, value)
        self.assertIn('"%s"' % key, str(exc))
        self.assertIn(contains, str(exc))

    def test_malformed_names_the_key(self):
        self.assertInvalid('cpus', 'Foo(3)', 'is not one of')
        self.assertInvalid('cpus', 'Eq 3', 'is not one of')
        self.assertInvalid('cpus', 3, 'must be a string')
        self.assertInvalid('cpus', 'Between(1)', 'takes two values')
        self.assertInvalid('cpus', 'Re([)', 'bad regular expression')
        self.assertInvalid('cpus', 'Re(%s)' % ('a' * 256), 'longer than')
        self.assertInvalid('maintenance', 'Gt(true)', 'true or false')
        self.assertInvalid('runnable', 'Eq(yes)', 'true or false')
        exc = self.assertRaises(exception.InvalidParameterValue,
                                filters.parse_map, ['Eq(3)'])
        self.assertIn('map', str(exc))


class TestPatterns(base.TestCase):
    """Regular expressions of Re(): what RE2 and every backend run alike,
    within limits."""

    # (pattern, part of the message) of patterns refused with a 400.
    REFUSED = [
        ('a++', 'bad regular expression'),
        ('a*+', 'bad regular expression'),
        (r'(a)\1', 'bad regular expression'),
        ('(?=a)', 'bad regular expression'),
        ('(?!a)', 'bad regular expression'),
        ('(?<=a)b', 'bad regular expression'),
        ('a{1001}', 'bad regular expression'),
        ('(a{100}){100}', 'bad regular expression'),
        ('a{4294967296}', 'repetition counts are at most 255'),
        ('a{256}', 'repetition counts are at most 255'),
        ('a{2,300}', 'repetition counts are at most 255'),
        ('a{', 'a { starts a repetition'),
        ('a{,3}', 'a { starts a repetition'),
        (r'\bword', 'escape \\b'),
        (r'\pL', 'escape \\p'),
        (r'\Q.\E', 'escape \\Q'),
        (r'\x41', 'escape \\x'),
        (r'\v', 'escape \\v'),
        (r'\A', 'escape \\A'),
        (r'\z', 'escape \\z'),
        ('\\é', 'bad regular expression'),
        ('a\\', 'bad regular expression: trailing'),
        ('x(?i)a', 'groups (?...)'),
        ('(?s).', 'groups (?...)'),
        ('(?P<n>a)', 'groups (?...)'),
        ('[[.a.]]', 'only the classes'),
        ('[[=a=]]', 'only the classes'),
        ('[[:word:]]', 'only the classes'),
        ('[[:<:]]', 'bad regular expression'),
        ('[a', 'bad regular expression'),
        ('.{255}.{255}.{255}', 'too complex'),
        ('a' * 256, 'longer than 255'),
    ]
    ACCEPTED = [
        '^rack-[0-9]+$', r'\d+\.\d*', r'[^\s]\S\w\W\D', '(?i)^node',
        '(?:ab|cd)*?e', 'a{2}b{2,}c{2,255}', r'\{literal\}', '[]a]',
        '[[:alpha:]_-]', r'[\d.\]]', 'a|', '()', r'\n\t\r\f', 'é+',
        '.{255}', '[a[b]',
    ]

    def test_refused_with_400_naming_the_key(self):
        for pattern, message in self.REFUSED:
            exc = self.assertRaises(exception.InvalidParameterValue,
                                    filters.parse, 'rack/name',
                                    'Re(%s)' % pattern)
            self.assertIn('"rack/name"', str(exc), pattern)
            self.assertIn(message, str(exc), pattern)
            self.assertEqual(400, exc.code)

    def test_accepted(self):
        for pattern in self.ACCEPTED:
            self.assertEqual((pattern,),
                             filters.parse('rack', 'Re(%s)' % pattern).args)

    def test_sqlite_regexp_is_re2(self):
        # Python's re refuses \pL and backtracks on (a+)+$; RE2 does not.
        with self.db.engine.connect() as conn:
            self.assertEqual(1, conn.exec_driver_sql(
                "SELECT 'é' REGEXP '^\\pL$'").scalar())
            self.assertEqual(0, conn.exec_driver_sql(
                "SELECT ? REGEXP '^(a+)+$'", ('a' * 40 + 'x',)).scalar())
            self.assertIsNone(conn.exec_driver_sql(
                "SELECT NULL REGEXP 'a'").scalar())

    def test_sqlite_regexp_cache_is_bounded(self):
        with self.db.engine.connect() as conn:
            for i in range(regex.CACHE_SIZE + 10):
                conn.exec_driver_sql("SELECT 'a' REGEXP ?", ('a{%d}' % i,))
        info = regex._cached.cache_info()
        self.assertEqual(regex.CACHE_SIZE, info.maxsize)
        self.assertLessEqual(info.currsize, regex.CACHE_SIZE)


class FilterQueriesMixin:
    """Filters evaluated by the database; run on each backend."""

    def make_nodes(self):
        context = pool_context.get_admin_context()
        self.context = context
        params = [
            {'inventory/data/CPUS': 2, 'rack': 'r1', 'ready': True},
            {'inventory/data/CPUS': 4, 'rack': 'r2', 'ready': False},
            {'inventory/data/CPUS': 8, 'rack': 'r10', 'ready': True},
            {'inventory/data/CPUS': 'many', 'rack': 'x"y'},
            {},
        ]
        self.names = []
        for i, p in enumerate(params):
            node = nodes_db.create_node(context, {
                'driver': 'fake-hardware', 'name': 'node-%d' % i,
                'resource_class': 'rc%d' % (i % 2), 'params': p,
                'provision_state': 'available', 'maintenance': i == 4})
            self.names.append(node.name)

    def match(self, **conditions) -> list[str]:
        parsed = [filters.parse(k.replace('__', '/'), v)
                  for k, v in conditions.items()]
        nodes = nodes_db.list_nodes(self.context, {'match': parsed})
        return [int(n.name.split('-')[1]) for n in nodes]

    def test_numbers(self):
        self.make_nodes()
        cpus = 'inventory__data__CPUS'
        self.assertEqual([1], self.match(**{cpus: 'Eq(4)'}))
        self.assertEqual([0, 1], self.match(**{cpus: 'Lte(4)'}))
        self.assertEqual([0], self.match(**{cpus: 'Lt(4)'}))
        self.assertEqual([2], self.match(**{cpus: 'Gt(4)'}))
        self.assertEqual([1, 2], self.match(**{cpus: 'Gte(4)'}))
        self.assertEqual([1, 2], self.match(**{cpus: 'Between(3,8)'}))
        self.assertEqual([0, 2], self.match(**{cpus: 'Except(3,7)'}))
        self.assertEqual([0, 2], self.match(**{cpus: 'In(2,8)'}))
        self.assertEqual([1, 3, 4], self.match(**{cpus: 'Nin(2,8)'}))
        self.assertEqual([0, 2, 3, 4], self.match(**{cpus: 'Ne(4)'}))
        self.assertEqual([3], self.match(**{cpus: 'Eq(many)'}))

    def test_strings_booleans_and_regex(self):
        self.make_nodes()
        self.assertEqual([1], self.match(rack='Eq(r2)'))
        self.assertEqual([3], self.match(rack='Eq(x"y)'))
        self.assertEqual([0, 2], self.match(rack='Re(^r1)'))
        self.assertEqual([0, 2], self.match(ready='Eq(true)'))
        self.assertEqual([1], self.match(ready='Eq(false)'))
        self.assertEqual([], self.match(**{'x"y': 'Eq(1)'}))

    def test_pool_params(self):
        """pool/status, pool/allocated and pool/name are derived from the
        pool fields on every backend; a stored param of the same name is
        not what they read."""
        self.context = pool_context.get_admin_context()
        for i, (status, allocated, timed_out) in enumerate((
                ('Free', False, None), ('Building', True, False),
                ('HoldBuild', True, False), ('InUse', True, None),
                ('Building', True, True), ('Destroying', True, False))):
            nodes_db.create_node(self.context, {
                'driver': 'fake-hardware', 'name': 'node-%d' % i,
                'pool_status': status, 'pool_allocated': allocated,
                'pool_wait_timed_out': timed_out,
                'params': {'pool/status': 'complete'} if i == 0 else {}})
        self.assertEqual([0], self.match(pool__status='Eq(unallocated)'))
        self.assertEqual([1, 5], self.match(pool__status='Eq(allocated)'))
        self.assertEqual([2], self.match(pool__status='Eq(error)'))
        self.assertEqual([3], self.match(pool__status='Eq(complete)'))
        self.assertEqual([4], self.match(pool__status='Eq(timeout)'))
        self.assertEqual([0, 2, 3], self.match(
            pool__status='Nin(allocated,timeout)'))
        self.assertEqual([3, 4], self.match(pool__status='Re(^(c|t))'))
        self.assertEqual([1, 2, 3, 4, 5],
                         self.match(pool__allocated='Eq(true)'))
        self.assertEqual([0], self.match(pool__allocated='Ne(true)'))
        self.assertEqual([0, 1, 2, 3, 4, 5],
                         self.match(pool__name='Eq(default)'))
        self.assertEqual([], self.match(pool__name='Eq(web)'))

    def test_fields_and_and(self):
        self.make_nodes()
        self.assertEqual([1, 3], self.match(resource_class='Eq(rc1)'))
        self.assertEqual([1], self.match(resource_class='Eq(rc1)',
                                         rack='Re(r)'))
        self.assertEqual([4], self.match(maintenance='Eq(true)'))
        self.assertEqual([0, 1, 2, 3, 4], self.match(pool='Eq(default)',
                                                     runnable='Eq(true)'))
        self.assertEqual([2], self.match(name='Re(-2$)'))
        self.assertEqual([0, 1], self.match(name='Lt(node-2)'))


class SQLiteFilterTestCase(FilterQueriesMixin, base.TestCase):
    pass
