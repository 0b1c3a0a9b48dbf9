"""The secret masker, pool_conductor.secrets."""
import testtools

from pool_conductor import secrets


class TestMask(testtools.TestCase):

    def test_keys(self):
        for key in ('password', 'api_token', 'api_key', 'X-Api-Key',
                    'apikey', 'access_key', 'AWS_ACCESS_KEY', 'passwd',
                    'credentials', 'Authorization', 'ipmi_password'):
            self.assertTrue(secrets.is_secret_key(key), key)
        for key in ('region', 'keyboard', 'endpoint', 'username', 3):
            self.assertFalse(secrets.is_secret_key(key), key)

    def test_the_value_is_not_changed(self):
        value = {'password': 'p', 'args': ['--passwd', 'q'], 'n': 1}
        self.assertEqual({'password': '******',
                          'args': ['--passwd', '******'], 'n': 1},
                         secrets.mask(value))
        self.assertEqual({'password': 'p', 'args': ['--passwd', 'q'],
                          'n': 1}, value)

    def test_text(self):
        for text, masked in (
                ('api_token=abc1 ok', 'api_token=****** ok'),
                ('"access_key": "AKIA1"', '"access_key": "******"'),
                ('Authorization: Bearer eyJ.x',
                 'Authorization: Bearer ******'),
                ('-H "Authorization: Basic dXM6cA=="',
                 '-H "Authorization: Basic ******"'),
                ('get ftp://me:pw1@host/x', 'get ftp://me:******@host/x'),
                ('run --api-key k1 --region east',
                 'run --api-key ****** --region east'),
                ('nothing to hide', 'nothing to hide')):
            self.assertEqual(masked, secrets.mask(text))

    def test_known_secrets_anywhere(self):
        self.assertEqual('it said ****** and ******: ab',
                         secrets.mask('it said hunter2 and 0xc0ffee: ab',
                                      known=['hunter2', '0xc0ffee', 'ab']))

    def test_named_keys(self):
        self.assertEqual({'root_pw': '******', 'ntp': 'ntp.example'},
                         secrets.mask({'root_pw': 'x', 'ntp': 'ntp.example'},
                                      keys=['root_pw']))

    def test_secret_values(self):
        self.assertEqual(
            {'t0k3n', 'Bearer abc9', 'abc9', 'pw9', 'k1', 'u', 'cpw'},
            secrets.secret_values({
                'token': 't0k3n', 'headers': {'Authorization': 'Bearer abc9'},
                'url': 'https://u:pw9@h/', 'args': ['--api-key', 'k1'],
                'credentials': {'user': 'u', 'password': 'cpw'},
                'region': 'east'}))
