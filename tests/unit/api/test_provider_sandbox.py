"""What providers' schemas and templates may cost the server: references
never fetched, validation and rendering stopped at their limits, rendered
values as a database stores them."""
import os
import time

import fixtures

from pool_conductor.db import providers as providers_db
from tests import hostile
from tests.unit.api import test_claims

class ProviderSandboxTestCase(test_claims.ClaimTestBase):

    def refused_provider(self, validation: dict, message: str):
        self.assertError(400, self.post('/v1/providers', {
            'name': 'p', 'pool': 'lab', 'validation': validation}), message)

    def test_remote_references_are_refused_and_never_fetched(self):
        server = self.useFixture(hostile.SchemaServer())
        url, paths = server.url, server.paths
        message = ("Provider p: validation refers to '%s': only references "
                   "inside the schema (#...) are followed; nothing is "
                   "fetched.")
        for validation, reference in (
                ({'$ref': url}, url),
                ({'properties': {'params': {'$ref': url}}}, url),
                ({'$defs': {'a': {'$dynamicRef': url}}}, url),
                ({'allOf': [{'$ref': url + '#/a'}]}, url + '#/a'),
                ({'$id': url, '$ref': 'other.json'}, 'other.json')):
            self.refused_provider(validation, message % reference)
        self.provider('p')
        self.assertError(400, self.patch_json('/v1/providers/p', [
            {'op': 'add', 'path': '/validation', 'value': {'$ref': url}}]),
            message % url)
        self.assertEqual([], paths)

    def test_file_references_are_refused_alike_whether_they_exist(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        schema = os.path.join(tmp, 'schema.json')
        with open(schema, 'w') as out:
            out.write('{"type": "object"}')
        answers = []
        for path in (schema, os.path.join(tmp, 'missing.json'),
                     '/etc/passwd'):
            url = 'file://' + path
            answer = self.post('/v1/providers', {
                'name': 'p', 'pool': 'lab', 'validation': {'$ref': url}})
            self.assertError(400, answer, 'refers to %r' % url)
            answers.append(answer.get_data().replace(url.encode(), b'URL'))
        # Nothing tells a file that exists from one that does not.
        self.assertEqual(1, len(set(answers)), answers)

    def test_a_reference_stored_before_is_not_fetched(self):
        server = self.useFixture(hostile.SchemaServer())
        url, paths = server.url, server.paths
        self.provider()
        providers_db.update(self.context, 'small',
                            {'validation': {'$ref': url}})
        self.assertError(400, self.claim({}),
                         "resources/0: the validation of provider small "
                         "cannot be applied: it refers to '%s', outside "
                         "itself" % url)
        self.assertEqual([], paths)
        self.assertEqual([], self.get('/v1/claims').get_json()['claims'])

    def refused_claim(self, template: dict, message: str,
                      provider: str = 'small'):
        start = time.monotonic()
        self.assertError(400, self.claim(template, provider=provider),
                         message)
        # The CPU limit is 0.5 s; the wall clock limit 2 s.
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual([], self.get('/v1/claims').get_json()['claims'])

    def test_costly_validation_is_stopped(self):
        self.provider(validation=hostile.UNIQUE_ITEMS)
        self.provider('chain', validation=hostile.any_of_chain())
        self.refused_claim(hostile.UNIQUE_CLAIM, 'resources/0/template: '
                           'validating it against provider small took more '
                           'than')
        self.refused_claim(hostile.any_of_claim(),
                           'resources/0/template: validating it against '
                           'provider chain took more than', 'chain')
        # Within the limits, validation goes on as before.
        self.ok(self.claim({'params': {'list': [1, 2, 3]}}), 201)

    def test_costly_templates_are_stopped(self):
        self.provider(template={'enable': True}, defaults={'params': {
            'x': hostile.SLOW_SUM}})
        self.refused_claim({}, 'Provider small defaults (resources/0): '
                               'rendering the templates took more than')

    def test_rendered_values_are_what_a_database_stores(self):
        for i, (text, message) in enumerate((
                (hostile.NUL, 'holds a NUL character'),
                (hostile.LONE_SURROGATE, 'holds a lone surrogate'))):
            name = 'p%d' % i
            self.provider(name, template={'enable': True},
                          defaults={'params': {'x': text}})
            self.assertError(400, self.claim({}, provider=name),
                             'Provider %s defaults (resources/0): the '
                             'output of the template at /params/x %s'
                             % (name, message))
        self.assertEqual([], self.get('/v1/claims').get_json()['claims'])
