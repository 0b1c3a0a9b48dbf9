"""Options of the [windows] group: allocations for a time window.

The group was [reservations] before; oslo.config still reads its options
there (deprecated_group), so existing configuration files keep working.
"""
from oslo_config import cfg

opts = [
    cfg.IntOpt('pre_margin',
               deprecated_group='reservations',
               default=0,
               min=0,
               max=86400,
               help='Seconds a node is held before the start of a window '
                    '(start_at): the slot a windowed allocation holds '
                    'begins this much earlier, so that the node is ready '
                    'at start_at. A pool may set its own '
                    '(reservation_pre_margin).'),
    cfg.IntOpt('post_margin',
               deprecated_group='reservations',
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
                 deprecated_group='reservations',
                 default=10.0,
                 min=0,
                 help='Seconds between two rounds in which a conductor '
                      'starts the scheduled allocations whose slot has '
                      'begun, and begins and ends maintenance windows '
                      '(any conductor: each is claimed with SKIP LOCKED). '
                      '0 disables it on this conductor.'),
    cfg.IntOpt('autofill_horizon',
               deprecated_group='reservations',
               default=3600,
               min=0,
               help='Seconds ahead AutoFill looks at the windows of '
                    'scheduled allocations: the Free members of a pool '
                    'held by a slot that begins within this time are not '
                    'counted as Free by AutoFill (min_free, max_free), so '
                    'that its broker is asked for machines ahead of the '
                    'window\'s start. 0 disables it. A pool may set its '
                    'own (autofill.horizon).'),
    cfg.IntOpt('start_grace',
               deprecated_group='reservations',
               default=300,
               min=0,
               help='Seconds after the start of its slot during which a '
                    'scheduled allocation waits for its node to become '
                    'free (its previous allocation is still being '
                    'cleaned, say); after that it fails with its '
                    'last_error.'),
    cfg.IntOpt('max_advance',
               deprecated_group='reservations',
               default=0,
               min=0,
               help='Seconds ahead a window may start at most: a booking '
                    'whose start_at is later than now plus this is '
                    'refused (400). 0 allows any start; 2592000 is 30 '
                    'days.'),
    cfg.IntOpt('min_duration',
               deprecated_group='reservations',
               default=0,
               min=0,
               help='The shortest window in seconds (end_at minus '
                    'start_at); a shorter one is refused (400). 0 allows '
                    'any.'),
    cfg.IntOpt('max_duration',
               deprecated_group='reservations',
               default=0,
               min=0,
               help='The longest window in seconds; a longer booking, or '
                    'an extension (PATCH of lifespan_end) beyond it '
                    'counted from start_at, is refused (400). 0 allows '
                    'any (a pool\'s lifespan maximum still holds).'),
    cfg.IntOpt('granularity',
               deprecated_group='reservations',
               default=0,
               min=0,
               max=86400,
               help='Windows start and end on multiples of this many '
                    'seconds (counted from 1970-01-01T00:00:00Z): a '
                    'start_at or end_at off the grid is refused (400) '
                    'with the nearest times on it, not rounded. 60 gives '
                    'whole minutes; 0 allows any second.'),
    cfg.IntOpt('max_active_per_project',
               deprecated_group='reservations',
               default=0,
               min=0,
               help='How many started windows (allocating or active) a '
                    'project (the allocation\'s owner) may have at once; a '
                    'booking whose window would overlap that many of them '
                    'is refused (403). 0: no cap.'),
    cfg.IntOpt('max_future_per_project',
               deprecated_group='reservations',
               default=0,
               min=0,
               help='How many scheduled windows (booked, not yet started) '
                    'a project may have; one more is refused (403). 0: no '
                    'cap.'),
    cfg.FloatOpt('max_node_hours_per_project',
                 deprecated_group='reservations',
                 default=0,
                 min=0,
                 help='The machine-hours a project may hold in its '
                      'scheduled and started windows together (the whole '
                      'length of each, one machine each); a booking or an '
                      'extension beyond it is refused (403). 0: no cap.'),
    cfg.IntOpt('idle_reclaim_after',
               deprecated_group='reservations',
               default=0,
               min=0,
               help='Seconds after its start after which a window whose '
                    'node saw no deployment is released (event '
                    'pool.allocation.reclaimed), with a warning at half '
                    'that time (pool.allocation.idle_warning). A node saw '
                    'a deployment when its provision state is not '
                    'available, changed since the start, or its '
                    'instance_info is set. Checked in the rounds of '
                    'check_interval. 0 disables it.'),
    cfg.IntOpt('before_end',
               deprecated_group='reservations',
               default=3600,
               min=0,
               help='Seconds before the end of a started window at which '
                    'the event pool.allocation.before_end is emitted, once '
                    'per end (an extension announces its new end again). '
                    'Checked in the rounds of check_interval. 0 disables '
                    'it.'),
    cfg.IntOpt('max_count',
               deprecated_group='reservations',
               default=100,
               min=1,
               max=10000,
               help='The most nodes one reservation (POST '
                    '/v1/reservations) may ask for: a larger count.max is '
                    'a 400.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='windows')
