"""Options of the [provisioner] group."""
from oslo_config import cfg

opts = [
    cfg.StrOpt('driver',
               default='external',
               help='The provisioner that runs the workflows of Building '
                    'and Destroying pool nodes: the name of an entry point '
                    'of the pool.provisioners namespace. "external": an '
                    'outside system runs them and reports each node\'s '
                    'stage and runnable with a node PATCH. "fake": the '
                    'conductors move the nodes through the stages of their '
                    'workflow themselves, one stage every '
                    'fake_stage_delay seconds (for tests and '
                    'demonstrations).'),
    cfg.FloatOpt('fake_stage_delay',
                 default=1.0,
                 min=0,
                 help='Seconds the fake provisioner spends in each stage '
                      'of a workflow.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='provisioner')
