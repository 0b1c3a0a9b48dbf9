"""Options of the [reservations] group: allocations for a time window."""
from oslo_config import cfg

opts = [
    cfg.IntOpt('pre_margin',
               default=0,
               min=0,
               max=86400,
               help='Seconds a node is held before the start of a window '
                    '(start_at): the slot a windowed allocation holds '
                    'begins this much earlier, so that the node is ready '
                    'at start_at. A pool may set its own '
                    '(reservation_pre_margin).'),
    cfg.IntOpt('post_margin',
               default=1800,
               min=0,
               max=86400,
               help='Seconds a node is held after the end of an allocation '
                    'for its cleaning: the slot of a windowed allocation '
                    'ends this much after its end, and a window booked on '
                    'a node that an allocation holds starts no earlier '
                    'than this much after that allocation\'s '
                    'lifespan_end. A pool may set its own '
                    '(reservation_post_margin).'),
    cfg.FloatOpt('check_interval',
                 default=10.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'starts the scheduled allocations whose slot has '
                      'begun, and begins and ends maintenance windows '
                      '(any conductor: each is claimed with SKIP LOCKED). '
                      '0 disables it on this conductor.'),
    cfg.IntOpt('start_grace',
               default=300,
               min=0,
               help='Seconds after the start of its slot during which a '
                    'scheduled allocation waits for its node to become '
                    'free (its previous allocation is still being '
                    'cleaned, say); after that it fails with its '
                    'last_error.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='reservations')
