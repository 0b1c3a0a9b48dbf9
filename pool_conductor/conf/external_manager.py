"""Options of the [external_manager] group."""
from oslo_config import cfg

opts = [
    cfg.IntOpt('sync_interval', default=60, min=0,
               help='Seconds between two rounds of the reconciler of the '
                    'external managers: each round observes every node of '
                    'a manager with one batched call and acts on what '
                    'changed. A manager\'s own sync_interval overrides it. '
                    '0 disables the reconciler.'),
    cfg.IntOpt('observe_batch_size', default=1000, min=1,
               help='The most refs one call to a manager\'s observe() '
                    'asks about; a manager with more nodes is observed in '
                    'as many calls as needed, in one round.'),
    cfg.IntOpt('free_confirmations', default=2, min=1,
               help='How many consecutive rounds must see a held node\'s '
                    'hardware free before the reconciler releases the '
                    'hold and provides the node (through cleaning).'),
    cfg.IntOpt('unknown_threshold', default=3, min=1,
               help='How many consecutive rounds a manager may fail to '
                    'answer before its nodes are marked as in the '
                    'external state "unknown". No node changes otherwise '
                    'during an outage.'),
    cfg.BoolOpt('unknown_blocks_allocation', default=True,
                help='Whether an allocation passes over a node whose '
                     'external state is "unknown" (its manager has not '
                     'answered for unknown_threshold rounds).'),
    cfg.IntOpt('gone_grace', default=3600, min=0,
               help='Seconds a node\'s hardware may be missing from its '
                    'manager before the node is held (fault "external '
                    'gone").'),
    cfg.IntOpt('acquire_attempts', default=3, min=1,
               help='How many candidate nodes one allocation tries when '
                    'the other user of the hardware holds the ones it '
                    'chose: each such node is held and the next one '
                    'tried.'),
    cfg.StrOpt('spec_property', default='external_spec',
               help='The key of a node\'s properties whose value (an '
                    'object, e.g. the profile template to apply) is '
                    'given to the manager when pool acquires the node\'s '
                    'hardware.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='external_manager')
