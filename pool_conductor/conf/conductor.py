"""Options of the [conductor] group."""
from oslo_config import cfg

opts = [
    cfg.StrOpt('conductor_group',
               default='',
               regex=r'^[a-zA-Z0-9_\-\.:]*$',
               max_length=255,
               help='The conductor group of this conductor, as in Ironic. '
                    'A node whose conductor_group is set is served only by '
                    'the conductors of that group (its provision state '
                    'changes are moved on by them); a node without one by '
                    'the conductors without one. Case-insensitive.'),
    cfg.IntOpt('heartbeat_interval',
               default=5,
               min=1,
               help='Seconds between conductor heartbeats.'),
    cfg.IntOpt('heartbeat_timeout',
               default=15,
               min=2,
               help='Seconds since the last heartbeat after which a '
                    'conductor is considered dead: no new allocation is '
                    'sent to it and its allocations are taken over.'),
    cfg.IntOpt('check_allocations_interval',
               default=5,
               min=0,
               help='Seconds between checks for allocations orphaned by '
                    'dead conductors. 0 disables the check, in which case '
                    'allocations of a dead conductor wait for it to '
                    'come back.'),
    cfg.FloatOpt('check_lifespans_interval',
                 default=10.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'releases the allocations whose lifespan_end has '
                      'passed (its own, and those of dead conductors), so '
                      'an allocation is released at most about this long '
                      'after its end. 0 disables it on this conductor.'),
    cfg.FloatOpt('check_provisioning_interval',
                 default=10.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'moves on the nodes left in a provision state in '
                      'progress (deploying, deleting, cleaning) whose '
                      'message was lost or whose conductor died. A node is '
                      'moved on at once by the conductor the API sends it '
                      'to; this round is the safety net. 0 disables it on '
                      'this conductor.'),
    cfg.FloatOpt('check_claims_interval',
                 default=1.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'binds the pending claims (its own, those of no '
                      'conductor and those of dead conductors), so a claim '
                      'is bound about this long after it is made. 0 '
                      'disables it on this conductor.'),
    cfg.FloatOpt('check_workflows_interval',
                 default=1.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'claims the Building and Destroying pool nodes no '
                      'live conductor drives (those of dead conductors '
                      'too) and has the provisioner ([provisioner] driver) '
                      'move its own nodes on in their workflows. 0 '
                      'disables it: this conductor then drives no '
                      'workflow.'),
    cfg.FloatOpt('check_autofill_interval',
                 default=5.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'keeps the pools with autofill within their bounds: '
                      'it takes the pools no live conductor fills (those '
                      'of dead conductors too), moves machines from their '
                      'acquire pools, has their brokers make and destroy '
                      'machines, and sends the excess to their return '
                      'pools. 0 disables it on this conductor.'),
    cfg.FloatOpt('broker_retry_interval',
                 default=10.0,
                 min=0,
                 help='Seconds before a machine whose creation by a broker '
                      'failed is asked for again; the wait doubles with '
                      'each failure of the same machine, up to 32 times '
                      'this.'),
    cfg.IntOpt('broker_workers',
               default=8,
               min=1,
               help='Broker calls (creations and destructions of machines) '
                    'a conductor makes at once in a round of AutoFill.'),
    cfg.IntOpt('allocation_workers',
               default=8,
               min=1,
               help='Number of threads of a conductor that process '
                    'allocations.'),
    cfg.IntOpt('allocation_batch_size',
               default=32,
               min=1,
               help='Largest number of queued allocations a worker thread '
                    'reserves nodes for in one database transaction. '
                    'Batches form only under load: a lone allocation is '
                    'processed at once. 1 processes every allocation on '
                    'its own.'),
    cfg.IntOpt('deadlock_retries',
               default=5,
               min=0,
               help='How many times a transaction that the database '
                    'aborted to break a deadlock is run again before the '
                    'request fails with 409 Conflict.'),
    cfg.IntOpt('node_locked_retry_attempts',
               default=3,
               min=0,
               help='How many times a change of a node that a conductor '
                    'holds locked is tried again before it fails with 409 '
                    'NodeLocked.'),
    cfg.FloatOpt('node_locked_retry_interval',
                 default=1.0,
                 min=0,
                 help='Seconds between two tries to change a locked '
                      'node.'),
    cfg.PortOpt('metrics_port',
                default=0,
                help='The port on which the conductor serves its '
                     'Prometheus metrics at /metrics (its counters and the '
                     'fleet\'s gauges), without authentication; 0: not '
                     'served. pool-api and pool-server serve theirs on the '
                     'API port instead.'),
    cfg.HostAddressOpt('metrics_host',
                       default='127.0.0.1',
                       help='The address metrics_port listens on.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='conductor')
