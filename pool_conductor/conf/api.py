"""Options of the [api] group."""
from oslo_config import cfg

opts = [
    cfg.HostAddressOpt('host_ip',
                       default='127.0.0.1',
                       help='The IP address or hostname the API listens '
                            'on.'),
    cfg.PortOpt('port',
                default=6388,
                help='The TCP port the API listens on.'),
    cfg.IntOpt('workers',
               default=1,
               min=1,
               help='Number of API worker processes (pool-api only; '
                    'pool-server always runs one process).'),
    cfg.IntOpt('threads',
               default=16,
               min=1,
               help='Number of request threads per API worker process.'),
    cfg.IntOpt('max_active_requests',
               default=4,
               min=0,
               help='The most requests an API process runs at once; the '
                    'others wait in their request threads ([api] threads) '
                    'for a turn. A request takes its turn once it is '
                    'authenticated (a Keystone token\'s validation holds '
                    'none). A request that waits without using the '
                    'CPU (for events, for a node a conductor holds locked, '
                    'for a sandbox) gives its turn to another meanwhile. '
                    'Past a few requests at once, each takes longer on '
                    'the same cores, and so do the casts of new '
                    'allocations to conductors. 0 runs every request at '
                    'once.'),
    cfg.IntOpt('max_limit',
               default=1000,
               min=1,
               help='The largest number of items returned in a single '
                    'page of a collection; larger limit values are '
                    'capped to it.'),
    cfg.IntOpt('max_filters',
               default=64,
               min=1,
               help='The largest number of query parameters (filters, '
                    'paging and field selection together) a request may '
                    'have; a request with more is refused with 400 before '
                    'any query is built.'),
    cfg.FloatOpt('allocation_cast_interval',
                 default=0.05,
                 min=0,
                 help='Seconds between two messages of an API process to '
                      'the same conductor, and how long new claims go to '
                      'the same conductor. Allocations and nodes in a '
                      'provision state in progress queued for a conductor '
                      'meanwhile travel together in the next message: '
                      'under load this saves both sides the cost of a '
                      'message per allocation, at the price of up to this '
                      'much delay. 0 sends a message per allocation.'),
    cfg.FloatOpt('filter_statement_timeout',
                 default=5.0,
                 min=0,
                 help='Seconds a query with filters (node list filters, '
                      'the filter of a pool action) may run on PostgreSQL '
                      'or MariaDB before the database cancels it; the '
                      'request then answers 400. 0 sets no limit. SQLite '
                      'has no statement time limit; its regular '
                      'expressions run with RE2, in linear time.'),
    cfg.IntOpt('max_request_line',
               default=8190,
               min=64,
               max=8190,
               help='The longest request line (method, path with its '
                    'query string, protocol) the API reads, in bytes; a '
                    'longer one is refused with 414. 8190 at most (the '
                    'largest gunicorn reads).'),
    cfg.IntOpt('max_header_fields',
               default=100,
               min=1,
               max=32768,
               help='The largest number of header fields a request may '
                    'have; more is refused with 431.'),
    cfg.IntOpt('max_header_field_size',
               default=8190,
               min=64,
               help='The longest header field (name and value) the API '
                    'reads, in bytes; a longer one is refused with 431.'),
    cfg.FloatOpt('client_socket_timeout',
                 default=10.0,
                 min=0.1,
                 help='Seconds the API waits for the next bytes of a '
                      'request it is reading (its headers or its body); '
                      'a body that stops arriving is answered 400 and the '
                      'connection closed. pool-server also answers 408 to '
                      'a client that has not sent its request line and '
                      'headers this long after their first byte, and '
                      'closes connections idle for this long.'),
    cfg.FloatOpt('max_watch_wait',
                 default=60.0,
                 min=0,
                 help='The longest a request to GET /v1/events waits for '
                      'new events (its wait parameter is capped to it) '
                      'before it answers an empty page with the cursor. 0 '
                      'answers at once.'),
    cfg.FloatOpt('watch_poll_interval',
                 default=0.5,
                 min=0.01,
                 help='Seconds between two looks of an API process for new '
                      'events while requests to GET /v1/events wait: it '
                      'gives cursors to committed events (as conductors '
                      'do) and, on MariaDB and SQLite, reads the last '
                      'cursor given. On PostgreSQL the waiting requests '
                      'wake as soon as a cursor is given (LISTEN '
                      'pool_events).'),
    cfg.IntOpt('max_waiters',
               default=8,
               min=0,
               help='The most requests to GET /v1/events and blocking '
                    'pool actions an API process holds at once, waiting '
                    'for events; one more is answered 429 with a '
                    'Retry-After header. A waiting '
                    'request holds a request thread: at most [api] threads '
                    'minus one wait, so that a thread is always left for '
                    'other requests.'),
    cfg.StrOpt('public_endpoint',
               help='Public URL of the API, used in links of responses. '
                    'Defaults to the URL of the incoming request.'),
    cfg.BoolOpt('public_metrics',
                default=False,
                help='Whether /metrics answers callers that are not '
                     'authenticated. Off, a scrape authenticates as any API '
                     'call does and needs the policy rule pool:metrics:get '
                     '(system readers by default).'),
    cfg.IntOpt('max_allocation_candidates',
               default=1000,
               min=1,
               help='The most matching nodes a preview of an allocation '
                    '(/v1/allocation_candidates) lists; it counts every '
                    'match and every node left out whatever the limit.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='api')
