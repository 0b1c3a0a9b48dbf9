"""Options of the [dashboard] group: the operator's page and /v1/fleet."""
from oslo_config import cfg

opts = [
    cfg.StrOpt('secret',
               secret=True,
               help='The key that signs the session cookies of the '
                    'dashboard\'s login (auth_strategy http_basic or '
                    'keystone). Every pool-api process of a deployment '
                    'behind one address must have the same one. When not '
                    'set, a random key is made once and kept in '
                    '$state_path/dashboard.secret (readable by its owner '
                    'only), which the workers of one host share: set this '
                    'option when several hosts serve the API, or the '
                    'login of one is not known to the others. Changing '
                    'the key logs every browser out.'),
    cfg.IntOpt('session_ttl',
               default=3600,
               min=60,
               help='Seconds a login to the dashboard lasts; the browser '
                    'then gets the login form again. With keystone, the '
                    'session also ends with its token.'),
    cfg.IntOpt('ending_within',
               default=3600,
               min=0,
               help='Seconds ahead that "lifespans ending soon" looks: '
                    'the allocations and claims whose lifespan_end comes '
                    'within this time, on the dashboard and in GET '
                    '/v1/fleet (whose ending_within parameter overrides '
                    'it).'),
    cfg.IntOpt('max_listed',
               default=50,
               min=1,
               max=1000,
               help='The most allocations and the most claims listed as '
                    'ending soon, and the most warnings and errors '
                    'listed, newest first.'),
    cfg.IntOpt('refresh_seconds',
               default=15,
               min=1,
               help='Seconds between two reloads of the dashboard in a '
                    'browser that does not watch events (no JavaScript, '
                    'or no event feed to watch).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='dashboard')
