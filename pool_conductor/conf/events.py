"""Options of the [events] group."""
from oslo_config import cfg

opts = [
    cfg.FloatOpt('sequence_interval',
                 default=0.2,
                 min=0.01,
                 help='Seconds between two passes of a conductor that give '
                      'new events their cursors (in commit order), after '
                      'which watchers see them and notifications are sent. '
                      'A conductor also makes a pass at once after each '
                      'batch of allocations it serves.'),
    cfg.IntOpt('sequence_batch',
               default=1000,
               min=1,
               help='The most events one pass gives cursors to.'),
    cfg.FloatOpt('publish_interval',
                 default=1.0,
                 min=0.01,
                 help='Seconds between two passes of a conductor that '
                      'publish new events as notifications (in cursor '
                      'order, one conductor at a time), and mark them '
                      'published. Events below [DEFAULT] '
                      'notification_level, or all when it is unset, are '
                      'marked without being sent.'),
    cfg.IntOpt('publish_batch',
               default=100,
               min=1,
               help='The most events one transaction of the publisher '
                    'sends; a pass sends batches until none is left.'),
    cfg.IntOpt('retention_days',
               default=30,
               min=0,
               help='Events older than this many days are deleted once '
                    'published (0: as soon as they are).'),
    cfg.IntOpt('max_per_object',
               default=1000,
               min=0,
               help='The most events kept for one object (a node, an '
                    'allocation, ...): older ones are deleted (once '
                    'published). 0 keeps any number.'),
    cfg.FloatOpt('cleanup_interval',
                 default=3600,
                 min=0,
                 help='Seconds between two passes of a conductor that '
                      'delete the events past retention; 0 never deletes '
                      'any.'),
    cfg.IntOpt('cleanup_batch',
               default=1000,
               min=1,
               help='The most events one transaction of the cleanup '
                    'deletes.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='events')
