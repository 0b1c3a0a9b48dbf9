"""The conductors API: which conductors exist and which are alive."""
import datetime

import sqlalchemy as sa

from pool_conductor.db import api as db_api
from pool_conductor.db import conductors as conductors_db
from pool_conductor.db import models
from tests.unit.api import base


class ConductorAPITestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        conductors_db.register_conductor(self.context, 'alive-host')
        conductors_db.register_conductor(self.context, 'dead-host')
        with db_api.writer(self.context) as session:
            session.execute(
                sa.update(models.Conductor)
                .where(models.Conductor.hostname == 'dead-host')
                .values(updated_at=db_api.utcnow()
                        - datetime.timedelta(minutes=5)))

    def test_list_shows_liveness(self):
        resp = self.get('/v1/conductors')
        self.assertEqual(200, resp.status_code)
        body = resp.get_json()['conductors']
        self.assertEqual(
            [('alive-host', True), ('dead-host', False)],
            [(c['hostname'], c['alive']) for c in body])
        self.assertEqual({'hostname', 'conductor_group', 'alive', 'links'},
                         set(body[0]))

    def test_stopped_conductor_is_not_alive(self):
        conductors_db.unregister_conductor(self.context, 'alive-host')
        body = self.get('/v1/conductors/alive-host').get_json()
        self.assertFalse(body['alive'])

    def test_detail_and_fields(self):
        body = self.get('/v1/conductors?detail=true').get_json()
        self.assertIn('updated_at', body['conductors'][0])
        self.assertIn('drivers', body['conductors'][0])
        body = self.get('/v1/conductors?fields=hostname').get_json()
        self.assertEqual({'hostname', 'links'}, set(body['conductors'][0]))
        self.assertError(400, self.get(
            '/v1/conductors?detail=true&fields=hostname'))
        self.assertError(400, self.get('/v1/conductors?fields=nope'))
        self.assertError(400, self.get('/v1/conductors?detail=maybe'))

    def test_get(self):
        body = self.get('/v1/conductors/alive-host').get_json()
        self.assertEqual('alive-host', body['hostname'])
        self.assertTrue(body['alive'])
        self.assertTrue(body['links'][0]['href'].endswith(
            '/v1/conductors/alive-host'))
        self.assertError(404, self.get('/v1/conductors/nope'), 'nope')

    def test_needs_1_49(self):
        self.assertError(404, self.get('/v1/conductors', version='1.48'),
                         'requires API version 1.49 or later')
        self.assertError(404, self.get('/v1/conductors/alive-host',
                                       version='1.48'))
